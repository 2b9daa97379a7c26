#!/usr/bin/env python3
"""Regenerate the tpuc training fixtures: loss and joint (forward + backward) torch.export
archives, five batches per family, eager PyTorch gradients and 5-step optimizer references.

Usage (from the repository root, inside a venv made from testdata/requirements.txt):

    python testdata/training/generate_training.py              # every family
    python testdata/training/generate_training.py mlp llama    # only these; the others stay
                                                                # as they are in manifest.json

Everything is written into this file's directory. It reuses testdata/generate.py's helpers
(metadata normalisation, forbidden-bytes check, op histograms, tiny ResNet). See README.md here.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import generate  # noqa: E402  (testdata/generate.py)
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402
from torch.export import ExportedProgram  # noqa: E402
from torch.export.experimental import _export_forward_backward  # noqa: E402
from torch.export.graph_signature import InputKind, OutputKind  # noqa: E402

MANIFEST = HERE / "manifest.json"
SCRIPT_REL = "testdata/training/generate_training.py"
SEED = 0
STEPS = 5
# How close the joint program's loss, gradients and buffer updates must be to eager autograd:
# max |joint - eager| <= JOINT_ATOL * max(1, max |eager|), per tensor.
JOINT_ATOL = 1e-5
TOLERANCE = {"loss": {"rtol": 1e-4, "atol": 1e-5}, "params": {"rtol": 1e-3, "atol": 1e-5}}

_generate_repo_relative = generate.repo_relative


def repo_relative(path: str) -> str:
    """generate.py's stack-trace path rewriting, which also knows this script's path."""
    if os.path.isabs(path) and os.path.realpath(path) == os.path.realpath(__file__):
        return SCRIPT_REL
    return _generate_repo_relative(path)


# normalize_metadata looks repo_relative up in generate's globals.
generate.repo_relative = repo_relative


# --------------------------------------------------------------------------------------------
# Families: a wrapper whose forward(*inputs, labels) returns the scalar loss, and its batches
# --------------------------------------------------------------------------------------------


@dataclass
class Family:
    wrapper: nn.Module
    # make_batch(gen) -> one positional argument tuple (labels last); batch 0 is the export example.
    make_batch: Callable[[torch.Generator], tuple[torch.Tensor, ...]]
    runs: dict[str, str]
    # None: export the joint program and ship it if it matches eager autograd. A string: export
    # and measure it, but never ship it (the reason goes into the manifest).
    joint_withheld: str | None = None
    extra_runs: dict[str, str] = field(default_factory=dict)


BASE_RUNS = {
    "sgd": "sgd:lr=0.1,momentum=0.9,weight_decay=0.01",
    "adamw": "adamw:lr=0.001,beta1=0.9,beta2=0.999,eps=1e-08,weight_decay=0.01",
}


class MlpLoss(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 16)
        self.fc3 = nn.Linear(16, 4)

    def forward(self, x: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        h = F.gelu(self.fc2(F.relu(self.fc1(x))))
        return F.cross_entropy(self.fc3(h), labels)


def family_mlp() -> Family:
    def batch(gen: torch.Generator) -> tuple[torch.Tensor, ...]:
        return torch.randn(8, 8, generator=gen), torch.randint(0, 4, (8,), generator=gen)

    runs = {
        **BASE_RUNS,
        "sgd_nesterov": "sgd:lr=0.05,momentum=0.9,dampening=0,nesterov=true,weight_decay=0.001",
        "sgd_dampening": "sgd:lr=0.1,momentum=0.5,dampening=0.3",
        "adam_clip": "adam:lr=0.01,beta1=0.8,beta2=0.99,eps=1e-06,weight_decay=0.01,clip=1.0",
        "plain_sgd": "sgd:lr=0.1",
    }
    return Family(MlpLoss(), batch, runs)


class CnnLoss(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        # No bias before BatchNorm: its gradient is zero up to rounding, which Adam's per-element
        # normalisation turns into full-size steps no two implementations reproduce.
        self.conv = nn.Conv2d(3, 4, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(4 * 4 * 4, 5)

    def forward(self, x: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        h = self.pool(F.relu(self.bn(self.conv(x))))
        return F.cross_entropy(self.fc(torch.flatten(h, 1)), labels)


def family_cnn() -> Family:
    def batch(gen: torch.Generator) -> tuple[torch.Tensor, ...]:
        return torch.randn(4, 3, 8, 8, generator=gen), torch.randint(0, 5, (4,), generator=gen)

    return Family(CnnLoss(), batch, dict(BASE_RUNS))


class ClassifierLoss(nn.Module):
    """Cross entropy of an image classifier's logits."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, x: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self.inner(x), labels)


