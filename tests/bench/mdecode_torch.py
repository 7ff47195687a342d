"""mdecode beside PyTorch's CPU scaled_dot_product_attention, one process
each way, on the same inputs: a grouped-query shape (32 q heads, 8 kv heads,
D 128, a cache of M positions of which V are valid), f16 and bf16, batch
sizes 1 and 8, a mask of density 0 (none) and 0.5.

PyTorch's side: q [B, KH, G, D] (the G query heads of a kv head folded into
the query axis, so that K and V are read once per kv head, as mdecode
does), k, v [B, KH, V, D], attn_mask True = take part; torch.set_num_threads
(THREADS).  mdecode's side: the attention time it reports with --verbose
on the stream q, k, v[, mask] from a pipe (so that, like torch's, its
inputs are in memory and the read is excluded; its threads started
before it, as torch's were in the warm-up round: their start, which a
fresh process pays once, is printed beside), --threads THREADS.  Rounds alternate the two;
the medians and quartiles of each are printed, and the outputs are
compared (max |mdecode - torch| against the float64 reference scale).

  python3 tests/bench/mdecode_torch.py [THREADS [M [ROUNDS [CASES]]]]
    (defaults: every CPU, 131072, 7, gqa; V = M / 2)

CASES, a comma-separated list:
  gqa  the shape above, f16 and bf16, bsz 1 and 8, densities 0 and 0.5
  fp8  the same shape, bsz 8, dense, an FP8 E4M3 cache (torch's
       float8_e4m3fn, read by mdecode as its bytes): torch casts it to
       bf16 and runs SDPA (the cast timed, as a user with an FP8 cache
       must), and SDPA on a bf16 copy made beforehand (its floor)
  mla  DeepSeek's MLA decode, bsz 8: 16 query heads (a TP-8 shard) over V
       positions of one 576-wide latent row, and 128 heads (the whole
       model) over V / 2, bf16 and E4M3; V the first 512 of the row, the
       scale 0.1352; torch: SDPA with q's heads as its query axis, k the
       latent rows, v their first 512 (the FP8 cache cast first)
Needs build/bin/mdecode and torch (float8 for fp8 and mla's E4M3: torch
2.1 or later); mdecode's output goes to /dev/shm when it exists.
"""
import io
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F

T = int(sys.argv[1]) if len(sys.argv) > 1 else os.cpu_count()
M = int(sys.argv[2]) if len(sys.argv) > 2 else 131072
R = int(sys.argv[3]) if len(sys.argv) > 3 else 7
CASES = (sys.argv[4] if len(sys.argv) > 4 else "gqa").split(",")
V, QH, KH, D = M // 2, 32, 8, 128
G = QH // KH
BIN = os.path.join(os.path.dirname(__file__), "..", "..", "build", "bin",
                   "mdecode")
torch.set_num_threads(T)


def manual_sdpa(q, k, v, attn_mask=None, scale=None):
    """Torch before 2.0 lacks SDPA: the same formula, as such code wrote
    it (for trying this script on an old torch; its timings are not
    SDPA's)."""
    s = (q.float() @ k.float().transpose(-1, -2)) * (
        q.shape[-1] ** -0.5 if scale is None else scale)
    if attn_mask is not None:
        s = s.masked_fill(~attn_mask, float("-inf"))
    return (s.softmax(-1) @ v.float()).to(q.dtype)


sdpa = getattr(F, "scaled_dot_product_attention", manual_sdpa)
tmp = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)


