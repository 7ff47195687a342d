"""eplb-plan --lost-gpus and --prev-gpus on random plans, against what
issue 62 asks of them, checked in numpy: the new plan has the new
group's slots, every expert held; the GPUs carried over are the
survivors in order (--lost-gpus) or the first ones (--prev-gpus); with
--max-moves at the least that can work, exactly that many slots change
(one for each expert whose every copy was lost, plus every empty slot)
and the changes are only those; one fewer is exit 1 naming the least;
--transfers counts a reload for each lost expert's new copy and the
transfers of the model in vllm_xfer.py.  Fresh each run (the seed is
printed).  Run by tests/interop/run.sh."""
import csv
import os
import subprocess

import numpy as np

from checkenv import start
from vllm_xfer import transfers

BIN, seed, rng, fail = start("eplb lost-GPU check")
checks = 0


def plan(args):
    p = subprocess.run([os.path.join(BIN, "eplb-plan"), "--quiet"] + args,
                       capture_output=True)
    return p.returncode, p.stderr.decode()


def old_plan(L, E, R):
    rows = []
    for _ in range(L):
        row = np.concatenate([rng.permutation(E), rng.integers(0, E, R - E)])
        rows.append(rng.permutation(row))
    return np.array(rows, dtype=np.int64)


def carried(old, G_old, ids, R, G):
    """The old rows on the new GPUs: -1 in empty slots."""
    so, sn = old.shape[1] // G_old, R // G
    out = np.full((old.shape[0], R), -1, np.int64)
    for g in range(G_old):
        if ids[g] >= 0:
            k = min(so, sn)
            out[:, ids[g] * sn:ids[g] * sn + k] = old[:, g * so:g * so + k]
    return out


def least(rows, E):
    """Empty slots, and a slot a missing expert beyond them, per layer."""
    n = 0
    for row in rows:
        empty = int((row < 0).sum())
        miss = E - len(set(row[row >= 0].tolist()))
        n += empty + max(0, miss - empty)
    return n


def check(L, E, G, S, lost=None, G_new=None):
    global checks
    R = G * S
    old = old_plan(L, E, R)
    np.save("old.npy", old)
    w = rng.gamma(0.5, 100, (L, E)).round().astype(np.int64)
    np.save("w.npy", w)
    if lost is not None:
        ids, k = [], 0
        for g in range(G):
            ids.append(-1 if g in lost else k)
            k += g not in lost
        Gn, Rn = G - len(lost), (G - len(lost)) * S
        carry = ["-r", str(R), "-G", str(G), "--lost-gpus",
                 ",".join(map(str, lost))]
    else:
        Gn, Rn = G_new, G_new * S
        ids = [g if g < G_new else -1 for g in range(G)]
        carry = ["-r", str(Rn), "-G", str(Gn), "--prev-gpus", str(G)]
    rows = carried(old, G, ids, Rn, Gn)
    M = least(rows, E)
    what = "L %d E %d G %d S %d lost %s new G %s" % (L, E, G, S, lost, Gn)
    for budget in ([], ["--max-moves", str(M)],
                   ["--max-moves", str(M + 7)]):
        rc, err = plan(carry + ["--prev", "old.npy", "--transfers", "x.csv",
                                "--emit", "phy2log", "-o", "new.npy",
                                "w.npy"] + budget)
        if rc != 0:
            fail("%s %s: exit %d: %s" % (what, budget, rc, err))
        new = np.load("new.npy")
        if new.shape != (L, Rn):
            fail("%s: shape %s, want %s" % (what, new.shape, (L, Rn)))
        for l in range(L):
            if set(new[l].tolist()) != set(range(E)):
                fail("%s: layer %d does not hold every expert" % (what, l))
        changed = int((new != rows).sum())
        if budget and changed > int(budget[1]):
            fail("%s %s: %d slots changed" % (what, budget, changed))
        if budget and int(budget[1]) == M and changed != M:
            fail("%s: --max-moves %d (the least) changed %d" % (
                what, M, changed))
        got = list(csv.reader(open("x.csv")))[1:]
        for l in range(L):
            # the old rows in the new GPUs' numbering, gone GPUs dropped
            have = [set() for _ in range(Gn)]
            for g in range(G):
                if ids[g] >= 0:
                    have[ids[g]] |= set(old[l, g * S:(g + 1) * S].tolist())
            flat = []
            for g in range(Gn):
                flat += sorted(have[g]) + [-1] * (S - len(have[g]))
            xs, reloads = transfers(flat, list(new[l]), Gn)
            want = [l, len(xs), reloads]
            row = [int(got[l][0]), int(got[l][1]), int(got[l][7])]
            if row != want:
                fail("%s %s layer %d: transfers/reloads %s, want %s" % (
                    what, budget, l, row, want))
        checks += 1
    if M > 0:
        rc, err = plan(carry + ["--prev", "old.npy", "--max-moves",
                                str(M - 1), "-o", "new.npy", "w.npy"])
        if rc != 1 or "at least %d slots" % M not in err:
            fail("%s: --max-moves %d: exit %d, %r" % (what, M - 1, rc, err))
        checks += 1


def main():
    for _ in range(4):
        G = int(rng.integers(3, 12))
        S = int(rng.integers(2, 5))
        E = int(rng.integers(G, G * S))
        nl = int(rng.integers(1, max(2, (G * S - E) // S + 1)))
        lost = sorted(rng.choice(G, size=min(nl, G - 1), replace=False)
                      .tolist())
        if (G - len(lost)) * S < E:
            lost = lost[:1]
        if (G - len(lost)) * S >= E:
            check(int(rng.integers(1, 5)), E, G, S, lost=lost)
    check(3, 16, 8, 3, lost=[0])
    check(2, 12, 6, 4, lost=[1, 4])
    check(3, 16, 8, 3, G_new=10)        # scaled up: empty GPUs
    check(3, 16, 8, 3, G_new=6)         # scaled down
    print("eplb lost GPUs and new groups: %d plans checked (seed %d)" %
          (checks, seed))


main()