def family_resnet() -> Family:
    def batch(gen: torch.Generator) -> tuple[torch.Tensor, ...]:
        # Batch 8: the last stage is 1x1, and a BatchNorm over 2 values (batch 2) makes the
        # trajectory chaotic (float32 rounding grows past any tolerance within 5 steps).
        return torch.randn(8, 3, 32, 32, generator=gen), torch.randint(0, 10, (8,), generator=gen)

    return Family(ClassifierLoss(generate.tiny_resnet(10)), batch, dict(BASE_RUNS))


class CausalLmLoss(nn.Module):
    """A transformers causal LM's own shifted next-token loss (labels = input_ids)."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, input_ids: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return self.inner(input_ids=input_ids, labels=labels, use_cache=False).loss


def lm_batch(gen: torch.Generator) -> tuple[torch.Tensor, ...]:
    # Batch 4: a data-parallel step splits it over the 4 chips of a v5e:2x2 (benches/training).
    input_ids = torch.randint(0, 128, (4, 8), generator=gen)
    return input_ids, input_ids.clone()


def family_gpt2() -> Family:
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(
        vocab_size=128,
        n_positions=32,
        n_embd=32,
        n_layer=2,
        n_head=2,
        bos_token_id=0,
        eos_token_id=0,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        summary_first_dropout=0.0,
        attn_implementation="sdpa",
    )
    return Family(CausalLmLoss(GPT2LMHeadModel(config)), lm_batch, dict(BASE_RUNS))


def tiny_llama(attn: str) -> nn.Module:
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=128,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=32,
        attention_dropout=0.0,
        attn_implementation=attn,
    )
    return LlamaForCausalLM(config)


def family_llama() -> Family:
    runs = {**BASE_RUNS, "adamw_clip": "adamw:lr=0.001,beta1=0.9,beta2=0.999,eps=1e-08,weight_decay=0.01,clip=0.5"}
    return Family(CausalLmLoss(tiny_llama("eager")), lm_batch, runs)


def family_llama_sdpa() -> Family:
    return Family(
        CausalLmLoss(tiny_llama("sdpa")),
        lm_batch,
        dict(BASE_RUNS),
        joint_withheld="withheld: torch's joint export of SDPA attention gives wrong gradients",
    )


class MaskedLmLoss(nn.Module):
    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return self.inner(input_ids=input_ids, attention_mask=attention_mask, labels=labels).loss


BERT_MASK_ID = 3
BERT_VALID = (8, 6)  # real tokens per row; row 1 is padded from position 6


def bert_batch(gen: torch.Generator) -> tuple[torch.Tensor, ...]:
    input_ids = torch.randint(5, 128, (2, 8), generator=gen)
    attention_mask = torch.ones(2, 8, dtype=torch.int64)
    labels = torch.full((2, 8), -100, dtype=torch.int64)
    for row, valid in enumerate(BERT_VALID):
        attention_mask[row, valid:] = 0
        input_ids[row, valid:] = 0  # [PAD]
        masked = torch.randperm(valid, generator=gen)[:3]
        labels[row, masked] = input_ids[row, masked]
        input_ids[row, masked] = BERT_MASK_ID
    return input_ids, attention_mask, labels


def family_bert() -> Family:
    from transformers import BertConfig, BertForMaskedLM

    config = BertConfig(
        vocab_size=128,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=32,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        attn_implementation="sdpa",
    )
    return Family(MaskedLmLoss(BertForMaskedLM(config)), bert_batch, dict(BASE_RUNS))


FAMILIES: dict[str, Callable[[], Family]] = {
    "mlp": family_mlp,
    "cnn": family_cnn,
    "gpt2": family_gpt2,
    "llama": family_llama,
    "llama_sdpa": family_llama_sdpa,
    "bert": family_bert,
    "resnet": family_resnet,
}

# Mixed-precision reference runs (README "Mixed precision"): float32 master parameters and
# optimizer state, each step's forward under torch.autocast("cpu", dtype=bfloat16) (backward
# outside it, as PyTorch recommends). run -> (the float32 run whose spec it repeats, precision,
# families).
PRECISION_RUNS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "adamw_bf16": ("adamw", "bf16", ("mlp", "gpt2", "llama")),
}
AUTOCAST_DTYPES = {"bf16": torch.bfloat16}
# bf16 keeps 8 significand bits; a precision run's manifest entry carries its own tolerance.
PRECISION_TOLERANCE = {"bf16": {"loss": {"rtol": 2e-2, "atol": 2e-2}, "params": {"rtol": 2e-2, "atol": 1e-3}}}


# --------------------------------------------------------------------------------------------
# Optimizers from tpuc's --optimizer spec strings
# --------------------------------------------------------------------------------------------


def parse_spec(spec: str) -> tuple[str, dict[str, float | bool]]:
    kind, _, rest = spec.partition(":")
    options: dict[str, float | bool] = {}
    for item in filter(None, rest.split(",")):
        key, value = item.split("=")
        options[key] = value == "true" if value in ("true", "false") else float(value)
    return kind, options


def make_optimizer(spec: str, params: list[nn.Parameter]) -> tuple[torch.optim.Optimizer, float | None]:
    """torch.optim optimizer (foreach=False) for a spec, and its gradient-norm clip (or None)."""
    kind, o = parse_spec(spec)
    o = dict(o)
    clip = o.pop("clip", None)
    if kind == "sgd":
        allowed = {"lr", "momentum", "dampening", "nesterov", "weight_decay"}
        assert set(o) <= allowed, f"{spec}: unknown options {set(o) - allowed}"
        opt = torch.optim.SGD(params, foreach=False, **o)
    elif kind in ("adam", "adamw"):
        allowed = {"lr", "beta1", "beta2", "eps", "weight_decay"}
        assert set(o) <= allowed, f"{spec}: unknown options {set(o) - allowed}"
        betas = (o.pop("beta1", 0.9), o.pop("beta2", 0.999))
        # AdamW's own default weight decay is 0.01, Adam's 0; specs spell it out when non-zero.
        o.setdefault("weight_decay", 0.0)
        cls = torch.optim.Adam if kind == "adam" else torch.optim.AdamW
        opt = cls(params, betas=betas, foreach=False, **o)
    else:
        raise ValueError(f"unknown optimizer {kind!r} in {spec!r}")
    return opt, clip


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def check_no_dropout(model: nn.Module) -> None:
    for name, m in model.named_modules():
        if isinstance(m, nn.modules.dropout._DropoutNd):
            assert m.p == 0.0, f"{name}: dropout p={m.p}"
        for attr in ("attention_dropout", "dropout"):
            p = getattr(m, attr, None)
            if isinstance(p, float):
                assert p == 0.0, f"{name}.{attr} = {p}"


def specs_of(ep: ExportedProgram, kind: InputKind) -> list[str]:
    return [s.target for s in ep.graph_signature.input_specs if s.kind == kind]


def mutated_buffers(ep: ExportedProgram) -> list[str]:
    return [s.target for s in ep.graph_signature.output_specs if s.kind == OutputKind.BUFFER_MUTATION]


def flat_inputs(ep: ExportedProgram, args: tuple[torch.Tensor, ...]) -> list[torch.Tensor]:
    """The lifted graph's positional inputs: parameters, buffers, constants, user inputs."""
    user = iter(args)
    flat = []
    for s in ep.graph_signature.input_specs:
        if s.kind == InputKind.USER_INPUT:
            flat.append(next(user))
        elif s.kind == InputKind.PARAMETER or (s.kind == InputKind.BUFFER and s.persistent):
            flat.append(ep.state_dict[s.target].detach().clone())
        elif s.kind in (InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
            flat.append(ep.constants[s.target].detach().clone())
        else:
            raise AssertionError(f"unexpected input kind {s.kind}")
    assert next(user, None) is None
    return flat


def run_joint(ep: ExportedProgram, args: tuple[torch.Tensor, ...]) -> dict[str, Any]:
    """Runs the joint program's graph on its own state: buffer updates, loss, gradients."""
    with torch.no_grad():
        outs = ep.graph_module(*flat_inputs(ep, args))
    result: dict[str, Any] = {"buffers": {}, "grads": {}}
    for spec, out in zip(ep.graph_signature.output_specs, outs, strict=True):
        if spec.kind == OutputKind.BUFFER_MUTATION:
            result["buffers"][spec.target] = out
        elif spec.kind == OutputKind.LOSS_OUTPUT:
            result["loss"] = out
        elif spec.kind == OutputKind.GRADIENT_TO_PARAMETER:
            result["grads"][spec.target] = out
        else:
            raise AssertionError(f"unexpected joint output kind {spec.kind}")
    return result


def eager_step0(wrapper: nn.Module, initial: dict, args: tuple) -> dict[str, Any]:
    """loss.backward() on a fresh copy at the initial state; buffers after that forward."""
    model = fresh_copy(wrapper, initial)
    loss = model(*args)
    loss.backward()
    return {
        "loss": loss.detach(),
        "grads": {n: p.grad.detach().clone() for n, p in model.named_parameters(remove_duplicate=False)},
        "buffers": {n: b.detach().clone() for n, b in model.named_buffers()},
    }


def fresh_copy(wrapper: nn.Module, initial: dict[str, torch.Tensor]) -> nn.Module:
    model = copy.deepcopy(wrapper)
    with torch.no_grad():
        for k, v in [*model.state_dict(keep_vars=True).items(), *model.named_buffers()]:
            v.copy_(initial[k])
    model.zero_grad(set_to_none=True)
    return model.train()


def max_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return (a.detach().double() - b.detach().double()).abs().max().item()


def scaled_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    """max |a - b| / max(1, max |b|): absolute for values up to 1, relative to the largest beyond."""
    return max_diff(a, b) / max(1.0, b.detach().abs().max().item())


def compare_joint(joint: dict, eager: dict) -> dict[str, Any]:
    grad_diffs = {n: max_diff(g, eager["grads"][n]) for n, g in joint["grads"].items()}
    worst = max(grad_diffs, key=grad_diffs.get)
    return {
        "loss_abs_diff": max_diff(joint["loss"], eager["loss"]),
        "max_grad_abs_diff": grad_diffs[worst],
        "worst_grad": worst,
        "worst_grad_abs_max": eager["grads"][worst].abs().max().item(),
        "max_buffer_abs_diff": max(
            (max_diff(b, eager["buffers"][n]) for n, b in joint["buffers"].items()), default=0.0
        ),
        # What JOINT_ATOL bounds: differences scaled by max(1, the largest eager value).
        "max_scaled_diff": max(
            [scaled_diff(joint["loss"], eager["loss"])]
            + [scaled_diff(g, eager["grads"][n]) for n, g in joint["grads"].items()]
            + [scaled_diff(b, eager["buffers"][n]) for n, b in joint["buffers"].items()]
        ),
    }


def save_npy(rel: str, t: torch.Tensor) -> None:
    path = HERE / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, generate.to_numpy(t), allow_pickle=False)


