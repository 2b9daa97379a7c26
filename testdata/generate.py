#!/usr/bin/env python3
"""Regenerate the tpuc test fixtures: torch.export archives, their inputs and outputs, and the manifest.

Usage (from the repository root, inside a venv made from testdata/requirements.txt):

    python testdata/generate.py            # every fixture, rewrites testdata/models/ and manifest.json
    python testdata/generate.py mlp cnn    # only these; the others stay as they are in manifest.json

SPMD fixtures (`SPMD_CASES`, listed under "spmd" in the manifest) run as WORLD processes over a
gloo process group on loopback.

Everything is written relative to this file's directory. See testdata/README.md.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import operator
import os
import re
import sys
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch import nn
from torch.export import Dim, ExportedProgram
from torch.export.graph_signature import InputKind, OutputKind
from torch.fx.traceback import NodeSource
from torch.utils import _pytree as pytree

HERE = Path(__file__).resolve().parent
MODELS = HERE / "models"
MANIFEST = HERE / "manifest.json"
SCRIPT_REL = "testdata/generate.py"
SEED = 0

# Byte strings that would name the generating machine; none may appear in a fixture.
FORBIDDEN = [b"/work", b"/root", b"/home", b"/tmp", b"site-packages", b"/usr/"]

F32_TOL = {"rtol": 1e-4, "atol": 1e-5}
# Several layers of matmuls, normalisations and softmax: accumulation order differs between
# PyTorch's CPU kernels and XLA, so absolute errors near zero grow past 1e-5.
DEEP_F32_TOL = {"rtol": 1e-4, "atol": 1e-4}
# bfloat16 has 8 bits of mantissa: one rounding step is 2^-8 relative.
BF16_TOL = {"rtol": 1.6e-2, "atol": 1e-2}


# --------------------------------------------------------------------------------------------
# Fixture models
# --------------------------------------------------------------------------------------------


@dataclass
class Case:
    """One fixture: an eval-mode model, one or more positional input sets, export options."""

    model: nn.Module
    input_sets: list[tuple[torch.Tensor, ...]]
    tolerance: dict[str, float] = field(default_factory=lambda: dict(F32_TOL))
    dynamic_shapes: Any = None
    # torch.export's default. Strict (dynamo) export of control's autocast block records a
    # wrap_with_autocast whose body computes in float32 and fails when run (torch 2.15).
    strict: bool = False


def randn(gen: torch.Generator, *shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(*shape, generator=gen).to(dtype)


def randomize_batchnorm_stats(model: nn.Module) -> None:
    """Give every BatchNorm non-trivial running statistics and affine parameters."""
    gen = torch.Generator().manual_seed(SEED + 1)
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            n = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=gen) + 0.5)
                m.weight.copy_(torch.rand(n, generator=gen) + 0.5)
                m.bias.copy_(torch.randn(n, generator=gen) * 0.1)


class Mlp(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.act(self.fc1(x)))


def case_mlp(gen: torch.Generator) -> Case:
    return Case(Mlp(), [(randn(gen, 2, 4),)])


class Cnn(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.act = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.act(self.bn(self.conv(x))))
        return self.fc(torch.flatten(self.gap(x), 1))


def case_cnn(gen: torch.Generator) -> Case:
    model = Cnn()
    randomize_batchnorm_stats(model)
    return Case(model, [(randn(gen, 2, 3, 8, 8),)])


class DecoderBlock(nn.Module):
    """Embedding, pre-norm causal attention and MLP with residuals, tied LM head."""

    def __init__(self, vocab: int = 64, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.embed = nn.Embedding(vocab, dim)
        self.attn_norm = nn.RMSNorm(dim, eps=1e-6)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.mlp_norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)
        self.final_norm = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.lm_head.weight = self.embed.weight

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        h = self.embed(tokens)
        b, t, d = h.shape
        q, k, v = self.qkv(self.attn_norm(h)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        h = h + self.proj(a.transpose(1, 2).reshape(b, t, d))
        h = h + self.down(F.gelu(self.up(self.mlp_norm(h)), approximate="tanh"))
        return self.lm_head(self.final_norm(h))


def case_decoder(gen: torch.Generator) -> Case:
    tokens = torch.randint(0, 64, (2, 8), generator=gen)
    return Case(DecoderBlock(), [(tokens,)], tolerance=dict(DEEP_F32_TOL))


class DynBatch(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(6, 12)
        self.norm = nn.LayerNorm(12)
        self.fc2 = nn.Linear(12, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.tanh(self.norm(self.fc1(x)))
        return self.fc2(h).sum(dim=1) + x.shape[0]


def case_dyn_batch(gen: torch.Generator) -> Case:
    batch = Dim("batch", min=1, max=64)
    return Case(
        DynBatch(),
        [(randn(gen, n, 4, 6),) for n in (4, 1, 7)],
        dynamic_shapes={"x": {0: batch}},
    )


class Misc(nn.Module):
    """Buffers of every kind, a lifted constant, integer arithmetic and indexing ops."""

    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.randn(6, 3))
        self.register_buffer("scale", torch.rand(6) + 0.5)
        self.register_buffer("scale_tail", self.scale[2:])
        self.register_buffer("offsets", torch.arange(6, dtype=torch.int64), persistent=False)
        self.table = torch.randn(6)

    def forward(self, x: torch.Tensor, idx: torch.Tensor) -> tuple[torch.Tensor, ...]:
        q = (idx * 3 + self.offsets[:4]) // 2
        r = torch.remainder(q, 5)
        bits = ((q & 6) | 1) ^ (r << 1)
        rows = x[idx]
        g = torch.gather(rows, 1, r.unsqueeze(1).expand(-1, 2))
        scaled = rows * self.scale + self.table
        tail = rows[:, 2:] * self.scale_tail
        c = torch.cat([scaled, tail, g], dim=1)
        c = torch.where(c > 0, c, -0.5 * c)
        cs = torch.cumsum(c, dim=1)
        am = torch.argmax(cs[:, ::2], dim=1)
        y = cs[:, 1:7] @ self.w
        return y, am, bits


def case_misc(gen: torch.Generator) -> Case:
    x = randn(gen, 5, 6)
    idx = torch.randint(0, 5, (4,), generator=gen)
    return Case(Misc(), [(x, idx)])


class Cond(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.pos = nn.Linear(4, 4)
        self.neg = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        def true_fn(x: torch.Tensor) -> torch.Tensor:
            return torch.relu(self.pos(x)) + 1.0

        def false_fn(x: torch.Tensor) -> torch.Tensor:
            return torch.sin(self.neg(x)) * 2.0

        return torch.cond(x.sum() > 0, true_fn, false_fn, (x,))


def case_cond(gen: torch.Generator) -> Case:
    x = randn(gen, 3, 4).abs()
    # Input set 0 takes the true branch, set 1 the false branch.
    return Case(Cond(), [(x,), (-x,)])


class Control(nn.Module):
    """A while loop, a no_grad block and an autocast block inside forward."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.mix = nn.Linear(4, 4)
        self.w = nn.Parameter(torch.randn(4) * 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            h = self.lin(x) * 2.0
        with torch.autocast("cpu", dtype=torch.bfloat16):
            m = self.mix(h)
        h = h + m.float()

        def cond_fn(i: torch.Tensor, acc: torch.Tensor) -> torch.Tensor:
            return i < 3

        def body_fn(i: torch.Tensor, acc: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return i + 1, torch.tanh(acc * self.w) + 0.25 * i

        _, out = while_loop(cond_fn, body_fn, (torch.zeros((), dtype=torch.int64), h))
        return out


def while_loop(cond_fn, body_fn, carried):  # type: ignore[no-untyped-def]
    if hasattr(torch, "while_loop"):
        return torch.while_loop(cond_fn, body_fn, carried)
    from torch._higher_order_ops.while_loop import while_loop as hop_while_loop

    return hop_while_loop(cond_fn, body_fn, carried)


def case_control(gen: torch.Generator) -> Case:
    # The autocast block rounds to bfloat16, so compare with bfloat16 tolerance.
    return Case(Control(), [(randn(gen, 2, 4),)], tolerance=dict(BF16_TOL))


class QuantBf16(nn.Module):
    """int8 weights with per-output-channel bfloat16 scales, dequantised in forward."""

    def __init__(self) -> None:
        super().__init__()
        for name, (n_out, n_in) in {"w1": (16, 8), "w2": (4, 16)}.items():
            w = torch.randn(n_out, n_in)
            scale = w.abs().amax(dim=1) / 127.0
            q = torch.round(w / scale[:, None]).clamp(-128, 127).to(torch.int8)
            self.register_buffer(f"{name}_q", q)
            self.register_buffer(f"{name}_scale", scale.to(torch.bfloat16))
        self.b1 = nn.Parameter(torch.randn(16).to(torch.bfloat16))
        self.norm = nn.LayerNorm(16, dtype=torch.bfloat16)

    def dequant(self, name: str) -> torch.Tensor:
        q = getattr(self, f"{name}_q")
        return q.to(torch.bfloat16) * getattr(self, f"{name}_scale").unsqueeze(1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.linear(x, self.dequant("w1"), self.b1)
        h = F.silu(self.norm(h))
        return F.linear(h, self.dequant("w2")) * 0.5


def case_quant_bf16(gen: torch.Generator) -> Case:
    return Case(QuantBf16(), [(randn(gen, 3, 8, dtype=torch.bfloat16),)], tolerance=dict(BF16_TOL))


class Stateful(nn.Module):
    """A KV-cache-style buffer written in place and a step counter."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.register_buffer("cache", torch.zeros(8, 4))
        self.register_buffer("steps", torch.zeros(1, dtype=torch.int64))

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        self.cache.index_copy_(0, pos, self.proj(x))
        self.steps.add_(1)
        return self.cache.sum(dim=0) * self.steps.to(torch.float32)


def case_stateful(gen: torch.Generator) -> Case:
    return Case(Stateful(), [(randn(gen, 2, 4), torch.tensor([5, 2]))])


class LogitsOnly(nn.Module):
    """Calls a transformers model without cache and returns one tensor."""

    def __init__(self, inner: nn.Module, output: str) -> None:
        super().__init__()
        self.inner = inner
        self.output = output

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None) -> torch.Tensor:
        kwargs = {"input_ids": input_ids}
        if attention_mask is not None:
            kwargs["attention_mask"] = attention_mask
        if self.output == "logits":
            kwargs["use_cache"] = False
        return getattr(self.inner(**kwargs), self.output)


def case_gpt2(gen: torch.Generator) -> Case:
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(
        vocab_size=128,
        n_positions=32,
        n_embd=32,
        n_layer=2,
        n_head=2,
        bos_token_id=0,
        eos_token_id=0,
        attn_implementation="sdpa",
    )
    model = LogitsOnly(GPT2LMHeadModel(config), "logits")
    input_ids = torch.randint(0, 128, (1, 8), generator=gen)
    return Case(model, [(input_ids,)], tolerance=dict(DEEP_F32_TOL))


def case_bert(gen: torch.Generator) -> Case:
    from transformers import BertConfig, BertModel

    config = BertConfig(
        vocab_size=128,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=32,
        attn_implementation="sdpa",
    )
    model = LogitsOnly(BertModel(config, add_pooling_layer=False), "last_hidden_state")
    input_ids = torch.randint(0, 128, (2, 8), generator=gen)
    attention_mask = torch.ones(2, 8, dtype=torch.int64)
    attention_mask[1, 5:] = 0
    return Case(model, [(input_ids, attention_mask)], tolerance=dict(DEEP_F32_TOL))


def case_llama(gen: torch.Generator) -> Case:
    from transformers import LlamaConfig, LlamaForCausalLM

    # Grouped-query attention (8 query heads, 4 key/value heads), RoPE, RMSNorm and SwiGLU;
    # batch 4 and head counts divisible by 4 so data- and tensor-parallel plans apply on 4 devices.
    config = LlamaConfig(
        vocab_size=256,
        hidden_size=256,
        intermediate_size=512,
        num_hidden_layers=2,
        num_attention_heads=8,
        num_key_value_heads=4,
        max_position_embeddings=64,
        attn_implementation="sdpa",
    )
    model = LogitsOnly(LlamaForCausalLM(config), "logits")
    input_ids = torch.randint(0, 256, (4, 16), generator=gen)
    return Case(model, [(input_ids,)], tolerance=dict(DEEP_F32_TOL))


def tiny_resnet(num_classes: int) -> nn.Module:
    """torchvision's ResNet with BasicBlock and layers [1, 1, 1, 1], stages 8/16/32/64 channels wide.

    ResNet hard-codes 64/128/256/512 channels (20 MB of weights); this keeps its forward and
    blocks and rebuilds the stem, stages and head narrower with its own _make_layer.
    """
    from torchvision.models.resnet import BasicBlock, ResNet

    model = ResNet(BasicBlock, [1, 1, 1, 1], num_classes=num_classes)
    widths = (8, 16, 32, 64)
    model.inplanes = widths[0]
    model.conv1 = nn.Conv2d(3, widths[0], kernel_size=7, stride=2, padding=3, bias=False)
    model.bn1 = nn.BatchNorm2d(widths[0])
    model.layer1 = model._make_layer(BasicBlock, widths[0], 1)
    model.layer2 = model._make_layer(BasicBlock, widths[1], 1, stride=2)
    model.layer3 = model._make_layer(BasicBlock, widths[2], 1, stride=2)
    model.layer4 = model._make_layer(BasicBlock, widths[3], 1, stride=2)
    model.fc = nn.Linear(widths[3], num_classes)
    return model


def case_resnet(gen: torch.Generator) -> Case:
    model = tiny_resnet(num_classes=10)
    randomize_batchnorm_stats(model)
    return Case(model, [(randn(gen, 1, 3, 32, 32),)], tolerance=dict(DEEP_F32_TOL))


def case_vit(gen: torch.Generator) -> Case:
    from torchvision.models.vision_transformer import VisionTransformer

    model = VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64, num_classes=10
    )
    # torchvision zero-initialises the class token and the head, which makes every output 0.
    with torch.no_grad():
        model.class_token.normal_(std=0.02)
        model.heads.head.weight.normal_(std=0.2)
        model.heads.head.bias.normal_(std=0.02)
    return Case(model, [(randn(gen, 1, 3, 32, 32),)], tolerance=dict(DEEP_F32_TOL))


class Coverage(nn.Module):
    """Core ATen ops of CNN, vision and transformer models not covered above: transposed and
    grouped convolutions, upsampling, pooling indices, sorting, NaN-aware extrema and friends."""

    def __init__(self) -> None:
        super().__init__()
        self.grouped = nn.Conv2d(4, 4, 3, padding=1, groups=2)
        self.up2d = nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1, output_padding=1, groups=2)
        self.dilated2d = nn.ConvTranspose2d(4, 2, 2, dilation=2, output_padding=1, stride=2)
        self.up1d = nn.ConvTranspose1d(4, 3, 3, stride=3, padding=1, output_padding=2)

    def forward(
        self, x: torch.Tensor, ties: torch.Tensor, v: torch.Tensor
    ) -> tuple[torch.Tensor, ...]:
        h = F.hardswish(self.grouped(x))
        p, where = F.max_pool2d(h, 3, stride=2, padding=1, return_indices=True)
        near = F.interpolate(p, scale_factor=2, mode="nearest")
        near_size = F.interpolate(x, size=(3, 7), mode="nearest")
        bilinear = F.interpolate(p, size=(5, 4), mode="bilinear", align_corners=False)
        corners = F.interpolate(p, scale_factor=2.5, mode="bilinear", align_corners=True)
        up = F.mish(self.up2d(p)) + self.dilated2d(p).mean()
        up1d = self.up1d(x.flatten(2)[..., :8])
        image = torch.cat([near.flatten(1), near_size.flatten(1), bilinear.flatten(1), corners.flatten(1)], 1)
        stats = torch.stack(
            [
                up.amax(dim=(2, 3)).flatten(),
                up.amin(dim=(1, 3)).flatten()[:8],
                up.flatten(2).max(dim=2).values.flatten(),
                up.var(dim=(2, 3), correction=0).flatten(),
                up.std(dim=(1, 2), correction=2).flatten()[:8],
                up1d.flatten(1).cumprod(dim=1)[:, :4].flatten(),
            ]
        )
        probs = torch.cat([F.softmax(v, dim=-1), F.log_softmax(v, dim=0)], 1)
        sorted_ties, tie_order = torch.sort(ties, dim=-1, stable=True)
        desc = torch.argsort(v, dim=-1, descending=True)
        top, top_i = torch.topk(v, 3, dim=-1)
        low, low_i = torch.topk(v, 2, dim=0, largest=False)
        argmax = up.flatten(1).max(dim=1).indices
        return image, stats, probs, up1d, sorted_ties, tie_order, desc, top, top_i, low, low_i, where, argmax


def case_coverage(gen: torch.Generator) -> Case:
    x = randn(gen, 2, 4, 5, 5)
    # Small integers repeat: a stable sort must keep equal keys in input order.
    ties = torch.randint(-3, 4, (2, 9), generator=gen).to(torch.float32)
    v = randn(gen, 3, 6)
    return Case(Coverage(), [(x, ties, v)])


# Later fixtures go here, below the others: archives record generate.py line numbers in their
# stack traces, so code inserted above a model's forward would change that model's archives.


def case_dyn_seq(gen: torch.Generator) -> Case:
    """DecoderBlock with a symbolic sequence length (batch stays 2)."""
    seq = Dim("seq", min=2, max=128)
    return Case(
        DecoderBlock(),
        [(torch.randint(0, 64, (2, t), generator=gen),) for t in (8, 5, 16)],
        tolerance=dict(DEEP_F32_TOL),
        dynamic_shapes={"tokens": {1: seq}},
    )


class DynConv(nn.Module):
    """A small CNN whose batch dimension stays symbolic."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.act = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 8, kernel_size=3, stride=2)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.conv2(self.act(self.bn(self.conv1(x))))
        return self.fc(torch.flatten(self.gap(x), 1))


def case_dyn_conv(gen: torch.Generator) -> Case:
    model = DynConv()
    randomize_batchnorm_stats(model)
    batch = Dim("batch", min=1, max=64)
    return Case(
        model,
        [(randn(gen, n, 3, 8, 8),) for n in (2, 1, 5)],
        dynamic_shapes={"x": {0: batch}},
    )


CASES: dict[str, Callable[[torch.Generator], Case]] = {
    "mlp": case_mlp,
    "cnn": case_cnn,
    "decoder": case_decoder,
    "dyn_batch": case_dyn_batch,
    "dyn_seq": case_dyn_seq,
    "dyn_conv": case_dyn_conv,
    "misc": case_misc,
    "cond": case_cond,
    "control": case_control,
    "quant_bf16": case_quant_bf16,
    "stateful": case_stateful,
    "gpt2": case_gpt2,
    "bert": case_bert,
    "llama": case_llama,
    "resnet": case_resnet,
    "vit": case_vit,
    "coverage": case_coverage,
}


# --------------------------------------------------------------------------------------------
# SPMD fixtures: one program per rank, run by WORLD processes
# --------------------------------------------------------------------------------------------

WORLD = 4


class Collectives(nn.Module):
    """Functional collectives over the default group, as torch.distributed and DTensor code
    export them (`_c10d_functional.*` followed by `wait_tensor`)."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        group = dist.group.WORLD
        h = self.proj(x)
        total = funcol.all_reduce(h, "sum", group)
        peak = funcol.all_reduce(h, "max", group)
        rows = funcol.all_gather_tensor(h, 0, group)
        cols = funcol.all_gather_tensor(h, 1, group)
        scattered = funcol.reduce_scatter_tensor(rows * 2.0, "sum", 0, group)
        exchanged = funcol.all_to_all_single(h, None, None, group)
        return total, peak, rows, cols, scattered, exchanged


def case_collectives(gen: torch.Generator) -> Case:
    """Rank r's input comes from `gen` seeded with SEED + r; every rank holds the same weights."""
    return Case(Collectives(), [(randn(gen, 4, 8),)])


SPMD_CASES: dict[str, Callable[[torch.Generator], Case]] = {
    "collectives": case_collectives,
}


def spmd_rank(rank: int, name: str, port: int, scratch: str) -> None:
    """One rank: eager outputs, both exported variants run against them; rank 0 saves the archives."""
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    torch.manual_seed(SEED)
    case = SPMD_CASES[name](torch.Generator().manual_seed(SEED + rank))
    model = case.model.eval()
    eager = [eager_run(model, args) for args in case.input_sets]
    ep = torch.export.export(model, case.input_sets[0], strict=case.strict)
    core = ep.run_decompositions()
    for what, program in (("exported", ep), ("decomposed", core)):
        check_program(f"{name} rank {rank}: {what}", program, case, eager)
    if rank == 0:
        for program, suffix in ((ep, ""), (core, ".core")):
            normalize_metadata(program)
            program.example_inputs = None
            torch.export.save(program, MODELS / f"{name}{suffix}.pt2")
    for i, t in enumerate(case.input_sets[0]):
        np.save(Path(scratch) / f"{rank}.in{i}.npy", to_numpy(t), allow_pickle=False)
    for j, t in enumerate(eager[0][0]):
        np.save(Path(scratch) / f"{rank}.out{j}.npy", to_numpy(t), allow_pickle=False)
    dist.barrier()
    dist.destroy_process_group()


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def generate_spmd(name: str) -> dict:
    """Runs WORLD ranks; each input and output file holds the ranks' values stacked on a new
    leading dimension (rank r at index r)."""
    import tempfile

    MODELS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        mp.spawn(spmd_rank, args=(name, free_port(), scratch), nprocs=WORLD)
        entry: dict[str, Any] = {"inputs": [], "outputs": []}
        for kind, key in (("in", "inputs"), ("out", "outputs")):
            count = len(list(Path(scratch).glob(f"0.{kind}*.npy")))
            for i in range(count):
                stacked = np.stack([np.load(Path(scratch) / f"{r}.{kind}{i}.npy") for r in range(WORLD)])
                rel = f"models/{name}.{kind}{i}.npy"
                np.save(HERE / rel, stacked, allow_pickle=False)
                entry[key].append(rel)
    variants = {}
    for variant, suffix in (("pt2", ""), ("core", ".core")):
        path = MODELS / f"{name}{suffix}.pt2"
        assert_machine_free(path)
        variants[variant] = variant_summary(torch.export.load(path), path)
    ep = torch.export.load(MODELS / f"{name}.pt2")
    inputs, outputs = describe_io(ep)
    return {
        "files": {"pt2": f"models/{name}.pt2", "core": f"models/{name}.core.pt2", "sets": [entry]},
        "world_size": WORLD,
        "inputs": inputs,
        "outputs": outputs,
        "variants": variants,
        "tolerance": dict(F32_TOL),
        "torch_version": torch.__version__,
    }


# --------------------------------------------------------------------------------------------
# Graph helpers
# --------------------------------------------------------------------------------------------


def graph_modules(gm: torch.fx.GraphModule) -> list[torch.fx.GraphModule]:
    return [m for m in gm.modules() if isinstance(m, torch.fx.GraphModule)]


_FRAME_FILE = re.compile(r'File "([^"]+)"')
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def repo_relative(path: str) -> str:
    if path.startswith("<eval_with_key>"):
        return "<eval_with_key>"  # FX-generated code, numbered by how many graphs the process made
    if not os.path.isabs(path):
        return path
    if os.path.realpath(path) == os.path.realpath(__file__):
        return SCRIPT_REL
    marker = "site-packages" + os.sep
    if marker in path:
        return path.rsplit(marker, 1)[1]
    return os.path.basename(path)


def normalize_metadata(ep: ExportedProgram) -> None:
    """Make node metadata machine- and run-independent before saving.

    Stack-trace paths become repo-relative. torch 2.15 also records Python object ids (the
    nn_module_stack keys of a strict export, `graph_id` in `from_node`) and function reprs with
    memory addresses (`from_node` targets); these become stable names and first-seen ordinals.
    """
    module_keys: dict[str, str] = {}
    graph_ids: dict[int, int] = {}
    sources: dict[int, NodeSource] = {}

    def module_key(key: str, path: str) -> str:
        if not key.isdigit():
            return key
        if key not in module_keys:
            stable = "L__self__" + re.sub(r"\W", "_", path)
            while stable in module_keys.values():
                stable += "_"
            module_keys[key] = stable
        return module_keys[key]

    def source(src: NodeSource) -> NodeSource:
        if id(src) not in sources:
            copy_ = NodeSource(None, src.pass_name, list(src.action))
            if src.node_info is not None:
                graph_id = graph_ids.setdefault(src.graph_id, len(graph_ids))
                target = _ADDRESS.sub("", src.target)
                copy_.node_info = NodeSource.NodeInfo(src.name, target, graph_id)
            copy_.from_node = [source(s) for s in src.from_node]
            sources[id(src)] = copy_
        return sources[id(src)]

    for gm in graph_modules(ep.graph_module):
        for node in gm.graph.nodes:
            meta = node.meta
            if trace := meta.get("stack_trace"):
                meta["stack_trace"] = _FRAME_FILE.sub(lambda m: f'File "{repo_relative(m.group(1))}"', trace)
            if stack := meta.get("nn_module_stack"):
                meta["nn_module_stack"] = {module_key(k, v[0]): v for k, v in stack.items()}
            if meta.get("from_node"):
                meta["from_node"] = [source(s) for s in meta["from_node"]]


def target_name(target: Any) -> str:
    """The node target as torch's serializer spells it."""
    if isinstance(target, str):
        return target
    module = target.__module__
    if module.startswith("torch._ops"):
        module = module.replace("torch._ops", "torch.ops", 1)
    return f"{module}.{target.__name__}"


def fx_op_histograms(gm: torch.fx.GraphModule) -> tuple[Counter, Counter]:
    """(top-level ops, ops of all HOP subgraphs, recursively), as serialized nodes."""
    top: Counter = Counter()
    sub: Counter = Counter()

    def visit(g: torch.fx.GraphModule, into: Counter) -> None:
        for node in g.graph.nodes:
            if node.op != "call_function":
                continue
            if node.target is operator.getitem:
                continue  # folded into the producing node's outputs
            into[target_name(node.target)] += 1
            for arg in pytree.tree_leaves((node.args, node.kwargs)):
                if isinstance(arg, torch.fx.Node) and arg.op == "get_attr":
                    attr = getattr(g, arg.target)
                    if isinstance(attr, torch.fx.GraphModule):
                        visit(attr, sub)

    visit(gm, top)
    return top, sub


def json_op_histograms(program: dict) -> tuple[Counter, Counter]:
    top: Counter = Counter()
    sub: Counter = Counter()

    def subgraphs(value: Any):
        if isinstance(value, dict):
            for key, inner in value.items():
                if key == "as_graph":
                    yield inner["graph"]
                else:
                    yield from subgraphs(inner)
        elif isinstance(value, list):
            for inner in value:
                yield from subgraphs(inner)

    def visit(graph: dict, into: Counter) -> None:
        for node in graph["nodes"]:
            into[node["target"]] += 1
            for g in subgraphs(node["inputs"]):
                visit(g, sub)

    visit(program["graph_module"]["graph"], top)
    return top, sub


def read_program_json(path: Path) -> dict:
    with zipfile.ZipFile(path) as zf:
        names = [n for n in zf.namelist() if n.endswith("/models/model.json")]
        assert len(names) == 1, f"{path.name}: expected one models/model.json, found {names}"
        return json.loads(zf.read(names[0]))


def archived_tensor_fqns(path: Path) -> set[str]:
    """FQNs described by the archive's weights and constants configs."""
    with zipfile.ZipFile(path) as zf:
        configs = [n for n in zf.namelist() if n.endswith(("_weights_config.json", "_constants_config.json"))]
        return {fqn for n in configs for fqn in json.loads(zf.read(n))["config"]}


# --------------------------------------------------------------------------------------------
# Tensors, shapes, hashes
# --------------------------------------------------------------------------------------------


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def dim_value(d: Any) -> int | str:
    if isinstance(d, torch.SymInt):
        expr = d.node.expr
        return int(expr) if expr.is_number else str(expr)
    return int(d)


def tensor_spec(val: torch.Tensor) -> dict:
    return {"dtype": dtype_name(val.dtype), "shape": [dim_value(d) for d in val.shape]}


def to_numpy(t: torch.Tensor) -> np.ndarray:
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        t = t.float()  # lossless; the manifest keeps the real dtype
    return t.numpy()


def sha256_of(t: torch.Tensor) -> str:
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    elif t.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        t = t.view(torch.uint8)
    return hashlib.sha256(t.numpy().tobytes()).hexdigest()


def flat_tensors(value: Any) -> list[torch.Tensor]:
    leaves = pytree.tree_leaves(value)
    assert all(isinstance(v, torch.Tensor) for v in leaves), f"non-tensor output leaves: {leaves}"
    return leaves


def assert_outputs_close(what: str, got: Any, want: list[torch.Tensor], tol: dict) -> None:
    got = flat_tensors(got)
    if len(got) != len(want):
        raise AssertionError(f"{what}: {len(got)} outputs, eager gave {len(want)}")
    for j, (g, w) in enumerate(zip(got, want)):
        exact = not w.is_floating_point()
        torch.testing.assert_close(
            g,
            w,
            rtol=0 if exact else tol["rtol"],
            atol=0 if exact else tol["atol"],
            msg=lambda m, j=j: f"{what}: output {j} differs from eager: {m}",
        )


# --------------------------------------------------------------------------------------------
# Export and checks
# --------------------------------------------------------------------------------------------


def program_tensors(ep: ExportedProgram) -> dict[str, torch.Tensor]:
    return {**ep.state_dict, **{k: v for k, v in ep.constants.items() if isinstance(v, torch.Tensor)}}


def run_unchanged(ep: ExportedProgram, args: tuple) -> Any:
    """Run ep.module() and put back any buffer it mutated, so the saved state is the initial one.

    The program shares its tensors with the eager model; running without autograd keeps an
    in-place update of a buffer from giving that buffer a grad_fn (and requires_grad=True).
    """
    saved = {k: v.detach().clone() for k, v in program_tensors(ep).items()}
    with torch.no_grad():
        out = ep.module()(*args)
        for k, v in program_tensors(ep).items():
            v.copy_(saved[k])
    return out


def eager_run(model: nn.Module, args: tuple) -> tuple[list[torch.Tensor], dict[str, torch.Tensor]]:
    """Outputs and final buffer values of one eager call on a fresh copy of the model."""
    fresh = copy.deepcopy(model)
    with torch.no_grad():
        out = fresh(*args)
    return [t.detach().clone() for t in flat_tensors(out)], {
        k: v.detach().clone() for k, v in fresh.named_buffers()
    }


def check_program(what: str, ep: ExportedProgram, case: Case, eager: list) -> None:
    for k, args in enumerate(case.input_sets):
        assert_outputs_close(f"{what} input set {k}", run_unchanged(ep, args), eager[k][0], case.tolerance)


def user_input_names(ep: ExportedProgram) -> list[str]:
    return [s.arg.name for s in ep.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]


def describe_io(ep: ExportedProgram) -> tuple[list[dict], list[dict]]:
    placeholders = {n.name: n for n in ep.graph.nodes if n.op == "placeholder"}
    inputs = [{"name": name, **tensor_spec(placeholders[name].meta["val"])} for name in user_input_names(ep)]
    output_node = next(n for n in ep.graph.nodes if n.op == "output")
    outputs = [
        tensor_spec(arg.meta["val"])
        for arg, spec in zip(output_node.args[0], ep.graph_signature.output_specs)
        if spec.kind == OutputKind.USER_OUTPUT
    ]
    return inputs, outputs


def range_constraints(ep: ExportedProgram) -> dict[str, list]:
    def bound(v: Any) -> int | None:
        try:
            return int(v) if v.is_finite else None
        except (AttributeError, TypeError):
            return None

    return {str(sym): [bound(vr.lower), bound(vr.upper)] for sym, vr in ep.range_constraints.items()}


def describe_weights(ep: ExportedProgram, model: nn.Module) -> tuple[dict, list[list[str]]]:
    weights: dict[str, dict] = {}
    tensors: dict[str, torch.Tensor] = {}
    for spec in ep.graph_signature.input_specs:
        fqn = spec.target
        if spec.kind == InputKind.PARAMETER:
            t, entry = ep.state_dict[fqn], {"kind": "parameter"}
        elif spec.kind == InputKind.BUFFER:
            t = ep.state_dict[fqn] if spec.persistent else ep.constants[fqn]
            entry = {"kind": "buffer", "persistent": bool(spec.persistent)}
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            t, entry = ep.constants[fqn], {"kind": "constant"}
        elif spec.kind == InputKind.USER_INPUT:
            continue
        else:
            raise AssertionError(f"unexpected input kind {spec.kind} for {fqn}")
        if fqn in weights:
            continue
        if is_subclass(t):
            # Stored as the subclass's inner tensors, which tpuc names `<fqn>.<attribute>`.
            attributes, _ = t.__tensor_flatten__()
            for attribute in attributes:
                inner = getattr(t, attribute)
                tensors[f"{fqn}.{attribute}"] = inner
                weights[f"{fqn}.{attribute}"] = {
                    **entry,
                    **tensor_spec(inner),
                    "sha256": sha256_of(inner),
                    "subclass": fqn,
                }
            continue
        eager = eager_attribute(model, fqn)
        if eager is not None:
            # float8 by its bytes: it has no `torch.equal` on the CPU.
            float8 = t.dtype in (torch.float8_e4m3fn, torch.float8_e5m2)
            same = (eager.view(torch.uint8), t.view(torch.uint8)) if float8 else (eager, t)
            assert eager.dtype == t.dtype and torch.equal(*same), (
                f"{fqn}: exported value differs from the eager module's"
            )
        tensors[fqn] = t
        weights[fqn] = {**entry, **tensor_spec(t), "sha256": sha256_of(eager if eager is not None else t)}
    groups: dict[int, list[str]] = {}
    for fqn, t in tensors.items():
        groups.setdefault(t.untyped_storage().data_ptr(), []).append(fqn)
    tied = sorted(sorted(g) for g in groups.values() if len(g) > 1)
    return weights, tied


def flat_state(t: torch.Tensor) -> list[torch.Tensor]:
    """Copies of a state tensor's plain tensors: itself, or a subclass's inner tensors."""
    parts = [getattr(t, a) for a in t.__tensor_flatten__()[0]] if is_subclass(t) else [t]
    return [p.detach().clone() for p in parts]


def is_subclass(t: torch.Tensor) -> bool:
    """A tensor subclass that flattens into inner tensors (torchao's quantized tensors)."""
    return type(t) not in (torch.Tensor, nn.Parameter) and hasattr(t, "__tensor_flatten__")


def eager_attribute(model: nn.Module, fqn: str) -> torch.Tensor | None:
    obj: Any = model
    for part in fqn.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj if isinstance(obj, torch.Tensor) else None


def variant_summary(ep: ExportedProgram, path: Path) -> dict:
    top, sub = fx_op_histograms(ep.graph_module)
    program = read_program_json(path)
    json_top, json_sub = json_op_histograms(program)
    if (top, sub) != (json_top, json_sub):
        raise AssertionError(
            f"{path.name}: FX op histogram differs from the saved JSON:\n"
            f"  fx   {dict(top)} / {dict(sub)}\n  json {dict(json_top)} / {dict(json_sub)}"
        )
    dialect = ep.dialect
    assert program["verifiers"] == [dialect], f"{path.name}: verifiers {program['verifiers']} != {dialect}"
    saved_ranges = {k: [v["min_val"], v["max_val"]] for k, v in program["range_constraints"].items()}
    assert saved_ranges == range_constraints(ep), f"{path.name}: range constraints {saved_ranges}"
    mutations = [s.target for s in ep.graph_signature.output_specs if s.kind == OutputKind.BUFFER_MUTATION]
    return {
        "dialect": dialect,
        "ops": dict(sorted(top.items())),
        "subgraph_ops": dict(sorted(sub.items())),
        "buffer_mutations": mutations,
    }


def assert_machine_free(path: Path) -> None:
    data = path.read_bytes()
    found = [s.decode() for s in FORBIDDEN if s in data]
    if found:
        raise AssertionError(f"{path.name} names the machine: contains {found}")


def set_prefix(name: str, k: int) -> str:
    return name if k == 0 else f"{name}.set{k}"


def generate(name: str) -> dict:
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    case = CASES[name](gen)
    model = case.model.eval()
    initial = {k: (flat_state(v), v.requires_grad) for k, v in model.state_dict(keep_vars=True).items()}

    eager = [eager_run(model, args) for args in case.input_sets]

    ep = torch.export.export(
        model, case.input_sets[0], dynamic_shapes=case.dynamic_shapes, strict=case.strict
    )
    check_program(f"{name}: exported", ep, case, eager)
    core = ep.run_decompositions()
    check_program(f"{name}: decomposed", core, case, eager)

    for k, v in model.state_dict(keep_vars=True).items():
        value, requires_grad = initial[k]
        assert all(map(torch.equal, flat_state(v), value)), f"{name}: {k} changed while checking"
        assert v.requires_grad == requires_grad, f"{name}: {k} requires_grad changed while checking"

    MODELS.mkdir(parents=True, exist_ok=True)
    variants = {}
    for variant, program, suffix in (("pt2", ep, ""), ("core", core, ".core")):
        normalize_metadata(program)
        program.example_inputs = None
        path = MODELS / f"{name}{suffix}.pt2"
        torch.export.save(program, path)
        assert_machine_free(path)
        variants[variant] = variant_summary(program, path)

    for suffix in ("", ".core"):
        loaded = torch.export.load(MODELS / f"{name}{suffix}.pt2")
        check_program(f"{name}{suffix}.pt2 reloaded", loaded, case, eager)

    inputs, outputs = describe_io(ep)
    assert (inputs, outputs) == describe_io(core), f"{name}: variants disagree on inputs/outputs"
    weights, tied = describe_weights(ep, model)
    core_weights, core_tied = describe_weights(core, model)
    if (weights, tied) != (core_weights, core_tied):
        # Tensor-subclass weights: the decomposed program takes plain tensors under other
        # names. The model's weights are the core variant's; the exported one lists its own.
        assert any("subclass" in w for w in weights.values()), f"{name}: variants disagree on weights"
        variants["pt2"].update(weights=weights, tied=tied)
        weights, tied = core_weights, core_tied
    for variant, suffix in (("pt2", ""), ("core", ".core")):
        archived = archived_tensor_fqns(MODELS / f"{name}{suffix}.pt2")
        stored = {w.get("subclass", fqn) for fqn, w in variants[variant].get("weights", weights).items()}
        assert archived == stored, f"{name}{suffix}.pt2 stores {sorted(archived)}, not {sorted(stored)}"
    assert range_constraints(ep) == range_constraints(core)

    mutated = variants["core"]["buffer_mutations"]
    sets = []
    for k, (args, (outs, buffers)) in enumerate(zip(case.input_sets, eager)):
        assert [tensor_spec(t)["dtype"] for t in args] == [i["dtype"] for i in inputs]
        assert [tensor_spec(t)["dtype"] for t in outs] == [o["dtype"] for o in outputs]
        prefix = set_prefix(name, k)
        entry: dict[str, Any] = {"inputs": [], "outputs": []}
        for kind, tensors in (("in", args), ("out", outs)):
            for i, t in enumerate(tensors):
                rel = f"models/{prefix}.{kind}{i}.npy"
                np.save(HERE / rel, to_numpy(t), allow_pickle=False)
                entry["inputs" if kind == "in" else "outputs"].append(rel)
        if mutated:
            entry["mutated_buffers"] = {}
            for fqn in mutated:
                rel = f"models/{prefix}.buffer.{fqn}.npy"
                np.save(HERE / rel, to_numpy(buffers[fqn]), allow_pickle=False)
                entry["mutated_buffers"][fqn] = rel
        sets.append(entry)

    return {
        "files": {"pt2": f"models/{name}.pt2", "core": f"models/{name}.core.pt2", "sets": sets},
        "inputs": inputs,
        "outputs": outputs,
        "range_constraints": range_constraints(ep),
        "weights": weights,
        "tied": tied,
        "variants": variants,
        "tolerance": case.tolerance,
        "torch_version": torch.__version__,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help=f"fixtures to regenerate (default: all): {', '.join(CASES)}"
    )
    known = [*CASES, *SPMD_CASES]
    names = parser.parse_args().names or known
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error(f"unknown fixture(s) {unknown}; known: {known}")

    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)

    full = set(names) == set(known)
    manifest: dict[str, Any] = {}
    if full:
        for stale in [*MODELS.glob("*.pt2"), *MODELS.glob("*.npy")]:
            stale.unlink()
    elif MANIFEST.exists():
        manifest = json.loads(MANIFEST.read_text())
    models = manifest.setdefault("models", {})
    spmd = manifest.setdefault("spmd", {})
    for name in names:
        print(f"[{name}]", flush=True)
        if name in SPMD_CASES:
            spmd[name] = generate_spmd(name)
        else:
            models[name] = generate(name)
    manifest["torch_version"] = torch.__version__
    MANIFEST.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    for path in [MANIFEST, *MODELS.glob("*.npy")]:
        assert_machine_free(path)
    return 0


# --------------------------------------------------------------------------------------------
# Breadth fixtures (issue 10): ops and uses real models need, several per fixture. They sit at
# the end of the file so that adding them moved no earlier model's stack-trace lines.
# --------------------------------------------------------------------------------------------


class TrainingBatchNorm(nn.BatchNorm1d):
    """A BatchNorm that stays in training mode inside an eval model: normalises with batch
    statistics and updates its running statistics (two buffers written by one op)."""

    def train(self, mode: bool = True) -> "TrainingBatchNorm":
        return super().train(True)


class Inplace(nn.Module):
    """In-place variants of functional ops (kept as `op_` in the TRAINING dialect), on
    intermediates, a user input and a buffer; ops writing two buffers (BatchNorm in train mode
    inside an eval model updates running stats)."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.register_buffer("total", torch.zeros(6))
        self.bn = TrainingBatchNorm(6)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        h = self.fc(x)
        n = self.bn(h)
        a = F.silu(h.clone(), inplace=True)
        b = F.hardswish(h.clone(), inplace=True)
        c = F.dropout(h.clone(), p=0.5, training=False, inplace=True)
        z = h.clone().zero_()
        f = h.clone().fill_(y.sum())
        g = h.clone().mul_(2.0).sub_(h).clamp_(-0.5, 0.5).sigmoid_()
        e = h.clone().exp_().log_().neg_().abs_().sqrt_().tanh_()
        k = h.clone().masked_fill_(h > 0, 0.25).add_(y.unsqueeze(0), alpha=0.5)
        self.total.add_(h.sum(0)).mul_(0.5)
        # Writes through views: `select` + `fill_`, `select` + `mul_`, `slice` + `add_`.
        w = h.clone()
        w[:, 0] = 5.0
        w[1].mul_(2)
        w[:, 2:4].add_(1)
        w.view(2, 12)[1, :3].zero_()
        return a, b, c, z, f, g, e, k, self.total * 2, n, w


def case_inplace(gen: torch.Generator) -> Case:
    return Case(Inplace(), [(randn(gen, 4, 6), randn(gen, 6))])


class ShapeOps(nn.Module):
    """einsum, norms, padding modes, unfold/as_strided, diagonal and friends."""

    def forward(self, x: torch.Tensor, m: torch.Tensor, idx: torch.Tensor) -> tuple[torch.Tensor, ...]:
        e1 = torch.einsum("bij,bjk->bik", x, x.transpose(1, 2))
        e2 = torch.einsum("bii->bi", m)
        e3 = torch.einsum("bij,bij->b", x, x)
        e4 = torch.einsum("ij,k->ijk", m[0], x[0, 0])
        n1 = torch.linalg.vector_norm(x, dim=-1)
        n2 = torch.linalg.vector_norm(x, ord=1, dim=(1, 2), keepdim=True).flatten()
        n3 = torch.linalg.vector_norm(x, ord=float("inf"))
        n4 = x.norm(p=3, dim=1)
        img = x.unsqueeze(1)
        p1 = F.pad(img, (1, 2, 0, 1), mode="reflect")
        p2 = F.pad(img, (2, 1, 1, 2), mode="replicate")
        p3 = F.pad(img, (1, 1, 2, 0), mode="circular")
        p4 = F.pad(x, (1, 0, 0, 2), value=-1.5)
        u1 = x.unfold(2, 2, 1)
        u2 = x.unfold(1, 2, 2)
        d1 = torch.diagonal(m, offset=1, dim1=1, dim2=2)
        d2 = torch.diagonal(x, dim1=0, dim2=2)
        s = x.swapaxes(0, 2)
        ra = m.flatten()[:24].reshape_as(x)
        bt = torch.broadcast_to(m[0, 0], (2, 4))
        acm = torch.addcmul(m, m, m.mT, value=0.5) + torch.addcdiv(m, m, m.abs() + 1, value=-2)
        gx, gy = torch.meshgrid(torch.arange(3.0), m[0, 0], indexing="ij")
        gi, gj = torch.meshgrid(m[0, 1], torch.arange(2.0), indexing="xy")
        ls = torch.linspace(-1.0, 2.0, 7) + torch.linspace(0, 1, 7, dtype=torch.float32)
        ri = torch.repeat_interleave(m[0], 2, dim=0) + torch.repeat_interleave(m[1], torch.tensor([2, 1, 3, 2]), dim=0, output_size=8)
        oh = F.one_hot(idx, num_classes=5)
        nt = m[0].T
        sidx = torch.tensor([[0, 1, 0, 3], [2, 2, 1, 0]])
        sr = [
            m[0, :2].scatter_reduce(1, sidx, m[1, :2], reduce, include_self=inc)
            for reduce in ("sum", "prod", "mean", "amax", "amin")
            for inc in (True, False)
        ]
        return (e1, e2, e3, e4, n1, n2, n3, n4, p1, p2, p3, p4, u1, u2, d1, d2, s, ra, bt, acm, gx, gy, gi, gj, ls, ri, oh, nt, *sr)


def case_shape_ops(gen: torch.Generator) -> Case:
    x = randn(gen, 2, 3, 4)
    m = randn(gen, 2, 4, 4)
    idx = torch.tensor([[0, 4, 2], [1, 1, 3]])
    return Case(ShapeOps(), [(x, m, idx)])


class Vision(nn.Module):
    """Conv padding="same", pooling variants, bicubic upsampling, grid sampling, weight norm,
    weight standardisation (batch_norm with training=True inside an eval model)."""

    def __init__(self) -> None:
        super().__init__()
        self.same = nn.Conv2d(3, 4, (3, 4), padding="same", dilation=(1, 2))
        self.same_valid = nn.Conv2d(4, 4, 3, padding="valid")
        self.wn = nn.utils.parametrizations.weight_norm(nn.Linear(5, 3))
        self.ws = nn.Parameter(torch.randn(4, 3, 3, 3))

    def forward(self, x: torch.Tensor, theta: torch.Tensor) -> tuple[torch.Tensor, ...]:
        h = self.same(x)
        v = self.same_valid(h)
        a1 = F.adaptive_avg_pool2d(h, (3, 4))
        a2 = F.adaptive_avg_pool3d(h.unsqueeze(1), (2, 3, 5))
        ap1 = F.avg_pool2d(h, 3, stride=2, padding=1, count_include_pad=False)
        ap2 = F.avg_pool2d(h, 2, stride=2, ceil_mode=True)
        ap3 = F.avg_pool2d(h, 3, stride=2, padding=1, divisor_override=4)
        ap4 = F.avg_pool2d(h, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
        bic = F.interpolate(x, size=(9, 5), mode="bicubic", align_corners=False)
        bic2 = F.interpolate(x, scale_factor=1.5, mode="bicubic", align_corners=True)
        grid = F.affine_grid(theta, [2, 3, 5, 4], align_corners=False)
        gs1 = F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
        gs2 = F.grid_sample(x, grid * 1.3, mode="nearest", padding_mode="border", align_corners=True)
        gs3 = F.grid_sample(x, grid * 1.2, mode="bilinear", padding_mode="reflection", align_corners=False)
        w = self.ws.flatten(1)
        w = F.batch_norm(w.unsqueeze(0), None, None, training=True, eps=1e-5).reshape_as(self.ws)
        st = F.conv2d(x, w, padding=1)
        wn = self.wn(x.flatten(2)[..., :5])
        return h, v, a1, a2, ap1, ap2, ap3, ap4, bic, bic2, grid, gs1, gs2, gs3, st, wn


def case_vision(gen: torch.Generator) -> Case:
    theta = torch.tensor([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.2]], [[1.2, 0.0, 0.0], [0.1, 0.8, 0.3]]])
    return Case(Vision(), [(randn(gen, 2, 3, 7, 6), theta)])


class Sequence(nn.Module):
    """LSTM and GRU (multi-layer, batch_first, bidirectional), embedding_bag modes, multi-query
    attention, masked_fill with a mask broadcast larger than the input, boolean index_put."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(4, 5, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(4, 3, num_layers=2)
        self.bag_sum = nn.EmbeddingBag(10, 4, mode="sum", padding_idx=0)
        self.bag_mean = nn.EmbeddingBag(10, 4, mode="mean")
        self.bag_max = nn.EmbeddingBag(10, 4, mode="max")

    def forward(self, x: torch.Tensor, tokens: torch.Tensor, offsets: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, ...]:
        out, (h, c) = self.lstm(x)
        g, gh = self.gru(x.transpose(0, 1))
        s = self.bag_sum(tokens, offsets, per_sample_weights=w)
        m = self.bag_mean(tokens, offsets)
        mx = self.bag_max(tokens.view(2, 4))
        q = x.view(2, 6, 2, 2).transpose(1, 2)
        kv = x[:, :, :2].unsqueeze(1)
        att = F.scaled_dot_product_attention(q, kv, kv, enable_gqa=True)
        mask = (x[0, :, :1] > 0)
        mf = x[0, :, 0].masked_fill(mask, -1.0)
        bi = x.clone()
        bi[x > 0.5] = 0.0
        torch._assert_async(x.abs().sum() >= 0, "non-negative")
        return out, h, c, g, gh, s, m, mx, att, mf, bi


def case_sequence(gen: torch.Generator) -> Case:
    tokens = torch.tensor([1, 0, 3, 9, 4, 4, 0, 7])
    offsets = torch.tensor([0, 3, 3, 5])
    return Case(Sequence(), [(randn(gen, 2, 6, 4), tokens, offsets, randn(gen, 8))])


CASES.update(
    {
        "inplace": case_inplace,
        "shape_ops": case_shape_ops,
        "vision": case_vision,
        "sequence": case_sequence,
    }
)


class Windows(nn.Module):
    """as_strided (Tensor.unfold's core decomposition, and explicit views: a reshape pattern, a
    transposed one with an offset, overlapping windows), im2col (F.unfold), col2im (F.fold)."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        u = x.unfold(2, 3, 2)
        s1 = torch.as_strided(x, (2, 3, 30), (90, 30, 1))
        s2 = torch.as_strided(x, (3, 2, 5), (1, 90, 3), 4)
        s3 = torch.as_strided(x.flatten(), (5, 4), (3, 1), 2)
        geometry = {"kernel_size": (3, 2), "dilation": (1, 2), "padding": 1, "stride": (2, 1)}
        cols = F.unfold(x, **geometry)
        folded = F.fold(cols, output_size=(6, 5), **geometry)
        return u, s1, s2, s3, cols, folded


def case_windows(gen: torch.Generator) -> Case:
    return Case(Windows(), [(randn(gen, 2, 3, 6, 5),)])


class LogOfInput(nn.Module):
    """Finite for positive inputs; a non-positive one makes `log` NaN or -inf (`--debug=nan`)."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = x * 2.0 + 1.0
        y = torch.log(x)
        return h.relu(), (y * h).mean(dim=-1)


def case_log_of_input(gen: torch.Generator) -> Case:
    return Case(LogOfInput(), [(torch.rand(3, 4, generator=gen) + 0.5,)])


CASES.update({"windows": case_windows, "log_of_input": case_log_of_input})


# --------------------------------------------------------------------------------------------
# Real-model families (issue 10): tiny configs of transformers and torchvision models whose
# architecture the fixtures above do not cover.
# --------------------------------------------------------------------------------------------

# float16 has 11 bits of mantissa: one rounding step is 2^-11 relative; a few steps per layer.
F16_TOL = {"rtol": 4e-3, "atol": 2e-3}


def causal_lm_case(model: nn.Module, gen: torch.Generator, tolerance: dict[str, float] = DEEP_F32_TOL) -> Case:
    """A causal LM's logits (`LogitsOnly`) on random tokens `[2, 8]` of a 128-word vocabulary."""
    input_ids = torch.randint(0, 128, (2, 8), generator=gen)
    return Case(LogitsOnly(model, "logits"), [(input_ids,)], tolerance=dict(tolerance))


class Seq2SeqLogits(nn.Module):
    """Calls an encoder-decoder transformers model with decoder inputs, without cache; logits."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, decoder_input_ids: torch.Tensor
    ) -> torch.Tensor:
        out = self.inner(
            input_ids=input_ids,
            attention_mask=attention_mask,
            decoder_input_ids=decoder_input_ids,
            use_cache=False,
        )
        return out.logits


def padded_mask(batch: int, length: int, padded_row_length: int) -> torch.Tensor:
    """All ones, except the last row, which is padding after `padded_row_length` tokens."""
    mask = torch.ones(batch, length, dtype=torch.int64)
    mask[-1, padded_row_length:] = 0
    return mask


def case_t5(gen: torch.Generator) -> Case:
    from transformers import T5Config, T5ForConditionalGeneration

    config = T5Config(
        vocab_size=128,
        d_model=32,
        d_kv=8,
        d_ff=64,
        num_layers=1,
        num_decoder_layers=1,
        num_heads=4,
        relative_attention_num_buckets=8,
        relative_attention_max_distance=16,
        feed_forward_proj="gated-gelu",
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=1,
    )
    model = Seq2SeqLogits(T5ForConditionalGeneration(config))
    input_ids = torch.randint(2, 128, (2, 10), generator=gen)
    decoder_input_ids = torch.randint(2, 128, (2, 6), generator=gen)
    args = (input_ids, padded_mask(2, 10, 7), decoder_input_ids)
    return Case(model, [args], tolerance=dict(DEEP_F32_TOL))


def case_bart(gen: torch.Generator) -> Case:
    from transformers import BartConfig, BartForConditionalGeneration

    config = BartConfig(
        vocab_size=128,
        d_model=32,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        max_position_embeddings=32,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        decoder_start_token_id=2,
        attn_implementation="sdpa",
    )
    model = Seq2SeqLogits(BartForConditionalGeneration(config))
    input_ids = torch.randint(3, 128, (2, 10), generator=gen)
    decoder_input_ids = torch.randint(3, 128, (2, 6), generator=gen)
    args = (input_ids, padded_mask(2, 10, 7), decoder_input_ids)
    return Case(model, [args], tolerance=dict(DEEP_F32_TOL))


def case_bloom(gen: torch.Generator) -> Case:
    from transformers import BloomConfig, BloomForCausalLM

    config = BloomConfig(vocab_size=128, hidden_size=32, n_layer=1, n_head=4, attn_implementation="eager")
    model = LogitsOnly(BloomForCausalLM(config), "logits")
    input_ids = torch.randint(0, 128, (2, 8), generator=gen)
    return Case(model, [(input_ids, padded_mask(2, 8, 6))], tolerance=dict(DEEP_F32_TOL))


def case_falcon(gen: torch.Generator) -> Case:
    from transformers import FalconConfig, FalconForCausalLM

    # The original Falcon-7B layout: multi-query attention (one key/value head), rotary
    # embeddings, attention and MLP in parallel from one LayerNorm.
    config = FalconConfig(
        vocab_size=128,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=4,
        multi_query=True,
        parallel_attn=True,
        new_decoder_architecture=False,
        alibi=False,
        bias=False,
        attn_implementation="sdpa",
    )
    return causal_lm_case(FalconForCausalLM(config), gen)


def case_gemma2(gen: torch.Generator) -> Case:
    from transformers import Gemma2Config, Gemma2ForCausalLM

    # (1 + w) RMSNorm before and after each block, tanh soft-capping of attention scores and of
    # the logits, a sliding-window layer (window 4 < 8 tokens) then a global one, GeGLU MLP,
    # embeddings scaled by sqrt(hidden).
    config = Gemma2Config(
        vocab_size=128,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=8,
        query_pre_attn_scalar=8,
        sliding_window=4,
        attn_logit_softcapping=50.0,
        final_logit_softcapping=30.0,
        max_position_embeddings=32,
        attn_implementation="eager",
    )
    model = Gemma2ForCausalLM(config)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.normal_(std=0.1)
    return causal_lm_case(model, gen)


class ClipLogits(nn.Module):
    """CLIPModel's image-text similarity logits."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(
        self, input_ids: torch.Tensor, pixel_values: torch.Tensor, attention_mask: torch.Tensor
    ) -> torch.Tensor:
        out = self.inner(input_ids=input_ids, pixel_values=pixel_values, attention_mask=attention_mask)
        return out.logits_per_image


def case_clip(gen: torch.Generator) -> Case:
    from transformers import CLIPConfig, CLIPModel

    text = {
        "vocab_size": 64,
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "max_position_embeddings": 16,
        "bos_token_id": 0,
        "eos_token_id": 2,
        "pad_token_id": 1,
    }
    vision = {
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "image_size": 16,
        "patch_size": 8,
    }
    config = CLIPConfig(text_config=text, vision_config=vision, projection_dim=16, attn_implementation="sdpa")
    model = ClipLogits(CLIPModel(config))
    # Text: BOS, words, EOS (the pooled token), then padding in the second row.
    input_ids = torch.randint(3, 64, (2, 8), generator=gen)
    input_ids[:, 0] = 0
    input_ids[0, 7] = 2
    input_ids[1, 5] = 2
    input_ids[1, 6:] = 1
    args = (input_ids, randn(gen, 3, 3, 16, 16), padded_mask(2, 8, 6))
    return Case(model, [args], tolerance=dict(DEEP_F32_TOL))


def tiny_llama_in(dtype: torch.dtype) -> nn.Module:
    """`llama`'s configuration, smaller (one layer), with its weights and computation in `dtype`."""
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=128,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=32,
        attn_implementation="sdpa",
        dtype=dtype,
    )
    return LlamaForCausalLM(config).to(dtype)


