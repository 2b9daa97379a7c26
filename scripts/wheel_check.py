"""Checks an installed tpuc wheel (run by scripts/wheel-check in a fresh venv, with the venv's
bin/ first on PATH). Needs numpy, not torch. Prints one line per check, the measurements,
and a closing `N passed, M failed`; exits non-zero on any failure.

usage: python scripts/wheel_check.py REPO_ROOT WHEEL
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

ROOT = Path(sys.argv[1]).resolve()
WHEEL = Path(sys.argv[2]).resolve()
TESTDATA = ROOT / "testdata"
WORK = Path(tempfile.mkdtemp(prefix="tpuc-wheel-check."))
# A cache of its own: the check neither depends on nor changes the user's.
CACHE = WORK / "cache"
os.environ["TPUC_CACHE_DIR"] = str(CACHE)
for name in ("TPUC_REMOTE", "TPUC_TRUST_KEYS", "TPUC_SIGN_KEY", "TPUC_CACHE_READ_ONLY"):
    os.environ.pop(name, None)

results: list[tuple[str, bool]] = []
measured: list[str] = []


def check(name):
    def run(function):
        started = time.perf_counter()
        try:
            function()
            ok = True
        except Exception:
            ok = False
            traceback.print_exc()
        seconds = time.perf_counter() - started
        print(f"{'PASS' if ok else 'FAIL'}  {name}  ({seconds:.1f} s)", flush=True)
        results.append((name, ok))
        return function

    return run


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["tpuc", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
    )


def python_time(code: str) -> float:
    """Seconds `code` takes in a fresh interpreter (the best of five)."""
    best = float("inf")
    for _ in range(5):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
        best = min(best, float(out.strip().splitlines()[-1]))
    return best


MANIFEST = json.loads((TESTDATA / "manifest.json").read_text())
MODELS = MANIFEST["models"]


@check("tpuc --version from the venv's PATH")
def _():
    where = shutil.which("tpuc")
    assert where is not None, "tpuc is not on PATH"
    assert Path(where).parent == Path(sys.executable).parent, where
    out = cli("--version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("tpuc "), out.stdout


@check("tpuc setup-plugins finds the plugins scripts/setup-plugins.sh installed, as pinned")
def _():
    out = cli("setup-plugins", "--help")
    assert out.returncode == 0, out.stderr
    assert "--verify" in out.stdout, out.stdout
    # The embedded script and lock file read the installed manifest: nothing to download.
    out = cli("setup-plugins")
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("already installed") == 2, out.stdout


import tpuc  # noqa: E402  (after the PATH check, which must not depend on it)


@check("help(tpuc.load) explains itself; stubs and py.typed are installed")
def _():
    doc = tpuc.load.__doc__ or ""
    assert "XLA:CPU" in doc and "cache" in doc, doc
    package = Path(tpuc.__file__).parent
    for name in ("__init__.pyi", "py.typed"):
        assert (package / name).exists(), name


@check("tpuc.key equals `tpuc key --format json` for every fixture (both variants), on cpu")
def _():
    failures = []
    count = 0
    for name, model in sorted(MODELS.items()):
        for variant in ("core", "pt2"):
            path = TESTDATA / model["files"][variant]
            out = cli("key", str(path), "--target", "cpu", "--format", "json")
            count += 1
            if out.returncode != 0:
                want_error = json.loads(out.stdout)["error"]
                try:
                    tpuc.key(path, "cpu")
                    failures.append(f"{name}/{variant}: the CLI failed, tpuc.key did not")
                except tpuc.Error as error:
                    if error.code != want_error["code"]:
                        failures.append(f"{name}/{variant}: code {error.code}")
                continue
            want = json.loads(out.stdout)
            got = tpuc.key(path, "cpu")
            if (got.frontend_key, got.key, got.module_sha256) != (
                want["frontend_key"],
                want["targets"][0]["key"],
                want["module_sha256"],
            ):
                failures.append(f"{name}/{variant}: {got} != {want}")
    assert count == 2 * len(MODELS) and count > 0
    assert not failures, "\n".join(failures)


@check("tpuc.key: optimizer= is the CLI's --optimizer; bad specs and passes are tpuc.Error")
def _():
    path = TESTDATA / MODELS["gpt2"]["files"]["pt2"]
    loss = TESTDATA / "training" / "mlp.loss.pt2"
    step = tpuc.key(loss, "cpu", optimizer="adamw:lr=1e-3")
    out = cli("key", str(loss), "--target", "cpu", "--optimizer", "adamw:lr=1e-3", "--format", "json")
    assert out.returncode == 0, out.stderr
    want = json.loads(out.stdout)["frontend_key"]
    assert step.frontend_key == want, (step.frontend_key, want)
    assert step.frontend_key != tpuc.key(loss, "cpu").frontend_key
    try:
        tpuc.key(loss, "cpu", optimizer="adamw:betta1=0.9")
        raise AssertionError("no tpuc.Error")
    except tpuc.Error as error:
        assert "betta1" in str(error), str(error)
    try:
        tpuc.key(path, "cpu", passes="cse,no-such-pass")
        raise AssertionError("no tpuc.Error")
    except tpuc.Error as error:
        assert "no-such-pass" in str(error), str(error)


@check("tpuc.key: kv_dtype= is the CLI's --kv-dtype; a bad type is tpuc.Error")
def _():
    decode = TESTDATA / "serving" / "llama.decode.pt2"
    narrow = tpuc.key(decode, "cpu", kv_dtype="bf16")
    out = cli("key", str(decode), "--target", "cpu", "--kv-dtype", "bf16", "--format", "json")
    assert out.returncode == 0, out.stderr
    assert narrow.key == json.loads(out.stdout)["targets"][0]["key"], (narrow.key, out.stdout)
    assert narrow.key != tpuc.key(decode, "cpu").key
    try:
        tpuc.key(decode, "cpu", kv_dtype="bf61")
        raise AssertionError("no tpuc.Error")
    except tpuc.Error as error:
        assert "bf61" in str(error), str(error)


GPT2 = MODELS["gpt2"]
GPT2_PATH = TESTDATA / GPT2["files"]["pt2"]
GPT2_SET = GPT2["files"]["sets"][0]


def gpt2_inputs():
    import numpy

    return [numpy.load(TESTDATA / p) for p in GPT2_SET["inputs"]]


@check("tpuc.load(gpt2.pt2) matches the stored output (manifest tolerance), twice")
def _():
    import numpy

    want = numpy.load(TESTDATA / GPT2_SET["outputs"][0])
    tol = GPT2["tolerance"]
    exe = tpuc.load(GPT2_PATH)
    for _ in range(2):
        (got, *_rest) = exe(*gpt2_inputs())
        assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype)
        assert got.flags.writeable
        numpy.testing.assert_allclose(got, want, rtol=tol["rtol"], atol=tol["atol"])
    assert exe.key is not None and len(exe.key) == 64
    # Through __dlpack__ too: an object that only offers the protocol.
    class Only:
        def __init__(self, array):
            self._array = array

        def __dlpack__(self, **kwargs):
            return self._array.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self._array.__dlpack_device__()

    (got, *_rest) = exe(*[Only(a) for a in gpt2_inputs()])
    numpy.testing.assert_allclose(got, want, rtol=tol["rtol"], atol=tol["atol"])


@check("tpuc.load of a cached program loads it (origin local), tpuc.compile reports")
def _():
    exe = tpuc.load(GPT2_PATH)
    exe(*gpt2_inputs())
    assert exe.origin == "local", exe.origin
    compiled = tpuc.compile(GPT2_PATH, "cpu")
    assert compiled.origin in ("local", "compiled"), compiled.origin
    again = tpuc.compile(GPT2_PATH, "cpu")
    assert again.origin == "local" and again.key == compiled.key
    assert isinstance(again.memory, dict) and again.memory, again.memory
    manifest = tpuc.Cache().manifest(again.key)
    assert manifest is not None and manifest["key"] == again.key
    assert any(entry["key"] == again.key for entry in tpuc.Cache().entries())


@check("a missing archive and wrong inputs are tpuc.Error, with the CLI's code")
def _():
    import numpy

    try:
        tpuc.load(WORK / "missing.pt2")
        raise AssertionError("no tpuc.Error for a missing archive")
    except tpuc.Error as error:
        assert "missing.pt2" in str(error), str(error)
    exe = tpuc.load(GPT2_PATH)
    try:
        exe(numpy.zeros((3, 3), dtype=numpy.float32))
        raise AssertionError("no tpuc.Error")
    except tpuc.Error as error:
        assert error.code is not None and error.code.startswith("tpuc::"), error.code


@check("Cache.get of an uncached key is None")
def _():
    assert tpuc.Cache().get("0" * 64) is None
    assert tpuc.Cache().manifest("0" * 64) is None


def small_model() -> Path:
    return TESTDATA / MODELS["mlp"]["files"]["pt2"] if "mlp" in MODELS else GPT2_PATH


@check("a corrupted entry raises tpuc.CacheError")
def _():
    cache_dir = WORK / "corrupt"
    compiled = tpuc.compile(small_model(), "cpu", cache_dir=cache_dir)
    cache = tpuc.Cache(cache_dir)
    assert cache.get(compiled.key) is not None
    executable = Path(compiled.entry) / "executable"
    data = bytearray(executable.read_bytes())
    data[len(data) // 2] ^= 0xFF
    executable.write_bytes(bytes(data))
    try:
        cache.get(compiled.key)
        raise AssertionError("no CacheError")
    except tpuc.CacheError as error:
        assert "corrupt" in str(error), str(error)


@check("an untrusted signed entry is refused when trust keys are set")
def _():
    keys = WORK / "keys"
    keys.mkdir()
    for who in ("ci", "other"):
        out = cli("cache", "keygen", str(keys / who))
        assert out.returncode == 0, out.stderr
    cache_dir = WORK / "signed"
    out = cli(
        "compile", str(small_model()), "--target", "cpu", "--cache-dir", str(cache_dir),
        "--format", "json",
        env={"TPUC_SIGN_KEY": str(keys / "ci")},
    )
    assert out.returncode == 0, out.stderr
    key = json.loads(out.stdout)["targets"][0]["key"]
    assert tpuc.Cache(cache_dir, trust_keys=[keys / "ci.pub"]).get(key) is not None
    try:
        tpuc.Cache(cache_dir, trust_keys=[keys / "other.pub"]).get(key)
        raise AssertionError("no UntrustedError")
    except tpuc.UntrustedError as error:
        assert "not a trusted key" in str(error), str(error)
    os.environ["TPUC_TRUST_KEYS"] = str(keys / "other.pub")
    try:
        try:
            tpuc.Cache(cache_dir).get(key)
            raise AssertionError("TPUC_TRUST_KEYS was not honoured")
        except tpuc.UntrustedError:
            pass
    finally:
        del os.environ["TPUC_TRUST_KEYS"]


@check("two threads compile at once (the GIL is released)")
def _():
    spans: list[tuple[float, float]] = []
    errors: list[BaseException] = []
    ticks = [0]
    done = threading.Event()

    def ticker():
        while not done.is_set():
            ticks[0] += 1
            time.sleep(0.001)

    def work(index: int):
        try:
            started = time.perf_counter()
            compiled = tpuc.compile(GPT2_PATH, "cpu", cache_dir=WORK / f"threads{index}")
            assert compiled.origin == "compiled", compiled.origin
            spans.append((started, time.perf_counter()))
        except BaseException as error:  # reported below
            errors.append(error)

    tick = threading.Thread(target=ticker)
    tick.start()
    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    done.set()
    tick.join()
    assert not errors, errors
    (a0, a1), (b0, b1) = spans
    assert max(a0, b0) < min(a1, b1), f"the compiles did not overlap: {spans}"
    # Python kept running meanwhile: at least a tick per 10 ms of the compiles.
    assert ticks[0] > elapsed * 100 / 2, f"{ticks[0]} ticks in {elapsed:.1f} s"


def measure():
    size = WHEEL.stat().st_size
    measured.append(f"wheel size        {size / 2**20:.1f} MiB ({WHEEL.name})")
    code = (
        "import time; t = time.perf_counter(); import tpuc; "
        "print(time.perf_counter() - t)"
    )
    measured.append(f"import tpuc       {python_time(code) * 1000:.1f} ms (goal <= 50 ms)")
    # Both through the warm cache, each in a fresh process, best of five.
    inputs = [str(TESTDATA / p) for p in GPT2_SET["inputs"]]
    run_args = ["tpuc", "run", str(GPT2_PATH), "--output-dir", str(WORK / "out")]
    for path in inputs:
        run_args += ["--input", path]
    best_run = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        subprocess.run(run_args, capture_output=True, check=True)
        best_run = min(best_run, time.perf_counter() - started)
    # The same work in Python: numpy and tpuc imported and the inputs read first (a server
    # has them), then tpuc.load and the first call, timed in the process.
    setup = f"import time, numpy, tpuc; x = [numpy.load(p) for p in {inputs!r}]; "
    best_load = python_time(
        setup + "t = time.perf_counter(); "
        f"tpuc.load({str(GPT2_PATH)!r})(*x); print(time.perf_counter() - t)"
    )
    whole = python_time(
        "import time; t = time.perf_counter(); import numpy, tpuc; "
        f"x = [numpy.load(p) for p in {inputs!r}]; "
        f"tpuc.load({str(GPT2_PATH)!r})(*x); print(time.perf_counter() - t)"
    )
    measured.append(
        f"cached GPT-2      tpuc.load + first call {best_load * 1000:.0f} ms, "
        f"tpuc run {best_run * 1000:.0f} ms: {best_load / best_run:.2f}x (goal <= 1.2x); "
        f"with the imports of numpy and tpuc {whole * 1000:.0f} ms"
    )


try:
    measure()
except Exception:
    traceback.print_exc()
    results.append(("measurements", False))
for line in measured:
    print(line)
shutil.rmtree(WORK, ignore_errors=True)
failed = sum(1 for _, ok in results if not ok)
print(f"{len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