def save_program(ep: ExportedProgram, rel: str) -> dict:
    generate.normalize_metadata(ep)
    ep.example_inputs = None
    path = HERE / rel
    torch.export.save(ep, path)
    generate.assert_machine_free(path)
    return generate.variant_summary(ep, path)


def tensor_entry(name: str, t: torch.Tensor) -> dict:
    return {"name": name, **generate.tensor_spec(t)}


def error_text(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}".strip()
    text = generate._FRAME_FILE.sub(lambda m: f'File "{repo_relative(m.group(1))}"', text)
    for s in generate.FORBIDDEN:
        assert s.decode() not in text, f"error message names the machine: {text}"
    return text


# --------------------------------------------------------------------------------------------
# One family
# --------------------------------------------------------------------------------------------


def reference_run(
    wrapper: nn.Module, initial: dict, batches: list[tuple], spec: str, precision: str | None
) -> tuple[list[float], nn.Module]:
    """STEPS eager optimizer steps from the initial state: the per-step losses and the model."""
    model = fresh_copy(wrapper, initial)
    opt, clip = make_optimizer(spec, list(model.parameters()))
    losses = []
    for batch in batches:
        if precision is None:
            loss = model(*batch)
        else:
            with torch.autocast("cpu", dtype=AUTOCAST_DTYPES[precision]):
                loss = model(*batch)
        assert loss.dtype == torch.float32, f"{spec} ({precision}): loss is {loss.dtype}"
        loss.backward()
        if clip is not None:
            torch.nn.utils.clip_grad_norm_(list(model.parameters()), clip, foreach=False)
        opt.step()
        opt.zero_grad()
        losses.append(loss.detach().item())
    return losses, model


