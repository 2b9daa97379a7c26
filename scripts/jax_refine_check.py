"""Refines tpuc's dynamic StableHLO with jaxlib for several sizes and checks each against eager.

    python scripts/jax_refine_check.py --tpuc PATH/TO/tpuc

For each dynamic-shape fixture (both dialects), `tpuc lower --dynamic` prints one module with
`?` dimensions. For every input set of the fixture (each a different size), this wraps that
module as JAX does when it calls a shape-polymorphic export: a new static `main` converts its
arguments to the dynamic types and calls the dynamic one. jaxlib's shape refinement
(`refine_polymorphic_shapes`) then makes every shape static; the refined module is compiled by
jaxlib's XLA:CPU, run with the archive's weights and the set's input, and compared with the
set's eager output. Needs the pinned jax/jaxlib of testdata/jax/requirements.txt;
scripts/jax-checks makes the venv.
"""

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np

from jax_load_check import ATOL, REPO, RTOL, weights

MODELS = [
    f"{model}{variant}"
    for model in ("dyn_batch", "dyn_seq", "dyn_conv", "dyn_tokens")
    for variant in ("", ".core")
]
# Inputs refinement must refuse, and how it says so: a size outside the range torch exported
# `dyn_seq` for (`Dim("seq", min=2, max=128)`), stopped by the module's shape assertion; a
# padding mask shorter than the tokens it pads, which the refinement of the first op combining
# them reports before it reaches the module's assertion for it.
REFUSALS = {
    "dyn_seq": ([np.zeros((2, 129), np.int64)], [(2, 129, 64)], "s27 <= 128"),
    "dyn_tokens": (
        [np.zeros((2, 8), np.int64), np.ones((2, 7), np.int64)],
        [(2, 16), (2, 16)],
        "(7) is not compatible with size of result dimension 3 (8)",
    ),
}

def input_sets(fixture):
    """(inputs, expected outputs) of every input set of the fixture: set 0, then set1, set2, ...
    (both dialects' archives share them)."""
    models = REPO / "testdata/models"
    fixture = fixture.removesuffix(".core")

    def arrays(prefix, kind):
        found = []
        while (models / f"{prefix}.{kind}{len(found)}.npy").exists():
            found.append(np.load(models / f"{prefix}.{kind}{len(found)}.npy"))
        return found

    prefixes = [fixture]
    while (models / f"{fixture}.set{len(prefixes)}.in0.npy").exists():
        prefixes.append(f"{fixture}.set{len(prefixes)}")
    return [(arrays(p, "in"), arrays(p, "out")) for p in prefixes]


def refined(text, static_inputs, static_outputs):
    """The dynamic module `text` called from a static `main`, refined by jaxlib."""
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir
    from jax._src.lib.mlir.dialects import func as func_dialect
    from jax._src.lib.mlir.dialects import hlo

    with mlir.make_ir_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        dynamic = next(op for op in module.body.operations if op.sym_name.value == "main")
        dynamic.attributes["sym_name"] = ir.StringAttr.get("dynamic_main")
        dynamic.attributes["sym_visibility"] = ir.StringAttr.get("private")
        signature = ir.FunctionType(ir.TypeAttr(dynamic.attributes["function_type"]).value)

        def static(types, shapes):
            out = []
            for ty, shape in zip(types, shapes):
                ranked = ir.RankedTensorType(ty)
                for axis, size in enumerate(ranked.shape):
                    if not ranked.is_dynamic_dim(axis) and size != shape[axis]:
                        sys.exit(f"a size {shape} does not fit the module's {ranked}")
                out.append(ir.RankedTensorType.get(list(shape), ranked.element_type))
            return out

        arg_types = static(signature.inputs, static_inputs)
        result_types = static(signature.results, static_outputs)
        with ir.InsertionPoint(module.body):
            main = func_dialect.FuncOp("main", ir.FunctionType.get(arg_types, result_types))
            main.attributes["sym_visibility"] = ir.StringAttr.get("public")
            entry = main.add_entry_block()
            with ir.InsertionPoint(entry):
                args = [hlo.convert(t, a) for t, a in zip(signature.inputs, entry.arguments)]
                call = func_dialect.CallOp(
                    signature.results, ir.FlatSymbolRefAttr.get("dynamic_main"), args
                )
                func_dialect.ReturnOp([hlo.convert(t, r) for t, r in zip(result_types, call.results)])
        refined_module = mlir.refine_polymorphic_shapes(module)
        return mlir.module_to_bytecode(refined_module), str(refined_module)


def arg_names(text):
    """The `jax.arg_info` of each argument of `main`, in order."""
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir

    with mlir.make_ir_context():
        module = ir.Module.parse(text)
        main = next(op for op in module.body.operations if op.sym_name.value == "main")
        return [ir.StringAttr(attrs["jax.arg_info"]).value for attrs in main.arg_attrs]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tpuc", required=True)
    args = parser.parse_args()

    import jax

    jax.config.update("jax_platforms", "cpu")
    jax.config.update("jax_enable_x64", True)
    from jax._src import xla_bridge

    backend = xla_bridge.get_backend("cpu")
    device = backend.devices()[0]
    for fixture in MODELS:
        archive = REPO / "testdata/models" / f"{fixture}.pt2"
        done = subprocess.run(
            [args.tpuc, "lower", "--dynamic", str(archive)], capture_output=True, text=True
        )
        if done.returncode != 0:
            sys.exit(f"tpuc lower --dynamic {archive.name} failed:\n{done.stderr}")
        text = done.stdout
        if "?" not in text:
            sys.exit(f"{fixture}: `tpuc lower --dynamic` printed no dynamic dimension")
        by_name = weights(archive)
        names = arg_names(text)
        for inputs, expected in input_sets(fixture):
            values = [by_name[n] for n in names[: len(names) - len(inputs)]] + inputs
            bytecode, refined_text = refined(
                text, [v.shape for v in values], [e.shape for e in expected]
            )
            if "?" in refined_text.split("func.func private @dynamic_main")[0]:
                sys.exit(f"{fixture}: shape refinement left a dynamic dimension")
            executable = backend.compile_and_load(bytecode, [device])
            results = executable.execute([jax.device_put(v, device) for v in values])
            shapes = [list(i.shape) for i in inputs]
            for index, (result, want) in enumerate(zip(results, expected)):
                got = np.asarray(result)
                error = float(np.max(np.abs(got - want)))
                if got.shape != want.shape or not np.allclose(got, want, atol=ATOL, rtol=RTOL):
                    sys.exit(
                        f"{fixture} at input shapes {shapes}: output {index} of the refined "
                        f"module differs from eager (max abs error {error})"
                    )
                print(f"{fixture}: refined to inputs {shapes}, output {index} "
                      f"{list(got.shape)}, max abs error vs eager {error:.3g}")
        if fixture in REFUSALS:
            inputs, out_shapes, expected_message = REFUSALS[fixture]
            values = [by_name[n] for n in names[: len(names) - len(inputs)]] + inputs
            shapes = [list(i.shape) for i in inputs]
            try:
                refined(text, [v.shape for v in values], out_shapes)
            except ValueError as e:
                message = str(e.__cause__ or e)
                if expected_message not in message:
                    sys.exit(f"{fixture}: refining inputs {shapes} failed, but not with "
                             f"`{expected_message}`: {message}")
                print(f"{fixture}: refinement refuses inputs {shapes}: {expected_message}")
            else:
                sys.exit(f"{fixture}: refinement accepted inputs {shapes}")

if __name__ == "__main__":
    main()
