"""a2a-layout against an independent numpy model of DeepEP (V1) and
Triton-distributed layouts, written from the closed forms of
shared/reference/a2a-notes.md (not from moekit's C).  Fresh random traces
each run (the seed is printed): -1 slots, duplicate experts inside a token,
ranks without tokens, fewer tokens than channels, intranode and internode.
Run by tests/interop/run.sh."""
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


def fail(msg):
    sys.exit("a2a check failed (seed %d): %s" % (seed, msg))


def run(args, data):
    p = subprocess.run([os.path.join(BIN, "a2a-layout")] + args, input=data,
                       capture_output=True)
    if p.returncode != 0:
        fail("a2a-layout %s: %s" % (args, p.stderr.decode()))
    return arrays(p.stdout)


def paired(names, got):
    """(name, tensor) pairs, once the tool wrote one tensor per name."""
    if len(got) != len(names):
        fail("asked for %d outputs (%s), got %d" % (len(names), ",".join(names),
                                                  len(got)))
    return zip(names, got)


def same(name, got, want):
    global checks
    checks += 1
    want = np.asarray(want)
    if got.shape != want.shape or not np.array_equal(got, want):
        fail("%s differs:\n got %s %r\nwant %s %r" % (name, got.shape, got, want.shape, want))


def channels(T, C):
    per = -(-T // C) if T > 0 else 1
    return np.minimum(np.arange(T) // per, C - 1), per


def deepep(ids, E, C, align, r):
    """Group-wide and rank-r outputs, from the closed forms."""
    R = len(ids)
    epr = E // R
    inter = R > 8
    RR = R // 8 if inter else 1
    o = {}
    inr, node, ntpe, cpm, rcpm = [], [], [], [], []
    for s in range(R):
        x = ids[s]
        T = x.shape[0]
        valid = (x >= 0) & (x < E)
        dest = np.where(valid, x // epr, -1)
        m = np.zeros((T, R), bool)
        for j in range(x.shape[1]):
            ok = dest[:, j] >= 0
            m[np.nonzero(ok)[0], dest[ok, j]] = True
        inr.append(m)
        nd = m.reshape(T, RR, 8).any(2) if inter else m.any(1, keepdims=True)
        node.append(nd)
        ntpe.append(np.bincount(x[valid], minlength=E))
        ch, _ = channels(T, C)
        per_c = np.zeros((R, C), int)
        per_n = np.zeros((RR, C), int)
        for t in range(T):
            per_c[:, ch[t]] += m[t]
            per_n[:, ch[t]] += nd[t]
        cpm.append(np.cumsum(per_c, 1))
        rcpm.append(np.cumsum(per_n, 1))
    cnt = np.array([m.sum(0) for m in inr])
    o["num_tokens_per_rank"] = cnt
    o["num_tokens_per_expert"] = np.array(ntpe)
    rpm = np.cumsum(cnt, 0)
    o["num_recv_tokens"] = rpm[-1]
    exp_tot = np.array(ntpe).sum(0).reshape(R, epr)
    o["num_recv_tokens_per_expert"] = -(-exp_tot // align) * align
    o["packed_recv_count"] = exp_tot
    lr = np.zeros((R, epr, R), np.int64)
    for rr in range(R):
        for j in range(epr):
            begin = 0
            for s in range(R):
                c = ntpe[s][rr * epr + j]
                lr[rr, j, s] = (begin << 32) | c
                begin += c
    o["layout_range"] = lr
    nrd = np.array([n.sum(0) for n in node])
    rgps = rpm.T
    if inter:
        o["num_tokens_per_rdma_rank"] = nrd
        o["gbl_channel_prefix_matrix"] = np.array(cpm)
        o["rdma_channel_prefix_matrix"] = np.array(rcpm)
        o["recv_gbl_rank_prefix_sum"] = rgps
        rrps = np.array([np.cumsum([nrd[S * 8 + rr % 8][rr // 8] for S in range(RR)])
                         for rr in range(R)])
        o["recv_rdma_rank_prefix_sum"] = rrps
        o["num_rdma_recv_tokens"] = rrps[:, -1]
    else:
        o["channel_prefix_matrix"] = np.array(cpm)
        o["rank_prefix_matrix"] = rpm
    # rank r, sender side
    m = inr[r]
    T = m.shape[0]
    o["is_token_in_rank"] = m
    ch, _ = channels(T, C)
    cols = node[r] if inter else m
    head = np.full(cols.shape, -1)
    for c in range(C):
        sel = np.nonzero(ch == c)[0]
        for d in range(cols.shape[1]):
            hit = sel[cols[sel, d]]
            head[hit, d] = np.arange(len(hit))
    o["send_rdma_head" if inter else "send_head"] = head
    # rank r, receiver side: (source rank, source token) order
    src_idx, topk, meta = [], [], []
    for s in range(R):
        for t in np.nonzero(inr[s][:, r])[0]:
            src_idx.append(t)
            x = ids[s][t]
            topk.append(np.where((x >= r * epr) & (x < (r + 1) * epr), x - r * epr, -1))
            if inter:
                D = r // 8
                bits = sum(int(inr[s][t, D * 8 + j]) << j for j in range(8))
                meta.append((s // 8, bits))
    o["recv_src_idx"] = np.array(src_idx, dtype=np.int32).reshape(-1)
    o["recv_topk_idx"] = np.array(topk, dtype=np.int64).reshape(-1, ids[0].shape[1])
    rcp = np.zeros((R, C), int)
    for s in range(R):
        for c in range(1, C):
            rcp[s, c] = cpm[s][r][c - 1]
        if inter and s > 0:
            rcp[s] += rgps[r][s - 1]
    o["recv_gbl_channel_prefix_matrix" if inter else "recv_channel_prefix_matrix"] = rcp
    if inter:
        o["recv_src_meta"] = np.array(meta, dtype=np.int32).reshape(-1, 2)
        o["recv_rdma_channel_prefix_matrix"] = np.array(
            [rcpm[S * 8 + r % 8][r // 8] for S in range(RR)])
        D, n = r // 8, r % 8
        nvl = []
        for S in range(RR):
            s = S * 8 + n
            chs, _ = channels(inr[s].shape[0], C)
            for c in range(C):
                k = np.zeros(8, int)
                for t in np.nonzero(chs == c)[0]:
                    bits = inr[s][t, D * 8:D * 8 + 8]
                    if not bits.any():
                        continue
                    nvl.append(np.where(bits, k, -1))
                    k += bits
        o["send_nvl_head"] = np.array(nvl, dtype=np.int32).reshape(-1, 8)
    return o


def scatter_of(x, off, src, E, epr):
    """Rows in the destinations' outputs of src's slots (-1: a drop)."""
    seen = np.zeros(E, int)
    sc = np.full(x.shape, -1)
    for t in range(x.shape[0]):
        for j in range(x.shape[1]):
            e = x[t, j]
            if 0 <= e < E:
                sc[t, j] = off[e // epr, e % epr, src] + seen[e]
                seen[e] += 1
    return sc


def reqs_of(x, nd, own, E, epr, local, width):
    """Runs of tokens bound for node nd, cut at 256-token tiles."""
    T = x.shape[0]
    req = np.full((2, width), -1)
    if nd == own:
        return req
    sent = [((x[t] >= 0) & (x[t] < E) & (x[t] // (epr * local) == nd)).any() for t in range(T)]
    for tile in range(0, T, 256):
        col, start = tile, None
        for t in range(tile, min(tile + 256, T) + 1):
            on = t < min(tile + 256, T) and sent[t]
            if on and start is None:
                start = t
            if not on and start is not None:
                req[0, col], req[1, col] = start, t
                col += 1
                start = None
    return req


def triton(ids, E, r, local, M=None):
    R = len(ids)
    K = ids[0].shape[1]
    epr = E // R
    M = M or max(x.shape[0] for x in ids)
    o = {}
    fs = []
    for x in ids:
        f = x.ravel().copy()
        f[f == -1] = E                     # moekit counts -1 as a drop, like E
        fs.append(np.bincount(f[f <= E], minlength=E + 1))
    fs = np.array(fs)
    o["full_splits"] = fs
    o["num_input_tokens_per_rank"] = fs.sum(1) // K
    counts = np.zeros((R, epr, R), int)
    for i in range(R):
        for j in range(epr):
            counts[i, j] = fs[:, i * epr + j]
    off = np.concatenate([np.zeros((R, 1), int),
                          np.cumsum(counts.reshape(R, -1), 1)[:, :-1]], 1).reshape(R, epr, R)
    o["recv_buf_offset_per_expert"] = off
    o["num_recv_tokens_per_rank"] = counts.reshape(R, -1).sum(1)
    x = ids[r]
    T = x.shape[0]
    nodes = R // local
    o["token_dst_scatter_idx"] = scatter_of(x, off, r, E, epr)
    o["send_reqs"] = np.stack([reqs_of(x, nd, r // local, E, epr, local, T)
                               for nd in range(nodes)])
    # what rank (n, l) holds of rank (m, l), each node m
    bsc = np.full((nodes, M, K), -1)
    bid = np.full((nodes, M, K), -1)
    brq = np.full((nodes, 2, M), -1)
    for m in range(nodes):
        src = m * local + r % local
        Ts = ids[src].shape[0]
        bsc[m, :Ts] = scatter_of(ids[src], off, src, E, epr)
        bid[m, :Ts] = ids[src]
        brq[m] = reqs_of(ids[src], r // local, m, E, epr, local, M)
    o["token_dst_scatter_idx_buf"] = bsc
    o["send_reqs_recv_tensor"] = brq
    o["topk_indices_tensor"] = bid
    if nodes == 1:
        N = o["num_recv_tokens_per_rank"][r]
        smap = np.zeros(N, np.int64)
        stk = np.full((N, K), -1, np.int64)
        for src in range(R):
            sc = scatter_of(ids[src], off, src, E, epr)
            y = ids[src]
            mine = (y >= 0) & (y < E) & (y // epr == r)
            for t, j in zip(*np.nonzero(mine)):
                first = sc[t, np.nonzero(mine[t])[0][0]]
                smap[sc[t, j]] = first
                stk[first, j] = first
        o["skipped_token_mapping_indices"] = smap
        o["skipped_token_topk_mapping_indices"] = stk
    return o


def trace(R, E, K, Ts, dup=0.1, drop=0.1):
    out = []
    for T in Ts:
        x = rng.integers(0, E, size=(T, K))
        x[rng.random((T, K)) < drop] = -1
        d = rng.random(T) < dup                    # a token naming an expert twice
        if K > 1:
            x[d, 1] = x[d, 0]
        out.append(x.astype(np.int64))
    return out


def stream(ids):
    b = io.BytesIO()
    for x in ids:
        np.save(b, x)
    return b.getvalue()


def check(R, E, K, Ts, sms, align, r, style, local=None, M=None):
    ids = trace(R, E, K, Ts)
    C = sms // 2
    extra = []
    if style == "deepep":
        want = deepep(ids, E, C, align, r)
    elif style == "low-latency":
        # DeepEP's low-latency mode alone: get_dispatch_layout's counts
        # and low_latency_dispatch's, any R < 8 or 8n (no channels)
        full = deepep(ids, E, 1, 1, r)
        names = ["num_tokens_per_rank"] + (["num_tokens_per_rdma_rank"] if R > 8 else []) + \
            ["num_tokens_per_expert", "packed_recv_count", "layout_range", "is_token_in_rank"]
        want = {n: full[n] for n in names}
        style, extra = "deepep", ["--low-latency"]
    else:
        want = triton(ids, E, r, local or min(R, 8), M)
        extra = ["--local-world-size", str(local)] if local else []
        extra += ["--max-tokens", str(M)] if M else []
    names = list(want)
    got = run(["-E", str(E), "--num-sms", str(sms), "--expert-alignment", str(align),
               "--rank", str(r), "--style", style, "--emit", ",".join(names)] + extra,
              stream(ids))
    for n, g in paired(names, got):
        same("%s (R=%d E=%d K=%d T=%s sms=%d rank %d)" % (n, R, E, K, Ts, sms, r), g, want[n])


def check_mixtral():
    """The real Mixtral-8x7B routing (32 layers as steps, EP-4): every
    step's group-wide outputs, and rank 2's per-token tensors at step 17."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", "testdata",
                        "a2a-mixtral-humaneval.npy")
    trace = np.load(path)
    S, R = trace.shape[:2]
    want = [deepep([trace[s, r].astype(np.int64) for r in range(R)], 8, 10, 1, 2)
            for s in range(S)]
    group = ["num_tokens_per_rank", "num_tokens_per_expert", "channel_prefix_matrix",
             "rank_prefix_matrix", "num_recv_tokens", "num_recv_tokens_per_expert",
             "packed_recv_count", "layout_range"]
    got = run(["-E", "8", "--emit", ",".join(group)], open(path, "rb").read())
    for n, g in paired(group, got):
        same("mixtral %s" % n, g, np.stack([w[n] for w in want]))
    rank = ["is_token_in_rank", "send_head", "recv_src_idx", "recv_topk_idx",
            "recv_channel_prefix_matrix"]
    got = run(["-E", "8", "--rank", "2", "--step", "17", "--emit", ",".join(rank)],
              open(path, "rb").read())
    for n, g in paired(rank, got):
        same("mixtral step 17 rank 2 %s" % n, g, want[17][n])


def report(args, ids):
    p = subprocess.run([os.path.join(BIN, "a2a-layout")] + args + ["--report", "-o", "/dev/null"],
                       input=stream(ids), capture_output=True)
    if p.returncode != 0:
        fail("a2a-layout %s: %s" % (args, p.stderr.decode()))
    rows = {}
    for line in p.stdout.decode().splitlines()[1:]:
        if not line.startswith("#"):
            q, v, _ = line.split(",")
            rows[q] = np.array(int(float(v)))
    return rows


def a32(x, a=32):
    return -(-x // a) * a


def elastic(R, nvl, M, H, K, fp8, hybrid):
    """calculate_elastic_buffer_size (csrc/elastic/buffer.hpp), multiple
    reductions allowed: TokenLayout bytes, BufferLayout per domain."""
    up, out = (nvl, R // nvl) if hybrid else (R, 1)
    link = up == nvl
    td = a32(H * (1 if fp8 else 2)) + a32(-(-H // 32) * 4 if fp8 else 0) + a32(K * 8 + (1 + K) * 4)
    tc = a32(H * 2) + a32(K * 8)
    if out == 1:
        d = td * (0 if link else 1) * M + td * R * M
        c = tc * (0 if link else R) * M + tc * min(R, K) * M
    else:
        d = td * up * out * M + td * M + td * out * (M + 1280)
        c = tc * min(up, K) * out * M + tc * min(out, K) * M + tc * out * (M + 1280)
    return d, c, a32(max(d, c), 2 << 20)


def triton_buffers(W, L, E, K, M, H, rows):
    """DispatchCombineContext.create and create_ep_ll_a2a_ctx, in bytes."""
    n, epr, tok = W // L, E // W, H * 2
    init = M * K * 2
    b = [n * 2 * M * 4, n * 2 * M * 4, n * M * tok, max(rows, init) * tok,
         rows * 4 if rows <= init else rows * K * 4, n * M * K * 4, n * M * K * 4,
         W * 8, (E + 1) * 4, W * (E + 1) * 4, W * 4, W * 8, W * 8, n * M * tok,
         L * M * K * 8, L * M * K * K * 8]
    msg = H + 16 + H // 128 * 4
    ll = 2 * (M * msg + epr * W * M * msg + 2 * W * epr * 4 + E * 8) + \
        2 * (epr * M * W * H * 2 + E * M * H * 2 + E * 8)
    return sum(b), msg, ll


def check_sizes():
    """The report's EPv2 and Triton-distributed byte rows against the
    models above, on random groups and token counts."""
    for R, nvl in ((8, 8), (16, 8), (32, 8), (64, 64), (16, 4), (48, 16)):
        K = int(rng.integers(1, 9))
        E = R * int(rng.integers(1, 5))
        M = int(rng.integers(40, 5000))     # at least the trace's tokens (0..39)
        H = 128 * int(rng.integers(1, 64))
        fp8 = bool(rng.integers(0, 2))
        ids = trace(R, E, K, list(rng.integers(0, 40, R)))
        args = ["-E", str(E), "--hidden", str(H), "--max-tokens", str(M),
                "--scaleup-ranks", str(nvl), "--num-sms", "20"] + (["--dtype", "fp8"] if fp8 else [])
        if R in (8, 16, 32, 64, 48):
            got = report(args, ids)
            d, c, tot = elastic(R, nvl, M, H, K, fp8, True)
            same("elastic dispatch R=%d nvl=%d M=%d H=%d K=%d" % (R, nvl, M, H, K),
                 got["elastic.dispatch_bytes"], d)
            same("elastic combine", got["elastic.combine_bytes"], c)
            same("elastic hint", got["elastic_buffer_size_hint"], tot)
            same("elastic hint flat", got["elastic_buffer_size_hint.no_hybrid"],
                 elastic(R, nvl, M, H, K, fp8, False)[2])
        L = nvl if nvl < R else R
        got = report(["-E", str(E), "--hidden", str(H), "--max-tokens", str(M), "--style",
                      "triton-dist", "--local-world-size", str(L)], ids)
        rows = int(got["trace.triton_output_rows"])
        tot, msg, ll = triton_buffers(R, L, E, K, M, H, rows)
        same("triton symmetric total R=%d L=%d" % (R, L), got["triton.symmetric_total"], tot)
        same("triton LL msg", got["triton_ll.msg_size"], msg)
        same("triton LL total", got["triton_ll.symmetric_total"], ll)


def main():
    # intranode, ragged ranks, an empty rank, fewer tokens than channels
    check(4, 8, 2, [6, 0, 3, 40], 4, 4, 0, "deepep")
    check(8, 64, 8, list(rng.integers(0, 300, 8)), 20, 1, 5, "deepep")
    check(2, 16, 4, [1, 2], 24, 128, 1, "deepep")
    # internode: 16 and 32 ranks
    check(16, 64, 6, list(rng.integers(0, 120, 16)), 8, 1, 0, "deepep")
    check(16, 32, 2, [5] * 16, 4, 1, 9, "deepep")
    check(32, 256, 8, list(rng.integers(100, 400, 32)), 20, 2, 19, "deepep")
    # Triton-distributed, with runs across 256-token tiles
    check(8, 32, 4, list(rng.integers(0, 600, 8)), 20, 1, 3, "triton-dist")
    check(16, 64, 8, list(rng.integers(200, 700, 16)), 20, 1, 11, "triton-dist")
    # Triton-distributed without DeepEP's group rules: 40 ranks, 12 on
    # nodes of 4, 6 on one node, 3 ranks, a max_tokens above the trace's
    check(40, 80, 4, list(rng.integers(0, 300, 40)), 20, 1, 29, "triton-dist")
    check(12, 36, 3, list(rng.integers(0, 600, 12)), 20, 1, 6, "triton-dist", 4, 700)
    check(6, 24, 4, list(rng.integers(0, 90, 6)), 20, 1, 2, "triton-dist")
    check(3, 9, 2, [0, 5, 260], 20, 1, 1, "triton-dist", 3)
    # DeepEP's low-latency mode alone: groups its normal mode refuses
    # (above 160 ranks, 40, 6), top-11, ragged ranks with an empty one
    check(192, 384, 8, list(rng.integers(0, 40, 192)), 20, 1, 77, "low-latency")
    check(256, 256, 11, [0] + list(rng.integers(1, 30, 255)), 20, 1, 255, "low-latency")
    check(512, 1024, 2, list(rng.integers(0, 6, 512)), 20, 1, 300, "low-latency")
    check(40, 80, 4, list(rng.integers(0, 60, 40)), 20, 1, 39, "low-latency")
    check(6, 12, 3, [4, 0, 9, 1, 2, 7], 20, 1, 0, "low-latency")
    check_mixtral()
    check_sizes()
    print("a2a: %d outputs equal to the numpy model (seed %d)" % (checks, seed))


main()
