"""Writes StableHLO text lowered by JAX, with example inputs and JAX's outputs.

Each function below is lowered with `jax.jit(f).lower(*args)` and written as
`<name>.pretty.mlir`, `<name>.generic.mlir`, `<name>.in<i>.npy`, `<name>.out<j>.npy`;
`manifest.json` describes them. Run from anywhere; see README.md.
"""

import json
import re
import site
import sys
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import jaxlib
import numpy as np
from jax import lax
from jax._src import compiler, xla_bridge
from jax._src.interpreters import mlir
from jax._src.lib import xla_client as xc
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
PORTABLE_TARGETS = ("1.16.0",)

VOCAB, SEQ, D_MODEL, HEADS, D_FF = 32, 8, 16, 2, 32
D_HEAD = D_MODEL // HEADS


# --- the functions -----------------------------------------------------------


def rms_norm(x, weight, eps=1e-6):
    mean_square = jnp.mean(x * x, axis=-1, keepdims=True)
    return x * lax.rsqrt(mean_square + eps) * weight


def causal_self_attention(x, w_q, w_k, w_v, w_o):
    seq = x.shape[0]

    def heads(w):
        return jnp.einsum("sd,dhe->hse", x, w.reshape(D_MODEL, HEADS, D_HEAD))

    q, k, v = heads(w_q), heads(w_k), heads(w_v)
    scores = jnp.einsum("hqe,hke->hqk", q, k) / np.float32(np.sqrt(D_HEAD))
    rows = lax.broadcasted_iota(jnp.int32, (seq, seq), 0)
    cols = lax.broadcasted_iota(jnp.int32, (seq, seq), 1)
    causal = cols <= rows
    scores = jnp.where(causal[None], scores, jnp.float32(-1e9))
    scores = scores - jnp.max(scores, axis=-1, keepdims=True)
    weights = jnp.exp(scores)
    weights = weights / jnp.sum(weights, axis=-1, keepdims=True)
    context = jnp.einsum("hqk,hke->qhe", weights, v).reshape(seq, D_MODEL)
    return context @ w_o


def transformer_block(tokens, embedding, norm1, w_q, w_k, w_v, w_o, norm2, w_up, b_up, w_down, b_down):
    x = jnp.take(embedding, tokens, axis=0)
    x = x + causal_self_attention(rms_norm(x, norm1), w_q, w_k, w_v, w_o)
    hidden = jax.nn.gelu(rms_norm(x, norm2) @ w_up + b_up, approximate=True)
    x = x + hidden @ w_down + b_down
    logits = x @ embedding.T
    return x, logits


def cnn_bits(image, kernel, bias, indices, updates):
    features = lax.conv_general_dilated(
        image,
        kernel,
        window_strides=(1, 1),
        padding="SAME",
        rhs_dilation=(1, 1),
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
    )
    features = jax.nn.relu(features + bias)
    pooled = lax.reduce_window(
        features, -jnp.inf, lax.max, window_dimensions=(1, 2, 2, 1), window_strides=(1, 2, 2, 1), padding="VALID"
    )
    flat = pooled.reshape(-1)
    running = jnp.cumsum(flat)
    ordered = jnp.sort(flat)
    best = jnp.argmax(flat)
    scattered = jnp.zeros((8,), jnp.float32).at[indices].add(updates)
    window = lax.dynamic_slice(flat, (best,), (4,))
    framed = jnp.concatenate([jnp.flip(window), jnp.pad(scattered, (1, 2))])
    framed = lax.dynamic_update_slice(framed, jnp.log1p(window[:2]), (indices[0],))
    framed = lax.clamp(jnp.float32(0.0), framed, jnp.float32(2.5))
    return running, ordered, best, scattered, framed


def chlo_ops(x):
    """Ops JAX lowers to the CHLO dialect rather than StableHLO."""
    top_values, top_indices = lax.top_k(x, 3)
    exact_gelu = jax.nn.gelu(x, approximate=False)
    return top_values, top_indices, exact_gelu


