#!/usr/bin/env python3
"""A loss-only export of a 1.1B-parameter Llama (TinyLlama's shape) with random weights, for
`cargo bench -p tpuc-benches --bench training -- --llama-1b OUT.pt2`. Not committed: about
4.4 GB. Run in a venv made from testdata/requirements.txt:

    python benches/gen/llama_1b.py OUT.pt2 [--seq 512] [--batch 8]
"""

import argparse
import sys
from pathlib import Path

import torch
from transformers import LlamaConfig, LlamaForCausalLM

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "testdata" / "training"))
from generate_training import CausalLmLoss  # noqa: E402  (the training fixtures' loss)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--seq", type=int, default=512)
    parser.add_argument("--batch", type=int, default=8)
    args = parser.parse_args()
    config = LlamaConfig(
        vocab_size=32000,
        hidden_size=2048,
        intermediate_size=5632,
        num_hidden_layers=22,
        num_attention_heads=32,
        num_key_value_heads=4,
        max_position_embeddings=2048,
        attention_dropout=0.0,
        attn_implementation="sdpa",
    )
    torch.manual_seed(0)
    model = CausalLmLoss(LlamaForCausalLM(config)).train()
    count = sum(p.numel() for p in model.parameters())
    print(f"{count / 1e9:.2f} B parameters")
    ids = torch.randint(0, config.vocab_size, (args.batch, args.seq))
    ep = torch.export.export(model, (ids, ids.clone()))
    torch.export.save(ep, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
