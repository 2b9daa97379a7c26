# The native module; use the functions and classes of `tpuc` itself.
import os

def version() -> str: ...
def key(
    model: str | os.PathLike[str],
    target: str,
    *,
    shard: str | None = None,
    optimizer: str | None = None,
    kv_dtype: str | None = None,
    dims: list[tuple[str, int]] | None = None,
    passes: str | None = None,
    cache_dir: str | None = None,
) -> str: ...
def compile(
    model: str | os.PathLike[str],
    target: str,
    *,
    shard: str | None = None,
    optimizer: str | None = None,
    kv_dtype: str | None = None,
    dims: list[tuple[str, int]] | None = None,
    passes: str | None = None,
    cache_dir: str | None = None,
    trust_keys: list[str] | None = None,
) -> str: ...

class Cache:
    path: str
    def __init__(self, path: str | None = None, *, trust_keys: list[str] | None = None) -> None: ...
    def get(self, key: str) -> bytes | None: ...
    def manifest(self, key: str) -> str | None: ...
    def entries(self) -> str: ...

class Executable:
    key: str | None
    origin: str | None
    warnings: list[str]
    def __init__(
        self,
        model: str,
        target: str = "cpu",
        *,
        cache_dir: str | None = None,
        trust_keys: list[str] | None = None,
        plugin: str | None = None,
    ) -> None: ...
    def run(
        self, inputs: list[tuple[str, list[int], bytes]]
    ) -> list[tuple[str, list[int], bytearray]]: ...