def chlo_math(x, positive):
    """Every CHLO op JAX emits for elementwise math and top_k, in f32 and in bf16 (whose
    results are returned as their bits, uint16, so every output is a plain `.npy`)."""
    half = x * 0.5
    narrow = x.astype(jnp.bfloat16)
    return (
        lax.erf(x),
        lax.erfc(x),
        lax.lgamma(x),
        lax.digamma(x),
        jnp.sinh(x),
        jnp.cosh(x),
        jnp.arcsin(half),
        jnp.arccos(half),
        jnp.arctan(x),
        jnp.arcsinh(x),
        jnp.arccosh(positive),
        jnp.arctanh(half),
        lax.square(x),
        lax.top_k(x, 4),
        *(lax.bitcast_convert_type(f(narrow), jnp.uint16) for f in (lax.erf, lax.erfc, lax.lgamma, jnp.cosh)),
    )


def control_flow(x, n, flags):
    def body(i, acc):
        return acc * 0.5 + jnp.sin(acc) + i.astype(jnp.float32)

    looped = lax.fori_loop(0, 3, body, x)

    def halve_until_small(state):
        value, steps = state
        return value / 2.0, steps + 1

    big, steps = lax.while_loop(lambda s: jnp.sum(jnp.abs(s[0])) > 1.0, halve_until_small, (looped, jnp.int32(0)))

    branched = lax.cond(n[0] > 2, lambda v: v * 2.0, lambda v: v - 1.0, big)

    bits = (n & 5) ^ (n << 1) | (n >> 1)
    mask = jnp.logical_and(flags, n % 2 == 0)
    picked = jnp.where(mask, n, -bits)
    rounded = branched.astype(jnp.bfloat16).astype(jnp.float32)
    clamped = jnp.clip(rounded, -1.0, 1.0)
    return clamped, steps, picked, jnp.logical_not(mask)


# --- example inputs ----------------------------------------------------------


def transformer_args(rng):
    def normal(*shape, scale=0.2):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    return [
        rng.integers(0, VOCAB, size=(SEQ,), dtype=np.int32),
        normal(VOCAB, D_MODEL, scale=1.0),
        (1.0 + normal(D_MODEL, scale=0.1)),
        normal(D_MODEL, D_MODEL),
        normal(D_MODEL, D_MODEL),
        normal(D_MODEL, D_MODEL),
        normal(D_MODEL, D_MODEL),
        (1.0 + normal(D_MODEL, scale=0.1)),
        normal(D_MODEL, D_FF),
        normal(D_FF, scale=0.1),
        normal(D_FF, D_MODEL),
        normal(D_MODEL, scale=0.1),
    ]


def cnn_args(rng):
    return [
        rng.standard_normal((1, 6, 6, 3)).astype(np.float32),
        (rng.standard_normal((3, 3, 3, 2)) * 0.3).astype(np.float32),
        (rng.standard_normal((2,)) * 0.1).astype(np.float32),
        np.array([1, 4, 1, 7], dtype=np.int32),
        rng.standard_normal((4,)).astype(np.float32),
    ]


def control_flow_args(rng):
    return [
        rng.standard_normal((2, 3)).astype(np.float32),
        np.array([3, 4, 7, 10], dtype=np.int32),
        np.array([True, True, False, True]),
    ]


def chlo_args(rng):
    return [rng.standard_normal((10,)).astype(np.float32)]


# Edge values for the CHLO formulas: infinities, NaN, poles of lgamma/digamma (0 and negative
# integers), both sides of the branch points (|x| = 1, 2, 4, 8), underflow and overflow ranges.
CHLO_EDGES = [
    -np.inf, -100.0, -89.5, -10.0, -8.0, -4.5, -3.0, -2.5, -2.0, -1.5, -1.0, -0.999, -0.5, -0.25,
    -1e-5, -0.0, 0.0, 1e-5, 0.25, 0.5, 0.75, 0.999, 1.0, 1.001, 1.5, 2.0, 2.5, 3.0, 3.9, 4.0, 4.5,
    7.9, 8.0, 9.5, 10.0, 20.0, 89.5, 100.0, 1e5, np.inf, np.nan,
]


