"""tpuc: compile PyTorch ``torch.export`` programs (``.pt2``) for TPUs and XLA:CPU.

The compiler runs in this process (no subprocess): :func:`key` computes the keys a deployment
looks executables up by, :func:`compile` compiles through the content-addressed cache (local,
then the shared tier), :class:`Cache` reads verified entries, and :func:`load` runs a program
on XLA:CPU through PJRT. Errors are :class:`Error` exceptions carrying the CLI's diagnostic.
The ``tpuc`` command comes with the package; ``tpuc setup-plugins`` installs the PJRT plugins.
"""

from __future__ import annotations

import json as _json
import os as _os
from typing import Any, Mapping, Sequence

from . import _tpuc
from ._errors import CacheError, Error, UntrustedError

__all__ = [
    "Cache",
    "CacheError",
    "Compiled",
    "Error",
    "Executable",
    "Keys",
    "UntrustedError",
    "compile",
    "key",
    "load",
]

__version__: str = _tpuc.version()



def _path(value: Any) -> str:
    return _os.fspath(value)


def _dims(dims: Mapping[str, int] | None) -> list[tuple[str, int]] | None:
    if dims is None:
        return None
    return [(str(name), int(size)) for name, size in dims.items()]


def _passes(passes: str | Sequence[str] | None) -> str | None:
    if passes is None or isinstance(passes, str):
        return passes
    return ",".join(passes)


def _paths(paths: Sequence[Any] | None) -> list[str] | None:
    if paths is None:
        return None
    if isinstance(paths, (str, _os.PathLike)):
        paths = [paths]
    return [_path(p) for p in paths]


class Keys:
    """The keys of a program for one target (what ``tpuc key --format json`` prints).

    Attributes: ``frontend_key``, ``module_sha256``, ``target``, ``key`` (the compile key,
    the cache entry's name), ``cached`` (the local cache or shared tier holds it), and
    ``warnings``.
    """

    frontend_key: str
    module_sha256: str
    target: str
    key: str
    cached: bool
    warnings: list[str]

    def __init__(self, fields: Mapping[str, Any]) -> None:
        self.__dict__.update(fields)

    def __repr__(self) -> str:
        return f"Keys(target={self.target!r}, key={self.key!r}, cached={self.cached})"


class Compiled:
    """What :func:`compile` did for one target.

    Attributes: ``key`` (the compile key), ``origin`` (``"local"``, ``"shared"`` or
    ``"compiled"``), ``target``, ``frontend_key``, ``module_sha256``, ``memory`` and ``cost``
    (the compiler's memory statistics and cost analysis, dicts, or ``None`` when the plugin
    reported none), ``entry`` (the local cache entry's directory), ``size`` (bytes of the
    serialized executable), ``seconds`` and ``warnings``.
    """

    key: str
    origin: str
    target: str
    frontend_key: str
    module_sha256: str
    memory: dict[str, Any] | None
    cost: dict[str, Any] | None
    entry: str | None
    size: int
    seconds: float
    warnings: list[str]

    def __init__(self, fields: Mapping[str, Any]) -> None:
        self.__dict__.update(fields)

    def __repr__(self) -> str:
        return f"Compiled(target={self.target!r}, key={self.key!r}, origin={self.origin!r})"


def key(
    model: Any,
    target: str,
    *,
    shard: str | None = None,
    optimizer: str | None = None,
    kv_dtype: str | None = None,
    dims: Mapping[str, int] | None = None,
    passes: str | Sequence[str] | None = None,
    cache_dir: Any = None,
) -> Keys:
    """The front-end key and compile key of ``model`` (a ``.pt2`` archive or ``.mlir``
    module) for ``target`` (``"cpu"``, ``"cpu:N"``, ``"tpu:v5e:2x2"``, ...), without
    compiling: the same keys as ``tpuc key MODEL --target TARGET``.

    ``shard`` is ``--shard`` (a preset such as ``"fsdp"`` or a TOML plan's path), ``dims``
    ``--dim`` (``{"s77": 8}`` or ``{"input_ids.1": 128}``), ``passes`` ``--passes``
    (``"cse,dce"`` or a list), ``optimizer`` ``--optimizer`` (``"adamw:lr=1e-3"``: the
    program becomes one training step, docs/training.md), ``kv_dtype`` ``--kv-dtype``
    (``"bf16"``: a decode step's KV cache stored narrower, docs/serving.md). The cache is ``cache_dir``, else ``TPUC_CACHE_DIR``, else
    ``~/.cache/tpuc``; ``TPUC_REMOTE`` adds the shared tier as for the CLI.
    """
    text = _tpuc.key(
        _path(model),
        target,
        shard=shard,
        optimizer=optimizer,
        kv_dtype=kv_dtype,
        dims=_dims(dims),
        passes=_passes(passes),
        cache_dir=None if cache_dir is None else _path(cache_dir),
    )
    return Keys(_json.loads(text))


