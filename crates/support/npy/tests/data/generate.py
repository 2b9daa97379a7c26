"""Writes the .npy files the tpuc-npy tests read, with numpy itself.

Run from this directory with any numpy >= 1.17: `python3 generate.py`. Every array is
`base(dtype, shape)`: the values 0, 1, 2, ... in C order, mapped as below, so the tests can
compute the expected elements without reading anything else.
"""

import numpy as np


def base(dtype, shape):
    n = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return (n % 3 == 0).astype(dtype)
    if dtype.kind == "i":
        return ((n * 37) % 200 - 100).astype(dtype)
    if dtype.kind == "u":
        return ((n * 37) % 250).astype(dtype)
    if dtype.kind == "f":
        return (n * 0.75 - 2.5).astype(dtype)
    return (n * 0.5 - 1 + 1j * (2 - n * 0.25)).astype(dtype)


def save(name, array, version=None):
    with open(name, "wb") as f:
        np.lib.format.write_array(f, array, version=version, allow_pickle=False)


for code in ["b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16"]:
    save(f"le_{code}.npy", base("<" + code, (2, 3)))
for code in ["i2", "u4", "f4", "f8", "c8", "c16"]:
    save(f"be_{code}.npy", base(">" + code, (2, 3)))
save("fortran_f4.npy", np.asfortranarray(base("<f4", (2, 3, 4))))
save("fortran_be_i8.npy", np.asfortranarray(base(">i8", (3, 2))))
save("v2_f4.npy", base("<f4", (2, 3)), version=(2, 0))
save("v3_f4.npy", base("<f4", (2, 3)), version=(3, 0))
save("scalar_f8.npy", base("<f8", ()))
save("empty_i4.npy", base("<i4", (0, 3)))
save("vector_u1.npy", base("|u1", (5,)))
