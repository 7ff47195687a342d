"""vLLM's two functions of PR #52641 (migration_scheduler.py), as issue
62 states them, in numpy: the transfers an expert's new holders get from
its old ones, dealt in blocks, and the flows' batches (each into the first
where neither GPU is busy); and SGLang's P2P operations a GPU.  Shared by
eplb_xfer_check.py and eplb_engine_check.py."""


def transfers(old, new, G):
    """One layer: the transfer list (src, dst) in vLLM's order, and the
    reloads (receivers of an expert no GPU held)."""
    per_o, per_n = len(old) // G, len(new) // G
    had = [set(old[g * per_o:(g + 1) * per_o]) for g in range(G)]
    has = [set(new[g * per_n:(g + 1) * per_n]) for g in range(G)]
    out, reloads = [], 0
    for e in range(max(max(old), max(new)) + 1):
        snd = [g for g in range(G) if e in had[g]]
        rcv = [g for g in range(G) if e in has[g] and e not in had[g]]
        if not rcv:
            continue
        if not snd:
            reloads += len(rcv)
            continue
        q, rem = divmod(len(rcv), len(snd))
        for i, s in enumerate(snd):
            out += [(s, r) for r in rcv[i * q:(i + 1) * q]]
        out += [(snd[i], rcv[len(snd) * q + i]) for i in range(rem)]
    return out, reloads


def schedule(xs):
    """The batches of transfers xs: each flow (one pair's transfers, in
    order of first appearance) into the first batch where neither GPU is
    busy.  A batch: [busy GPUs, its flows' transfers]."""
    flows = {}
    for x in xs:                          # dicts keep first appearance
        flows[x] = flows.get(x, 0) + 1
    bs = []
    for (s, d), n in flows.items():
        for b in bs:
            if s not in b[0] and d not in b[0]:
                break
        else:
            b = [set(), []]
            bs.append(b)
        b[0] |= {s, d}
        b[1].append(n)
    return bs


def batches(xs):
    """How many batches, and the transfers of the fullest."""
    bs = schedule(xs)
    return len(bs), max((sum(b[1]) for b in bs), default=0)


def largest_flows(xs):
    """Each batch's largest flow, in transfers (what bounds its time)."""
    return [max(b[1]) for b in schedule(xs)]


def p2p(xs, G):
    ops = [0] * G
    for s, d in xs:
        ops[s] += 1
        ops[d] += 1
    m = max(ops) if ops else 0
    return m, -(-m // 32)