def compile(
    model: Any,
    target: str,
    *,
    shard: str | None = None,
    optimizer: str | None = None,
    kv_dtype: str | None = None,
    dims: Mapping[str, int] | None = None,
    passes: str | Sequence[str] | None = None,
    cache_dir: Any = None,
    trust_keys: Sequence[Any] | None = None,
) -> Compiled:
    """Compiles ``model`` for ``target`` through the cache, as ``tpuc compile`` does: a hit
    in the local cache or the shared tier is returned without compiling, a miss is compiled
    by the target's PJRT plugin and stored. The options are :func:`key`'s; ``trust_keys``
    (public key files, else ``TPUC_TRUST_KEYS``) are the keys a shared-tier entry must be
    signed by. The GIL is released while it works. Returns a :class:`Compiled`.
    """
    text = _tpuc.compile(
        _path(model),
        target,
        shard=shard,
        optimizer=optimizer,
        kv_dtype=kv_dtype,
        dims=_dims(dims),
        passes=_passes(passes),
        cache_dir=None if cache_dir is None else _path(cache_dir),
        trust_keys=_paths(trust_keys),
    )
    return Compiled(_json.loads(text))


class Cache:
    """The local compile cache at ``path`` (else ``TPUC_CACHE_DIR``, ``$XDG_CACHE_HOME/tpuc``,
    ``~/.cache/tpuc``), read-only when ``TPUC_CACHE_READ_ONLY=1``.

    Every entry read is verified (manifest seal, payload size and SHA-256); a corrupt entry
    raises :class:`CacheError` and is quarantined. With ``trust_keys`` (public key files, else
    ``TPUC_TRUST_KEYS``, files separated by ``:``), an entry not signed by one of them raises
    :class:`UntrustedError`.
    """

    def __init__(self, path: Any = None, *, trust_keys: Sequence[Any] | None = None) -> None:
        self._cache = _tpuc.Cache(
            None if path is None else _path(path), trust_keys=_paths(trust_keys)
        )

    @property
    def path(self) -> str:
        """The cache's directory."""
        return str(self._cache.path)

    def get(self, key: str) -> bytes | None:
        """The verified serialized executable of the compile key ``key``, or ``None``."""
        return self._cache.get(key)

    def manifest(self, key: str) -> dict[str, Any] | None:
        """The verified manifest of ``key`` (``docs/cache-format.md``), or ``None``."""
        text = self._cache.manifest(key)
        return None if text is None else _json.loads(text)

    def entries(self) -> list[dict[str, Any]]:
        """Every entry, most recently used first, as ``tpuc cache ls --format json`` lists
        them (key, target, model, created_unix, path, size, last_used_unix); not verified."""
        return _json.loads(self._cache.entries())

    def __repr__(self) -> str:
        return f"Cache({self.path!r})"


def _to_triple(index: int, value: Any) -> tuple[str, list[int], bytes]:
    import numpy

    if not isinstance(value, numpy.ndarray) and hasattr(value, "__dlpack__"):
        value = numpy.from_dlpack(value)
    array = numpy.ascontiguousarray(value)
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    return (array.dtype.name, list(array.shape), array.tobytes())


class Executable:
    """A program loaded on XLA:CPU (see :func:`load`). Call it with one array per input."""

    def __init__(self, native: Any) -> None:
        self._native = native

    def __call__(self, *arrays: Any) -> list[Any]:
        """Runs the program on ``arrays`` (numpy arrays, or objects with ``__dlpack__``, one
        per user input in order) and returns its outputs as numpy arrays. The first call with
        new shapes fetches the executable through the cache (compiling on a miss); later
        calls reuse it and the bound weights. The GIL is released while it runs."""
        import numpy

        inputs = [_to_triple(i, a) for i, a in enumerate(arrays)]
        outputs = self._native.run(inputs)
        return [
            numpy.frombuffer(data, dtype=numpy.dtype(dtype)).reshape(shape)
            for dtype, shape, data in outputs
        ]

    @property
    def key(self) -> str | None:
        """The compile key of the executable loaded last (``None`` before the first call)."""
        return self._native.key

    @property
    def origin(self) -> str | None:
        """Where the executable loaded last came from: ``"local"``, ``"shared"`` or
        ``"compiled"``."""
        return self._native.origin

    @property
    def warnings(self) -> list[str]:
        """What did not stop loading: an unusable shared tier, unknown XLA variables."""
        return self._native.warnings


def load(
    model: Any,
    target: str = "cpu",
    *,
    cache_dir: Any = None,
    trust_keys: Sequence[Any] | None = None,
    plugin: Any = None,
) -> Executable:
    """Loads ``model`` (a ``.pt2`` archive) for execution on XLA:CPU (``target`` ``"cpu"``
    or ``"cpu:N"``) and returns an :class:`Executable`; ``exe(*arrays)`` runs it.

    The archive is opened (a missing or malformed one raises :class:`Error`) and the XLA:CPU
    plugin (``plugin``, else ``TPUC_CPU_PLUGIN``, else the plugin directory that
    ``tpuc setup-plugins`` fills) is loaded now. The executable comes through the compile
    cache, like ``tpuc run``'s: an executable in the local cache or the shared tier is
    deserialized, not recompiled; the weights are bound from the archive's memory map. Both
    are kept across calls. ``cache_dir`` and ``trust_keys`` are :func:`compile`'s.
    """
    native = _tpuc.Executable(
        _path(model),
        target,
        cache_dir=None if cache_dir is None else _path(cache_dir),
        trust_keys=_paths(trust_keys),
        plugin=None if plugin is None else _path(plugin),
    )
    return Executable(native)
