#!/usr/bin/env python3
"""The larger configurations of the TPU cost benchmark, laid out like `../shared/peers`:
`OUT/models/<name>.pt2` (as exported, random weights, eval mode) and `OUT/torch_xla/<name>.mlir`
(torch_xla's StableHLO for the same program, loaded back), for

    llama125m   transformers LlamaForCausalLM, 768 wide, 12 layers, 12 heads / 4 kv heads,
                vocab 32000, sdpa; i64[1,512]
    bert_base   transformers BertModel (bert-base's shape), padded mask; ids + mask i64[1,512]
    resnet50    torchvision resnet50; f32[1,3,224,224]

Not committed (about 1.4 GB). torch_xla pins torch, so this runs in its own venv:

    python3 -m venv V && V/bin/pip install torch==2.9.0 torchvision==0.24.0 torch_xla==2.9.0 \
        transformers==5.24.0 numpy
    PJRT_DEVICE=CPU V/bin/python benches/gen/tpu_cost_large.py OUT [NAME...]
    cargo bench -p tpuc-benches --bench tpu_cost -- --large OUT
"""

import argparse
from pathlib import Path

import numpy as np
import torch


def llama125m():
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=32000,
        hidden_size=768,
        intermediate_size=2048,
        num_hidden_layers=12,
        num_attention_heads=12,
        num_key_value_heads=4,
        max_position_embeddings=1024,
        attn_implementation="sdpa",
    )
    model = LlamaForCausalLM(config)
    model.config.use_cache = False
    ids = torch.randint(0, config.vocab_size, (1, 512))
    return model, (ids,)


def bert_base():
    from transformers import BertConfig, BertModel

    config = BertConfig(max_position_embeddings=512, attn_implementation="eager")
    model = BertModel(config)
    ids = torch.randint(0, config.vocab_size, (1, 512))
    mask = torch.ones(1, 512, dtype=torch.int64)
    mask[:, 400:] = 0
    return model, (ids, mask)


def resnet50():
    from torchvision.models import resnet50 as build

    return build(weights=None), (torch.randn(1, 3, 224, 224),)


MODELS = {"llama125m": llama125m, "bert_base": bert_base, "resnet50": resnet50}


class Outputs(torch.nn.Module):
    """The model's tensors only, as a tuple (transformers return dataclasses)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, *args):
        out = self.model(*args)
        if isinstance(out, torch.Tensor):
            return (out,)
        return tuple(v for v in out.values() if isinstance(v, torch.Tensor))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("names", nargs="*", default=list(MODELS))
    args = parser.parse_args()
    out = Path(args.out)
    (out / "models").mkdir(parents=True, exist_ok=True)
    (out / "torch_xla").mkdir(parents=True, exist_ok=True)
    for name in args.names:
        torch.manual_seed(0)
        model, inputs = MODELS[name]()
        model = Outputs(model).eval()
        ep = torch.export.export(model, inputs, strict=False)
        with torch.no_grad():
            refs = model(*inputs)
        torch.export.save(ep, out / "models" / f"{name}.pt2")
        for i, x in enumerate(inputs):
            np.save(out / "models" / f"{name}.in{i}.npy", x.numpy())
        for j, y in enumerate(refs):
            np.save(out / "models" / f"{name}.ref{j}.npy", y.numpy())
        print(f"{name}: {sum(p.numel() for p in model.parameters()) / 1e6:.0f} M parameters")

    # Imported only now: once torch_xla is loaded, torch.export records a node that
    # torch.export.save cannot serialize.
    from torch_xla.stablehlo import exported_program_to_stablehlo

    for name in args.names:
        ep = torch.export.load(out / "models" / f"{name}.pt2")
        text = exported_program_to_stablehlo(ep).get_stablehlo_text("forward")
        (out / "torch_xla" / f"{name}.mlir").write_text(text)
        print(f"{name}: torch_xla's StableHLO written")

if __name__ == "__main__":
    main()