def case_llama_bf16(gen: torch.Generator) -> Case:
    return causal_lm_case(tiny_llama_in(torch.bfloat16), gen, BF16_TOL)


def case_llama_f16(gen: torch.Generator) -> Case:
    return causal_lm_case(tiny_llama_in(torch.float16), gen, F16_TOL)


def case_densenet(gen: torch.Generator) -> Case:
    from torchvision.models.densenet import DenseNet

    # Two dense blocks of two layers (growth 4, bottleneck 2x) and one transition: the
    # concatenations of every earlier feature map, BatchNorm-ReLU-Conv order, avg-pool transition.
    model = DenseNet(growth_rate=4, block_config=(2, 2), num_init_features=8, bn_size=2, num_classes=10)
    randomize_batchnorm_stats(model)
    return Case(model, [(randn(gen, 1, 3, 32, 32),)], tolerance=dict(DEEP_F32_TOL))


def case_shufflenet(gen: torch.Generator) -> Case:
    from torchvision.models.shufflenetv2 import ShuffleNetV2

    # Channel split, depthwise convolutions and channel shuffle (view, transpose, view).
    model = ShuffleNetV2(stages_repeats=[2, 1, 1], stages_out_channels=[8, 16, 32, 64, 128], num_classes=10)
    randomize_batchnorm_stats(model)
    return Case(model, [(randn(gen, 1, 3, 32, 32),)], tolerance=dict(DEEP_F32_TOL))


