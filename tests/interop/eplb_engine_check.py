"""eplb-replay --engine against independent numpy models of each engine's
online loop, written here from the engines' sources (the commits
eplb-replay(1) names):

  vllm    EplbState.step/rearrange: a ring of window_size per-slot loads
          (zeros until written), credited to experts through the map
          current at the re-plan; the step counter starting at 3/4 of the
          interval; DefaultEplbPolicy (DeepSeek's algorithm, hierarchical
          where groups % nodes == 0) then preserve_intragpu_slots; with
          async one layer committed a step from the step after, a re-plan
          deferred while one is being committed;
  sglang  EPLBManager: a re-plan every rebalance_num_iterations passes
          from the buffer since its last dump (cleared then), chunks of
          layers committed a pass each;
  trtllm  MoeLoadBalancer: per-layer loads decayed by 0.95 (float32) a
          step, layers re-planned by doReplication/doPlacement in turn,
          their loads cleared after.

Every engine splits an expert's load evenly over its replicas.  The
issue's bound: balancedness within 2e-3, the same re-plans, moves and
bytes within 3 %; these models agree exactly.  Drifting logs with W > I,
W = I and W < I.  Run by tests/interop/run.sh."""
import csv
import io
import os
import subprocess
import sys
import time

import numpy as np

from vllm_xfer import largest_flows, transfers

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from deepseek_np import deepseek  # noqa: E402

BIN = os.environ["MOEKIT_BIN"]
seed = int(os.environ.get("MOEKIT_SEED", time.time_ns() % 2**32))
rng = np.random.default_rng(seed)
checks = 0


def fail(msg):
    sys.exit("eplb-replay engine check failed (seed %d): %s" % (seed, msg))


def replay(args):
    p = subprocess.run([os.path.join(BIN, "eplb-replay"), "--quiet"] + args,
                       capture_output=True)
    if p.returncode != 0:
        fail("eplb-replay %s: %s" % (" ".join(args), p.stderr.decode()))
    return list(csv.DictReader(io.StringIO(p.stdout.decode())))


