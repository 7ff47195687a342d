"""mdecode against a float64 numpy evaluation of masked decode attention
(softmax(q k^T / sqrt(D)) v over the valid, unmasked positions), written
from the formula, not from moekit's C.  Fresh random problems each run (the seed is printed
on failure): both layouts (KV cache with --valid-length, flat buffers with
--kv-heads sliced as mdecode(1) says; [B, M, KH, D] with
--kv-layout bmhd; a paged cache with a block table and lengths), GQA groups 1-8, odd V and D,
f16 / bf16 / f32, FP8 E4M3 and E5M2 caches with scales (every byte's value
against OCP's definition), fully masked rows, V = 1, no mask, every kernel path
this CPU has (MOEKIT_ISA; amx also with its tiles on every shape,
MOEKIT_TILE_ROWS=1) and 1-3 threads.  Tolerances of mdecode(1): f16 and
outputs |x - ref| <= 1e-3 + 1e-3 |ref| (the check of the torch code mdecode replaces), bf16 the
same plus bf16's own rounding (2^-8 |ref|), f32 outputs and lse 1e-5
relative (out: to |ref| plus the row's largest |out|).  Run by
tests/interop/run.sh."""
import io
import os
import subprocess
import sys
import time

import numpy as np

from npstream import arrays

BIN = os.environ["MOEKIT_BIN"]
seed = int(os.environ.get("MOEKIT_SEED", time.time_ns() % 2**32))
rng = np.random.default_rng(seed)
checks = 0
isas = subprocess.run([os.path.join(BIN, "mdecode"), "--isa-list"],
                      capture_output=True, text=True).stdout.split()
# amx on its tiles whatever the shape, beside amx as it chooses
if "amx" in isas:
    isas.append("amx-tiles")


CUR_ISA = None   # the path being checked (isa_env sets it)


def isa_env(isa, env=None):
    """The environment that runs path isa ("amx-tiles": amx, tiles forced)."""
    global CUR_ISA
    CUR_ISA = isa
    env = dict(os.environ if env is None else env)
    env["MOEKIT_ISA"] = "amx" if isa == "amx-tiles" else isa
    if isa == "amx-tiles":
        env["MOEKIT_TILE_ROWS"] = "1"
    return env


def fail(msg):
    sys.exit("mdecode check failed (seed %d): %s" % (seed, msg))


def bf16_bits(x):
    """f32 -> bf16 bits, round to nearest even (as moekit and torch do)."""
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def as_f64(a, dt):
    if dt == "bf16":
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


def make(dt, shape):
    x = rng.standard_normal(shape).astype(np.float32)
    if dt == "bf16":
        return bf16_bits(x)
    return x.astype(np.float16 if dt == "f16" else np.float32)


def reference(q, k, v, mask, V, KH, flat, dt, scale):
    B, QH, D = q.shape[0], q.shape[1], q.shape[-1]
    G = QH // KH
    if flat:
        kk = k[:B * KH * V * D].reshape(B, KH, V, D)
        vv = v[:B * KH * V * D].reshape(B, KH, V, D)
        mm = None if mask is None else mask[:B * KH * V].reshape(B, KH, V)
    else:
        kk, vv = k[:, :, :V], v[:, :, :V]
        mm = None if mask is None else mask[:, :, :V]
    qf = as_f64(q, dt).reshape(B, KH, G, D)
    s = np.einsum("bhgd,bhvd->bhgv", qf, as_f64(kk, dt)) * scale
    if mm is not None:
        s = np.where(mm[:, :, None, :] != 0, -np.inf, s)
    lse, out = attend(s, as_f64(vv, dt))
    global SLACK
    ls, os_ = amx_slack(np.einsum("bhgd,bhvd->bhgv", np.abs(qf),
                                  np.abs(as_f64(kk, dt))) * abs(scale),
                        s, as_f64(vv, dt)[:, :, None])
    SLACK = (ls.reshape(B, QH, 1), os_.reshape(B, QH, 1, 1))
    return lse.reshape(B, QH, 1), out.reshape(B, QH, 1, D)


SLACK = (None, None)     # reference()'s amx_slack, for close


