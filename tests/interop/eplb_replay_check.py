"""eplb-replay against an independent replay in numpy: DeepSeek's EPLB
(deepseek-ai/EPLB's rebalance_experts, written again here from its
documented rules: float32 loads, balanced_packing heaviest first into the
lightest pack with room, replicate_experts to the largest load per
replica, both first-index on ties) re-planned on the last window before
every interval, scored on every later step; balancedness, its 5th
percentile and par must agree to 1e-6.  Also: --max-moves 0 moves nothing
and keeps the trivial placement's balancedness; list options make their
cross product; the routing records' inter-node share against a count of
each token's destination nodes.  Fresh drifting logs each run (the seed is
printed).  Run by tests/interop/run.sh."""
import csv
import io
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from deepseek_np import deepseek  # noqa: E402

BIN = os.environ["MOEKIT_BIN"]
seed = int(os.environ.get("MOEKIT_SEED", time.time_ns() % 2**32))
rng = np.random.default_rng(seed)
checks = 0


def fail(msg):
    sys.exit("eplb-replay check failed (seed %d): %s" % (seed, msg))


def replay(args):
    p = subprocess.run([os.path.join(BIN, "eplb-replay"), "--quiet",
                        "--engine", "ideal"] + args,
                       capture_output=True)
    if p.returncode != 0:
        fail("eplb-replay %s: %s" % (" ".join(args), p.stderr.decode()))
    return list(csv.DictReader(io.StringIO(p.stdout.decode())))


def close(what, got, want, tol=1e-6):
    global checks
    checks += 1
    if not abs(float(got) - want) <= tol:
        fail("%s: got %s, want %.9f" % (what, got, want))


# ---- the replay ----

def gpu_loads(w, p2l, G):
    """w [T, L, E], p2l [L, R] -> GPU loads [T, L, G]."""
    T, L, E = w.shape
    R = p2l.shape[1]
    out = np.zeros((T, L, G))
    for l in range(L):
        cnt = np.bincount(p2l[l], minlength=E)
        m = np.zeros((E, G))
        np.add.at(m, (p2l[l], np.arange(R) // (R // G)), 1.0 / cnt[p2l[l]])
        out[:, l, :] = w[:, l, :] @ m
    return out


def model(w, R, K, N, G, W, I, replan=True):
    T, L, E = w.shape
    p2l = np.tile(np.arange(R) % E, (L, 1))
    sm = sx = 0.0
    per = []
    for t0 in range(W, T, I):
        if replan:
            win = w[t0 - W:t0].sum(0)
            p2l = np.array([deepseek(win[l], R, K, N, G) for l in range(L)])
        gl = gpu_loads(w[t0:min(t0 + I, T)], p2l, G)
        mx = gl.max(2).sum(1)
        mn = gl.mean(2).sum(1)
        sm += mn.sum()
        sx += mx.sum()
        per += list(mn[mx > 0] / mx[mx > 0])
    return sm / sx, np.percentile(per, 5), sx / sm


def drifting(T, L, E):
    """A log whose popularity drifts: a random walk of log-popularity."""
    z = rng.normal(0, 1, (L, E))
    w = np.zeros((T, L, E), np.int64)
    for t in range(T):
        z += rng.normal(0, 0.05, (L, E))
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        w[t] = rng.poisson(200 * p)
    return w


def main():
    T, L, E = 260, 3, 32
    w = drifting(T, L, E)
    np.save("log.npy", w)
    for R, K, N, G, W, I in ((40, 4, 2, 8, 20, 20), (48, 1, 1, 8, 30, 50),
                             (32, 8, 4, 8, 10, 40)):
        args = ["-a", "deepseek", "-r", str(R), "-G", str(G), "-n", str(N),
                "-g", str(K), "--window", str(W), "--interval", str(I),
                "log.npy"]
        if K % N:
            args += ["--policy", "global"]
        row = replay(args)[0]
        b, p5, par = model(w, R, K if K % N == 0 else 1,
                           N if K % N == 0 else 1, G, W, I)
        what = "R %d K %d N %d G %d W %d I %d" % (R, K, N, G, W, I)
        close(what + ": balancedness", row["balancedness"], b)
        close(what + ": balancedness_p5", row["balancedness_p5"], p5)
        close(what + ": par", row["par"], par)
        # no moves: the trivial placement throughout
        row = replay(args + ["--max-moves", "0"])[0]
        b, _, _ = model(w, R, K, N, G, W, I, replan=False)
        close(what + ": --max-moves 0 balancedness", row["balancedness"], b)
        if row["moves"] != "0" or row["rebalances"] != "0":
            fail(what + ": --max-moves 0 moved %s" % row["moves"])
    # lists: their cross product, in an order that covers every one
    rows = replay(["-a", "deepseek,waterfill", "-r", "40,48", "-G", "8",
                   "--window", "10,20", "--interval", "30", "--max-moves",
                   "none,100", "log.npy"])
    got = sorted((r["algo"], r["replicas"], r["window"], r["max_moves"])
                 for r in rows)
    want = sorted((a, r, x, m) for a in ("deepseek", "waterfill")
                  for r in ("40", "48") for x in ("10", "20")
                  for m in ("none", "100"))
    global checks
    checks += 1
    if got != want:
        fail("lists: got %r" % got)
    for r in rows:
        if r["max_moves"] == "100" and int(r["moves"]) > 100 * (
                (T - int(r["window"]) + 29) // 30):
            fail("--max-moves 100 moved %s" % r["moves"])
    # routing records: a token's share of dispatches leaving its node
    recs = []
    for tok in range(40):
        for layer in range(2):
            recs.append({"problem_id": 0, "token_idx": tok, "layer": layer,
                         "experts": [int(x) for x in
                                     rng.choice(8, 2, replace=False)]})
    with open("r.jsonl", "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")
    row = replay(["-E", "8", "-r", "8", "-G", "4", "-n", "2", "--window",
                  "5", "--interval", "1000", "--max-moves", "0",
                  "--tokens-per-step", "4", "r.jsonl"])[0]
    # trivial placement, no re-plan moves: expert e in slot e on GPU e/2,
    # node e/4; the step's 4 tokens dealt one a GPU
    inter = total = 0
    for tok in range(20, 40):
        src = (tok % 4) // 2
        for layer in range(2):
            ex = [r["experts"] for r in recs if r["token_idx"] == tok and
                  r["layer"] == layer][0]
            nodes = {e // 4 for e in ex}
            total += len(nodes)
            inter += len(nodes - {src})
    close("inter_node_share", row["inter_node_share"], inter / total)
    print("eplb-replay: %d checks against a numpy replay of DeepSeek's "
          "EPLB passed (seed %d)" % (checks, seed))


main()
