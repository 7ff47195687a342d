"""a2a-layout --capacity against an independent numpy model: each step's
busiest-rank demands counted straight from the ids, the capacity at p by
its definition (the least c with at most floor(p S) steps above it), and
every library's knob by the formula a2a-layout(1) cites for it.  Fresh
random stepped traces each run (the seed is printed), intranode and
internode, a held-out trace of other tokens a rank.  Run by
tests/interop/run.sh."""
import csv
import io
import math
import os
import subprocess

import numpy as np

from checkenv import start

BIN, seed, rng, fail = start("a2a capacity check")
checks = 0


def trace(S, R, T, K, E):
    """[S, R, T, K] ids, skewed toward a few experts, some slots -1."""
    w = rng.random(E) ** 3 + 0.01
    x = rng.choice(E, size=(S, R, T, K), p=w / w.sum())
    x[rng.random(x.shape) < 0.05] = -1
    return x.astype(np.int32)


def demands(x, E):
    """Per step: tokens, worst (internode: with RDMA), rows, pair."""
    S, R, T, K = x.shape
    epr, out = E // R, []
    for s in range(S):
        dst = np.where(x[s] >= 0, x[s] // epr, -1)                # [R, T, K]
        hit = np.stack([(dst == d).any(-1) for d in range(R)], -1)  # [R, T, R]
        pair = hit.sum(1)                                        # src x dst
        tok = pair.sum(0)
        rows = np.array([(dst == d).sum() for d in range(R)])
        worst = tok.max()
        if R > 8:
            node = np.where(dst >= 0, dst // 8, -1)
            nhit = np.stack([(node == n).any(-1) for n in range(R // 8)],
                            -1).sum(1)                           # [R, nodes]
            rdma = [sum(nhit[S8 * 8 + d % 8, d // 8] for S8 in range(R // 8))
                    for d in range(R)]
            worst = max(worst, max(rdma))
        out.append((tok.max(), worst, rows.max(), pair.max()))
    return np.array(out, dtype=np.int64)


def cap_at(d, p):
    k = math.floor(p * len(d))
    return 0 if k >= len(d) else int(np.sort(d)[::-1][k])


def frac(c, full, up):
    """c / full in millionths, rounded down, or up as far as the ceil (up)
    or floor of m / 1e6 full needs to reach c."""
    m = max(1, math.floor(c / full * 1e6))
    while m < 1000000 and (math.ceil(m / 1e6 * full) if up
                           else math.floor(m / 1e6 * full)) < c:
        m += 1
    return m / 1e6


def knobs(R, Le, K, T):
    """(library, knob, demand column, count?, value(c), alloc(v, T),
    default value, rows(a)) per the man page's citations."""
    def full(t):
        return t * R * min(Le, K)
    N = R * T
    return [
        ("moekit", "recv_tokens", 0, True, lambda c: c, lambda v, t: v,
         R * T, lambda a: a),
        ("deepep", "num_worst_tokens", 1, True, lambda c: c,
         lambda v, t: v, R * T, lambda a: a),
        ("vllm", "ep_max_recv_tokens_fraction", 0, False,
         lambda c: frac(c, R * T, True), lambda v, t: math.ceil(v * R * t),
         1.0, lambda a: a),
        ("nccl_ep", "max_recv_tokens_per_rank", 0, True, lambda c: max(c, T),
         lambda v, t: v, R * T, lambda a: a),
        ("megatron", "moe_ncclep_max_tokens_per_rank", 0, True,
         lambda c: -(-T // 64) * 64, lambda v, t: R * v, -(-T // 64) * 64,
         lambda a: a),
        ("torchtitan", "non_blocking_capacity_factor", 2, False,
         lambda c: frac(c, full(T), False),
         lambda v, t: math.floor(full(t) * v), 1.0, lambda a: a),
        ("pplx", "max_recv_tokens_override", 2, True, lambda c: c,
         lambda v, t: v, max(min(N * K, N * Le), Le), lambda a: a),
        ("mori", "max_total_recv_tokens", 3, True, lambda c: R * c,
         lambda v, t: t if v <= 0 or -(-v // R) > t else -(-v // R), 0,
         lambda a: R * a),
    ]


def expect(fit, held, R, E, K, T, T2, ps, hidden):
    rows = []
    for p in ps:
        for (lib, knob, col, count, value, alloc, dflt, nrows) in \
                knobs(R, E // R, K, T):
            c = cap_at(fit[:, col], p)
            v = value(c)
            a = alloc(v, T)
            tb = hidden * 2 + (K * 12 if lib == "deepep" else 0)
            if lib == "nccl_ep":
                tb = -(-tb // 16) * 16
            v2 = math.ceil(v * T2 / T) if count else v
            rows.append([lib, knob, p, v, nrows(a), nrows(a) * tb,
                         nrows(alloc(dflt, T)), nrows(alloc(dflt, T)) * tb,
                         int((fit[:, col] > a).sum()),
                         int((held[:, col] > alloc(v2, T2)).sum())])
    return rows


def check(S, R, T, K, E, S2, T2, ps):
    global checks
    x, y = trace(S, R, T, K, E), trace(S2, R, T2, K, E)
    np.save("fit.npy", x)
    np.save("held.npy", y)
    hidden = int(rng.choice([1024, 4096, 7168]))
    p = subprocess.run([os.path.join(BIN, "a2a-layout"), "-E", str(E),
                        "--hidden", str(hidden), "--capacity",
                        ",".join("%g" % q for q in ps), "--eval", "held.npy",
                        "fit.npy"], capture_output=True)
    if p.returncode != 0:
        fail("a2a-layout: %s" % p.stderr.decode())
    got = list(csv.reader(io.StringIO(p.stdout.decode())))[1:]
    want = expect(demands(x, E), demands(y, E), R, E, K, T, T2,
                  [float("%g" % q) for q in ps], hidden)
    if len(got) != len(want):
        fail("%d rows, want %d" % (len(got), len(want)))
    for g, w in zip(got, want):
        checks += 1
        ok = g[0] == w[0] and g[1] == w[1] and float(g[2]) == w[2] and \
            abs(float(g[3]) - w[3]) < 5e-7 and \
            [int(v) for v in g[4:10]] == [int(v) for v in w[4:]]
        if not ok:
            fail("S %d R %d T %d K %d E %d:\n got %s\nwant %s" %
                 (S, R, T, K, E, g[:10], w))


def main():
    check(40, 4, 30, 2, 8, 25, 45, [0, 0.05, 0.3])
    check(64, 8, 20, 4, 64, 30, 20, [0, 0.01, 0.1, 0.5])
    check(20, 16, 12, 6, 64, 20, 8, [0, 0.2])           # internode
    check(1, 2, 9, 2, 4, 3, 9, [0, 0.9])                # one step
    check(30, 8, 16, 8, 32, 10, 64, [0.001, 0.25])      # Le < K
    print("a2a capacity: %d rows equal to the numpy model (seed %d)" %
          (checks, seed))


main()
