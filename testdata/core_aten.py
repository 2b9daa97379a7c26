#!/usr/bin/env python3
"""Write testdata/core_aten.json: every overload of the pinned torch's core ATen opset (ops
tagged `torch.Tag.core`), as `name.overload`, sorted. tpuc's tests check that each lowers or
is listed with its reason (crates/front/lower/src/not_lowered.rs), and docs/opinfo.md counts
which of them torch's OpInfo samples and the fixtures exercise.

Usage (from the repository root, in the venv of testdata/requirements.txt):

    python testdata/core_aten.py
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

OUT = Path(__file__).resolve().parent / "core_aten.json"


def core_overloads() -> list[str]:
    found = set()
    for name in torch.ops.aten:
        packet = getattr(torch.ops.aten, name)
        for overload in packet.overloads():
            if torch.Tag.core in getattr(packet, overload).tags:
                found.add(f"{name}.{overload}")
    return sorted(found)


def main() -> None:
    ops = core_overloads()
    OUT.write_text(json.dumps({"torch_version": torch.__version__, "ops": ops}, indent=1) + "\n")
    print(f"{len(ops)} core ATen overloads -> {OUT.name}")


if __name__ == "__main__":
    main()