class Run:
    """A placement serving steps, and what it cost."""

    def __init__(self, w, R, G, N, p2l, start):
        self.w, self.R, self.G, self.N = w, R, G, N
        self.p2l = p2l
        self.start = start         # the first step scored, and charged
        self.max = np.zeros(w.shape[0])
        self.mean = np.zeros(w.shape[0])
        self.moves = self.copies = self.inter = self.replans = 0
        self.transfers = self.batches = self.flow_units = 0
        self.hostg = np.zeros(G, int)  # TensorRT-LLM: a step's copies
        self.host_s = 0.0
        self.plan_moved = self.plan_from = 0
        # no EPLB: one replica an expert, E/G consecutive a GPU
        E = w.shape[2]
        gpu = np.zeros((G, E))
        gpu[np.arange(E) * G // E, np.arange(E)] = 1
        self.base_max = (w @ gpu.T).max(2).sum(1)

    def serve(self, t):
        """Step t's per-slot loads [L, R], its score recorded."""
        L, E = self.w.shape[1:]
        slot = np.zeros((L, self.R))
        for l in range(L):
            cnt = np.bincount(self.p2l[l], minlength=E)
            slot[l] = self.w[t, l, self.p2l[l]] / cnt[self.p2l[l]]
        gpu = slot.reshape(L, self.G, -1).sum(2)
        self.max[t] = gpu.max(1).sum()
        self.mean[t] = gpu.mean(1).sum()
        return slot

    def commit(self, l, row, u, host=False):
        """Layer l takes row from step u on, charged if u is scored."""
        old = self.p2l[l]
        S = self.R // self.G
        node = self.R // self.N
        ch = int((old != row).sum())
        if ch and not self.plan_moved:
            self.plan_from = u
        self.plan_moved += ch
        if ch and u >= self.start:
            self.charge(old, row, host, S, node)
        self.p2l[l] = row.copy()

    def charge(self, old, row, host, S, node):
        ch = int((old != row).sum())
        self.moves += ch
        if host:                   # TensorRT-LLM: a copy a changed slot
            self.copies += ch
            self.hostg += (old != row).reshape(self.G, -1).sum(1)
            return
        for g in range(self.G):
            have = set(old[g * S:(g + 1) * S])
            for e in set(row[g * S:(g + 1) * S]) - have:
                self.copies += 1
                n0 = g * S // node * node
                self.inter += e not in set(old[n0:n0 + node])
        xs, _ = transfers(list(old), list(row), self.G)
        flows = largest_flows(xs)
        self.transfers += len(xs)
        self.batches += len(flows)
        self.flow_units += sum(flows)

    def host_done(self, B):
        """A step's host copies: the busiest GPU's at 8 Gbit/s, beyond
        the 1 ms of MoE they overlap."""
        self.host_s += max(0.0, self.hostg.max() * B * 8 / 8e9 - 1e-3)
        self.hostg[:] = 0

    def done(self):
        self.replans += self.plan_moved > 0 and self.plan_from >= self.start
        self.plan_moved = 0

    def balancedness(self):
        return self.mean[self.start:].sum() / self.max[self.start:].sum()

    def moe_units(self, base=False):
        top = self.base_max if base else self.max
        m = self.mean[self.start:]
        return (top[self.start:][m > 0] / m[m > 0]).sum()


def plan(load, R, K, N, G):
    """DeepSeek's plan of every layer, hierarchical where K % N == 0."""
    if K % N:
        K = N = 1
    return np.array([deepseek(load[l], R, K, N, G) for l in
                     range(load.shape[0])])


def credit(ring_sum, p2l, E):
    """The window's per-slot loads credited to the current map's experts."""
    load = np.zeros((p2l.shape[0], E))
    for l in range(p2l.shape[0]):
        np.add.at(load[l], p2l[l], ring_sum[l])
    return load


def preserve(new, old, G):
    """vLLM's preserve_intragpu_slots, one layer."""
    S = len(new) // G
    out = new.copy()
    for g in range(G):
        o, n = old[g * S:(g + 1) * S], new[g * S:(g + 1) * S]
        used = np.zeros(S, bool)
        kept = np.zeros(S, bool)
        for a in range(S):
            m = np.flatnonzero((n == o[a]) & ~used)
            if len(m):
                out[g * S + a] = n[m[0]]
                used[m[0]] = kept[a] = True
        for a, b in zip(np.flatnonzero(~kept), np.flatnonzero(~used)):
            out[g * S + a] = n[b]
    return out


def vllm(w, R, K, N, G, W, I, is_async, start):
    T, L, E = w.shape
    run = Run(w, R, G, N, np.tile(np.arange(R) % E, (L, 1)), start)
    ring = np.zeros((W, L, R))
    counter = max(0, I - I // 4)
    pending, nxt = None, 0
    for t in range(T):
        ring[t % W] = run.serve(t)
        counter += 1
        if pending is not None:
            run.commit(nxt, pending[nxt], t + 1)
            nxt += 1
            if nxt == L:
                pending = None
                run.done()
        if counter >= I and pending is None:
            counter = 0
            new = plan(credit(ring.sum(0), run.p2l, E), R, K, N, G)
            new = np.array([preserve(new[l], run.p2l[l], G)
                            for l in range(L)])
            if is_async:
                pending, nxt = new, 0
            else:
                for l in range(L):
                    run.commit(l, new[l], t + 1)
                run.done()
    return run


def sglang(w, R, K, N, G, W, I, chunk, start):
    T, L, E = w.shape
    run = Run(w, R, G, N, np.tile(np.arange(R) % E, (L, 1)), start)
    buf = []                       # the recorder's passes since its dump
    due, pending, c = I, None, 0
    C = chunk if 0 < chunk < L else L
    chunks = [list(range(a, min(a + C, L))) for a in range(0, L, C)]
    for t in range(T):
        buf = (buf + [run.serve(t)])[-W:]
        if pending is not None:
            for l in chunks[c]:
                run.commit(l, pending[l], t + 1)
            c += 1
            if c == len(chunks):
                pending, due = None, t + I
                run.done()
            continue
        if t != due:
            continue
        new = plan(credit(np.sum(buf, 0), run.p2l, E), R, K, N, G)
        buf = []
        if len(chunks) > 1:
            pending, c = new, 0
            continue
        for l in range(L):
            run.commit(l, new[l], t + 1)
        due = t + I
        run.done()
    return run


def trtllm_layer(f, R, G):
    """doReplication then doPlacement of one layer's float32 loads f."""
    E = len(f)
    S = R // G
    total = float(np.sum(f.astype(np.float64)))
    if total == 0:
        cnt = np.array([R // E + (i < R % E) for i in range(E)])
    else:
        cnt = np.ones(E, int)
        for _ in range(E, R):      # its heap: ties to the larger id
            size = [float(f[i]) / cnt[i] for i in range(E)]
            best = max(range(E), key=lambda i: (size[i], i))
            cnt[best] += 1
    reps = sorted(((float(f[i]) / cnt[i], i) for i in range(E)
                   for _ in range(cnt[i])), key=lambda r: (-r[0], r[1]))
    load = [0.0] * G
    used = [0] * G
    row = np.zeros(R, int)
    for size, e in reps:
        g = min((x for x in range(G) if used[x] < S),
                key=lambda x: (load[x], x))
        row[g * S + used[g]] = e
        used[g] += 1
        load[g] += size
    return row


def trtllm(w, R, G, N, k, start, B):
    T, L, E = w.shape
    S = R // G
    first = np.array([((j // S) * E // G + j % S) % E for j in range(R)])
    run = Run(w, R, G, N, np.tile(first, (L, 1)), start)
    U = (L + k - 1) // k
    sets = [[l for l in range(L) if l % U == i] for i in range(U)]
    if len(sets[0]) == len(sets[-1]):
        sets.append([])
    f = np.zeros((L, E), np.float32)
    for t in range(T):
        run.serve(t)
        f = (f * np.float32(0.95) + w[t].astype(np.float32)).astype(
            np.float32)
        for l in sets[t % len(sets)]:
            run.commit(l, trtllm_layer(f[l], R, G), t + 1, host=True)
            f[l] = 0
        if sets[t % len(sets)]:
            run.host_done(B)
            run.done()
    return run


def near(what, col, got, want):
    if not abs(float(got) - want) <= 0.03 * max(abs(want), 1e-9):
        fail("%s: %s %s, the model's %s" % (what, col, got, want))


def compare(what, row, run, B, charged=True):
    """row against the model run; charged: its moves take link time."""
    global checks
    checks += 1
    b = run.balancedness()
    if not abs(float(row["balancedness"]) - b) <= 2e-3:
        fail("%s: balancedness %s, the model's %.9f" % (
            what, row["balancedness"], b))
    if int(row["rebalances"]) != run.replans:
        fail("%s: %s re-plans, the model's %d" % (
            what, row["rebalances"], run.replans))
    for col, want in (("moves", run.moves), ("bytes_moved", run.copies * B),
                      ("transfers", run.transfers),
                      ("batches", run.batches)):
        near(what, col, row[col], want)
    if run.N > 1 and row["bytes_inter_node"] != "":
        near(what, "bytes_inter_node", row["bytes_inter_node"],
             run.inter * B)
    # --link-gbps 8 --moe-ms 1: a batch's largest flow of B-byte experts
    # over 8 Gbit/s, a step 1 ms over its balancedness
    move = run.flow_units * B * 8 / 8e9 + run.host_s
    moe = run.moe_units() * 1e-3
    near(what, "move_s", row["move_s"], move)
    near(what, "moe_s", row["moe_s"], moe)
    near(what, "speedup", row["speedup"], run.moe_units(True) * 1e-3 /
         (moe + (move if charged else 0)))


def drifting(T, L, E):
    """A log whose popularity drifts: a random walk of log-popularity."""
    z = rng.normal(0, 1, (L, E))
    w = np.zeros((T, L, E), np.int64)
    for t in range(T):
        z += rng.normal(0, 0.08, (L, E))
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        w[t] = rng.poisson(300 * p)
    return w


def main():
    T, L, E, B = 300, 4, 32, 1000
    w = drifting(T, L, E)
    np.save("log.npy", w)
    cost = ["--link-gbps", "8", "--moe-ms", "1", "log.npy"]
    base = ["--expert-bytes", str(B)] + cost
    for R, K, N, G in ((40, 4, 2, 8), (48, 1, 1, 8), (64, 8, 2, 8)):
        topo = ["-r", str(R), "-G", str(G), "-n", str(N), "-g", str(K)]
        for W, I, S in ((60, 20, 0), (40, 40, 57), (20, 70, 101)):
            for a in ("off", "on"):
                row = replay(topo + ["--engine", "vllm", "--window", str(W),
                                     "--interval", str(I), "--async", a,
                                     "--score-from", str(S)] + base)[0]
                compare("vllm R %d K %d N %d W %d I %d async %s from %d" % (
                    R, K, N, W, I, a, S), row, vllm(w, R, K, N, G, W, I,
                                                    a == "on", S), B,
                        a == "off")
        for W, I, c, S in ((30, 30, 0, 0), (20, 50, 2, 71), (50, 50, 3, 50)):
            row = replay(topo + ["--engine", "sglang", "--window", str(W),
                                 "--interval", str(I), "--layers-per-chunk",
                                 str(c or L), "--score-from", str(S)] +
                         base)[0]
            compare("sglang R %d W %d I %d chunk %d from %d" % (
                R, W, I, c, S), row, sglang(w, R, K, N, G, W, I, c, S), B)
        # 1e7 bytes an expert: a step's host copies outlast its MoE
        for k, S, b in ((1, 0, B), (2, 33, 10**7), (3, 0, 10**7)):
            row = replay(["-r", str(R), "-G", str(G), "-n", str(N),
                          "--engine", "trtllm", "--layer-updates-per-iter",
                          str(k), "--score-from", str(S), "--expert-bytes",
                          str(b)] + cost)[0]
            run = trtllm(w, R, G, N, k, S, b)
            compare("trtllm R %d k %d from %d bytes %d" % (R, k, S, b), row,
                    run, b)
    print("eplb-replay: %d engine loops equal to numpy models of vLLM, "
          "SGLang and TensorRT-LLM, scored and charged from step 0 or "
          "later (seed %d)" % (checks, seed))


main()