def chlo_math_args(rng):
    edges = np.array(CHLO_EDGES, dtype=np.float32)
    spread = (rng.standard_normal(23) * 3.0).astype(np.float32)
    x = np.concatenate([edges, spread])
    positive = np.concatenate([np.array([1.0, 1.0001, 1.5, 1e10, np.inf], np.float32), 1.0 + np.abs(spread)])
    return [x, positive]


# CHLO ops no JAX function prints (JAX broadcasts explicitly and lowers isinf to a compare),
# written as text and compiled by XLA:CPU for the reference outputs. XLA legalizes only
# numpy-style (prefix-padded) `broadcast_dimensions`; other mappings have file tests only.
CHLO_TEXT = {
    "chlo_broadcast": (
        """module @chlo_broadcast attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2xf32>, %arg3: tensor<1x3xi32>, %arg4: tensor<2x1xi32>, %arg5: tensor<2x3xi1>, %arg6: tensor<f32>, %arg7: tensor<6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xf32>) {
    %0 = chlo.broadcast_add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %1 = chlo.broadcast_multiply %arg0, %arg1 {broadcast_dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %2 = chlo.broadcast_shift_left %arg3, %arg4 : (tensor<1x3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
    %3 = chlo.broadcast_select %arg5, %arg0, %arg6 : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %4 = chlo.broadcast_subtract %arg6, %arg0 : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %5 = chlo.broadcast_atan2 %arg1, %arg0 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %6 = chlo.is_inf %arg7 : tensor<6xf32> -> tensor<6xi1>
    %7 = chlo.is_pos_inf %arg7 : tensor<6xf32> -> tensor<6xi1>
    %8 = chlo.is_neg_inf %arg7 : tensor<6xf32> -> tensor<6xi1>
    %9 = chlo.tan %arg7 : tensor<6xf32> -> tensor<6xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xf32>
  }
}
""",
        lambda rng: [
            rng.standard_normal((2, 3)).astype(np.float32),
            rng.standard_normal((3,)).astype(np.float32),
            rng.standard_normal((2,)).astype(np.float32),
            np.array([[1, -2, 3]], dtype=np.int32),
            np.array([[1], [4]], dtype=np.int32),
            np.array([[True, False, True], [False, True, False]]),
            np.array(0.25, dtype=np.float32),
            np.array([-np.inf, -1.0, 0.0, 0.5, np.inf, np.nan], dtype=np.float32),
        ],
        5,
    ),
}


FUNCTIONS = [
    ("transformer_block", transformer_block, transformer_args, 0),
    ("cnn_bits", cnn_bits, cnn_args, 1),
    ("control_flow", control_flow, control_flow_args, 2),
    ("chlo_ops", chlo_ops, chlo_args, 3),
    ("chlo_math", chlo_math, chlo_math_args, 4),
]


# --- writing -----------------------------------------------------------------


def package_roots():
    """Folders that hold installed Python packages, longest first."""
    roots = {Path(jax.__file__).resolve().parents[1], *map(Path, site.getsitepackages())}
    return sorted((str(root) + "/" for root in roots), key=len, reverse=True)


def machine_paths():
    """Paths naming this machine, none of which may remain in a written file."""
    paths = [str(REPO_ROOT), sys.prefix, str(Path.home()), tempfile.gettempdir(), *package_roots()]
    return sorted({path.rstrip("/") for path in paths if path.rstrip("/")}, key=len, reverse=True)


def relative_paths(text):
    """Rewrites absolute source paths in `loc(...)` to repo- or package-relative ones."""
    text = text.replace(str(REPO_ROOT) + "/", "")
    for root in package_roots():
        text = text.replace(root, "")
    return text


def check_clean(name, text):
    absolute = re.search(r'loc\("/[^"]*"', text)
    if absolute:
        sys.exit(f"{name}: absolute location left: {absolute.group(0)}")
    for path in machine_paths():
        if path in text:
            line = next(l for l in text.splitlines() if path in l)
            sys.exit(f"{name}: still names this machine ({path}): {line.strip()}")


def write_text(path, text):
    text = relative_paths(text)
    check_clean(path.name, text)
    path.write_text(text, encoding="utf-8")