class UNet(nn.Module):
    """Two-level U-Net: conv blocks, max-pool down, ConvTranspose2d up, skip concatenation."""

    def __init__(self, channels: int = 3, classes: int = 2, width: int = 8) -> None:
        super().__init__()

        def block(cin: int, cout: int) -> nn.Sequential:
            return nn.Sequential(
                nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True),
                nn.Conv2d(cout, cout, 3, padding=1, bias=False),
                nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True),
            )

        self.down1 = block(channels, width)
        self.down2 = block(width, 2 * width)
        self.bottom = block(2 * width, 4 * width)
        self.pool = nn.MaxPool2d(2)
        self.up2 = nn.ConvTranspose2d(4 * width, 2 * width, kernel_size=2, stride=2)
        self.dec2 = block(4 * width, 2 * width)
        self.up1 = nn.ConvTranspose2d(2 * width, width, kernel_size=2, stride=2)
        self.dec1 = block(2 * width, width)
        self.head = nn.Conv2d(width, classes, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        d1 = self.down1(x)
        d2 = self.down2(self.pool(d1))
        h = self.bottom(self.pool(d2))
        h = self.dec2(torch.cat([self.up2(h), d2], dim=1))
        h = self.dec1(torch.cat([self.up1(h), d1], dim=1))
        return self.head(h)


def case_unet(gen: torch.Generator) -> Case:
    model = UNet()
    randomize_batchnorm_stats(model)
    return Case(model, [(randn(gen, 1, 3, 16, 16),)], tolerance=dict(DEEP_F32_TOL))


class HiddenStates(nn.Module):
    """Calls a transformers audio encoder on raw samples; `last_hidden_state`."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, input_values: torch.Tensor) -> torch.Tensor:
        return self.inner(input_values=input_values).last_hidden_state


def case_wav2vec2(gen: torch.Generator) -> Case:
    from transformers import Wav2Vec2Config, Wav2Vec2Model

    # Convolutional feature encoder (GroupNorm after the first conv, GELU), feature projection,
    # weight-normed grouped positional convolution, post-norm transformer encoder.
    config = Wav2Vec2Config(
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        conv_dim=(8, 8, 8),
        conv_stride=(5, 2, 2),
        conv_kernel=(10, 3, 3),
        num_conv_pos_embeddings=8,
        num_conv_pos_embedding_groups=2,
        attn_implementation="sdpa",
    )
    model = HiddenStates(Wav2Vec2Model(config))
    return Case(model, [(randn(gen, 2, 400),)], tolerance=dict(DEEP_F32_TOL))


class Int8WeightOnlyLinear(nn.Module):
    """A Linear whose weight is stored as int8 with one float32 scale per output channel
    (symmetric, absmax / 127) and dequantised in forward; activations stay float32."""

    def __init__(self, linear: nn.Linear) -> None:
        super().__init__()
        w = linear.weight.detach()
        scale = w.abs().amax(dim=1).clamp(min=1e-8) / 127
        self.register_buffer("weight_int8", torch.round(w / scale[:, None]).to(torch.int8))
        self.register_buffer("scale", scale)
        self.bias = None if linear.bias is None else nn.Parameter(linear.bias.detach().clone())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight_int8.to(x.dtype)) * self.scale + (0 if self.bias is None else self.bias)


def quantize_linears(module: nn.Module) -> None:
    for name, child in module.named_children():
        if isinstance(child, nn.Linear):
            setattr(module, name, Int8WeightOnlyLinear(child))
        else:
            quantize_linears(child)


def case_llama_int8(gen: torch.Generator) -> Case:
    model = tiny_llama_in(torch.float32)
    quantize_linears(model.model)
    return causal_lm_case(model, gen)


class SiglipLogits(nn.Module):
    """SiglipModel's image-text logits (sigmoid-loss logits: scaled cosine plus a bias)."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, input_ids: torch.Tensor, pixel_values: torch.Tensor) -> torch.Tensor:
        return self.inner(input_ids=input_ids, pixel_values=pixel_values).logits_per_image


def case_siglip(gen: torch.Generator) -> Case:
    from transformers import SiglipConfig, SiglipModel

    # Text pooled at the last token through a head Linear; image pooled by the multihead
    # attention pooling head (a learned probe attending over the patches, nn.MultiheadAttention).
    tower = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2}
    text = {**tower, "vocab_size": 64, "max_position_embeddings": 8}
    text.update(pad_token_id=1, bos_token_id=0, eos_token_id=2)
    vision = {**tower, "image_size": 16, "patch_size": 8}
    config = SiglipConfig(text_config=text, vision_config=vision, attn_implementation="sdpa")
    model = SiglipLogits(SiglipModel(config))
    args = (torch.randint(0, 64, (2, 8), generator=gen), randn(gen, 3, 3, 16, 16))
    return Case(model, [args], tolerance=dict(DEEP_F32_TOL))


