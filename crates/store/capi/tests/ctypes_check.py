"""The C ABI from Python's ctypes: ctypes_check.py LIBRARY CACHE_DIR KEY prints what
check_cache.c prints for the same entry (the Rust test compares the two)."""

import ctypes
import sys


class Binding(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_char_p),
        ("name", ctypes.c_char_p),
        ("index", ctypes.c_int64),
        ("dtype", ctypes.c_char_p),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("rank", ctypes.c_size_t),
        ("sharding", ctypes.c_char_p),
    ]


def declare(lib):
    lib.tpuc_cache_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
    lib.tpuc_cache_close.argtypes = [ctypes.c_void_p]
    lib.tpuc_cache_verify.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.tpuc_cache_lookup.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.tpuc_entry_free.argtypes = [ctypes.c_void_p]
    lib.tpuc_entry_executable.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
    lib.tpuc_entry_executable.restype = ctypes.POINTER(ctypes.c_uint8)
    lib.tpuc_entry_target.argtypes = [ctypes.c_void_p]
    lib.tpuc_entry_target.restype = ctypes.c_char_p
    lib.tpuc_entry_manifest_json.argtypes = [ctypes.c_void_p]
    lib.tpuc_entry_manifest_json.restype = ctypes.c_char_p
    for name in ("tpuc_entry_argument_count", "tpuc_entry_result_count"):
        getattr(lib, name).argtypes = [ctypes.c_void_p]
        getattr(lib, name).restype = ctypes.c_size_t
    for name in ("tpuc_entry_argument", "tpuc_entry_result"):
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(Binding)]
    lib.tpuc_last_error.restype = ctypes.c_char_p


def text(value):
    return value.decode() if value is not None else "-"


def show(what, i, b):
    shape = ",".join(str(b.shape[d]) for d in range(b.rank))
    print(f"{what} {i} {text(b.kind)} {text(b.name)} {b.index} {text(b.dtype)} [{shape}] {text(b.sharding)}")


def main():
    library, cache_dir, key = sys.argv[1:]
    lib = ctypes.CDLL(library)
    declare(lib)
    cache = ctypes.c_void_p()
    status = lib.tpuc_cache_open(cache_dir.encode(), 1, ctypes.byref(cache))
    if status:
        sys.exit(f"open: {text(lib.tpuc_last_error())}")
    print(f"verify {lib.tpuc_cache_verify(cache, key.encode())}")
    entry = ctypes.c_void_p()
    status = lib.tpuc_cache_lookup(cache, key.encode(), ctypes.byref(entry))
    if status:
        print(f"lookup {status} {text(lib.tpuc_last_error())}")
        lib.tpuc_cache_close(cache)
        sys.exit(status)
    length = ctypes.c_size_t()
    data = lib.tpuc_entry_executable(entry, ctypes.byref(length))
    print(f"target {text(lib.tpuc_entry_target(entry))}")
    print(f"executable {length.value} {'bytes' if data else 'NULL'}")
    manifest = text(lib.tpuc_entry_manifest_json(entry))
    form = "json" if '"signature"' in manifest else "?"
    print(f"manifest {form}")
    binding = Binding()
    for i in range(lib.tpuc_entry_argument_count(entry)):
        assert lib.tpuc_entry_argument(entry, i, ctypes.byref(binding)) == 0
        show("argument", i, binding)
    for i in range(lib.tpuc_entry_result_count(entry)):
        assert lib.tpuc_entry_result(entry, i, ctypes.byref(binding)) == 0
        show("result", i, binding)
    status = lib.tpuc_entry_argument(entry, 1000, ctypes.byref(binding))
    print(f"out of range {status} {text(lib.tpuc_last_error())}")
    lib.tpuc_entry_free(entry)
    lib.tpuc_cache_close(cache)


if __name__ == "__main__":
    main()