def remove_outputs(name: str) -> None:
    for path in HERE.glob(f"{name}.*"):
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()


def generate_family(name: str) -> dict:
    torch.manual_seed(SEED)
    family = FAMILIES[name]()
    wrapper = family.wrapper.train()
    check_no_dropout(wrapper)
    gen = torch.Generator().manual_seed(SEED)
    batches = [family.make_batch(gen) for _ in range(STEPS)]
    example = batches[0]
    initial = {k: v.detach().clone() for k, v in wrapper.state_dict(keep_vars=True).items()}
    initial.update({k: v.detach().clone() for k, v in wrapper.named_buffers() if k not in initial})
    remove_outputs(name)

    # Loss-only program, TRAINING dialect.
    ep = torch.export.export(wrapper, example)
    for k, v in wrapper.state_dict().items():
        assert torch.equal(v, initial[k]), f"{name}: export changed {k}"
    params = specs_of(ep, InputKind.PARAMETER)
    # Tied weights appear under every name in the signature (and the archive); the references
    # store each tensor once, under its named_parameters() name (the first in signature order).
    named = [n for n, _ in wrapper.named_parameters()]
    by_id = {id(p): n for n, p in wrapper.named_parameters()}
    tied = {n: by_id[id(p)] for n, p in wrapper.named_parameters(remove_duplicate=False) if n not in named}
    every = [n for n, _ in wrapper.named_parameters(remove_duplicate=False)]
    assert params == every, f"{name}: signature parameters {params} != named_parameters {every}"
    distinct = [p for p in params if p not in tied]
    assert distinct == named
    eager0 = eager_step0(wrapper, initial, example)
    # Buffers one eager training step changes. The TRAINING dialect leaves BatchNorm's
    # running-stat updates implicit (no BUFFER_MUTATION outputs); the ATen program lists them.
    buffers = [n for n, b in eager0["buffers"].items() if not torch.equal(b, initial[n])]
    extra: dict[str, Any] = {}
    try:
        core = ep.run_decompositions()
        assert mutated_buffers(core) == buffers, f"{name}: core mutates {mutated_buffers(core)}, eager {buffers}"
        core_ops = set(generate.fx_op_histograms(core.graph_module)[0])
    except Exception as e:  # noqa: BLE001 -- recorded in the manifest
        extra["run_decompositions_error"] = error_text(e)
        print(f"  ep.run_decompositions() failed: {extra['run_decompositions_error'][:300]}", flush=True)
        core_ops = set()

    got = generate.run_unchanged(ep, example)
    loss_diff = max_diff(got, eager0["loss"])
    assert loss_diff <= JOINT_ATOL, f"{name}: exported loss differs from eager by {loss_diff}"

    # Joint program.
    joint_entry: dict[str, Any] = {}
    joint_ep = None
    try:
        joint_ep = _export_forward_backward(ep, joint_loss_index=0)
    except Exception as e:  # noqa: BLE001 -- the message is the fixture's finding
        joint_entry["joint_error"] = error_text(e)
        print(f"  joint export failed: {joint_entry['joint_error']}", flush=True)
    if joint_ep is not None:
        sig = [s.kind for s in joint_ep.graph_signature.output_specs]
        n_mut = len(buffers)
        expected = [OutputKind.BUFFER_MUTATION] * n_mut + [OutputKind.LOSS_OUTPUT] + [
            OutputKind.GRADIENT_TO_PARAMETER
        ] * len(params)
        assert sig == expected, f"{name}: joint outputs {sig}"
        grad_targets = [s.target for s in joint_ep.graph_signature.output_specs[n_mut + 1 :]]
        assert grad_targets == params, f"{name}: gradient targets {grad_targets}"
        checks = []
        for k, batch in enumerate(batches):
            eager_k = eager0 if k == 0 else eager_step0(wrapper, initial, batch)
            checks.append(compare_joint(run_joint(joint_ep, batch), eager_k))
        check = max(checks, key=lambda c: c["max_grad_abs_diff"])
        check["batches_checked"] = len(checks)
        check["max_loss_abs_diff"] = max(c["loss_abs_diff"] for c in checks)
        joint_entry["joint_check"] = check
        check["max_scaled_diff"] = max(c["max_scaled_diff"] for c in checks)
        ok = check["max_scaled_diff"] <= JOINT_ATOL
        print(
            f"  joint vs eager: loss {check['max_loss_abs_diff']:.3g}, grads {check['max_grad_abs_diff']:.3g} "
            f"(worst {check['worst_grad']}, |g|max {check['worst_grad_abs_max']:.3g}), "
            f"buffers {check['max_buffer_abs_diff']:.3g}, scaled {check['max_scaled_diff']:.3g}",
            flush=True,
        )
        joint_ops = set(generate.fx_op_histograms(joint_ep.graph_module)[0])
        joint_entry["joint_ops_not_in_forward_core"] = sorted(joint_ops - core_ops)
        if family.joint_withheld is not None:
            joint_entry["joint_error"] = family.joint_withheld
            joint_ep = None
        elif not ok:
            joint_entry["joint_error"] = f"withheld: joint program differs from loss.backward() ({check})"
            joint_ep = None

    archives: dict[str, Any] = {"loss": f"{name}.loss.pt2", "joint": None}
    ops = {"loss": save_program(ep, archives["loss"])}
    if joint_ep is not None:
        archives["joint"] = f"{name}.joint.pt2"
        ops["joint"] = save_program(joint_ep, archives["joint"])

    # The archives hold the initial state; references start from it.
    for rel in filter(None, archives.values()):
        loaded = torch.export.load(HERE / rel)
        for k, v in loaded.state_dict.items():
            assert torch.equal(v, initial[k]), f"{rel}: {k} is not the initial value"
        if rel.endswith(".loss.pt2"):
            assert max_diff(generate.run_unchanged(loaded, example), eager0["loss"]) <= JOINT_ATOL
        else:
            c = compare_joint(run_joint(loaded, example), eager0)
            assert c["max_scaled_diff"] <= JOINT_ATOL, f"{rel} reloaded: {c}"

    # Batches, step-0 loss and gradients.
    for k, batch in enumerate(batches):
        for i, t in enumerate(batch):
            save_npy(f"{name}.batch{k}.in{i}.npy", t)
    save_npy(f"{name}.loss0.npy", eager0["loss"])
    for fqn in distinct:
        save_npy(f"{name}.grads/{fqn}.npy", eager0["grads"][fqn])

    # Optimizer references.
    runs = {}
    run_losses, run_params = {}, {}
    precision_runs = {r: (family.runs[f32], p) for r, (f32, p, fams) in PRECISION_RUNS.items() if name in fams}
    for run, (spec, precision) in {**{r: (spec, None) for r, spec in family.runs.items()}, **precision_runs}.items():
        losses, model = reference_run(wrapper, initial, batches, spec, precision)
        entry: dict[str, Any] = {}
        if precision is None:
            torch.testing.assert_close(torch.tensor(losses[0]), eager0["loss"], rtol=0, atol=0)
        else:
            # The autocast reference must be reproducible bit for bit.
            again, model2 = reference_run(wrapper, initial, batches, spec, precision)
            assert again == losses, f"{name}.{run}: losses differ between two runs"
            for (n, a), b in zip(model.state_dict().items(), model2.state_dict().values(), strict=True):
                assert torch.equal(a, b), f"{name}.{run}: {n} differs between two runs"
            # For information: how far mixed precision moves the trajectory from float32's.
            f32 = PRECISION_RUNS[run][0]
            entry = {
                "precision": precision,
                "tolerance": copy.deepcopy(PRECISION_TOLERANCE[precision]),
                "losses_f32_gap": max(abs(a - b) for a, b in zip(losses, run_losses[f32], strict=True)),
                "params_f32_gap": max(max_diff(p, run_params[f32][n]) for n, p in model.named_parameters()),
            }
        run_losses[run] = losses
        run_params[run] = {n: p.detach().clone() for n, p in model.named_parameters()}
        save_npy(f"{name}.{run}.losses.npy", torch.tensor(losses, dtype=torch.float32))
        state = dict(model.named_parameters())
        for fqn in distinct:
            save_npy(f"{name}.{run}.params/{fqn}.npy", state[fqn])
        state_b = dict(model.named_buffers())
        for fqn in buffers:
            save_npy(f"{name}.{run}.buffers/{fqn}.npy", state_b[fqn])
        runs[run] = {
            "optimizer": spec,
            "losses": f"{name}.{run}.losses.npy",
            "params": f"{name}.{run}.params",
            "buffers": f"{name}.{run}.buffers" if buffers else None,
            **entry,
        }
        print(f"  {run}: losses {np.array(losses).round(4).tolist()}", flush=True)

    input_names = generate.user_input_names(ep)
    state = dict(wrapper.named_parameters())
    state_b = dict(wrapper.named_buffers())
    return {
        "archives": archives,
        **joint_entry,
        **extra,
        "ops": ops,
        "inputs": [tensor_entry(n, t) for n, t in zip(input_names, example, strict=True)],
        "parameters": [
            {"fqn": f, **generate.tensor_spec(state[tied.get(f, f)]), **({"tied_to": tied[f]} if f in tied else {})}
            for f in params
        ],
        "buffers": [{"fqn": f, **generate.tensor_spec(state_b[f])} for f in buffers],
        "steps": STEPS,
        "batches": [[f"{name}.batch{k}.in{i}.npy" for i in range(len(example))] for k in range(STEPS)],
        "loss0": {"file": f"{name}.loss0.npy", "shape": []},
        "runs": runs,
        "grads": f"{name}.grads",
        "tolerance": copy.deepcopy(TOLERANCE),
    }


def total_size(paths: list[Path]) -> int:
    return sum(f.stat().st_size for p in paths for f in ([p] if p.is_file() else p.rglob("*")) if f.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"families (default: all): {', '.join(FAMILIES)}")
    names = parser.parse_args().names or list(FAMILIES)
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        parser.error(f"unknown famil(ies) {unknown}; known: {list(FAMILIES)}")

    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    import transformers

    manifest: dict[str, Any] = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {}
    families = manifest.setdefault("families", {})
    for name in names:
        print(f"[{name}]", flush=True)
        families[name] = generate_family(name)
    manifest["families"] = {k: families[k] for k in FAMILIES if k in families}
    manifest["torch_version"] = torch.__version__
    manifest["transformers_version"] = transformers.__version__
    manifest["steps"] = STEPS
    MANIFEST.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")

    for path in [MANIFEST, *HERE.rglob("*.npy")]:
        generate.assert_machine_free(path)
    for name in manifest["families"]:
        print(f"{name}: {total_size(list(HERE.glob(f'{name}.*'))) / 1024:.0f} KiB")
    everything = [p for p in HERE.iterdir() if p.name != "__pycache__"]
    print(f"total: {total_size(everything) / 1024:.0f} KiB in {HERE.name}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
