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

MODELS = ["dyn_batch", "dyn_batch.core", "dyn_seq", "dyn_seq.core", "dyn_conv", "dyn_conv.core"]
# A size outside the range torch exported `dyn_seq` for (`Dim("seq", min=2, max=128)`): the
# module's shape assertions must stop its refinement.
OUT_OF_RANGE = ("dyn_seq", np.zeros((2, 129), dtype=np.int64), (2, 129, 64), "s27 <= 128")


def input_sets(fixture):
    """(inputs, expected output) of every input set of the fixture: set 0, then set1, set2, ...
    (both dialects' archives share them)."""
    models = REPO / "testdata/models"
    fixture = fixture.removesuffix(".core")
    sets = [(models / f"{fixture}.in0.npy", models / f"{fixture}.out0.npy")]
    k = 1
    while (models / f"{fixture}.set{k}.in0.npy").exists():
        sets.append((models / f"{fixture}.set{k}.in0.npy", models / f"{fixture}.set{k}.out0.npy"))
        k += 1
    return [([np.load(i)], np.load(o)) for i, o in sets]


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
                text, [v.shape for v in values], [expected.shape]
            )
            if "?" in refined_text.split("func.func private @dynamic_main")[0]:
                sys.exit(f"{fixture}: shape refinement left a dynamic dimension")
            executable = backend.compile_and_load(bytecode, [device])
            results = executable.execute([jax.device_put(v, device) for v in values])
            got = np.asarray(results[0])
            error = float(np.max(np.abs(got - expected)))
            if got.shape != expected.shape or not np.allclose(got, expected, atol=ATOL, rtol=RTOL):
                sys.exit(
                    f"{fixture} at input shape {inputs[0].shape}: refined module differs from "
                    f"eager (max abs error {error})"
                )
            print(f"{fixture}: refined to input {list(inputs[0].shape)}, "
                  f"output {list(got.shape)}, max abs error vs eager {error:.3g}")
        if fixture == OUT_OF_RANGE[0]:
            _, tokens, out_shape, expected_message = OUT_OF_RANGE
            values = [by_name[n] for n in names[:-1]] + [tokens]
            try:
                refined(text, [v.shape for v in values], [out_shape])
            except ValueError as e:
                message = str(e.__cause__ or e)
                if expected_message not in message:
                    sys.exit(f"{fixture}: refinement of an out-of-range size failed without the "
                             f"range in its message: {message}")
                print(f"{fixture}: refinement refuses input {list(tokens.shape)}: {expected_message}")
            else:
                sys.exit(f"{fixture}: refinement accepted input {list(tokens.shape)}, out of range")


if __name__ == "__main__":
    main()