def execute_text(text, args):
    """Compiles MLIR text on XLA:CPU and runs it on `args`."""
    backend = xla_bridge.get_backend("cpu")
    device = backend.local_devices()[0]
    options = compiler.get_compile_options(num_replicas=1, num_partitions=1)
    executable = backend.compile_and_load(text, xc.DeviceList((device,)), options)
    return [np.asarray(out) for out in executable.execute([jax.device_put(arg, device) for arg in args])]


def check_reparses(path, args, expected):
    """Compiles the written text on XLA:CPU, runs it and compares with JAX's outputs."""
    results = execute_text(path.read_text(encoding="utf-8"), args)
    if len(results) != len(expected):
        sys.exit(f"{path.name}: {len(results)} outputs, expected {len(expected)}")
    for i, (got, want) in enumerate(zip(results, expected)):
        got = np.asarray(got)
        if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want, equal_nan=True):
            sys.exit(f"{path.name}: output {i} differs from JAX's")


def portable_to(module, version):
    """Whether the module serializes as a StableHLO portable artifact for `version`.

    CHLO ops are not part of the portable format, so modules holding them say False.
    """
    text = module.operation.get_asm(enable_debug_info=False)
    with mlir.make_ir_context() as context:
        context.attach_diagnostic_handler(lambda diagnostic: True)
        try:
            stablehlo.serialize_portable_artifact(ir.Module.parse(text), version)
        except Exception:  # noqa: BLE001 - MLIR raises a bare Exception subclass
            return False
    return True


def describe(array):
    return {"dtype": str(array.dtype), "shape": list(array.shape)}


def generate(name, function, make_args, seed):
    args = make_args(np.random.default_rng(seed))
    lowered = jax.jit(function).lower(*args)
    module = lowered.compiler_ir("stablehlo")
    pretty = lowered.as_text(debug_info=True)
    outputs = jax.tree_util.tree_leaves(lowered.compile()(*args))
    return write_entry(name, seed, module, pretty, args, [np.asarray(out) for out in outputs])


def generate_text(name, text, make_args, seed):
    """A module written as text rather than lowered; XLA:CPU computes its outputs. Its
    locations would only name lines of the text, so neither form has any."""
    args = make_args(np.random.default_rng(seed))
    with mlir.make_ir_context():
        module = ir.Module.parse(text)
        pretty = module.operation.get_asm(enable_debug_info=False)
        outputs = execute_text(text, args)
        entry = write_entry(name, seed, module, pretty, args, outputs, debug_info=False)
    return {**entry, "source": "text in generate.py, outputs from XLA:CPU"}


def write_entry(name, seed, module, pretty, args, outputs, debug_info=True):
    generic = module.operation.get_asm(enable_debug_info=debug_info, print_generic_op_form=True)
    write_text(HERE / f"{name}.pretty.mlir", pretty)
    write_text(HERE / f"{name}.generic.mlir", generic)
    for form in ("pretty", "generic"):
        check_reparses(HERE / f"{name}.{form}.mlir", args, outputs)
    files = {"pretty": f"{name}.pretty.mlir", "generic": f"{name}.generic.mlir", "inputs": [], "outputs": []}
    for kind, arrays, prefix in (("inputs", args, "in"), ("outputs", outputs, "out")):
        for i, array in enumerate(arrays):
            file = f"{name}.{prefix}{i}.npy"
            np.save(HERE / file, array, allow_pickle=False)
            files[kind].append({"file": file, **describe(array)})
    portable = {version: portable_to(module, version) for version in PORTABLE_TARGETS}
    return {"name": name, "seed": seed, **files, "portable_artifact_serializes_for": portable}


def main():
    jax.config.update("jax_platforms", "cpu")
    entries = [generate(*spec) for spec in FUNCTIONS]
    entries += [generate_text(name, text, make_args, seed) for name, (text, make_args, seed) in CHLO_TEXT.items()]
    manifest = {
        "generator": "testdata/jax/generate.py",
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "numpy": np.__version__,
        "stablehlo_current_version": stablehlo.get_current_version(),
        "stablehlo_minimum_version": stablehlo.get_minimum_version(),
        "platform": "cpu",
        "functions": entries,
    }
    (HERE / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
