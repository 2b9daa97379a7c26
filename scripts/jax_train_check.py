#!/usr/bin/env python3
"""A JAX loss module trained by tpuc, against JAX's own gradients.

An MLP classifier's loss, `jax.jit(loss).lower(params, x, y).as_text()`, is trained by
`tpuc train MODULE.mlir --parameters arg0,... --weights INIT_DIR` for 5 steps of SGD with
momentum and of AdamW. The reference trajectory applies PyTorch's update formulas (the ones
tpuc implements, docs/training.md) to `jax.grad` of the same function, in float32. Losses must
agree within rtol 1e-4 / atol 1e-5 and final parameters within rtol 1e-3 / atol 1e-5.

    python scripts/jax_train_check.py --tpuc PATH/TO/tpuc

Run by scripts/jax-checks in the venv of testdata/jax/requirements.txt.
"""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

STEPS = 5


def loss(params, x, y):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))


def sgd(params, grads, state, step, lr=0.1, momentum=0.9, weight_decay=0.01):
    out, new_state = {}, {}
    for k in params:
        g = grads[k] + weight_decay * params[k]
        buf = g if step == 0 else momentum * state[k] + g
        new_state[k] = buf
        out[k] = params[k] - lr * buf
    return out, new_state


def adamw(params, grads, state, step, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.01):
    out, new_state = {}, {}
    t = step + 1
    for k in params:
        m, v = state.get(k, (jnp.zeros_like(params[k]), jnp.zeros_like(params[k])))
        p = params[k] * (1 - lr * weight_decay)
        m = m + (1 - b1) * (grads[k] - m)
        v = v * b2 + (1 - b2) * grads[k] * grads[k]
        step_size = lr / (1 - b1**t)
        denom = jnp.sqrt(v) / np.sqrt(1 - b2**t) + eps
        out[k] = p - step_size * (m / denom)
        new_state[k] = (m, v)
    return out, new_state


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tpuc", required=True)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    params = {
        "b1": rng.standard_normal(16).astype(np.float32) * 0.1,
        "b2": rng.standard_normal(4).astype(np.float32) * 0.1,
        "w1": rng.standard_normal((8, 16)).astype(np.float32) * 0.3,
        "w2": rng.standard_normal((16, 4)).astype(np.float32) * 0.3,
    }
    batches = [
        (rng.standard_normal((8, 8)).astype(np.float32), rng.integers(0, 4, 8).astype(np.int32))
        for _ in range(STEPS)
    ]
    text = jax.jit(loss).lower(params, *batches[0]).as_text()
    # jax flattens the dict in key order: arg0..arg3 are b1, b2, w1, w2; then x and y.
    names = sorted(params)
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        (scratch / "loss.mlir").write_text(text)
        init = scratch / "init"
        init.mkdir()
        for i, name in enumerate(names):
            np.save(init / f"arg{i}.npy", params[name])
        for step, (x, y) in enumerate(batches):
            np.save(scratch / f"b{step}.in0.npy", x)
            np.save(scratch / f"b{step}.in1.npy", y)
        grad = jax.jit(jax.value_and_grad(loss))
        for spec, update in [
            ("sgd:lr=0.1,momentum=0.9,weight_decay=0.01", sgd),
            ("adamw:lr=1e-3,beta1=0.9,beta2=0.999,eps=1e-8,weight_decay=0.01", adamw),
        ]:
            out = scratch / spec.split(":")[0]
            command = [
                args.tpuc, "train", str(scratch / "loss.mlir"),
                "--parameters", ",".join(f"arg{i}" for i in range(len(names))),
                "--weights", str(init), "--optimizer", spec, "--steps", str(STEPS),
                "--batches", str(scratch / "b{step}.in{input}.npy"),
                "--output-dir", str(out), "--cache-dir", str(scratch / "cache"),
            ]
            run = subprocess.run(command, capture_output=True, text=True)
            if run.returncode != 0:
                failures.append(f"{spec}: tpuc train failed:\n{run.stderr}")
                continue
            current = {k: jnp.asarray(v) for k, v in params.items()}
            state, losses = {}, []
            for step, (x, y) in enumerate(batches):
                value, grads = grad(current, x, y)
                losses.append(float(value))
                current, state = update(current, grads, state, step)
            got = np.load(out / "losses.npy")
            if not np.allclose(got, losses, rtol=1e-4, atol=1e-5):
                failures.append(f"{spec}: losses {got.tolist()}, JAX {losses}")
            for i, name in enumerate(names):
                got = np.load(out / "params" / f"arg{i}.npy")
                want = np.asarray(current[name])
                if not np.allclose(got, want, rtol=1e-3, atol=1e-5):
                    failures.append(
                        f"{spec}: {name} off by {np.abs(got - want).max():.3e}"
                    )
            print(f"{spec}: losses {np.load(out / 'losses.npy').tolist()}")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    print("a JAX loss module trains as JAX's gradients say (SGD and AdamW, 5 steps)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
