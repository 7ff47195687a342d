"""numpy <-> moekit: arrays and streams written by numpy are read by
tensor-cat, and what tensor-cat writes (NPY and CSV) is read back by numpy
with the same dtype, shape and values.  Run by tests/interop/run.sh in a
scratch directory; fresh random data each run (the seed is printed)."""
import io
import os
import subprocess
import sys
import time

import numpy as np

from npstream import arrays as load_stream

BIN = os.environ["MOEKIT_BIN"]
TCAT = os.path.join(BIN, "tensor-cat")
seed = int(os.environ.get("MOEKIT_SEED", time.time_ns() % 2**32))
rng = np.random.default_rng(seed)
checks = 0


def run(args, data=None):
    p = subprocess.run([TCAT] + args, input=data, capture_output=True)
    if p.returncode != 0:
        sys.exit("tensor-cat %s failed (seed %d): %s" % (args, seed, p.stderr.decode()))
    return p.stdout


def same(a, b, what):
    global checks
    checks += 1
    if a.shape != b.shape or a.dtype.newbyteorder("=") != b.dtype.newbyteorder("="):
        sys.exit("%s: %s %s != %s %s (seed %d)" % (what, a.dtype, a.shape, b.dtype, b.shape, seed))
    if a.dtype.kind == "f":
        ok = np.array_equal(a, b, equal_nan=True)
    else:
        ok = np.array_equal(a, b)
    if not ok:
        sys.exit("%s: values differ (seed %d)\n%r\n%r" % (what, seed, a, b))


def arrays():
    """Every dtype numpy and moekit share, odd shapes, byte orders, orders."""
    out = []
    for dt in ("f2", "f4", "f8"):
        x = rng.standard_normal((3, 5, 2)) * 10.0 ** rng.integers(-3, 4)
        x[0, 0, 0] = np.nan
        x[0, 0, 1] = -np.inf
        x[0, 1, 0] = -0.0
        out.append(x.astype(dt))
    for dt in ("i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"):
        info = np.iinfo(dt)
        x = rng.integers(info.min, info.max, size=(4, 3), dtype=dt, endpoint=True)
        x[0, 0], x[0, 1] = info.min, info.max
        out.append(x)
    out.append(rng.integers(0, 2, size=(7,)).astype(bool))
    out.append(np.array(rng.standard_normal(), dtype="f8"))            # 0-d
    out.append(np.zeros((0, 3), dtype="i4"))                          # empty
    out.append(rng.standard_normal((2, 3)).astype(">f8"))             # big-endian
    out.append(rng.integers(-9, 9, size=(2, 3)).astype(">i2"))
    out.append(np.asfortranarray(rng.standard_normal((3, 4, 2))))   # Fortran
    out.append(rng.standard_normal(1000).astype("f4"))
    return out


def main():
    arrs = arrays()
    # 1. np.save stream -> tensor-cat -> np.load, as a file and on a pipe
    buf = io.BytesIO()
    for a in arrs:
        np.save(buf, a)
    open("in.npy", "wb").write(buf.getvalue())
    for got in (load_stream(run(["in.npy"])), load_stream(run([], buf.getvalue()))):
        for a, b in zip(arrs, got):
            same(np.array(a, order="C"), b, "npy stream")
        assert len(got) == len(arrs)
    # 2. NPY -> CSV -> NPY keeps dtype, shape and value (CSV tensor lines)
    csv = run(["-f", "csv", "in.npy"])
    back = load_stream(run(["-f", "npy"], csv))
    assert len(back) == len(arrs), "npy->csv->npy: %d of %d" % (len(back), len(arrs))
    for a, b in zip(arrs, back):
        same(np.array(a, order="C"), b, "npy->csv->npy")
    # 3. v2 and v3 headers, and a header numpy pads past 64 KiB (v2 out)
    for ver in ((2, 0), (3, 0)):
        b = io.BytesIO()
        np.lib.format.write_array(b, arrs[1], version=ver)
        same(arrs[1], load_stream(run([], b.getvalue()))[0], "version %s" % (ver,))
    # 4. np.loadtxt reads the CSV of 2-D tensors (tensor lines are comments)
    for dt in ("f4", "f8", "i8", "u2"):
        x = (rng.standard_normal((6, 4)) * 1000).astype(dt)
        np.save("t.npy", x)
        text = run(["-f", "csv", "t.npy"]).decode()
        y = np.loadtxt(io.StringIO(text), delimiter=",", dtype=dt, ndmin=2)
        same(x, y, "np.loadtxt " + dt)
    # 5. np.savetxt output (header comment, %.18e) reads as f64, exactly
    x = rng.standard_normal((5, 3))
    np.savetxt("s.csv", x, delimiter=",", header="a,b,c")
    same(x, load_stream(run(["-f", "npy", "s.csv"]))[0], "np.savetxt")
    np.savetxt("s1.csv", x[:, 0], delimiter=",")
    same(x[:, 0], load_stream(run(["-f", "npy", "s1.csv"]))[0], "np.savetxt 1-D")
    np.savetxt("si.csv", (x * 100).astype(np.int64), delimiter=",", fmt="%d")
    same((x * 100).astype(np.int64), load_stream(run(["-f", "npy", "si.csv"]))[0], "savetxt %d")
    # 6. a pandas-style header row is skipped
    open("p.csv", "w").write("a,b\n" + "\n".join("%d,%r" % (i, v) for i, v in enumerate(x[:, 1].tolist())) + "\n")
    y = load_stream(run(["-f", "npy", "p.csv"]))[0]
    same(np.stack([np.arange(5.0), x[:, 1]], 1), y, "pandas header")
    # 7. f16 / bf16 conversions agree with numpy's rounding
    x = (rng.standard_normal(4096) * 10.0 ** rng.integers(-6, 5, 4096)).astype("f4")
    np.save("h.npy", x)
    same(x.astype("f2"), load_stream(run(["--dtype", "f16", "h.npy"]))[0], "f32->f16")
    h = load_stream(run(["--dtype", "bf16", "h.npy"]))[0]
    assert h.dtype == np.uint16
    u = x.view(np.uint32).astype(np.uint64)
    want = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)   # RNE, no NaNs here
    same(want, h, "f32->bf16 bits")
    back = load_stream(run(["--bf16", "--dtype", "f32"], run(["--dtype", "bf16", "h.npy"])))[0]
    same((want.astype(np.uint32) << 16).view(np.float32), back, "bf16->f32")
    print("interop: %d numpy checks passed (seed %d)" % (checks, seed))


main()
