"""Loads a tpuc executable in jaxlib and checks it computes what PyTorch did.

    python scripts/jax_load_check.py --tpuc PATH/TO/tpuc --cache-dir DIR

Compiles testdata/models/gpt2.pt2 for XLA:CPU with tpuc, exports the cache entry with
`tpuc cache export KEY --for jax`, deserializes it with jaxlib's CPU client, binds the weights
from the archive (as the entry's manifest names them) and the example input, runs it and
compares the logits with PyTorch's eager output (testdata/models/gpt2.out0.npy). Needs the
pinned jax/jaxlib of testdata/jax/requirements.txt; scripts/jax-checks makes the venv.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
MODEL = REPO / "testdata/models/gpt2.pt2"
INPUT = REPO / "testdata/models/gpt2.in0.npy"
EXPECTED = REPO / "testdata/models/gpt2.out0.npy"
# torch.export's ScalarType codes (the .pt2 schema) for the dtypes the fixture's weights use.
SCALAR_TYPES = {5: np.int64, 7: np.float32, 8: np.float64, 4: np.int32, 12: np.bool_}
ATOL, RTOL = 1e-5, 1e-4


def tpuc(binary, cache, *args):
    done = subprocess.run([binary, *args, "--cache-dir", str(cache)], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"tpuc {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def weights(archive_path):
    """Every weight of the archive by FQN, rebuilt from its raw bytes and tensor_meta."""
    with zipfile.ZipFile(archive_path) as archive:
        names = archive.namelist()
        config_name = next(n for n in names if n.endswith("data/weights/model_weights_config.json"))
        prefix = config_name[: -len("model_weights_config.json")]
        config = json.loads(archive.read(config_name))["config"]
        out = {}
        for fqn, entry in config.items():
            meta = entry["tensor_meta"]
            dtype = SCALAR_TYPES[meta["dtype"]]
            storage = np.frombuffer(archive.read(prefix + entry["path_name"]), dtype=dtype)
            item = storage.itemsize
            sizes = [s["as_int"] for s in meta["sizes"]]
            strides = [s["as_int"] * item for s in meta["strides"]]
            offset = meta["storage_offset"]["as_int"]
            view = np.lib.stride_tricks.as_strided(storage[offset:], shape=sizes, strides=strides)
            out[fqn] = np.ascontiguousarray(view)
        return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tpuc", required=True)
    parser.add_argument("--cache-dir", required=True)
    args = parser.parse_args()

    import jax

    jax.config.update("jax_platforms", "cpu")
    jax.config.update("jax_enable_x64", True)  # the input is int64; else jax passes s32
    from jax._src import xla_bridge

    report = json.loads(tpuc(args.tpuc, args.cache_dir, "compile", str(MODEL), "--target", "cpu", "--format", "json"))
    key = report["targets"][0]["key"]
    shown = json.loads(tpuc(args.tpuc, args.cache_dir, "cache", "show", key, "--format", "json"))
    signature = shown["manifest"]["signature"]
    with tempfile.TemporaryDirectory() as tmp:
        exported = Path(tmp) / "gpt2.jax"
        tpuc(args.tpuc, args.cache_dir, "cache", "export", key, "--for", "jax", "-o", str(exported))
        serialized = exported.read_bytes()

    backend = xla_bridge.get_backend("cpu")
    executable = backend.deserialize_executable(serialized, backend.devices()[:1])
    by_name = weights(MODEL)
    user_inputs = [np.load(INPUT)]
    bound = []
    for argument in signature["arguments"]:
        if argument["kind"] == "input":
            value = user_inputs[argument["index"]]
        else:
            value = by_name[argument["name"]]
        if list(value.shape) != argument["shape"] or value.dtype.name != argument["dtype"]:
            sys.exit(f"argument {argument} does not fit {value.dtype}{list(value.shape)}")
        bound.append(jax.device_put(value, backend.devices()[0]))
    results = executable.execute(bound)
    outputs = [np.asarray(r) for r, binding in zip(results, signature["results"]) if binding["kind"] == "output"]
    got, want = outputs[0], np.load(EXPECTED)
    error = float(np.max(np.abs(got - want)))
    if got.shape != want.shape or not np.allclose(got, want, atol=ATOL, rtol=RTOL):
        sys.exit(f"jax's run of tpuc's executable differs from eager: max abs error {error}")
    print(f"jaxlib {jax.lib.__version__ if hasattr(jax.lib, '__version__') else jax.__version__} "
          f"loaded tpuc's GPT-2 executable ({len(serialized)} bytes); max abs error vs eager {error:.3g}")


if __name__ == "__main__":
    main()