def q3(a):
    a = sorted(a)
    n = len(a)
    return a[n // 4], a[n // 2], a[(3 * n) // 4]


def npy(t):
    """t as NPY bytes (bf16 as its u16 bits, which mdecode reads with
    --dtype bf16; FP8 as its bytes, --dtype fp8_e4m3)."""
    f = io.BytesIO()
    if t.dtype == torch.bfloat16:
        np.save(f, t.view(torch.int16).numpy().view(np.uint16))
    elif t.dtype == getattr(torch, "float8_e4m3fn", None):
        np.save(f, t.view(torch.uint8).numpy())
    else:
        np.save(f, t.numpy())
    return f.getvalue()


def rounds(args, data, torch_call, what):
    """R timed rounds (after one that warms both), mdecode and torch in
    turn: their medians and quartiles, mdecode's thread start, and the
    largest difference of their outputs (out, as torch shapes ref)."""
    tm, tt, ts = [], [], []
    for r in range(R + 1):
        # torch's idle threads spin a while after its call: left to it,
        # the next mdecode would share its CPUs with them
        time.sleep(0.5)
        p = subprocess.run(args + ["--verbose", "--threads", str(T), "--emit",
                                   "out", "-o", os.path.join(tmp, "out.npy")],
                           input=data, capture_output=True)
        if p.returncode != 0:
            sys.exit("%s: %s" % (what, p.stderr.decode()))
        err = p.stderr.decode()
        ms = float(re.search(r"attention on \d+ threads in ([0-9.]+) ms",
                             err).group(1))
        st = float(re.search(r"\d+ threads started in ([0-9.]+) ms",
                             err).group(1))
        t0 = time.perf_counter()
        ref = torch_call()
        t1 = time.perf_counter()
        if r > 0:            # round 0 warms both up
            tm.append(ms)
            ts.append(st)
            tt.append((t1 - t0) * 1e3)
    out = np.load(os.path.join(tmp, "out.npy"))
    if out.dtype == np.uint16:
        out = torch.from_numpy(out.view(np.int16)).view(torch.bfloat16)
    else:
        out = torch.from_numpy(out)
    diff = (out.float().reshape(ref.shape) - ref.float()).abs().max()
    return q3(tm), q3(tt), diff.item(), q3(ts)[1]


def row(what, a, b, diff, st):
    print("%s,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2g,%.2f"
          % (what, a[1], a[0], a[2], b[1], b[0], b[2], b[1] / a[1], diff, st),
          flush=True)


print("threads %d, M %d, V %d, QH %d, KH %d, D %d, rounds %d, torch %s, %s"
      % (T, M, V, QH, KH, D, R, torch.__version__, "SDPA" if sdpa is not
         manual_sdpa else "no SDPA: softmax(q k^T) v in torch"))
g = torch.Generator().manual_seed(1)
if "gqa" in CASES:
    print("dtype,bsz,density,mdecode_ms,mdecode_q1,mdecode_q3,torch_ms,torch_q1,"
          "torch_q3,speedup,max_diff,mdecode_start_ms")
for dt in (torch.float16, torch.bfloat16) if "gqa" in CASES else ():
    for B in (1, 8):
        q = torch.randn(B, QH, 1, D, generator=g).to(dt)
        k = torch.randn(B, KH, M, D, generator=g).to(dt)
        v = torch.randn(B, KH, M, D, generator=g).to(dt)
        qkv = npy(q) + npy(k) + npy(v)
        kv, vv = k[:, :, :V], v[:, :, :V]
        qf = q.reshape(B, KH, G, D)
        for dens in (0.0, 0.5):
            masked = torch.rand(B, KH, M, generator=g) < dens
            args = [BIN, "--valid-length", str(V)]
            data = qkv
            if dt == torch.bfloat16:
                args += ["--dtype", "bf16"]
            amask = None
            if dens > 0:
                data = qkv + npy(masked)
                amask = (~masked[:, :, None, :V]).expand(B, KH, G, V)
            row("%s,%d,%g" % (str(dt).split(".")[1], B, dens),
                *rounds(args, data, lambda: sdpa(qf, kv, vv, attn_mask=amask),
                        "gqa"))

F8 = getattr(torch, "float8_e4m3fn", None)
if F8 is None and ("fp8" in CASES or "mla" in CASES):
    print("torch %s has no float8_e4m3fn: no FP8 rows" % torch.__version__)
if "fp8" in CASES and F8 is not None:
    # torch's side of an FP8 cache: the cast (timed), or a bf16 copy
    print("case,mdecode_ms,mdecode_q1,mdecode_q3,torch_ms,torch_q1,torch_q3,"
          "speedup,max_diff,mdecode_start_ms")
    B = 8
    q = torch.randn(B, QH, 1, D, generator=g).to(torch.bfloat16)
    k = torch.randn(B, KH, M, D, generator=g).to(F8)
    v = torch.randn(B, KH, M, D, generator=g).to(F8)
    qf = q.reshape(B, KH, G, D)
    kv, vv = k[:, :, :V], v[:, :, :V]
    kb, vb = kv.to(torch.bfloat16), vv.to(torch.bfloat16)
    args = [BIN, "--valid-length", str(V), "--dtype", "fp8_e4m3",
            "--k-scale", "1", "--v-scale", "1"]
    data = npy(q) + npy(k) + npy(v)
    row("fp8_e4m3 vs cast + SDPA", *rounds(args, data, lambda: sdpa(
        qf, kv.to(torch.bfloat16), vv.to(torch.bfloat16)), "fp8"))
    row("fp8_e4m3 vs SDPA on bf16", *rounds(args, data, lambda: sdpa(
        qf, kb, vb), "fp8"))
if "mla" in CASES:
    print("case,mdecode_ms,mdecode_q1,mdecode_q3,torch_ms,torch_q1,torch_q3,"
          "speedup,max_diff,mdecode_start_ms")
    B, DL, DV, SC = 8, 576, 512, 0.1352
    for heads, n in ((16, V), (128, V // 2)):
        q = torch.randn(B, heads, 1, DL, generator=g).to(torch.bfloat16)
        lat = torch.randn(B, 1, n, DL, generator=g)
        qf = q.reshape(B, 1, heads, DL)
        for dt in (torch.bfloat16, F8) if F8 is not None else (torch.bfloat16,):
            kc = lat.to(dt)
            args = [BIN, "--v-dim", str(DV), "--scale", str(SC),
                    "--dtype", "bf16" if dt == torch.bfloat16 else "fp8_e4m3"]
            if dt == F8:
                args += ["--k-scale", "1"]
            data = npy(q) + npy(kc)

            def call(kc=kc):
                kk = kc.to(torch.bfloat16)
                return sdpa(qf, kk, kk[..., :DV], scale=SC)
            row("mla %d heads, %d positions, %s" % (heads, n,
                "bf16" if dt == torch.bfloat16 else "fp8_e4m3"),
                *rounds(args, data, call, "mla"))
for f in os.listdir(tmp):
    os.unlink(os.path.join(tmp, f))
os.rmdir(tmp)
