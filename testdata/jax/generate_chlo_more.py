"""Writes the CHLO fixtures of the ops generate.py does not cover, in the same layout.

JAX lowers `erf_inv`, `bessel_i1e`, `polygamma`, `zeta` and `nextafter` to CHLO on every
platform, and `lax.ragged_dot` to `chlo.ragged_dot` when lowering for TPU (on CPU it prints its
own decomposition); that module is lowered for TPU and run on XLA:CPU, which legalizes CHLO
itself. Ops JAX never prints (`broadcast_compare`, `constant_like`, the `broadcast_` forms of
the special functions, are written as text. Entries go to
`manifest_chlo_more.json`. Same requirements and venv as generate.py; see README.md.
"""

import json

import jax
import jaxlib
import numpy as np
from jax import lax
from jaxlib.mlir.dialects import stablehlo

import generate as generate_module
from generate import HERE, generate, write_entry


def chlo_special(x, near_one, n, s, q, towards):
    """Every special function JAX lowers to CHLO, in f32, and zeta and erf_inv in bf16
    (returned as their bits, uint16)."""
    narrow = (x * 0.5).astype(jnp_bfloat16())
    return (
        lax.erf_inv(x),
        lax.erf_inv(near_one),
        lax.bessel_i1e(s * 4.0 - 6.0),
        lax.polygamma(n, q),
        lax.zeta(s, q),
        lax.nextafter(x, towards),
        lax.bitcast_convert_type(lax.erf_inv(narrow), np.uint16),
        lax.bitcast_convert_type(lax.zeta(s.astype(jnp_bfloat16()), q.astype(jnp_bfloat16())), np.uint16),
    )


def jnp_bfloat16():
    return jax.numpy.bfloat16


# Edges: ±1 (erf_inv's poles), beyond ±1 (NaN), zeros of both signs, NaN, infinities; for
# zeta and polygamma x = 1 (the harmonic series), x < 1, non-positive and integer q (poles),
# fractional and negative n.
def special_args(rng):
    size = 16
    x = np.array(
        [-1.0, -0.999, -0.9, -0.5, -0.1, -0.0, 0.0, 1e-7, 0.1, 0.5, 0.75, 0.9, 0.999, 1.0, 1.5, np.nan],
        np.float32,
    )
    near_one = np.array([1.0 - 2.0 ** -k for k in range(1, size + 1)], np.float32)
    n = np.array([0, 1, 2, 3, 4, 0, 1, 2, 0.5, -1, 1, 2, 3, 0, 5, np.nan], np.float32)
    s = np.array([1.0, 1.5, 2.0, 3.0, 4.0, 0.5, 2.0, 3.0, 2.5, 6.0, 2.0, 3.0, 1.01, 10.0, 2.0, 3.0], np.float32)
    q = np.array([1.0, 2.0, 0.5, 3.5, 10.0, 1.0, -1.0, -2.5, 0.25, 1.0, -2.0, 0.0, 1.0, 2.0, 30.0, 0.1], np.float32)
    towards = np.array(
        [0.0, 1.0, -np.inf, -0.5, 1.0, 1.0, -1.0, 0.0, np.inf, np.nan, 0.75, -1.0, 2.0, 1.0, 0.0, 1.0], np.float32
    )
    spread = (rng.standard_normal(size) * 0.1).astype(np.float32)
    return [x, near_one, n, s + np.abs(spread), q, towards]


ROWS = lax.RaggedDotDimensionNumbers(
    dot_dimension_numbers=(([1], [1]), ([], [])), lhs_ragged_dimensions=[0], rhs_group_dimensions=[0]
)
CONTRACTION = lax.RaggedDotDimensionNumbers(
    dot_dimension_numbers=(([1], [0]), ([], [])), lhs_ragged_dimensions=[1], rhs_group_dimensions=[]
)
BATCH = lax.RaggedDotDimensionNumbers(
    dot_dimension_numbers=(([2], [1]), ([0], [0])), lhs_ragged_dimensions=[0], rhs_group_dimensions=[]
)


def chlo_ragged_dot(lhs, rhs, group_sizes, flat_rhs, batched_lhs, batched_rhs, batch_groups):
    """`jax.lax.ragged_dot` (ragged rows: each group of `lhs` rows against its own slice of
    `rhs`; the last row is in no group) and `ragged_dot_general`'s two other modes: a ragged
    contraction (one product per group of the contracted dimension) and a ragged batch (the
    last batch in no group)."""
    return (
        lax.ragged_dot(lhs, rhs, group_sizes),
        lax.ragged_dot_general(lhs, flat_rhs, group_sizes, CONTRACTION),
        lax.ragged_dot_general(batched_lhs, batched_rhs, batch_groups, BATCH),
    )


def ragged_args(rng):
    # Small integers: every product and sum is exact, so JAX's CPU decomposition (the
    # reference) and any other correct lowering agree bit for bit.
    def small(*shape):
        return rng.integers(-3, 4, size=shape).astype(np.float32)

    return [
        small(7, 4),
        small(3, 4, 5),
        np.array([2, 1, 3], np.int32),
        small(4, 5),
        small(3, 2, 4),
        small(3, 4, 5),
        np.array([1, 1], np.int32),
    ]