def amx_slack(sa, s, vv):
    """mdecode(1)'s bound of the amx path beyond f32's, from sa [..., n]
    (scale times the sum of |q_d k_d| of each position), the scores s
    (-inf: masked) and vv (broadcasting against s[..., None]: [..., n, D]):
    lse within 2^-16 max sa, out within (2^-16 + 2^-15 max sa) times the
    largest |v| the row weighs (both over the valid, unmasked positions).
    Returns them shaped as lse [...] and out [..., 1]."""
    live = np.isfinite(s)
    a = np.where(live, sa, 0).max(-1, initial=0)
    vmax = np.where(live[..., None], np.abs(vv), 0).max((-1, -2), initial=0)
    return 2.0 ** -16 * a, ((2.0 ** -16 + 2.0 ** -15 * a) * vmax)[..., None]


def attend(s, vv):
    """Softmax over the last axis of scores s (-inf: masked) applied to
    vv [..., n, D]: lse (natural log) and out; a row with every score
    masked gets -inf and 0."""
    m = s.max(-1, keepdims=True)
    dead = ~np.isfinite(m)
    m = np.where(dead, 0, m)
    p = np.exp(s - m)
    l = p.sum(-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        lse = np.where(dead, -np.inf, m + np.log(l))[..., 0]
        out = np.where(dead, 0, (p @ vv) / l)
    return lse, out


def run(args, data, env=None):
    p = subprocess.run([os.path.join(BIN, "mdecode")] + args, input=data,
                       capture_output=True, env=env)
    if p.returncode != 0:
        fail("mdecode %s: %s" % (" ".join(args), p.stderr.decode()))
    return arrays(p.stdout)


def close(what, got, want, kind, slack=None):
    """kind: "f32" (1e-5 relative; out rows also against their largest
    |out|), "f16" (1e-3 + 1e-3 |ref|) or "bf16" (1e-3 plus
    bf16's rounding, 2^-8 |ref|); on the amx path, plus its slack
    (amx_slack) where given."""
    global checks
    checks += 1
    got = as_f64(got, "bf16") if got.dtype == np.uint16 else got.astype(np.float64)
    if got.shape != want.shape:
        fail("%s: shape %s, want %s" % (what, got.shape, want.shape))
    inf = np.isinf(want)
    if not np.array_equal(np.isinf(got), inf) or np.any(got[inf] != want[inf]):
        fail("%s: infinities differ" % what)
    if kind == "f32" and want.ndim == 4:
        tol = 1e-5 * (np.abs(want) + np.abs(want).max(axis=-1, keepdims=True))
    elif kind == "f32":
        tol = 1e-5 * np.maximum(1, np.abs(want))
    elif kind == "f16":
        tol = 1e-3 + 1e-3 * np.abs(want)
    else:
        tol = 1e-3 + 2.0 ** -8 * np.abs(want)
    if slack is not None and CUR_ISA is not None and CUR_ISA.startswith("amx"):
        tol = tol + slack
    with np.errstate(invalid="ignore"):
        bad = (np.abs(got - want) > tol)[~inf] | np.isnan(got[~inf])
    if np.any(bad):
        g, w = got[~inf], want[~inf]
        i = np.argmax(bad)
        fail("%s: %d values off, e.g. %r vs %r" % (what, bad.sum(), g[i], w[i]))


def stream(*arrays):
    f = io.BytesIO()
    for a in arrays:
        if a is not None:
            np.save(f, a)
    return f.getvalue()


def case(B, QH, KH, D, V, M, dt, flat, density, out_f32, full_rows=False,
         threads=2, isa=None, scale=None, nomask=False):
    qdt = dt
    q = make(qdt, (B, QH, 1, D))
    if flat:
        k = make(dt, (B * KH * M * D,))
        v = make(dt, (B * KH * M * D,))
        mask = rng.random(B * KH * M) < density
        if full_rows:
            mask[:V] = True          # row (0, 0) fully masked
    else:
        k = make(dt, (B, KH, M, D))
        v = make(dt, (B, KH, M, D))
        mask = rng.random((B, KH, M)) < density
        if full_rows:
            mask[0, 0, :] = True
    if nomask:
        mask = None
    scale = scale if scale is not None else D ** -0.5
    lse, out = reference(q, k, v, mask, V, KH, flat, dt, scale)
    args = ["--valid-length", str(V), "--threads", str(threads)]
    if flat:
        args += ["--kv-heads", str(KH)]
    elif QH % M == 0:
        # [B, KH, M, D] that [B, M, KH, D] fits too: mdecode asks which
        args += ["--kv-layout", "bhmd"]
    if dt == "bf16":
        args += ["--dtype", "bf16"]
    if out_f32:
        args += ["--out-dtype", "f32"]
    if scale != D ** -0.5:
        args += ["--scale", repr(scale)]
    env = dict(os.environ)
    if isa:
        env = isa_env(isa, env)
    glse, gout = run(args, stream(q, k, v, mask), env)
    what = "B%d QH%d KH%d D%d V%d M%d %s %s dens %.2f isa %s threads %d" % (
        B, QH, KH, D, V, M, dt, "flat" if flat else "cache", density, isa, threads)
    close(what + " lse", glse, lse, "f32", SLACK[0])
    close(what + " out", gout, out, "f32" if out_f32 else dt, SLACK[1])
    want_dtype = {"f16": np.float16, "bf16": np.uint16, "f32": np.float32}[dt]
    if gout.dtype != (np.float32 if out_f32 else want_dtype) or glse.dtype != np.float32:
        fail("%s: dtypes %s %s" % (what, glse.dtype, gout.dtype))


n = 0
for isa in isas:
    for dt in ("f16", "bf16", "f32"):
        for flat in (False, True):
            G = [1, 2, 3, 4, 5, 8][n % 6]
            KH = 1 + n % 3
            D = [64, 96, 128, 256, 40, 72][n % 6]
            V = int(rng.integers(1, 700))
            M = V + int(rng.integers(0, 9)) * (0 if flat else 1) + (3 if flat else 0)
            case(1 + n % 2, G * KH, KH, D, V, M, dt, flat, [0.5, 0.0, 0.9][n % 3],
                 out_f32=n % 2 == 0, full_rows=n % 4 == 1, threads=1 + n % 3, isa=isa)
            n += 1
# corners, on the selected path
case(2, 4, 2, 128, 1, 3, "f16", False, 0.0, True)                 # V = 1
case(1, 8, 8, 64, 333, 333, "f32", True, 0.0, True)                # MHA, mask all false
case(2, 8, 2, 128, 257, 300, "f16", False, 0.5, False, nomask=True)
case(1, 4, 1, 128, 100, 100, "f32", False, 1.0, True)              # every row masked
case(3, 16, 2, 80, 2049, 2050, "bf16", True, 0.3, False, scale=0.05)
case(1, 32, 8, 128, 4096, 8192, "f16", True, 0.5, False, threads=3)  # a flat-buffer GQA shape



def layouts(B, QH, KH, D, M, dt, bs, density, isa=None, threads=2):
    """The same cache as [B, M, KH, D] (--kv-layout bmhd) and paged, vLLM's
    way: blocks [num_blocks, bs, KH, D] shuffled in a pool, sequence 1
    sharing sequence 0's first block (one prompt prefix), a block table
    padded with -1 past each length, lengths not multiples of bs."""
    import tempfile
    q = make(dt, (B, QH, 1, D))
    k = make(dt, (B, KH, M, D))
    v = make(dt, (B, KH, M, D))
    mask = rng.random((B, KH, M)) < density
    lens = rng.integers(0, M + 1, B).astype(np.int32)
    lens[0] = M
    if B > 1:
        lens[1] = max(lens[1], min(M, bs + 1))
        k[1, :, :bs], v[1, :, :bs], mask[1, :, :bs] = k[0, :, :bs], v[0, :, :bs], mask[0, :, :bs]
    env = dict(os.environ)
    if isa:
        env = isa_env(isa, env)
    base = ["--threads", str(threads)] + (["--dtype", "bf16"] if dt == "bf16" else [])
    what = "B%d QH%d KH%d D%d M%d %s isa %s" % (B, QH, KH, D, M, dt, isa)
    # bmhd: every position of every row
    lse, out = reference(q, k, v, mask, M, KH, False, dt, D ** -0.5)
    kt, vt = k.transpose(0, 2, 1, 3).copy(), v.transpose(0, 2, 1, 3).copy()
    glse, gout = run(base + ["--kv-layout", "bmhd"], stream(q, kt, vt, mask), env)
    close(what + " bmhd lse", glse, lse, "f32", SLACK[0])
    close(what + " bmhd out", gout, out, dt, SLACK[1])
    # paged: each sequence's own length
    tw = (M + bs - 1) // bs + 1
    nb = B * tw + 2
    perm = rng.permutation(nb)
    pool_k = make(dt, (nb, bs, KH, D))
    pool_v = make(dt, (nb, bs, KH, D))
    table = np.full((B, tw), -1, np.int32)
    for b in range(B):
        for j in range((lens[b] + bs - 1) // bs):
            blk = perm[b * tw + j]
            if b == 1 and j == 0:
                blk = table[0, 0]            # the shared prefix block
            table[b, j] = blk
            n = min(bs, lens[b] - j * bs)
            pool_k[blk, :n] = k[b, :, j * bs:j * bs + n].transpose(1, 0, 2)
            pool_v[blk, :n] = v[b, :, j * bs:j * bs + n].transpose(1, 0, 2)
    lmask = mask | (np.arange(M)[None, None, :] >= lens[:, None, None])
    lse, out = reference(q, k, v, lmask, M, KH, False, dt, D ** -0.5)
    with tempfile.TemporaryDirectory() as d:
        np.save(os.path.join(d, "t.npy"), table)
        np.save(os.path.join(d, "l.npy"), lens)
        glse, gout = run(base + ["--block-table", os.path.join(d, "t.npy"),
                                 "--seq-lens", os.path.join(d, "l.npy")],
                         stream(q, pool_k, pool_v, mask), env)
    close(what + " paged bs %d lse" % bs, glse, lse, "f32", SLACK[0])
    close(what + " paged bs %d out" % bs, gout, out, dt, SLACK[1])


n = 0
for isa in isas:
    for dt in ("f16", "bf16", "f32"):
        bs = [1, 16, 128, 5][n % 4]
        KH = [2, 3, 8][n % 3]
        M = int(rng.integers(1, 600))
        layouts(1 + n % 3, KH * [1, 4, 3][n % 3] + 0, KH, [64, 128, 40][n % 3],
                M, dt, bs, [0.0, 0.5, 0.3][n % 3], isa=isa, threads=1 + n % 3)
        n += 1

def fp8_value(b, fmt):
    """The value of FP8 bytes, from OCP's definition: E4M3FN (bias 7, NaN
    at 0x7f/0xff, no infinities) or E5M2 (bias 15, IEEE-like)."""
    b = b.astype(np.int64)
    s = np.where(b & 0x80, -1.0, 1.0)
    if fmt == "fp8_e4m3":
        e, m = (b >> 3) & 15, (b & 7) / 8.0
        v = np.where(e == 0, m * 2.0 ** -6, (1 + m) * 2.0 ** (e - 7.0))
        return s * np.where((e == 15) & (b & 7 == 7), np.nan, v)
    e, m = (b >> 2) & 31, (b & 3) / 4.0
    v = np.where(e == 0, m * 2.0 ** -14, (1 + m) * 2.0 ** (e - 15.0))
    return s * np.where(e == 31, np.where(b & 3 == 0, np.inf, np.nan), v)


def fp8_bytes(fmt, shape):
    """Random bytes of every finite value up to about 2^6 (NaN and infinity
    left out: they make every output of their row NaN)."""
    b = rng.integers(0, 256, shape).astype(np.uint8)
    big = (b & 0x7f) >= (0x68 if fmt == "fp8_e4m3" else 0x54)
    b[big] = rng.integers(0, 0x30, big.sum()).astype(np.uint8)
    return b


def as_pool(x, bs):
    """A cache [B, KH, M, D] as a paged pool [B * ceil(M / bs), bs, KH, D]
    of the rows' blocks in order (sequence b owns blocks b tw .. b tw +
    tw - 1), the last block of each padded with zeros."""
    B, KH, M, D = x.shape
    tw = -(-M // bs)
    x = np.concatenate([x, np.zeros((B, KH, tw * bs - M, D), x.dtype)], 2)
    return x.reshape(B, KH, tw, bs, D).transpose(0, 2, 3, 1, 4).reshape(B * tw, bs, KH, D).copy()


def fp8_case(fmt, B, QH, KH, D, V, M, density, isa, threads, paged_bs=None):
    """An FP8 cache (u8 bytes) with vLLM's per-tensor scales against the
    float64 evaluation of its dequantised values."""
    import tempfile
    q = make("f16", (B, QH, 1, D))
    k, v = fp8_bytes(fmt, (B, KH, M, D)), fp8_bytes(fmt, (B, KH, M, D))
    if rng.random() < 0.5:
        k = k.view(np.int8)     # torch's .view(torch.int8) bytes too
    mask = rng.random((B, KH, M)) < density
    ks, vs = float(rng.uniform(0.01, 2)), float(rng.uniform(0.01, 2))
    lse, out = reference(q, fp8_value(k.view(np.uint8), fmt) * ks,
                         fp8_value(v, fmt) * vs, mask, V, KH, False, "f32",
                         D ** -0.5)
    args = ["--dtype", fmt, "--k-scale", repr(ks), "--v-scale", repr(vs),
            "--out-dtype", "f32", "--threads", str(threads),
            "--valid-length", str(V)]
    env = isa_env(isa)
    what = "%s B%d QH%d KH%d D%d V%d M%d isa %s" % (fmt, B, QH, KH, D, V, M, isa)
    if paged_bs is None:
        # bhmd named: a shape like [1, 1, 2, D] also reads as bmhd
        glse, gout = run(args + ["--kv-layout", "bhmd"],
                         stream(q, k, v, mask), env)
    else:
        # the same rows as a paged pool, blocks in order, one table row each
        table = np.arange(B * -(-M // paged_bs), dtype=np.int32).reshape(B, -1)
        with tempfile.TemporaryDirectory() as d:
            np.save(os.path.join(d, "t.npy"), table)
            glse, gout = run(args + ["--block-table", os.path.join(d, "t.npy")],
                             stream(q, as_pool(k, paged_bs), as_pool(v, paged_bs), mask), env)
        what += " paged bs %d" % paged_bs
    close(what + " lse", glse, lse, "f32", SLACK[0])
    close(what + " out", gout, out, "f32", SLACK[1])


n = 0
for isa in isas:
    for fmt in ("fp8_e4m3", "fp8_e5m2"):
        M = int(rng.integers(1, 500))
        KH = [1, 2, 4][n % 3]
        fp8_case(fmt, 1 + n % 2, KH * [4, 1, 8][n % 3], KH, [128, 64, 72][n % 3],
                 int(rng.integers(1, M + 1)), M, [0.0, 0.5, 0.2][n % 3], isa,
                 1 + n % 2, paged_bs=[None, 16, 5][n % 3])
        n += 1
def tokens_case(B, QH, KH, Q, D, M, dt, isa, paged_bs=None):
    """Q query tokens a sequence: token i is position len - Q + i and sees
    the positions up to it; against the float64 formula, and against Q
    single-token runs with those lengths."""
    import tempfile
    q = make(dt, (B, QH, Q, D))
    k, v = make(dt, (B, KH, M, D)), make(dt, (B, KH, M, D))
    mask = rng.random((B, KH, M)) < 0.3
    lens = rng.integers(Q, M + 1, B).astype(np.int64)
    env = isa_env(isa)
    base = ["--threads", "2", "--out-dtype", "f32"] + (["--dtype", "bf16"] if dt == "bf16" else [])
    what = "Q%d B%d QH%d KH%d D%d M%d %s isa %s" % (Q, B, QH, KH, D, M, dt, isa)
    with tempfile.TemporaryDirectory() as d:
        def go(qq, ll):
            if paged_bs is None:
                # one length for all: the cache form takes --valid-length
                return run(base + ["--kv-layout", "bhmd", "--valid-length", str(int(ll[0]))],
                           stream(qq, k, v, mask), env)
            tw = -(-M // paged_bs)
            np.save(os.path.join(d, "t.npy"), np.arange(B * tw, dtype=np.int32).reshape(B, tw))
            np.save(os.path.join(d, "l.npy"), ll)
            return run(base + ["--block-table", os.path.join(d, "t.npy"),
                               "--seq-lens", os.path.join(d, "l.npy")],
                       stream(qq, as_pool(k, paged_bs), as_pool(v, paged_bs), mask), env)
        if paged_bs is None:
            lens[:] = lens[0]
        glse, gout = go(q, lens)
        for i in range(Q):
            li = lens - (Q - 1 - i)
            lmask = mask | (np.arange(M)[None, None, :] >= li[:, None, None])
            lse, out = reference(q[:, :, i:i + 1], k, v, lmask, M, KH, False, dt, D ** -0.5)
            close("%s token %d lse" % (what, i), glse[:, :, i:i + 1], lse, "f32", SLACK[0])
            close("%s token %d out" % (what, i), gout[:, :, i:i + 1], out, "f32", SLACK[1])
            l1, o1 = go(q[:, :, i:i + 1].copy(), li)
            # two runs of the amx path: each within the slack of the formula
            close("%s token %d lse, one-token run" % (what, i),
                  glse[:, :, i:i + 1], l1.astype(np.float64), "f32", 2 * SLACK[0])
            close("%s token %d out, one-token run" % (what, i),
                  gout[:, :, i:i + 1], o1.astype(np.float64), "f32", 2 * SLACK[1])


n = 0
for isa in isas:
    for Q in (2, 4, 8, 16):
        KH = [1, 2, 4][n % 3]
        tokens_case(1 + n % 3, KH * [4, 2, 8][n % 3], KH, Q, [64, 128, 40][n % 3],
                    int(rng.integers(Q, 400)), ["f16", "bf16", "f32"][n % 3], isa,
                    paged_bs=[None, 16][n % 2])
        n += 1

def mla_case(B, QH, M, D, DV, dt, isa, Q=1, paged_bs=None, fp8=None):
    """DeepSeek's MLA: one latent row a position, no v (--v-dim DV): V is
    the first DV elements of each K row; as a cache [B, 1, M, D] or vLLM's
    paged [blocks, block_size, D]; f16/bf16/f32 or FP8 bytes with a k
    scale; Q tokens."""
    import tempfile
    q = make("f16" if fp8 else dt, (B, QH, Q, D))
    ks = float(rng.uniform(0.01, 2))    # FP8: V, K's own bytes, takes it too
    if fp8:
        k = fp8_bytes(fp8, (B, 1, M, D))
        kf = fp8_value(k, fp8) * ks
    else:
        k = make(dt, (B, 1, M, D))
        kf = as_f64(k, dt)
    mask = rng.random((B, 1, M)) < 0.3
    V = int(rng.integers(Q, M + 1))
    scale = float(rng.uniform(0.05, 0.2))
    args = ["--v-dim", str(DV), "--scale", repr(scale), "--out-dtype", "f32",
            "--threads", "2"]
    if fp8:
        args += ["--dtype", fp8, "--k-scale", repr(ks)]
    elif dt == "bf16":
        args += ["--dtype", "bf16"]
    env = isa_env(isa)
    what = "MLA B%d QH%d M%d D%d DV%d Q%d %s isa %s" % (B, QH, M, D, DV, Q, fp8 or dt, isa)
    with tempfile.TemporaryDirectory() as d:
        if paged_bs is None:
            glse, gout = run(args + ["--kv-layout", "bhmd", "--valid-length", str(V)],
                             stream(q, k, mask), env)
        else:
            bs = paged_bs
            tw = (M + bs - 1) // bs
            kp = np.concatenate([k, np.zeros((B, 1, tw * bs - M, D), k.dtype)], 2)
            pool = kp.reshape(B * tw, bs, D).copy()      # [blocks, bs, D]
            np.save(os.path.join(d, "t.npy"), np.arange(B * tw, dtype=np.int32).reshape(B, tw))
            np.save(os.path.join(d, "l.npy"), np.full(B, V, np.int64))
            glse, gout = run(args + ["--block-table", os.path.join(d, "t.npy"),
                                     "--seq-lens", os.path.join(d, "l.npy")],
                             stream(q, pool, mask), env)
            what += " paged bs %d" % bs
    if gout.shape != (B, QH, Q, DV) or glse.shape != (B, QH, Q):
        fail("%s: shapes %s %s" % (what, glse.shape, gout.shape))
    qf = as_f64(q, "f16" if fp8 else dt)
    for i in range(Q):
        n = V - Q + 1 + i
        sc = np.einsum("bhd,bmd->bhm", qf[:, :, i], kf[:, 0, :n]) * scale
        sc = np.where(mask[:, 0, None, :n], -np.inf, sc)
        lse, out = attend(sc, kf[:, 0, :n, :DV])
        sa = np.einsum("bhd,bmd->bhm", np.abs(qf[:, :, i]), np.abs(kf[:, 0, :n])) * scale
        ls, os_ = amx_slack(sa, sc, kf[:, None, 0, :n, :DV])   # V: K's rows
        close("%s token %d lse" % (what, i), glse[:, :, i], lse, "f32", ls)
        close("%s token %d out" % (what, i), gout[:, :, i][:, :, None], out[:, :, None], "f32",
              os_[:, :, None])


n = 0
for isa in isas:
    for fp8 in (None, "fp8_e4m3"):
        mla_case(1 + n % 2, [16, 8][n % 2], int(rng.integers(2, 300)), [576, 72][n % 2],
                 [512, 64][n % 2], ["f16", "bf16"][n % 2], isa, Q=[1, 2][n % 2],
                 paged_bs=[None, 16][n % 2], fp8=fp8)
        n += 1

# 64 query rows a kv head and more (64 heads, or 2 tokens of them: 128
# rows), where the amx tiles take the values by pairs of 16-row groups
# (MK_TILE_VP_FROM in lib/mdec/mdec_tile_lay.h).  f16 and bf16 only:
# FP8's random bytes (every value up to 2^6, times a k scale) over 128
# rows of 576 dims put some output, far smaller than the values it
# averages, past 1e-5 of its row on every path, generic too, by f32's
# own rounding (5 of 40 seeds); the unit tests take FP8 on these pairs
# (tests/unit/test_mdec.c, G 128 and G 80).
for isa in isas:
    for n in range(2):
        mla_case(1, 64, int(rng.integers(130, 300)), 576, 512, ["f16", "bf16"][n], isa,
                 Q=[1, 2][n])

# every byte, one a sequence of one position (q = 1, D = 1): as v, out
# is its value (a softmax of one; NaN stays NaN); as k, lse is its value
for fmt in ("fp8_e4m3", "fp8_e5m2"):
    b = np.arange(256, dtype=np.uint8).reshape(256, 1, 1, 1)
    q = np.ones((256, 1, 1, 1), np.float32)
    zero = np.zeros_like(b)
    want = fp8_value(b.reshape(-1), fmt)
    fin = np.isfinite(want)
    args = ["--dtype", fmt, "--out-dtype", "f32", "--kv-layout", "bhmd"]
    _, gout = run(args, stream(q, zero, b))
    got = gout.reshape(-1).astype(np.float64)
    if (not np.array_equal(got[fin], want[fin]) or
            not np.all(np.isnan(got[np.isnan(want)]))):
        i = np.argmax(~((got == want) | (np.isnan(got) & np.isnan(want))))
        fail("%s v byte 0x%02x: out %r, want %r" % (fmt, i, got[i], want[i]))
    glse, _ = run(args, stream(q, b, zero))
    gl = glse.reshape(-1).astype(np.float64)
    if np.any(np.abs(gl[fin] - want[fin]) > 1e-6 * np.abs(want[fin])):
        i = np.argmax(np.abs(gl - want) > 1e-6 * np.abs(want))
        fail("%s k byte 0x%02x: lse %r, want %r" % (fmt, i, gl[i], want[i]))
    checks += 2

# CSV output reads back with np.loadtxt and matches the NPY output
q = make("f32", (1, 4, 1, 16)); k = make("f32", (1, 2, 50, 16)); v = make("f32", (1, 2, 50, 16))
data = stream(q, k, v, rng.random((1, 2, 50)) < 0.4)
lse, out = run([], data)
p = subprocess.run([os.path.join(BIN, "mdecode"), "-f", "csv", "--emit", "out"],
                   input=data, capture_output=True)
csv = np.loadtxt(io.StringIO(p.stdout.decode()), delimiter=",", dtype=np.float32)
if not np.array_equal(csv, out.reshape(-1, 16)):
    fail("CSV output differs from NPY output")
checks += 1
print("mdecode check: %d comparisons with numpy float64 passed (seed %d, paths %s)"
      % (checks, seed, ",".join(isas)))
