#!/usr/bin/env python3
"""Export torch's OpInfo samples as loss-only training programs, with autograd's gradients.

For every OpInfo of `torch.testing._internal.common_methods_invocations.op_db` that
testdata/opinfo.py covers (its ATen op is one tpuc registers) and that supports autograd (the
others are listed in the manifest as not differentiable), up to
SAMPLES float32 samples of `sample_inputs(..., requires_grad=True)` become one loss each: the
sample's tensors that require grad are `nn.Parameter`s (`p0`, `p1`, ... numbered across the
group), its other tensors buffers, and the loss is `sum((out * ct).sum())` over the op's
differentiable results (after the sample's `output_process_fn_grad`, as torch's gradient tests
do) with fixed random cotangents `ct` (buffers). GROUP OpInfos share one program
(`opinfo_grad/groupK.pt2`, torch.export's training dialect), whose forward returns

    (group loss, one loss per OpInfo, one loss per sample)

where a loss of several is their sum: the parameters of different samples are distinct, so the
group loss's gradient with respect to a parameter is its sample's. A test lowers the group's
program (every gradient at once) or, where that fails, one OpInfo's or one sample's loss
(`LowerOptions::outputs`, the loss first). `groupK.grads.npy` holds `loss.backward()`'s
gradients (float64 copies of float32, flattened and joined); `opinfo_grad/manifest.json` says,
per OpInfo, which outputs are its losses, each sample's parameters (name, which argument of the
op, shape, offset in the gradients) and expected loss, and why a sample or OpInfo was left out.

Usage (from the repository root, in the venv of testdata/requirements.txt):

    python testdata/opinfo_grad.py        # every OpInfo; rewrites testdata/opinfo_grad/
    python testdata/opinfo_grad.py KEY... # only these OpInfos, printed, nothing written
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.utils import _pytree as pytree

sys.path.insert(0, str(Path(__file__).resolve().parent))
import opinfo  # noqa: E402  (the OpInfo selection and sample checks of the forward suite)

HERE = Path(__file__).resolve().parent
OUT = HERE / "opinfo_grad"
MANIFEST = OUT / "manifest.json"
SAMPLES = 2
GROUP = 10
SEED = 0
# The reason recorded for the OpInfos of testdata/opinfo.py that autograd does not support
# (comparisons, bitwise and logical ops, factories, argmax...).
NOT_DIFFERENTIABLE = "not differentiable (its OpInfo has supports_autograd=False)"


def leaf_paths(sample) -> tuple[list, list[str], object]:
    """The sample's leaves, where each is among the op's arguments (`input`, `args[1]`,
    `weight`, `args[0][2]`), and the tree's spec."""
    flat_paths, spec = pytree.tree_flatten_with_path((sample.input, sample.args, sample.kwargs))
    leaves, names = [], []
    for path, leaf in flat_paths:
        first, rest = path[0].idx, path[1:]
        if first == 0:
            name = "input"
        elif first == 1:
            name, rest = f"args[{rest[0].idx}]", rest[1:]
        else:
            name, rest = rest[0].key, rest[1:]
        name += "".join(pytree.keystr([k]) for k in rest)
        leaves.append(leaf)
        names.append(name)
    return leaves, names, spec


