#!/usr/bin/env python3
"""Export torch's own per-op test inputs (OpInfo sample inputs) as tpuc fixtures.

For every OpInfo of `torch.testing._internal.common_methods_invocations.op_db` whose ATen op
tpuc registers (by name; see docs/ops.md), up to SAMPLES float32 samples are exported, and up to
DTYPE_SAMPLES (the first usable in eager; one that then does not export is dropped, not
replaced) in each of EXTRA_DTYPES the OpInfo supports on CPU: bfloat16, float16, one integer
type (int64, or int32 when the OpInfo has no int64), bool and complex64, as entries
`KEY.DTYPE`. Fewer samples in the extra dtypes (2 rather than 4) keep testdata/opinfo/ near
16 MB (4.7 MB of it float32); they test dtype handling (promotion, integer, boolean and complex
semantics, half-type accumulation), the float32 ones the op. GROUP OpInfos share one program
per dialect (`opinfo/groupK.pt2`, `opinfo/groupK.core.pt2`): each sample's tensors are buffers
of the module and its results user outputs, so a test lowers the slice of any samples it
chooses (`LowerOptions::outputs`). `opinfo/groupK.expected.npy` holds eager's outputs flattened
and joined as float64, a complex element as two values (its real, then its imaginary part, as
numpy lays out complex arrays); `opinfo/manifest.json` says, per OpInfo, which outputs are its
samples', where their values are, and why a sample was left out.

Usage (from the repository root, in the venv of testdata/requirements.txt):

    python testdata/opinfo.py            # every covered OpInfo; rewrites testdata/opinfo/
    python testdata/opinfo.py KEY...     # only these new OpInfos (manifest keys such as
                                         # `as_strided_partial_views`), into new groups
    python testdata/opinfo.py --dtype bfloat16,integer [KEY...]
                                         # these OpInfos' (default: every covered OpInfo's)
                                         # samples in other dtypes (`integer`: int64 or int32,
                                         # as the OpInfo has), as entries `KEY.bfloat16` and so
                                         # on that the manifest does not hold yet

A full run exports the float32 entries first, then each of EXTRA_DTYPES in turn.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.testing._internal.common_methods_invocations import op_db
from torch.utils import _pytree as pytree

HERE = Path(__file__).resolve().parent
OUT = HERE / "opinfo"
MANIFEST = OUT / "manifest.json"
SAMPLES = 4
# Per OpInfo in a dtype other than float32.
DTYPE_SAMPLES = 2
# The dtypes exported besides float32, for every OpInfo that has them; `integer` is int64, or
# int32 for an OpInfo without int64.
EXTRA_DTYPES = ["bfloat16", "float16", "integer", "bool", "complex64"]
# Elements a sample may hold (inputs and results, each), to keep testdata/ small.
MAX_ELEMENTS = 1024
GROUP = 10
# Values torch does not define (uninitialised memory) or that depend on a random generator.
NONDETERMINISTIC = {
    "empty", "empty_like", "new_empty", "empty_strided", "empty_permuted", "bernoulli", "normal",
}
# Ops whose indices torch leaves unspecified among equal values (its CPU kernel's choice is not
# stable); their samples with repeated values (common in integer and half types) are left out.
TIES_UNSPECIFIED = {"topk"}
TOL = {"rtol": 1.3e-6 * 100, "atol": 1e-5}
# A few roundings of the narrow float types (torch and XLA round intermediate results at
# different places): about 2 machine epsilons of bfloat16 (2^-7) and 4 of float16 (2^-10), with
# reductions accumulated in float32 as torch does; integer and boolean results compare exactly,
# complex64 ones part by part as float32.
DTYPE_TOL = {
    torch.float32: TOL,
    torch.complex64: TOL,
    torch.bfloat16: {"rtol": 1.6e-2, "atol": 1e-2},
    torch.float16: {"rtol": 4e-3, "atol": 1e-3},
}
FORBIDDEN = [b"/work", b"/root", b"/home", b"/tmp", b"site-packages", b"/usr/"]


def registered_names() -> set[str]:
    """The ops docs/ops.md lists as lowered (not those of its "Not lowered" section)."""
    doc = (HERE.parent / "docs" / "ops.md").read_text().split("\n## Not lowered")[0]
    return {t.split(".")[0] for t in re.findall(r"^\| `torch\.ops\.aten\.([^`]+)`", doc, re.M)}


def extra_dtype(opinfo, kind: str) -> torch.dtype | None:
    """The dtype of `kind` (an EXTRA_DTYPES entry or a torch dtype name) the OpInfo supports."""
    candidates = [torch.int64, torch.int32] if kind == "integer" else [getattr(torch, kind)]
    supported = opinfo.supported_dtypes("cpu")
    return next((d for d in candidates if d in supported), None)


# OpInfos whose `aten_name` is not the ATen op their samples call.
ATEN_NAMES = {
    "nn.functional.pad": "pad",
    "cdist": "_cdist_forward",
    "nn.functional.pdist": "_pdist_forward",
    "fft.fftshift": "fft_fftshift",
    "fft.ifftshift": "fft_ifftshift",
    "nn.functional.mse_loss": "mse_loss",
    "nn.functional.adaptive_avg_pool1d": "adaptive_avg_pool1d",
}


def covered() -> list:
    names = registered_names() - NONDETERMINISTIC
    ops = [
        o
        for o in op_db
        if ATEN_NAMES.get(o.aten_name, o.aten_name or o.name) in names and o.supports_out is not None
    ]
    return sorted(ops, key=lambda o: (o.name, o.variant_test_name))


def key(opinfo) -> str:
    name = opinfo.name.replace(".", "_")
    return f"{name}_{opinfo.variant_test_name}" if opinfo.variant_test_name else name


class Samples(nn.Module):
    """Calls the op on each sample; every tensor of a sample is a buffer."""

    def __init__(self, calls: list) -> None:
        super().__init__()
        self.calls = []
        n = 0
        for op, s in calls:
            leaves, spec = pytree.tree_flatten((s.input, s.args, s.kwargs))
            slots = []
            for leaf in leaves:
                if isinstance(leaf, torch.Tensor):
                    self.register_buffer(f"t{n}", leaf.detach().resolve_conj().clone())
                    slots.append(("t", f"t{n}"))
                    n += 1
                else:
                    slots.append(("v", leaf))
            self.calls.append((op, slots, spec))

    def forward(self) -> list[torch.Tensor]:
        outputs = []
        for op, slots, spec in self.calls:
            leaves = [getattr(self, v) if kind == "t" else v for kind, v in slots]
            x, args, kwargs = pytree.tree_unflatten(leaves, spec)
            outputs.extend(flat(op(x, *args, **kwargs)))
        return outputs


def flat(value) -> list[torch.Tensor]:
    return [t for t in pytree.tree_leaves(value) if isinstance(t, torch.Tensor)]


def usable(opinfo, sample) -> str | None:
    """Why the sample is left out, or None."""
    try:
        outs = flat(opinfo.op(sample.input, *sample.args, **sample.kwargs))
    except Exception as e:  # noqa: BLE001 - torch raises many kinds
        return f"eager raises {type(e).__name__}"
    if not outs:
        return "no tensor result"
    # The program holds contiguous copies of the inputs; a result that depends on their storage
    # (as_strided of a partial view) is not what the exported program computes.
    copies = pytree.tree_map(lambda t: t.clone() if isinstance(t, torch.Tensor) else t,
                             (sample.input, sample.args, sample.kwargs))
    try:
        again = flat(opinfo.op(copies[0], *copies[1], **copies[2]))
    except Exception as e:  # noqa: BLE001
        return f"eager raises {type(e).__name__} on contiguous copies of the inputs"
    if len(again) != len(outs) or any(
        a.shape != o.shape or not torch.equal(a, o) for a, o in zip(again, outs) if not o.isnan().any()
    ):
        return "the result depends on the inputs' storage, which the exported program does not keep"
    if opinfo.name in TIES_UNSPECIFIED and sample.input.unique().numel() < sample.input.numel():
        return "repeated values, among which torch does not specify which index it returns"
    inputs = flat((sample.input, sample.args, sample.kwargs))
    if sum(t.numel() for t in inputs) > MAX_ELEMENTS or sum(t.numel() for t in outs) > MAX_ELEMENTS:
        return f"more than {MAX_ELEMENTS} elements"
    if any(t.dtype in (torch.float64, torch.complex128) or t.numel() == 0 for t in outs):
        return "float64, complex128 or empty result"
    if any(t.is_sparse or t.layout != torch.strided for t in outs):
        return "non-strided result"
    return None


def export_both(model: nn.Module):
    ep = torch.export.export(model, ())
    core = ep.run_decompositions()
    return ep, core


def strip(ep) -> None:
    """Node metadata that only makes archives larger (the stack is the generator's)."""
    for m in ep.graph_module.modules():
        if isinstance(m, torch.fx.GraphModule):
            for node in m.graph.nodes:
                for k in ("stack_trace", "nn_module_stack", "source_fn_stack", "from_node", "seq_nr"):
                    node.meta.pop(k, None)


def select(opinfo, dtype: torch.dtype) -> tuple[dict, list]:
    """The OpInfo's manifest entry so far and its usable samples of `dtype` (with their
    positions in the OpInfo's list)."""
    entry: dict = {"opinfo": opinfo.name, "variant": opinfo.variant_test_name, "skipped": []}
    if dtype != torch.float32:
        entry["dtype"] = str(dtype).removeprefix("torch.")
    try:
        samples = list(opinfo.sample_inputs("cpu", dtype, requires_grad=False))
    except Exception as e:  # noqa: BLE001
        entry["refused"] = f"sample_inputs raises {type(e).__name__}"
        return entry, []
    kept = []
    limit = SAMPLES if dtype == torch.float32 else DTYPE_SAMPLES
    # Exporting each float32 sample alone first lets a later sample replace one that does not
    # export; the extra dtypes are exported only as a group (much faster), see `exported`.
    trial = dtype == torch.float32
    for i, s in enumerate(samples):
        if len(kept) == limit:
            break
        why = usable(opinfo, s)
        if why is None and trial:
            try:
                export_both(Samples([(opinfo.op, s)]))
            except Exception as e:  # noqa: BLE001
                why = f"torch.export raises {type(e).__name__}"
        if why is None:
            kept.append((i, s))
        else:
            entry["skipped"].append({"sample": i, "why": why})
    if not kept:
        entry["refused"] = "no sample exports"
    return entry, kept


def exported(members: list, manifest: dict):
    """The group's programs; when they do not export, the members without the samples that do
    not export alone (members left without any are recorded as refused)."""
    try:
        return members, export_both(Samples([(o.op, s) for o, _, kept in members for _, s in kept]))
    except Exception:  # noqa: BLE001 - one sample's failure; find it below
        pass
    left = []
    for opinfo, entry, kept in members:
        good = []
        for i, s in kept:
            try:
                export_both(Samples([(opinfo.op, s)]))
                good.append((i, s))
            except Exception as e:  # noqa: BLE001
                entry["skipped"].append({"sample": i, "why": f"torch.export raises {type(e).__name__}"})
        if good:
            left.append((opinfo, entry, good))
        else:
            entry["refused"] = "no sample exports"
            manifest["ops"][entry_key(opinfo, getattr(torch, entry.get("dtype", "float32")))] = entry
    return left, export_both(Samples([(o.op, s) for o, _, kept in left for _, s in kept]))


def generate_group(name: str, members: list, manifest: dict) -> None:
    members, (ep, core) = exported(members, manifest)
    parts, offset, output = [], 0, 0
    for opinfo, entry, kept in members:
        samples = []
        for _, s in kept:
            with torch.no_grad():
                outs = flat(opinfo.op(s.input, *s.args, **s.kwargs))
            described = []
            for t in outs:
                t = t.detach().resolve_conj()
                values = (torch.view_as_real(t) if t.is_complex() else t).to(torch.float64).flatten().numpy()
                described.append({"output": output, "dtype": str(t.dtype).removeprefix("torch."),
                                  "shape": list(t.shape), "offset": offset})
                parts.append(values)
                offset += values.size
                output += 1
            samples.append(described)
        dtype = getattr(torch, entry.get("dtype", "float32"))
        entry.update({"group": name, "samples": samples, "tolerance": DTYPE_TOL.get(dtype, TOL)})
        manifest["ops"][entry_key(opinfo, dtype)] = entry
    for program, suffix in ((ep, ""), (core, ".core")):
        strip(program)
        program.example_inputs = None
        path = OUT / f"{name}{suffix}.pt2"
        torch.export.save(program, path)
        data = path.read_bytes()
        assert not any(f in data for f in FORBIDDEN), f"{path.name} names the machine"
    np.save(OUT / f"{name}.expected.npy", np.concatenate(parts), allow_pickle=False)
    manifest["groups"][name] = {"pt2": f"{name}.pt2", "core": f"{name}.core.pt2", "expected": f"{name}.expected.npy"}


def entry_key_of(name: str, dtype: torch.dtype) -> str:
    return name if dtype == torch.float32 else f"{name}.{str(dtype).removeprefix('torch.')}"


def entry_key(opinfo, dtype: torch.dtype) -> str:
    """The manifest key: the OpInfo's, with the dtype appended when it is not float32."""
    return entry_key_of(key(opinfo), dtype)


def chosen(kinds: list[str], only: list[str]) -> list:
    """The (OpInfo, dtype) pairs of these dtype kinds and OpInfo keys (all when none are named),
    float32 first and then each kind in turn, so a full run keeps the float32 groups first."""
    pairs = []
    for kind in kinds:
        for opinfo in covered():
            if only and key(opinfo) not in only:
                continue
            dtype = torch.float32 if kind == "float32" else extra_dtype(opinfo, kind)
            if dtype is not None:
                pairs.append((opinfo, dtype))
    return pairs


def save(manifest: dict) -> None:
    manifest["torch_version"] = torch.__version__
    MANIFEST.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


def main(argv: list[str]) -> int:
    kinds = None
    if argv[:1] == ["--dtype"]:
        kinds = argv[1].split(",")
        argv = argv[2:]
    only = argv
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    OUT.mkdir(exist_ok=True)
    pairs = chosen(kinds or (["float32"] if only else ["float32", *EXTRA_DTYPES]), only)
    if only or kinds:
        # New entries go into groups after the existing ones; the others stay as they are.
        manifest = json.loads(MANIFEST.read_text())
        present = sorted(entry_key(o, d) for o, d in pairs if entry_key(o, d) in manifest["ops"])
        if present and only:
            sys.exit(f"already in the manifest (regenerate everything instead): {present}")
        pairs = [(o, d) for o, d in pairs if entry_key(o, d) not in manifest["ops"]]
        group = 1 + max((int(g.removeprefix("group")) for g in manifest["groups"]), default=-1)
    else:
        for stale in [*OUT.glob("*.pt2"), *OUT.glob("*.npy")]:
            stale.unlink()
        manifest = {"ops": {}, "groups": {}}
        group = 0
    members = []
    for n, (opinfo, dtype) in enumerate(pairs):
        print(f"[{entry_key(opinfo, dtype)}]", flush=True)
        torch.manual_seed(0)
        entry, kept = select(opinfo, dtype)
        if kept:
            members.append((opinfo, entry, kept))
        else:
            manifest["ops"][entry_key(opinfo, dtype)] = entry
        if len(members) == GROUP or (members and n == len(pairs) - 1):
            # Saved after every group, so an interrupted incremental run resumes where it was.
            generate_group(f"group{group:02}", members, manifest)
            save(manifest)
            group, members = group + 1, []
    save(manifest)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
