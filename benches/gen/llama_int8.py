#!/usr/bin/env python3
"""The `llama` fixture's model (testdata/generate.py `case_llama`) quantized two ways, for the
per-chip argument bytes of int8 programs against the float32 one (issue 25):

- `DIR/llama_int8_weights.pt2`: torchao's `Int8WeightOnlyConfig` (int8 weights with a scale
  per output channel) as exported, the weights stored as torchao's `Int8Tensor` subclass;
- `DIR/llama_int8_weights.core.pt2`: the same, decomposed (`run_decompositions()` unwraps the
  subclasses into plain int8 and float tensors);
- `DIR/llama_int4_weights.pt2`: torchao's `IntxWeightOnlyConfig` with int4 weights per group of
  32 (`IntxUnpackedToInt8Tensor`: int4 values held in int8);
- `DIR/llama_pt2e.pt2`: torchao's PT2E flow with the X86 inductor quantizer (int8 activations
  per tensor, int8 weights per channel; `quantized_decomposed` ops);

each with its input and its eager output (`NAME.in0.npy`, `NAME.out0.npy`). Not committed.
Run in a venv made from testdata/requirements.txt, then compare:

    python benches/gen/llama_int8.py DIR
    tpuc compile testdata/models/llama.pt2 --target tpu:v5e:1 --format json   # argument_bytes
    tpuc compile DIR/llama_int8_weights.core.pt2 --target tpu:v5e:1 --format json
    tpuc run DIR/llama_int8_weights.core.pt2 --input DIR/llama_int8_weights.core.in0.npy \\
        --expect DIR/llama_int8_weights.core.out0.npy --output-dir OUT
"""

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "testdata"))
import generate  # noqa: E402


def llama() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(generate.SEED)
    case = generate.case_llama(torch.Generator().manual_seed(generate.SEED))
    return case.model.eval(), case.input_sets[0]


def save(out: Path, name: str, program, model, args) -> None:
    torch.export.save(program, out / f"{name}.pt2")
    np.save(out / f"{name}.in0.npy", args[0].numpy())
    np.save(out / f"{name}.out0.npy", model(*args).detach().numpy())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    out = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)

    from torchao.quantization import Int8WeightOnlyConfig, quantize_

    model, args = llama()
    quantize_(model, Int8WeightOnlyConfig())
    program = torch.export.export(model, args)
    save(out, "llama_int8_weights", program, model, args)
    save(out, "llama_int8_weights.core", program.run_decompositions(), model, args)

    from torchao.quantization import IntxWeightOnlyConfig
    from torchao.quantization.granularity import PerGroup

    model, args = llama()
    quantize_(model, IntxWeightOnlyConfig(weight_dtype=torch.int4, granularity=PerGroup(32)))
    save(out, "llama_int4_weights", torch.export.export(model, args), model, args)

    import torchao.quantization.pt2e.quantizer.x86_inductor_quantizer as x86
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    model, args = llama()
    captured = torch.export.export(model, args).module()
    quantizer = x86.X86InductorQuantizer().set_global(x86.get_default_x86_inductor_quantization_config())
    prepared = prepare_pt2e(captured, quantizer)
    prepared(*args)
    converted = convert_pt2e(prepared)
    save(out, "llama_pt2e", torch.export.export(converted, args), converted, args)


if __name__ == "__main__":
    main()
