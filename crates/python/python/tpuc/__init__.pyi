import os
from typing import Any, Mapping, Sequence

from ._errors import CacheError as CacheError
from ._errors import Error as Error
from ._errors import UntrustedError as UntrustedError

__version__: str

_Path = str | os.PathLike[str]

class Keys:
    frontend_key: str
    module_sha256: str
    target: str
    key: str
    cached: bool
    warnings: list[str]

class Compiled:
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

def key(
    model: _Path,
    target: str,
    *,
    shard: str | None = None,
    optimizer: str | None = None,
    kv_dtype: str | None = None,
    dims: Mapping[str, int] | None = None,
    passes: str | Sequence[str] | None = None,
    cache_dir: _Path | None = None,
) -> Keys: ...
def compile(
    model: _Path,
    target: str,
    *,
    shard: str | None = None,
    optimizer: str | None = None,
    kv_dtype: str | None = None,
    dims: Mapping[str, int] | None = None,
    passes: str | Sequence[str] | None = None,
    cache_dir: _Path | None = None,
    trust_keys: Sequence[_Path] | None = None,
) -> Compiled: ...

class Cache:
    def __init__(
        self, path: _Path | None = None, *, trust_keys: Sequence[_Path] | None = None
    ) -> None: ...
    @property
    def path(self) -> str: ...
    def get(self, key: str) -> bytes | None: ...
    def manifest(self, key: str) -> dict[str, Any] | None: ...
    def entries(self) -> list[dict[str, Any]]: ...

class Executable:
    def __call__(self, *arrays: Any) -> list[Any]: ...
    @property
    def key(self) -> str | None: ...
    @property
    def origin(self) -> str | None: ...
    @property
    def warnings(self) -> list[str]: ...

def load(
    model: _Path,
    target: str = "cpu",
    *,
    cache_dir: _Path | None = None,
    trust_keys: Sequence[_Path] | None = None,
    plugin: _Path | None = None,
) -> Executable: ...
