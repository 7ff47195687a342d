"""DeepSeek's EPLB (deepseek-ai/EPLB's rebalance_experts) in numpy, written
again from its documented rules: float32 loads, balanced_packing heaviest
first into the lightest pack with room, replicate_experts to the largest
load per replica, both first-index on ties.  For the interop checks of
eplb-replay."""
import numpy as np


def packing(w, m):
    """balanced_packing of one row: pack and rank of each item."""
    n = len(w)
    k = n // m
    if k == 1:
        return np.arange(n), np.zeros(n, int)
    order = np.lexsort((np.arange(n), -w.astype(np.float64)))
    loads = np.zeros(m, np.float32)
    count = np.zeros(m, int)
    pack = np.zeros(n, int)
    rank = np.zeros(n, int)
    for i in order:
        room = np.flatnonzero(count < k)
        p = room[np.argmin(loads[room])]     # first of the lightest
        pack[i], rank[i] = p, count[p]
        count[p] += 1
        loads[p] = np.float32(loads[p] + w[i])
    return pack, rank


def replicate(w, nphy):
    n = len(w)
    cnt = np.ones(n, int)
    phy = list(range(n))
    rank = [0] * n
    for _ in range(n, nphy):
        j = int(np.argmax(w / cnt.astype(np.float32)))
        phy.append(j)
        rank.append(cnt[j])
        cnt[j] += 1
    return np.array(phy), np.array(rank), cnt


def deepseek(w, R, K, N, G):
    """phy2log [R] of one layer (hierarchical; global is K = N = 1)."""
    E = len(w)
    wf = w.astype(np.float32)
    gs, gpn, epn, rpn, S = E // K, K // N, E // N, R // N, R // G
    tpg = np.array([np.float32(wf[g * gs:(g + 1) * gs].astype(np.float64)
                                .sum()) for g in range(K)])
    gp, gr = packing(tpg, N)
    mlog = np.array([(gp[j // gs] * gpn + gr[j // gs]) * gs + j % gs
                     for j in range(E)])
    inv = np.argsort(mlog)
    out = np.zeros(R, int)
    for n in range(N):
        wn = wf[inv[n * epn:(n + 1) * epn]]
        phy, _, cnt = replicate(wn, rpn)
        tpp = (wn[phy] / cnt[phy].astype(np.float32)).astype(np.float32)
        pk, rk = packing(tpp, G // N)
        slot = pk * S + rk
        out[n * rpn + slot] = inv[n * epn + phy]
    return out


