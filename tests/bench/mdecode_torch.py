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

  python3 tests/bench/mdecode_torch.py [THREADS [M [ROUNDS]]]
    (defaults: every CPU, 131072, 7; V = M / 2)
Needs build/bin/mdecode and torch; mdecode's output goes to /dev/shm when
it exists.
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
V, QH, KH, D = M // 2, 32, 8, 128
G = QH // KH
BIN = os.path.join(os.path.dirname(__file__), "..", "..", "build", "bin",
                   "mdecode")
torch.set_num_threads(T)


def manual_sdpa(q, k, v, attn_mask=None):
    """Torch before 2.0 lacks SDPA: the same formula, as such code wrote
    it (for trying this script on an old torch; its timings are not
    SDPA's)."""
    s = (q.float() @ k.float().transpose(-1, -2)) * q.shape[-1] ** -0.5
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
    --dtype bf16)."""
    f = io.BytesIO()
    if t.dtype == torch.bfloat16:
        np.save(f, t.view(torch.int16).numpy().view(np.uint16))
    else:
        np.save(f, t.numpy())
    return f.getvalue()


print("threads %d, M %d, V %d, QH %d, KH %d, D %d, rounds %d, torch %s, %s"
      % (T, M, V, QH, KH, D, R, torch.__version__, "SDPA" if sdpa is not
         manual_sdpa else "no SDPA: softmax(q k^T) v in torch"))
print("dtype,bsz,density,mdecode_ms,mdecode_q1,mdecode_q3,torch_ms,torch_q1,"
      "torch_q3,speedup,max_diff,mdecode_start_ms")
g = torch.Generator().manual_seed(1)
for dt in (torch.float16, torch.bfloat16):
    for B in (1, 8):
        q = torch.randn(B, QH, 1, D, generator=g).to(dt)
        k = torch.randn(B, KH, M, D, generator=g).to(dt)
        v = torch.randn(B, KH, M, D, generator=g).to(dt)
        qkv = npy(q) + npy(k) + npy(v)
        kv, vv = k[:, :, :V], v[:, :, :V]
        qf = q.reshape(B, KH, G, D)
        for dens in (0.0, 0.5):
            masked = torch.rand(B, KH, M, generator=g) < dens
            args = [BIN, "--verbose", "--threads", str(T), "--valid-length",
                    str(V), "--emit", "out", "-o", os.path.join(tmp, "out.npy")]
            data = qkv
            if dt == torch.bfloat16:
                args += ["--dtype", "bf16"]
            amask = None
            if dens > 0:
                data = qkv + npy(masked)
                amask = (~masked[:, :, None, :V]).expand(B, KH, G, V)
            tm, tt, ts = [], [], []
            for r in range(R + 1):
                # torch's idle threads spin a while after its call: left
                # to it, the next mdecode would share its CPUs with them
                time.sleep(0.5)
                p = subprocess.run(args, input=data, capture_output=True)
                if p.returncode != 0:
                    sys.exit(p.stderr.decode())
                err = p.stderr.decode()
                ms = float(re.search(r"attention on \d+ threads in ([0-9.]+) ms",
                                     err).group(1))
                st = float(re.search(r"\d+ threads started in ([0-9.]+) ms",
                                     err).group(1))
                t0 = time.perf_counter()
                ref = sdpa(qf, kv, vv, attn_mask=amask)
                t1 = time.perf_counter()
                if r > 0:            # round 0 warms both up
                    tm.append(ms)
                    ts.append(st)
                    tt.append((t1 - t0) * 1e3)
            out = np.load(os.path.join(tmp, "out.npy"))
            if dt == torch.bfloat16:
                out = torch.from_numpy(out.view(np.int16)).view(torch.bfloat16)
            else:
                out = torch.from_numpy(out)
            diff = (out.float().reshape(B, KH, G, D) - ref.float()).abs().max()
            a, b = q3(tm), q3(tt)
            print("%s,%d,%g,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2g,%.2f"
                  % (str(dt).split(".")[1], B, dens, a[1], a[0], a[2], b[1],
                     b[0], b[2], b[1] / a[1], diff.item(), q3(ts)[1]),
                  flush=True)
for f in os.listdir(tmp):
    os.unlink(os.path.join(tmp, f))
os.rmdir(tmp)
