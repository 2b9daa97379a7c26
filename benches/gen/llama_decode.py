#!/usr/bin/env python3
"""A static-KV-cache decode step of a Llama with random weights (default: 24 layers of width
1024, 8 KV heads, vocabulary 32000, cache 2048: ~0.4 B parameters, a 200 MB float32 cache),
made with transformers' `convert_and_export_with_cache`, for
`cargo bench -p tpuc-benches --bench serving -- --decode OUT.pt2`. Not committed (about
1.6 GB). Run in a venv made from testdata/requirements.txt:

    python benches/gen/llama_decode.py OUT.pt2 [--layers 24] [--cache 2048]
"""

import argparse

import torch
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM
from transformers.integrations.executorch import convert_and_export_with_cache


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--layers", type=int, default=24)
    parser.add_argument("--cache", type=int, default=2048)
    args = parser.parse_args()
    config = LlamaConfig(
        vocab_size=32000,
        hidden_size=1024,
        intermediate_size=2816,
        num_hidden_layers=args.layers,
        num_attention_heads=16,
        num_key_value_heads=8,
        max_position_embeddings=args.cache,
    )
    torch.manual_seed(0)
    model = LlamaForCausalLM(config).eval()
    model.generation_config = GenerationConfig(
        use_cache=True,
        cache_implementation="static",
        max_length=args.cache,
        cache_config={"batch_size": 1, "max_cache_len": args.cache},
    )
    count = sum(p.numel() for p in model.parameters())
    print(f"{count / 1e9:.2f} B parameters")
    torch.export.save(convert_and_export_with_cache(model), args.out)


if __name__ == "__main__":
    main()
