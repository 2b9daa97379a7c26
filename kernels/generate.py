"""Writes tpuc's kernel library (docs/fusion.md): JAX's Pallas TPU flash-attention kernel,
lowered for TPU (one `stablehlo.custom_call @tpu_custom_call` carrying the Mosaic kernel) and in
Pallas interpret mode (plain StableHLO that XLA:CPU runs), for a few shape buckets, each
declaring the `tpuc.scaled_dot_product_attention` composite it implements.

    python -m venv venv && venv/bin/pip install -r kernels/requirements.txt
    venv/bin/python kernels/generate.py            # rewrites kernels/tpu and kernels/interpret

No TPU is needed: both forms are exported with `jax.export` for a platform, not run.
"""

import dataclasses
import functools
import math
import pathlib
import re

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas.ops.tpu import flash_attention as fa

HERE = pathlib.Path(__file__).resolve().parent
COMPOSITE = "tpuc.scaled_dot_product_attention"
VERSION = 1


@dataclasses.dataclass(frozen=True)
class Bucket:
    """One kernel: the composite's operand shapes and the attributes it must carry."""

    name: str
    batch: int
    heads: int
    kv_heads: int
    seq: int
    head_dim: int
    dtype: str
    causal: bool
    # The composite's scale as `fuse` recovers it: 1/sqrt(head_dim) rounded to the dtype (the
    # lowering multiplies the scores by a constant of their type).
    scale: float
    # Only interpret-mode kernels for shapes too small for TPU blocks (the fixtures').
    interpret_only: bool = False

    @property
    def block(self):
        b = min(128, self.seq)
        return fa.BlockSizes(block_q=b, block_k_major=b, block_k=b, block_b=1)


def rounded(x, dtype):
    return float(jnp.asarray(x, dtype=jnp.dtype(dtype)).astype(jnp.float32))


def buckets():
    out = []
    for seq in (512, 1024):
        for dtype in ("bfloat16", "float32"):
            for causal in (True, False):
                kind = "causal" if causal else "full"
                short = "bf16" if dtype == "bfloat16" else "f32"
                out.append(
                    Bucket(
                        name=f"flash_attention_{kind}_{short}_b2h4s{seq}d128",
                        batch=2, heads=4, kv_heads=4, seq=seq, head_dim=128,
                        dtype=dtype, causal=causal, scale=rounded(1 / math.sqrt(128), dtype),
                    )
                )
    # Grouped-query (Llama-style: 8 heads over 4 kv heads), the kernel's wrapper repeats k and v.
    out.append(
        Bucket(
            name="flash_attention_causal_bf16_b2h8g4s512d128", batch=2, heads=8, kv_heads=4,
            seq=512, head_dim=128, dtype="bfloat16", causal=True,
            scale=rounded(1 / math.sqrt(128), "bfloat16"),
        )
    )
    # The decoder fixture's attention (B=2, H=2, S=8, E=8, causal), interpret mode only.
    out.append(
        Bucket(
            name="flash_attention_causal_f32_b2h2s8d8", batch=2, heads=2, kv_heads=2,
            seq=8, head_dim=8, dtype="float32", causal=True,
            scale=rounded(1 / math.sqrt(8), "float32"),
            interpret_only=True,
        )
    )
    return out


def kernel_fn(bucket):
    def attention(q, k, v):
        repeats = bucket.heads // bucket.kv_heads
        if repeats > 1:
            k = jnp.repeat(k, repeats, axis=1)
            v = jnp.repeat(v, repeats, axis=1)
        return fa.flash_attention(
            q, k, v, causal=bucket.causal, sm_scale=bucket.scale, block_sizes=bucket.block
        )

    return attention


def export(bucket, platform, interpret):
    dtype = jnp.dtype(bucket.dtype)
    q = jax.ShapeDtypeStruct((bucket.batch, bucket.heads, bucket.seq, bucket.head_dim), dtype)
    kv = jax.ShapeDtypeStruct((bucket.batch, bucket.kv_heads, bucket.seq, bucket.head_dim), dtype)
    # The kernel's jitted trace is cached by its static arguments: trace afresh for each form.
    jax.clear_caches()
    original = pl.pallas_call
    if interpret:
        fa.pl.pallas_call = functools.partial(original, interpret=True)
    try:
        exported = jax.export.export(jax.jit(kernel_fn(bucket)), platforms=[platform])(q, kv, kv)
    finally:
        fa.pl.pallas_call = original
    return exported.mlir_module()


def declaration(bucket, target):
    causal = "true" if bucket.causal else "false"
    return (
        f'tpuc.kernel = {{composite = "{COMPOSITE}", version = {VERSION} : i32, '
        f'target = "{target}", attributes = {{scale = {bucket.scale!r} : f32, '
        f"causal = {causal}, heads = {bucket.heads} : i64, kv_heads = {bucket.kv_heads} : i64}}}}"
    )


def declare(text, bucket, target):
    """Names the module after the kernel and adds its `tpuc.kernel` declaration."""
    header = re.compile(r"^module @\S+ attributes \{", re.M)
    if not header.search(text):
        raise SystemExit(f"{bucket.name}: unexpected module header")
    return header.sub(
        f"module @{bucket.name} attributes {{{declaration(bucket, target)}, ", text, count=1
    )


def main():
    for target, platform, interpret in (("tpu", "tpu", False), ("cpu", "cpu", True)):
        directory = HERE / ("tpu" if target == "tpu" else "interpret")
        directory.mkdir(exist_ok=True)
        for old in directory.glob("*.mlir"):
            old.unlink()
        for bucket in buckets():
            if bucket.interpret_only and not interpret:
                continue
            text = declare(export(bucket, platform, interpret), bucket, target)
            (directory / f"{bucket.name}.mlir").write_text(text)
            print(f"{directory.name}/{bucket.name}.mlir: {len(text)} bytes")


if __name__ == "__main__":
    main()
