"""numpy interop for named tensors and pipes: what np.savez and
np.savez_compressed write, moekit reads (names kept); what moekit writes as
.npz (-f npz, or -o FILE.npz), np.load reads by name; and the README's way
to read a stream from a real pipe in Python."""
import os
import subprocess
import sys

import numpy as np

BIN = os.environ.get("MOEKIT_BIN", "build/bin")
rng = np.random.default_rng(int.from_bytes(os.urandom(4), "little"))
checks = 0

# tensor-cat(1)'s reader, verbatim from the page: every array of a
# moekit stream, from a pipe or a file (np.load alone seeks, which a pipe
# cannot).
_page = open(os.path.join(os.path.dirname(__file__),
                          "../../man/tensor-cat.1")).read()
_at = _page.index("import sys, numpy as np")
README_READER = _page[_at:_page.index(".Ed", _at)]


def tool(*args, **kw):
    return subprocess.run([os.path.join(BIN, args[0])] + list(args[1:]),
                          check=True, capture_output=True, **kw).stdout


def same(a, b, what):
    global checks
    assert a.dtype == b.dtype and a.shape == b.shape, (what, a.dtype,
                                                       b.dtype, a.shape,
                                                       b.shape)
    assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), what
    checks += 1


arrays = {
    "phy2log": rng.integers(0, 256, (58, 288)),
    "weights": rng.standard_normal((3, 4)).astype(np.float32),
    "mask": rng.random((2, 5)) < 0.5,
    "half": rng.standard_normal(7).astype(np.float16),
    "u8": rng.integers(0, 255, (4,), dtype=np.uint8),
}
for save in (np.savez, np.savez_compressed):
    save("in.npz", **arrays)
    info = tool("tensor-cat", "--info", "in.npz").decode().splitlines()
    assert [l.split(",")[1] for l in info] == list(arrays), info
    # through moekit as .npz (named by -o's extension) and back in numpy
    tool("tensor-cat", "-o", "out.npz", "in.npz")
    z = np.load("out.npz")
    assert list(z.files) == list(arrays), z.files
    for k, v in arrays.items():
        same(z[k], v, "%s %s" % (save.__name__, k))
    # --emit by name, out as NPY on a pipe
    one = tool("tensor-cat", "--emit", "weights", "-f", "npy", "in.npz")
    with open("w.npy", "wb") as f:
        f.write(one)
    same(np.load("w.npy"), arrays["weights"], "--emit weights")

# a plan as .npz: np.load(...)["phy2log"] just works
np.save("loads.npy", rng.integers(0, 1000, (4, 64)))
tool("eplb-plan", "-r", "80", "-G", "8", "-o", "plan.npz", "loads.npy")
tool("eplb-plan", "-r", "80", "-G", "8", "-o", "plan.npy", "loads.npy")
z = np.load("plan.npz")
assert z.files == ["phy2log", "log2phy", "logcnt"], z.files
blob = open("plan.npy", "rb").read()
with open("plan.npy", "rb") as f:
    for k in z.files:
        same(z[k], np.lib.format.read_array(f), "plan " + k)

# the README's reader on a real pipe: tensor-cat | python3
with open("reader.py", "w") as f:
    f.write(README_READER)
got = subprocess.run(
    "%s plan.npy | %s reader.py" % (os.path.join(BIN, "tensor-cat"),
                                    sys.executable),
    shell=True, check=True, capture_output=True).stdout.decode()
want = "".join("%s %s %s\n" % (z[k].dtype, z[k].shape, z[k].sum())
               for k in z.files)
assert got == want, (got, want)
checks += 1
print("npz: %d checks passed (np.savez, np.savez_compressed, -o .npz, "
      "a real pipe)" % checks)

# The README's cookbook: its PyTorch/numpy round trip through mdecode,
# run verbatim (from the README's text), must print a small error.
readme = open(os.path.join(os.path.dirname(__file__), "../../README.md")).read()
start = readme.index("## mdecode: masked decode attention")
block = readme[readme.index("```python\n", start) + 10:]
block = block[:block.index("```")]
with open("cookbook.py", "w") as f:
    f.write(block)
env = dict(os.environ, PATH=os.path.abspath(BIN) + ":" + os.environ["PATH"])
err = float(subprocess.run([sys.executable, "cookbook.py"], env=env,
                           check=True, capture_output=True).stdout)
assert 0 <= err < 2e-3, err
print("npz: the README's mdecode round trip runs (max error %.2g)" % err)