CASES.update(
    {
        "t5": case_t5,
        "bart": case_bart,
        "bloom": case_bloom,
        "falcon": case_falcon,
        "gemma2": case_gemma2,
        "clip": case_clip,
        "llama_bf16": case_llama_bf16,
        "llama_f16": case_llama_f16,
        "densenet": case_densenet,
        "shufflenet": case_shufflenet,
        "unet": case_unet,
        "wav2vec2": case_wav2vec2,
        "llama_int8": case_llama_int8,
        "siglip": case_siglip,
    }
)



class DynTokens(nn.Module):
    """Token ids and a padding mask, both [batch, seq], with both dimensions symbolic: causal
    attention that also masks padding, a mean over the sequence (1/seq), a masked mean and
    the sequence length used as a number."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(64, 16)
        self.qkv = nn.Linear(16, 48)
        self.out = nn.Linear(16, 16)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> tuple[torch.Tensor, ...]:
        batch, seq = input_ids.shape
        h = self.embed(input_ids)
        q, k, v = self.qkv(h).view(batch, seq, 3, 2, 8).permute(2, 0, 3, 1, 4)
        position = torch.arange(seq, device=input_ids.device)
        causal = position[None, :] <= position[:, None]
        keep = causal[None, None] & attention_mask.bool()[:, None, None, :]
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        h = h + self.out(a.transpose(1, 2).reshape(batch, seq, 16))
        mask = attention_mask.to(h.dtype)[..., None]
        pooled = (h * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return h.mean(dim=1) + seq, pooled


def case_dyn_tokens(gen: torch.Generator) -> Case:
    batch = Dim("batch", min=1, max=16)
    seq = Dim("seq", min=2, max=64)
    sets = []
    for b, t in ((2, 8), (3, 5), (1, 12)):
        ids = torch.randint(0, 64, (b, t), generator=gen)
        mask = torch.ones(b, t, dtype=torch.int64)
        mask[0, t - 2 :] = 0
        sets.append((ids, mask))
    return Case(
        DynTokens(),
        sets,
        tolerance=dict(DEEP_F32_TOL),
        dynamic_shapes={"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}},
    )


CASES["dyn_tokens"] = case_dyn_tokens


class PaddedEncoder(nn.Module):
    """Two attention layers over padded sequences: the first masks a padded query's whole row
    (a boolean mask of query and key padding), the second masks padded keys with an additive
    `-inf` mask, so a sequence that is all padding masks every row. PyTorch's attention gives
    zeros for a row with no key left; a plain softmax gives NaN."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(32, 16)
        self.qkv = nn.ModuleList([nn.Linear(16, 48) for _ in range(2)])
        self.out = nn.ModuleList([nn.Linear(16, 16) for _ in range(2)])

    def attend(self, layer: int, h: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        batch, seq, _ = h.shape
        q, k, v = self.qkv[layer](h).view(batch, seq, 3, 2, 8).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return h + self.out[layer](a.transpose(1, 2).reshape(batch, seq, 16))

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        keep = attention_mask.bool()
        h = self.embed(input_ids)
        h = self.attend(0, h, keep[:, None, :, None] & keep[:, None, None, :])
        additive = torch.zeros(keep.shape, dtype=h.dtype).masked_fill(~keep, float("-inf"))
        return self.attend(1, h, additive[:, None, None, :])


def case_padded_encoder(gen: torch.Generator) -> Case:
    """No padding, partial padding, and a batch whose second sequence is all padding."""
    sets = []
    for lengths in ((6, 6), (6, 3), (4, 0)):
        ids = torch.randint(0, 32, (2, 6), generator=gen)
        mask = (torch.arange(6)[None, :] < torch.tensor(lengths)[:, None]).to(torch.int64)
        sets.append((ids, mask))
    return Case(PaddedEncoder(), sets)


CASES["padded_encoder"] = case_padded_encoder


class Buckets(nn.Module):
    """DLRM-style bucketized dense features embedded as ids, and `searchsorted` on rows of sorted
    sequences, left and right, through a sorter, into int32 and int64."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("boundaries", torch.tensor([-1.0, -0.25, 0.0, 0.5, 1.5]))
        self.register_buffer("rows", torch.tensor([[0.0, 1.0, 2.0, 3.0], [-2.0, -1.0, 1.0, 4.0]]))
        self.register_buffer("shuffled", torch.tensor([3.0, -1.0, 0.5, 2.0, -3.0]))
        self.register_buffer("order", torch.argsort(self.shuffled))
        self.embed = nn.Embedding(6, 4)

    def forward(self, x: torch.Tensor, queries: torch.Tensor) -> tuple[torch.Tensor, ...]:
        ids = torch.bucketize(x, self.boundaries)
        upper = torch.bucketize(x, self.boundaries, right=True, out_int32=True)
        per_row = torch.searchsorted(self.rows, queries, side="right")
        sorted_by = torch.searchsorted(self.shuffled, x.flatten(), sorter=self.order)
        return self.embed(ids).sum(1), upper, per_row, sorted_by


def case_buckets(gen: torch.Generator) -> Case:
    """Values on the boundaries (where left and right differ), between and outside them, NaN."""
    x = torch.tensor([[-1.0, -0.25, 0.0, 0.5], [1.5, 2.0, -3.0, float("nan")], [0.1, -0.6, 1.0, 3.0]])
    queries = torch.tensor([[1.0, 2.5, -1.0], [1.0, -1.0, 5.0]])
    return Case(Buckets(), [(x, queries), (randn(gen, 3, 4), randn(gen, 2, 3))])


CASES["buckets"] = case_buckets


class Recurrent2(nn.Module):
    """An LSTM with a projection (`proj_size`), bidirectional over two layers, and Elman RNNs
    with tanh and ReLU, one of them unbatched."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(4, 6, num_layers=2, batch_first=True, bidirectional=True, proj_size=3)
        self.tanh = nn.RNN(4, 5, num_layers=2)
        self.relu = nn.RNN(4, 5, nonlinearity="relu", bidirectional=True, bias=False)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        out, (h, c) = self.lstm(x)
        t, th = self.tanh(x.transpose(0, 1))
        r, rh = self.relu(x[0])
        return out, h, c, t, th, r, rh


def case_recurrent2(gen: torch.Generator) -> Case:
    return Case(Recurrent2(), [(randn(gen, 2, 5, 4),)])


CASES["recurrent2"] = case_recurrent2


class CoreBackward(nn.Module):
    """Core ATen ops joint graphs and decompositions leave, called as ops: the backward of
    layer norm, group norm, average pooling (with ceil mode and padding), adaptive average
    pooling and embeddings (padding row, gradients scaled by frequency), and dropout's
    functional form outside training."""

    def __init__(self) -> None:
        super().__init__()
        self.ln_w = nn.Parameter(torch.rand(6) + 0.5)
        self.ln_b = nn.Parameter(torch.randn(6))
        self.gn_w = nn.Parameter(torch.rand(4) + 0.5)
        self.gn_b = nn.Parameter(torch.randn(4))

    def forward(
        self, x: torch.Tensor, g: torch.Tensor, img: torch.Tensor, gimg: torch.Tensor, ids: torch.Tensor
    ) -> tuple[torch.Tensor, ...]:
        aten = torch.ops.aten
        _, mean, rstd = aten.native_layer_norm(x, [6], self.ln_w, self.ln_b, 1e-5)
        dx, dw, db = aten.native_layer_norm_backward(
            g, x, [6], mean, rstd, self.ln_w, self.ln_b, [True, True, True]
        )
        _, gmean, grstd = aten.native_group_norm(img, self.gn_w, self.gn_b, 2, 4, 25, 2, 1e-5)
        gx, gw, gb = aten.native_group_norm_backward(
            gimg, img, gmean, grstd, self.gn_w, 2, 4, 25, 2, [True, True, True]
        )
        pooled = aten.avg_pool2d(img, [3, 3], [2, 2], [1, 1], True, False)
        dpool = aten.avg_pool2d_backward(pooled * 2.0, img, [3, 3], [2, 2], [1, 1], True, False, None)
        dadaptive = aten._adaptive_avg_pool2d_backward(gimg[:, :, :3, :2], img)
        demb = aten.embedding_dense_backward(g.reshape(3, 2, 3), ids, 7, 2, True)
        kept, mask = aten.native_dropout(x, 0.5, False)
        return dx, dw, db, gx, gw, gb, dpool, dadaptive, demb, kept * mask


def case_core_backward(gen: torch.Generator) -> Case:
    x, g = randn(gen, 3, 6), randn(gen, 3, 6)
    img, gimg = randn(gen, 2, 4, 5, 5), randn(gen, 2, 4, 5, 5)
    ids = torch.tensor([[0, 2], [5, 0], [6, 2]])
    return Case(CoreBackward(), [(x, g, img, gimg, ids)])


CASES["core_backward"] = case_core_backward


class CoreOps(nn.Module):
    """Core ATen overloads that models reach through decompositions or not at all, called as
    ops: the padding modes, the Scalar arithmetic overloads, ELU, scatter of a value, an
    uninitialised tensor filled, layer norm without affine parameters, and the backward of a
    convolution and a max pool."""

    def forward(self, x: torch.Tensor, img: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, ...]:
        aten = torch.ops.aten
        pads = (
            aten.reflection_pad1d(img[0], [2, 1]),
            aten.reflection_pad2d(img, [1, 2, 2, 1]),
            aten.reflection_pad3d(img.unsqueeze(0), [1, 1, 2, 0, 1, 2]),
            aten.replication_pad2d(img, [2, 0, 1, 3]),
            aten.replication_pad3d(img.unsqueeze(0), [0, 2, 1, 1, 2, 1]),
        )
        ints = (x * 10).to(torch.int64)
        scalars = (
            aten.div.Scalar(x, 3.0),
            aten.div.Scalar_mode(x, 0.7, rounding_mode="floor"),
            aten.pow.Scalar(2.0, x),
            aten.sub.Scalar(x, 1.5, alpha=2),
            aten.bitwise_xor.Scalar(ints, 5),
            aten.elu.default(x, 0.5, 1.2, 0.8),
            aten.scatter.value(x, 1, torch.tensor([[0, 2], [1, 0], [3, 3]]), 7.0),
            aten.empty_strided.default([3, 4], [4, 1]).fill_(2.5) + x,
        )
        normed = aten.native_layer_norm(img, [5], None, None, 1e-5)[0]
        conv = aten.convolution(img, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
        dconv = aten.convolution_backward(
            conv * 0.5, img, w, [3], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]
        )
        pooled, indices = aten.max_pool2d_with_indices(img, [2, 2], [2, 2])
        dmax = aten.max_pool2d_with_indices_backward(pooled, img, [2, 2], [2, 2], [0, 0], [1, 1], False, indices)
        return (*pads, *scalars, normed, *dconv, dmax)


def case_core_ops(gen: torch.Generator) -> Case:
    return Case(CoreOps(), [(randn(gen, 3, 4), randn(gen, 2, 4, 5, 5), randn(gen, 3, 4, 3, 3))])


CASES["core_ops"] = case_core_ops


class SymbolicSizes(nn.Module):
    """A tensor's stride, element count and storage offset used as numbers, on a symbolic
    dimension (the `sym_stride`, `sym_numel` and `sym_storage_offset` nodes)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * x.stride(0) + x.numel() + x.storage_offset()


def case_core_sym(gen: torch.Generator) -> Case:
    return Case(
        SymbolicSizes(),
        [(randn(gen, 3, 5),), (randn(gen, 3, 7),)],
        dynamic_shapes={"x": {1: Dim("width", min=2, max=32)}},
    )


CASES["core_sym"] = case_core_sym

# --------------------------------------------------------------------------------------------
# Families (issue 25): each from its library's own code, tiny configurations.
# --------------------------------------------------------------------------------------------


class Outputs(nn.Module):
    """Calls a library model with keyword inputs and returns the named fields of its result."""

    def __init__(self, inner: nn.Module, names: tuple[str, ...], fields: tuple[str, ...], **fixed: Any) -> None:
        super().__init__()
        self.inner = inner
        self.names = names
        self.fields = fields
        self.fixed = fixed

    def forward(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        result = self.inner(**dict(zip(self.names, inputs)), **self.fixed)
        return tuple(getattr(result, field) for field in self.fields)


def case_mamba(gen: torch.Generator) -> Case:
    """A state-space model: transformers' Mamba (selective scan, causal depthwise convolution)."""
    from transformers import MambaConfig, MambaForCausalLM

    config = MambaConfig(
        vocab_size=64, hidden_size=16, state_size=4, num_hidden_layers=2, expand=2,
        conv_kernel=4, time_step_rank=4, use_cache=False,
    )
    model = Outputs(MambaForCausalLM(config), ("input_ids",), ("logits",), use_cache=False)
    return Case(model, [(torch.randint(0, 64, (2, 8), generator=gen),)], tolerance=dict(DEEP_F32_TOL))


class Codec(nn.Module):
    """A neural audio codec's round trip: the codes of a waveform, and the waveform decoded
    from them."""

    def __init__(self, codec: nn.Module, **encode: Any) -> None:
        super().__init__()
        self.codec = codec
        self.encode = encode

    def forward(self, audio: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        encoded = self.codec.encode(audio, **self.encode)
        if hasattr(encoded, "audio_scales"):
            decoded = self.codec.decode(encoded.audio_codes, encoded.audio_scales)
        else:
            decoded = self.codec.decode(audio_codes=encoded.audio_codes)
        return decoded.audio_values, encoded.audio_codes


def static_encodec_padding(model: nn.Module) -> nn.Module:
    """EnCodec keeps its convolutions' stride, kernel size and padding in tensor buffers and
    computes the padding from them, which torch.export cannot trace (the amounts become
    data-dependent). Users export it with the same arithmetic on Python ints, as here."""
    import math
    import types

    from transformers.models.encodec.modeling_encodec import EncodecConv1d

    def extra_padding(self: EncodecConv1d, hidden_states: torch.Tensor) -> int:
        length = hidden_states.shape[-1]
        frames = math.ceil((length - self.kernel_size + self.padding_total) / self.stride + 1) - 1
        return frames * self.stride + self.kernel_size - self.padding_total - length

    for module in model.modules():
        if isinstance(module, EncodecConv1d):
            for name in ("stride", "kernel_size", "padding_total"):
                setattr(module, name, int(module._buffers.pop(name)))
            module._get_extra_padding_for_conv1d = types.MethodType(extra_padding, module)
    return model


def case_encodec(gen: torch.Generator) -> Case:
    """An audio codec: transformers' EnCodec (causal convolutions with reflect padding, an LSTM,
    residual vector quantization), encoded at 1.5 kbps and decoded."""
    from transformers import EncodecConfig, EncodecModel

    config = EncodecConfig(
        num_filters=4, hidden_size=16, upsampling_ratios=[4, 2], codebook_size=64, codebook_dim=16,
        target_bandwidths=[1.5], sampling_rate=800, num_lstm_layers=1,
    )
    model = Codec(static_encodec_padding(EncodecModel(config)), bandwidth=1.5)
    # 20 frames: the decomposed program unrolls the LSTM over every one.
    return Case(model, [(randn(gen, 1, 1, 160),)], tolerance=dict(DEEP_F32_TOL))


def case_dac(gen: torch.Generator) -> Case:
    """An audio codec: transformers' DAC (Snake activations, weight-normed convolutions,
    factorized residual vector quantization)."""
    from transformers import DacConfig, DacModel

    config = DacConfig(
        encoder_hidden_size=16, downsampling_ratios=[2, 4], decoder_hidden_size=32, n_codebooks=4,
        codebook_size=64, codebook_dim=8, hidden_size=32, upsampling_ratios=[4, 2],
    )
    return Case(Codec(DacModel(config)), [(randn(gen, 1, 1, 160),)], tolerance=dict(DEEP_F32_TOL))


def case_qwen3_moe(gen: torch.Generator) -> Case:
    """A mixture of experts: transformers' Qwen3-MoE, top-2 of 4 experts routed through
    transformers' grouped matmul (`transformers::grouped_mm_fallback`, tokens sorted by expert,
    counted by `histc`)."""
    from transformers import Qwen3MoeConfig, Qwen3MoeForCausalLM

    config = Qwen3MoeConfig(
        vocab_size=64, hidden_size=32, intermediate_size=64, moe_intermediate_size=16,
        num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1, head_dim=16,
        num_experts=4, num_experts_per_tok=2, max_position_embeddings=64,
    )
    model = Outputs(Qwen3MoeForCausalLM(config), ("input_ids",), ("logits",), use_cache=False)
    return Case(model, [(torch.randint(0, 64, (1, 8), generator=gen),)], tolerance=dict(DEEP_F32_TOL))


def case_swin(gen: torch.Generator) -> Case:
    """Shifted-window attention: transformers' Swin classifier (window partitions, a shifted
    window mask, patch merging, 1-d adaptive pooling)."""
    from transformers import SwinConfig, SwinForImageClassification

    config = SwinConfig(
        image_size=32, patch_size=4, embed_dim=8, depths=[1, 1], num_heads=[1, 2], window_size=2,
        num_labels=3,
    )
    model = Outputs(SwinForImageClassification(config), ("pixel_values",), ("logits",))
    return Case(model, [(randn(gen, 1, 3, 32, 32),)], tolerance=dict(DEEP_F32_TOL))


def case_hubert(gen: torch.Generator) -> Case:
    """A speech encoder: transformers' Hubert (convolutional feature extractor, grouped
    positional convolution, transformer layers) on raw audio."""
    from transformers import HubertConfig, HubertModel

    config = HubertConfig(
        hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
        conv_dim=(8, 8), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=8,
        num_conv_pos_embedding_groups=2,
    )
    model = Outputs(HubertModel(config), ("input_values",), ("last_hidden_state",))
    return Case(model, [(randn(gen, 2, 400),)], tolerance=dict(DEEP_F32_TOL))


def case_whisper(gen: torch.Generator) -> Case:
    """A speech encoder-decoder: transformers' Whisper on log-mel features and decoder ids."""
    from transformers import WhisperConfig, WhisperModel

    config = WhisperConfig(
        vocab_size=64, d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, num_mel_bins=8,
        max_source_positions=16, max_target_positions=16, pad_token_id=0, bos_token_id=1,
        eos_token_id=2, decoder_start_token_id=1,
    )
    model = Outputs(WhisperModel(config), ("input_features", "decoder_input_ids"), ("last_hidden_state",))
    args = (randn(gen, 1, 8, 32), torch.randint(0, 64, (1, 5), generator=gen))
    return Case(model, [args], tolerance=dict(DEEP_F32_TOL))


def case_time_series(gen: torch.Generator) -> Case:
    """transformers' TimeSeriesTransformer: lagged values, time features and scaling."""
    from transformers import TimeSeriesTransformerConfig, TimeSeriesTransformerModel

    config = TimeSeriesTransformerConfig(
        prediction_length=4, context_length=8, input_size=1, lags_sequence=[1, 2],
        num_time_features=1, d_model=16, encoder_layers=1, decoder_layers=1,
        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=16, decoder_ffn_dim=16,
    )
    names = ("past_values", "past_time_features", "past_observed_mask", "future_time_features")
    model = Outputs(TimeSeriesTransformerModel(config), names, ("last_hidden_state",))
    args = (randn(gen, 2, 10), randn(gen, 2, 10, 1), torch.ones(2, 10), randn(gen, 2, 4, 1))
    return Case(model, [args], tolerance=dict(DEEP_F32_TOL))


def case_yolos(gen: torch.Generator) -> Case:
    """Detection with a plain ViT: transformers' YOLOS (detection tokens, box head)."""
    from transformers import YolosConfig, YolosForObjectDetection

    config = YolosConfig(
        hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
        image_size=[32, 32], patch_size=8, num_detection_tokens=4, num_labels=3,
    )
    model = Outputs(YolosForObjectDetection(config), ("pixel_values",), ("logits", "pred_boxes"))
    return Case(model, [(randn(gen, 1, 3, 32, 32),)], tolerance=dict(DEEP_F32_TOL))


def case_detr(gen: torch.Generator) -> Case:
    """Detection: transformers' DETR with its own ResNet backbone, sine position embeddings,
    the pixel mask and object queries."""
    from transformers import DetrConfig, DetrForObjectDetection, ResNetConfig

    backbone = ResNetConfig(embedding_size=8, hidden_sizes=[8, 16, 16, 32], depths=[1, 1, 1, 1], out_features=["stage4"])
    config = DetrConfig(
        use_timm_backbone=False, use_pretrained_backbone=False, backbone_config=backbone, d_model=16,
        encoder_layers=1, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
        encoder_ffn_dim=32, decoder_ffn_dim=32, num_queries=4, num_labels=3,
    )
    model = Outputs(DetrForObjectDetection(config), ("pixel_values",), ("logits", "pred_boxes"))
    return Case(model, [(randn(gen, 1, 3, 64, 64),)], tolerance=dict(DEEP_F32_TOL))


class RegionFeatures(nn.Module):
    """torchvision's `roi_align` as detectors use it: fixed and adaptive sampling, aligned or not,
    boxes on two images, one reaching past the feature map and one empty."""

    def forward(self, features: torch.Tensor, boxes: torch.Tensor) -> tuple[torch.Tensor, ...]:
        from torchvision.ops import roi_align

        fixed = roi_align(features, boxes, output_size=(3, 3), spatial_scale=0.5, sampling_ratio=2, aligned=True)
        adaptive = roi_align(features, boxes, output_size=2, spatial_scale=0.5, sampling_ratio=-1, aligned=False)
        return fixed, adaptive


def case_roi_align(gen: torch.Generator) -> Case:
    boxes = torch.tensor(
        [[0, 1.0, 1.0, 9.0, 7.0], [1, 0.5, 2.0, 14.0, 12.5], [0, 3.0, 0.0, 6.0, 15.0],
         [1, 10.0, 10.0, 18.0, 17.0], [0, 4.0, 4.0, 4.0, 4.0]]
    )
    return Case(RegionFeatures(), [(randn(gen, 2, 4, 8, 8), boxes)])


def case_unet2d_condition(gen: torch.Generator) -> Case:
    """Diffusion: diffusers' UNet2DConditionModel (timestep embedding, ResNet blocks with group
    norm, cross-attention to the text states, down- and upsampling)."""
    from diffusers import UNet2DConditionModel

    unet = UNet2DConditionModel(
        sample_size=8, in_channels=4, out_channels=4, layers_per_block=1, block_out_channels=(8, 16),
        down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"), up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
        cross_attention_dim=16, attention_head_dim=4, norm_num_groups=4,
    )
    model = Outputs(unet, ("sample", "timestep", "encoder_hidden_states"), ("sample",))
    args = (randn(gen, 1, 4, 8, 8), torch.tensor([10]), randn(gen, 1, 3, 16))
    return Case(model, [args], tolerance=dict(DEEP_F32_TOL))


class LatentDecoder(nn.Module):
    """An AutoencoderKL's decoder from latents to pixels."""

    def __init__(self, vae: nn.Module) -> None:
        super().__init__()
        self.vae = vae

    def forward(self, latents: torch.Tensor) -> torch.Tensor:
        return self.vae.decode(latents).sample


def case_vae_decoder(gen: torch.Generator) -> Case:
    from diffusers import AutoencoderKL

    vae = AutoencoderKL(
        in_channels=3, out_channels=3, down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"), block_out_channels=(8, 16),
        layers_per_block=1, latent_channels=4, norm_num_groups=4, sample_size=16,
    )
    return Case(LatentDecoder(vae), [(randn(gen, 1, 4, 8, 8),)], tolerance=dict(DEEP_F32_TOL))


def case_bert_dyn_seq(gen: torch.Generator) -> Case:
    """transformers' BERT exported with `Dim` on the sequence (and padding masks)."""
    from transformers import BertConfig, BertModel

    config = BertConfig(
        vocab_size=64, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=64, attn_implementation="sdpa",
    )
    model = LogitsOnly(BertModel(config, add_pooling_layer=False), "last_hidden_state")
    sets = []
    for length in (12, 5, 30):
        ids = torch.randint(0, 64, (2, length), generator=gen)
        mask = torch.ones(2, length, dtype=torch.int64)
        mask[1, length // 2 :] = 0
        sets.append((ids, mask))
    seq = Dim("seq", min=2, max=64)
    return Case(
        model, sets, tolerance=dict(DEEP_F32_TOL),
        dynamic_shapes={"input_ids": {1: seq}, "attention_mask": {1: seq}},
    )


CASES.update(
    {
        "mamba": case_mamba,
        "hubert": case_hubert,
        "encodec": case_encodec,
        "dac": case_dac,
        "qwen3_moe": case_qwen3_moe,
        "swin": case_swin,
        "whisper": case_whisper,
        "time_series": case_time_series,
        "yolos": case_yolos,
        "detr": case_detr,
        "roi_align": case_roi_align,
        "unet2d_condition": case_unet2d_condition,
        "vae_decoder": case_vae_decoder,
        "bert_dyn_seq": case_bert_dyn_seq,
    }
)



class Quantized(nn.Module):
    """A small CNN and MLP, quantized by torchao's PT2E flow (X86 inductor quantizer: int8
    activations per tensor, int8 weights per channel) after export."""

    def __init__(self) -> None:
        super().__init__()
        self.l1 = nn.Linear(8, 16)
        self.l2 = nn.Linear(16, 4)
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x: torch.Tensor, img: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.l2(torch.relu(self.l1(x))), self.conv(img)


def case_pt2e_int8(gen: torch.Generator) -> Case:
    import torchao.quantization.pt2e.quantizer.x86_inductor_quantizer as x86
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    args = (randn(gen, 2, 8), randn(gen, 1, 3, 6, 6))
    captured = torch.export.export(Quantized().eval(), args).module()
    quantizer = x86.X86InductorQuantizer().set_global(x86.get_default_x86_inductor_quantization_config())
    prepared = prepare_pt2e(captured, quantizer)
    prepared(*args)
    return Case(Converted(convert_pt2e(prepared)), [args, (randn(gen, 2, 8), randn(gen, 1, 3, 6, 6))])


class EmbedProject(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(20, 16)
        self.project = nn.Linear(16, 32)
        self.conv = nn.Conv1d(32, 8, 3)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.project(self.embed(ids)))
        return self.conv(h.transpose(1, 2))


def case_pt2e_dynamic(gen: torch.Generator) -> Case:
    """PT2E dynamic quantization: activations quantized per tensor at run time
    (`quantized_decomposed.choose_qparams.tensor`), int8 weights per channel, and an embedding
    quantized per row by torchao's EmbeddingQuantizer, composed."""
    import torchao.quantization.pt2e.quantizer.x86_inductor_quantizer as x86
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from torchao.quantization.pt2e.quantizer.composable_quantizer import ComposableQuantizer
    from torchao.quantization.pt2e.quantizer.embedding_quantizer import EmbeddingQuantizer

    ids = lambda: torch.randint(0, 20, (2, 6), generator=gen)  # noqa: E731
    args = (ids(),)
    captured = torch.export.export(EmbedProject().eval(), args).module()
    dynamic = x86.get_default_x86_inductor_quantization_config(is_dynamic=True)
    quantizer = ComposableQuantizer([EmbeddingQuantizer(), x86.X86InductorQuantizer().set_global(dynamic)])
    prepared = prepare_pt2e(captured, quantizer)
    prepared(*args)
    return Case(Converted(convert_pt2e(prepared)), [args, (ids(),)])


class Converted(nn.Module):
    """A converted PT2E program as a module: it is in eval mode already and refuses `.eval()`."""

    def __init__(self, program: nn.Module) -> None:
        super().__init__()
        self.program = program

    def train(self, mode: bool = True) -> "Converted":
        return self

    def forward(self, *inputs: torch.Tensor) -> Any:
        return self.program(*inputs)


class Float8Weights(nn.Module):
    """float8 weights with per-tensor scales: e4m3 and e5m2 buffers dequantized in forward, and a
    float8 product by `torch._scaled_mm` with a dynamically scaled activation."""

    def __init__(self, gen: torch.Generator) -> None:
        super().__init__()
        w, w2 = randn(gen, 16, 8), randn(gen, 4, 16)
        self.register_buffer("w8", (w / (w.abs().max() / 448)).to(torch.float8_e4m3fn))
        self.register_buffer("w_scale", (w.abs().max() / 448).reshape(()))
        self.register_buffer("w2", (w2 / (w2.abs().max() / 57344)).to(torch.float8_e5m2))
        self.register_buffer("w2_scale", (w2.abs().max() / 57344).reshape(()))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        h = x @ (self.w8.to(torch.float32) * self.w_scale).t()
        x_scale = (x.abs().max() / 448).reshape(())
        x8 = (x / x_scale).to(torch.float8_e4m3fn)
        product = torch._scaled_mm(x8, self.w8.t(), scale_a=x_scale, scale_b=self.w_scale, out_dtype=torch.float32)
        y = torch.relu(h) @ (self.w2.to(torch.float32) * self.w2_scale).t()
        return h, product, y


def case_float8(gen: torch.Generator) -> Case:
    return Case(Float8Weights(gen), [(randn(gen, 16, 8),)])


CASES.update({"pt2e_int8": case_pt2e_int8, "pt2e_dynamic": case_pt2e_dynamic, "float8": case_float8})


class TorchaoWeights(nn.Module):
    """torchao's weight-only quantization, one scheme per layer: int8 per channel and per group
    of 32 (`Int8Tensor`), int4 per group of 32 and an int4 embedding per row
    (`IntxUnpackedToInt8Tensor`), float8 e4m3 per row (`Float8Tensor`). The exported program
    keeps the tensor subclasses (pickled in the archive); the decomposed one unwraps them."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(40, 64)
        self.int8 = nn.Linear(64, 96)
        self.int8_group = nn.Linear(96, 64)
        self.int4 = nn.Linear(64, 64)
        self.float8 = nn.Linear(64, 32)

    def forward(self, ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.embed(ids)
        h = torch.relu(self.int8(h))
        h = self.int8_group(h)
        h = torch.nn.functional.gelu(self.int4(h))
        return self.float8(h), h.mean(-1)


class TorchaoDynamic(nn.Module):
    """torchao's dynamic activation quantization: int8 activations per token with int8 weights
    per channel (`Int8DynamicActivationInt8WeightConfig`, an integer product `_int_mm`), and
    with int4 weights per group of 32 (`Int8DynamicActivationIntxWeightConfig`)."""

    def __init__(self) -> None:
        super().__init__()
        self.w8 = nn.Linear(64, 96)
        self.w4 = nn.Linear(96, 32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w4(torch.relu(self.w8(x)))


def torchao_quantized(model: nn.Module, configs: dict[str, Any]) -> nn.Module:
    from torchao.quantization import quantize_

    for fqn, config in configs.items():
        quantize_(model, config, filter_fn=lambda _, name, fqn=fqn: name == fqn)
    return model


def case_torchao_weights(gen: torch.Generator) -> Case:
    import torchao.quantization as tq
    from torchao.quantization.granularity import PerAxis, PerGroup

    model = torchao_quantized(
        TorchaoWeights(),
        {
            "embed": tq.IntxWeightOnlyConfig(weight_dtype=torch.int4, granularity=PerAxis(0)),
            "int8": tq.Int8WeightOnlyConfig(),
            "int8_group": tq.Int8WeightOnlyConfig(granularity=PerGroup(32)),
            "int4": tq.IntxWeightOnlyConfig(weight_dtype=torch.int4, granularity=PerGroup(32)),
            "float8": tq.Float8WeightOnlyConfig(),
        },
    )
    ids = lambda: torch.randint(0, 40, (2, 5), generator=gen)  # noqa: E731
    return Case(model, [(ids(),), (ids(),)])


def case_torchao_dynamic(gen: torch.Generator) -> Case:
    import torchao.quantization as tq
    from torchao.quantization.granularity import PerGroup

    model = torchao_quantized(
        TorchaoDynamic(),
        {
            "w8": tq.Int8DynamicActivationInt8WeightConfig(),
            "w4": tq.Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4, weight_granularity=PerGroup(32)),
        },
    )
    return Case(model, [(randn(gen, 3, 64),), (randn(gen, 3, 64),)])


CASES.update({"torchao_weights": case_torchao_weights, "torchao_dynamic": case_torchao_dynamic})


class Spectral(nn.Module):
    """The `torch.fft` functions as a training-dialect program keeps them (the core variant has
    `_fft_r2c`, `_fft_c2r`, `_fft_c2c`): a signal zero-padded into its half spectrum, filtered by
    a learned complex response (the spectrum of a learned kernel times a learned gain per
    frequency) and brought back at its own length; an image's 2-D spectrum, masked and
    inverted; the magnitudes of a trimmed n-D real spectrum, zero frequency in the middle; and
    the Hermitian pair."""

    def __init__(self) -> None:
        super().__init__()
        self.kernel = nn.Parameter(torch.randn(5) * 0.5)
        self.gain = nn.Parameter(torch.rand(9) + 0.5)
        self.register_buffer("mask", (torch.rand(6, 8) > 0.3).float())

    def forward(self, signal: torch.Tensor, image: torch.Tensor) -> tuple[torch.Tensor, ...]:
        spectrum = torch.fft.rfft(signal, n=16)
        response = torch.fft.rfft(self.kernel, n=16) * self.gain
        filtered = torch.fft.irfft(spectrum * response, n=signal.shape[-1])
        planes = torch.fft.fft2(image, norm="ortho")
        masked = torch.fft.ifft2(planes * self.mask, norm="ortho").abs()
        magnitudes = torch.fft.fftshift(torch.fft.rfftn(image, s=(4, 6), dim=(1, 2)).abs(), dim=1)
        inverted = torch.fft.irfftn(torch.fft.fftn(image[0], norm="forward"), s=(6, 8), norm="forward")
        hermitian = torch.fft.hfft(torch.fft.ihfft(signal, norm="ortho"), n=12, norm="ortho")
        return filtered, masked, magnitudes, inverted, hermitian


def case_spectral(gen: torch.Generator) -> Case:
    return Case(Spectral(), [(randn(gen, 2, 12), randn(gen, 2, 6, 8))])


CASES["spectral"] = case_spectral


class ComplexRotary(nn.Module):
    """Rotary embeddings the way Meta's Llama code writes them: frequencies from `torch.polar`,
    query pairs as complex numbers (`view_as_complex`), rotated by a complex product and taken
    back with `view_as_real`; and a complex value built, taken apart and measured
    (`torch.complex`, `.real`, `.imag`, `.angle()`, `.abs()`)."""

    def __init__(self) -> None:
        super().__init__()
        freqs = 1.0 / (10000 ** (torch.arange(0, 8, 2).float() / 8))
        angles = torch.outer(torch.arange(6).float(), freqs)
        self.register_buffer("freqs_cis", torch.polar(torch.ones_like(angles), angles))

    def forward(self, q: torch.Tensor, re: torch.Tensor, im: torch.Tensor) -> tuple[torch.Tensor, ...]:
        pairs = torch.view_as_complex(q.float().reshape(*q.shape[:-1], -1, 2))
        rotated = torch.view_as_real(pairs * self.freqs_cis[None, :, None, :]).flatten(3)
        z = torch.complex(re, im) * torch.polar(re.abs(), im)
        return rotated.type_as(q), z.real, z.imag, z.angle(), z.abs(), re.angle()


def case_complex_rotary(gen: torch.Generator) -> Case:
    return Case(ComplexRotary(), [(randn(gen, 2, 6, 2, 8), randn(gen, 3, 4), randn(gen, 3, 4))])


CASES["complex_rotary"] = case_complex_rotary

if __name__ == "__main__":
    sys.exit(main())