def generate_for_tpu(name, function, make_args, seed):
    """Lowered for TPU, where JAX prints the CHLO op; the outputs are JAX's on CPU (its own
    decomposition). jaxlib's XLA:CPU has no ragged-dot, so the written text is not run here;
    tpuc's numerics test runs it on the plugin."""
    args = make_args(np.random.default_rng(seed))
    lowered = jax.jit(function).trace(*args).lower(lowering_platforms=("tpu",))
    module = lowered.compiler_ir("stablehlo")
    pretty = lowered.as_text(debug_info=True)
    outputs = [np.asarray(out) for out in jax.tree_util.tree_leaves(jax.jit(function)(*args))]
    checked = generate_module.check_reparses
    generate_module.check_reparses = lambda *_: None
    try:
        entry = write_entry(name, seed, module, pretty, args, outputs)
    finally:
        generate_module.check_reparses = checked
    return {**entry, "outputs_from": "JAX on CPU", "xla_cpu_runs_text": False}


CHLO_TEXT = """module @chlo_more attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2x3xi32>, %arg3: tensor<3xi32>) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
    %0 = chlo.broadcast_compare %arg0, %arg1 {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    %1 = chlo.broadcast_compare %arg0, %arg1 {comparison_direction = #chlo<comparison_direction NE>, compare_type = #chlo<comparison_type TOTALORDER>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    %2 = chlo.broadcast_compare %arg2, %arg3 {comparison_direction = #chlo<comparison_direction GE>, compare_type = #chlo<comparison_type SIGNED>} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi1>
    %3 = chlo.broadcast_compare %arg2, %arg3 {broadcast_dimensions = array<i64: 1>, comparison_direction = #chlo<comparison_direction EQ>} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi1>
    %4 = "chlo.constant_like"(%arg0) {value = 2.500000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %5 = "chlo.constant_like"(%arg2) {value = -3 : i32} : (tensor<2x3xi32>) -> tensor<2x3xi32>
    %6 = chlo.broadcast_next_after %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %7 = chlo.broadcast_zeta %4, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %8 = chlo.broadcast_polygamma %4, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %9 = chlo.conj %arg0 : tensor<2x3xf32> -> tensor<2x3xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
  }
}
"""


def text_args(rng):
    return [
        np.array([[0.5, -1.0, np.nan], [2.0, 0.0, 3.0]], np.float32),
        np.array([1.0, -1.0, 0.5], np.float32),
        np.array([[1, -2, 3], [-4, 5, 0]], np.int32),
        np.array([0, -2, 4], np.int32),
    ]


# The f64 formulas (bessel_i1e's double tables, erf_inv's Newton steps, zeta and polygamma in
# f64); JAX lowers f64 only with x64 enabled, so this too is text.
CHLO_F64_TEXT = """module @chlo_more_f64 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf64>, %arg1: tensor<8xf64>, %arg2: tensor<8xf64>, %arg3: tensor<8xf64>, %arg4: tensor<8xf64>) -> (tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>) {
    %0 = chlo.erf_inv %arg0 : tensor<8xf64> -> tensor<8xf64>
    %1 = chlo.bessel_i1e %arg1 : tensor<8xf64> -> tensor<8xf64>
    %2 = chlo.zeta %arg2, %arg3 : tensor<8xf64>, tensor<8xf64> -> tensor<8xf64>
    %3 = chlo.polygamma %arg4, %arg3 : tensor<8xf64>, tensor<8xf64> -> tensor<8xf64>
    %4 = chlo.next_after %arg0, %arg1 : tensor<8xf64>, tensor<8xf64> -> tensor<8xf64>
    return %0, %1, %2, %3, %4 : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>
  }
}
"""


def f64_args(rng):
    return [
        np.array([-0.999999, -0.9, -0.5, 0.0, 1e-10, 0.3, 0.99, 1.0]),
        np.array([-20.0, -8.0, -1.0, 0.0, 0.5, 3.0, 8.5, 50.0]),
        np.array([1.5, 2.0, 3.0, 4.0, 1.01, 6.0, 2.5, 10.0]),
        np.array([1.0, 2.0, 0.5, 3.5, 10.0, 1.0, 0.25, 2.0]),
        np.array([0.0, 1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 5.0]),
    ]


def generate_text(name, text, make_args, seed):
    """generate.py's text fixture (no locations; outputs from XLA:CPU), sourced here."""
    entry = generate_module.generate_text(name, text, make_args, seed)
    return {**entry, "source": "text in generate_chlo_more.py, outputs from XLA:CPU"}


def main():
    jax.config.update("jax_platforms", "cpu")
    entries = [
        generate("chlo_special", chlo_special, special_args, 6),
        generate_for_tpu("chlo_ragged_dot", chlo_ragged_dot, ragged_args, 7),
        generate_text("chlo_more_text", CHLO_TEXT, text_args, 8),
    ]
    with jax.enable_x64(True):
        entries.append(generate_text("chlo_more_f64", CHLO_F64_TEXT, f64_args, 9))
    manifest = {
        "generator": "testdata/jax/generate_chlo_more.py",
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "numpy": np.__version__,
        "stablehlo_current_version": stablehlo.get_current_version(),
        "platform": "cpu",
        "functions": entries,
    }
    (HERE / "manifest_chlo_more.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