class Call:
    """One sample: the op's leaves as parameters (those that require grad), buffers (other
    tensors) or constants, and which of its results the loss weights with which cotangent."""

    def __init__(self, op, sample, first: int) -> None:
        self.op, self.process = op, sample.output_process_fn_grad
        leaves, self.names, self.spec = leaf_paths(sample)
        self.slots: list[tuple[str, object]] = []
        self.params: list[tuple[str, str, torch.Tensor]] = []  # (name, argument, value)
        self.buffers: list[tuple[str, torch.Tensor]] = []
        for leaf, where in zip(leaves, self.names):
            if isinstance(leaf, torch.Tensor):
                value = leaf.detach().clone().contiguous()
                if leaf.requires_grad and value.is_floating_point():
                    name = f"p{first + len(self.params)}"
                    self.params.append((name, where, value))
                    self.slots.append(("p", name))
                else:
                    self.buffers.append((where, value))
                    self.slots.append(("b", len(self.buffers) - 1))
            else:
                self.slots.append(("v", leaf))
        self.differentiable: list[int] = []
        self.cotangents: list[torch.Tensor] = []

    def outputs(self, get) -> list[torch.Tensor]:
        leaves = [get(kind, v) if kind != "v" else v for kind, v in self.slots]
        x, args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        return opinfo.flat(self.process(self.op(x, *args, **kwargs)))

    def choose_cotangents(self, generator: torch.Generator) -> str | None:
        """Finds the differentiable results and draws their cotangents; why not, or None."""
        params = {name: nn.Parameter(v.clone()) for name, _, v in self.params}
        outs = self.outputs(lambda kind, v: params[v] if kind == "p" else self.buffers[v][1].clone())
        self.differentiable = [i for i, o in enumerate(outs) if o.requires_grad and o.is_floating_point()]
        if not self.differentiable:
            return "no result depends differentiably on the inputs"
        self.cotangents = [torch.randn(outs[i].shape, generator=generator, dtype=outs[i].dtype)
                           for i in self.differentiable]
        return None

    def loss(self, get) -> torch.Tensor:
        outs = self.outputs(get)
        return sum((outs[i] * ct).sum() for i, ct in zip(self.differentiable, self.cotangents))


class Losses(nn.Module):
    """The group's program: its calls' losses, summed per OpInfo and over the group."""

    def __init__(self, entries: list[list[Call]]) -> None:
        super().__init__()
        self.entries = entries
        for e, calls in enumerate(entries):
            for s, call in enumerate(calls):
                for name, _, value in call.params:
                    self.register_parameter(name, nn.Parameter(value.clone()))
                for b, (_, value) in enumerate(call.buffers):
                    self.register_buffer(f"b{e}_{s}_{b}", value.clone())
                for c, ct in enumerate(call.cotangents):
                    self.register_buffer(f"ct{e}_{s}_{c}", ct.clone())

    def forward(self) -> tuple[torch.Tensor, ...]:
        per_entry, per_sample = [], []
        for e, calls in enumerate(self.entries):
            losses = []
            for s, call in enumerate(calls):
                def get(kind, v, e=e, s=s):
                    return getattr(self, v) if kind == "p" else getattr(self, f"b{e}_{s}_{v}")
                outs = call.outputs(get)
                terms = [(outs[i] * getattr(self, f"ct{e}_{s}_{c}")).sum()
                         for c, i in enumerate(call.differentiable)]
                losses.append(sum(terms[1:], terms[0]))
            per_sample.extend(losses)
            per_entry.append(sum(losses[1:], losses[0]))
        return (sum(per_entry[1:], per_entry[0]), *per_entry, *per_sample)


def export(model: nn.Module):
    return torch.export.export(model, ())


def select(op, first: int, generator: torch.Generator) -> tuple[dict, list]:
    """The OpInfo's manifest entry so far and its usable samples (position, Call)."""
    entry: dict = {"opinfo": op.name, "variant": op.variant_test_name, "skipped": []}
    if torch.float32 not in op.supported_backward_dtypes("cpu"):
        entry["refused"] = "no float32 backward on CPU"
        return entry, []
    try:
        samples = list(op.sample_inputs("cpu", torch.float32, requires_grad=True))
    except Exception as e:  # noqa: BLE001 - torch raises many kinds
        entry["refused"] = f"sample_inputs raises {type(e).__name__}"
        return entry, []
    kept = []
    for i, s in enumerate(samples):
        if len(kept) == SAMPLES:
            break
        why = opinfo.usable(op, s)
        call = None
        if why is None:
            call = Call(op, s, first)
            if not call.params:
                why = "no float input requires grad"
        if why is None:
            try:
                why = call.choose_cotangents(generator)
            except Exception as e:  # noqa: BLE001
                why = f"eager raises {type(e).__name__} with inputs that require grad"
        if why is None:
            try:
                export(Losses([[call]]))
            except Exception as e:  # noqa: BLE001
                why = f"torch.export raises {type(e).__name__}"
        if why is None:
            kept.append((i, call))
            first += len(call.params)
        else:
            entry["skipped"].append({"sample": i, "why": why})
    if not kept:
        entry["refused"] = "no sample exports"
    return entry, kept


