#!/usr/bin/python3
"""Write the tensor-cat fixtures and the NPY/CSV fuzz seeds into testdata/.

Run from the repository root with Debian's python3-numpy:
    /usr/bin/python3 tests/gen/tensor_cat.py
Deterministic (seed 20261122); testdata/README lists what each file is.
"""
import io
import os
import struct

import numpy as np

rng = np.random.default_rng(20261122)
T = "testdata"
C = os.path.join(T, "corpus")
os.makedirs(os.path.join(C, "npy"), exist_ok=True)
os.makedirs(os.path.join(C, "csv"), exist_ok=True)


def mixed():
    """One array of every dtype, odd sizes, big-endian and Fortran cases."""
    a = [
        rng.standard_normal((2, 3)).astype(np.float32),
        np.array([-(2**62), -1, 0, 2**62 + 7], dtype=np.int64),
        np.array([True, False, True]),
        (rng.standard_normal((2, 2)) * 100).astype(np.float16),
        np.arange(5, dtype=np.uint8) * 50,
        np.array(np.pi),
        np.arange(8, dtype=np.int32).reshape(2, 2, 2) - 4,
        np.array([1.5, -2.25, 1e30], dtype=">f4"),
        np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3) / 7),
        np.array([0x3F80, 0xC049, 0x7F80, 0x0001], dtype=np.uint16),
        np.array([-128, 127], dtype=np.int8),
        np.array([[-32768, 32767]], dtype=">i2"),
        np.array([0, 4294967295], dtype=np.uint32),
        np.array([18446744073709551615, 1], dtype=np.uint64),
        np.zeros((0, 3), dtype=np.float64),
    ]
    with open(os.path.join(T, "tensor-cat-mixed.npy"), "wb") as f:
        for x in a:
            np.save(f, x)


def tables():
    # pandas to_csv(index=False) style: a header row of column names
    with open(os.path.join(T, "tensor-cat-table.csv"), "w") as f:
        f.write("layer,expert,load\n")
        for l in range(2):
            for e in range(4):
                f.write("%d,%d,%d\n" % (l, e, rng.integers(0, 1000)))
    # np.savetxt with a header comment
    np.savetxt(os.path.join(T, "tensor-cat-savetxt.csv"),
               rng.standard_normal((3, 4)), delimiter=",", header="a,b,c,d")


def npy_bytes(dict_text, payload, major=1):
    pre = 10 if major == 1 else 12
    hl = (pre + len(dict_text) + 1 + 63) // 64 * 64 - pre
    h = dict_text + " " * (hl - len(dict_text) - 1) + "\n"
    lenf = struct.pack("<H", hl) if major == 1 else struct.pack("<I", hl)
    return b"\x93NUMPY" + bytes([major, 0]) + lenf + h.encode("latin1") + payload


def seeds():
    good = {
        "v1-f32.npy": np.arange(6, dtype=np.float32).reshape(2, 3),
        "v1-bool.npy": np.array([True, False]),
        "v1-scalar-f64.npy": np.array(2.5),
        "v1-empty.npy": np.zeros((0, 4), dtype=np.int32),
        "v1-bigendian-i8.npy": np.array([1, -2], dtype=">i8"),
        "v1-fortran-u16.npy": np.asfortranarray(np.arange(12, dtype=np.uint16).reshape(3, 4)),
        "v1-f16-3d.npy": np.arange(24, dtype=np.float16).reshape(2, 3, 4),
    }
    for name, x in good.items():
        np.save(os.path.join(C, "npy", name), x)
    for ver in (2, 3):
        b = io.BytesIO()
        np.lib.format.write_array(b, np.arange(3, dtype=np.int64), version=(ver, 0))
        open(os.path.join(C, "npy", "v%d-i64.npy" % ver), "wb").write(b.getvalue())
    with open(os.path.join(C, "npy", "stream-mixed.npy"), "wb") as f:
        for x in (np.arange(3, dtype=np.uint8), np.ones(2, np.float32), np.array([7], np.int16)):
            np.save(f, x)
    base = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }",
                     struct.pack("<4f", 1, 2, 3, 4))
    bad = {
        "bad-truncated-preamble.npy": base[:7],
        "bad-truncated-header.npy": base[:40],
        "bad-short-data.npy": base[:-3],
        "bad-magic.npy": b"\x93NUMPZ" + base[6:],
        "bad-version.npy": base[:6] + b"\x04\x00" + base[8:],
        "bad-huge-shape.npy": npy_bytes(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904), }", b""),
        "bad-dim-overflow.npy": npy_bytes(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,), }", b""),
        "bad-huge-claim.npy": npy_bytes(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }", b"12345678"),
        "bad-dtype.npy": npy_bytes("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", b"\0" * 8),
        "bad-not-tuple.npy": npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (5), }", b"\0" * 20),
        "bad-extra-key.npy": npy_bytes(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", b"\0" * 4),
        "bad-trailing-junk.npy": base + b"junk",
        "bad-header-length.npy": base[:8] + b"\xff\xff" + base[10:],
    }
    for name, data in bad.items():
        open(os.path.join(C, "npy", name), "wb").write(data)
    csvs = {
        "plain-int.csv": "1,2,3\n4,5,6\n",
        "floats-savetxt.csv": "# x\n1.000000000000000000e+00,nan\n-inf,2.5e-310\n",
        "header-pandas.csv": "a,b\n1,True\n2,False\n",
        "tensor-lines.csv": "# name=a shape=2,1,2 dtype=f16\n1,2\n3,4\n# name=b shape= dtype=bool\n1\n"
                            "# name=c shape=0,3 dtype=u64\n",
        "quoted-crlf.csv": "\"1\",\" 2 \"\r\n3,4\r\n",
        "bad-ragged.csv": "1,2\n3\n",
        "bad-text.csv": "1,2\n3,x\n",
        "bad-empty.csv": "",
        "bad-shape.csv": "# name=a shape=3 dtype=i64\n1\n2\n",
        "bad-range.csv": "# name=a shape=1 dtype=u8\n256\n",
        "bad-quote.csv": "1,\"2\n",
        "bad-dtype.csv": "# name=a shape=1 dtype=c64\n1\n",
    }
    for name, text in csvs.items():
        open(os.path.join(C, "csv", name), "w").write(text)


mixed()
tables()
seeds()