def generate_group(name: str, members: list, manifest: dict) -> None:
    entries = [[call for _, call in kept] for _, _, kept in members]
    model = Losses(entries)
    ep = export(model)
    eager = Losses(entries)
    losses = eager()
    losses[0].backward()
    grads = dict(eager.named_parameters())
    parts, offset = [], 0
    n_entries = len(entries)
    sample_output = 1 + n_entries
    for e, (op, entry, kept) in enumerate(members):
        samples = []
        for i, call in kept:
            params = []
            for pname, where, value in call.params:
                g = grads[pname].grad
                g = torch.zeros_like(value) if g is None else g
                values = g.detach().to(torch.float64).flatten().numpy()
                params.append({"name": pname, "argument": where, "shape": list(value.shape), "offset": offset})
                parts.append(values)
                offset += values.size
            loss = losses[sample_output].item()
            # JSON has no infinities or NaN: those are written as text ("inf", "nan").
            samples.append({"sample": i, "output": sample_output,
                            "loss": loss if np.isfinite(loss) else str(loss), "params": params})
            sample_output += 1
        entry.update({"group": name, "output": 1 + e, "samples": samples})
        manifest["ops"][opinfo.key(op)] = entry
    opinfo.strip(ep)
    ep.example_inputs = None
    path = OUT / f"{name}.pt2"
    torch.export.save(ep, path)
    data = path.read_bytes()
    assert not any(f in data for f in opinfo.FORBIDDEN), f"{path.name} names the machine"
    np.save(OUT / f"{name}.grads.npy", np.concatenate(parts), allow_pickle=False)
    manifest["groups"][name] = {"pt2": f"{name}.pt2", "grads": f"{name}.grads.npy"}


def main(argv: list[str]) -> int:
    if os.environ.get("PYTHONHASHSEED") != "0":
        # Some OpInfos draw their samples from sets of strings (meshgrid's `indexing`), whose
        # order follows the string hash: fix it, so the fixtures do not change between runs.
        os.execve(sys.executable, [sys.executable, __file__, *argv], {**os.environ, "PYTHONHASHSEED": "0"})
    only = argv
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    ops = [o for o in opinfo.covered() if o.supports_autograd]
    if only:
        ops = [o for o in ops if opinfo.key(o) in only]
    else:
        OUT.mkdir(exist_ok=True)
        for stale in [*OUT.glob("*.pt2"), *OUT.glob("*.npy")]:
            stale.unlink()
    manifest: dict = {"ops": {}, "groups": {}}
    for op in opinfo.covered():
        if not op.supports_autograd and not only:
            manifest["ops"][opinfo.key(op)] = {
                "opinfo": op.name, "variant": op.variant_test_name, "skipped": [],
                "refused": NOT_DIFFERENTIABLE}
    members, group, first = [], 0, 0
    for n, op in enumerate(ops):
        print(f"[{opinfo.key(op)}]", flush=True)
        torch.manual_seed(SEED)
        generator = torch.Generator().manual_seed(SEED)
        entry, kept = select(op, first, generator)
        if kept:
            members.append((op, entry, kept))
            first += sum(len(call.params) for _, call in kept)
        else:
            manifest["ops"][opinfo.key(op)] = entry
        if only:
            print(json.dumps(entry, indent=1))
            continue
        if len(members) == GROUP or (members and n == len(ops) - 1):
            generate_group(f"group{group:02}", members, manifest)
            group, members, first = group + 1, [], 0
    if not only:
        manifest["torch_version"] = torch.__version__
        MANIFEST.write_text(json.dumps(manifest, indent=1, sort_keys=True, allow_nan=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
