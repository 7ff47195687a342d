"""eplb-plan --transfers against an independent numpy model of vLLM's two
functions (PR #52641, migration_scheduler.py, as issue 62 states them):
the transfers an expert's new holders get from its old ones, dealt in
blocks, and the flows' batches (each into the first where neither GPU
is busy).  Random old plans (every expert held), random loads, plans made
by eplb-plan with --prev; fresh each run (the seed is printed).  Run by
tests/interop/run.sh."""
import csv
import os
import subprocess

import numpy as np

from checkenv import start
from vllm_xfer import batches, p2p, transfers

BIN, seed, rng, fail = start("eplb transfers check")
checks = 0


def old_plan(L, E, R):
    rows = []
    for _ in range(L):
        row = np.concatenate([rng.permutation(E), rng.integers(0, E, R - E)])
        rows.append(rng.permutation(row))
    return np.array(rows, dtype=np.int64)


def check(L, E, R, G, nodes, groups):
    global checks
    old = old_plan(L, E, R)
    np.save("old.npy", old)
    w = rng.gamma(0.5, 100, (L, E)).round().astype(np.int64)
    np.save("w.npy", w)
    p = subprocess.run([os.path.join(BIN, "eplb-plan"), "--quiet", "-r",
                        str(R), "-G", str(G), "-n", str(nodes), "-g",
                        str(groups), "--prev", "old.npy", "--expert-bytes",
                        "1000", "--transfers", "x.csv", "--emit", "phy2log",
                        "-o", "new.npy", "w.npy"], capture_output=True)
    if p.returncode != 0:
        fail("eplb-plan: %s" % p.stderr.decode())
    new = np.load("new.npy")
    got = list(csv.reader(open("x.csv")))
    if got[0][:5] != ["layer", "transfers", "batches",
                      "max_batch_transfers", "bytes"]:
        fail("header %s" % got[0])
    for l in range(L):
        xs, reloads = transfers(list(old[l]), list(new[l]), G)
        nb, mb = batches(xs)
        ops, chunks = p2p(xs, G)
        want = [l, len(xs), nb, mb, len(xs) * 1000, ops, chunks, reloads]
        if [int(float(v)) for v in got[l + 1]] != want:
            fail("R %d G %d layer %d:\n got %s\nwant %s" %
                 (R, G, l, got[l + 1], want))
        checks += 1


def main():
    check(6, 16, 24, 8, 1, 1)
    check(4, 64, 80, 16, 2, 8)
    check(3, 32, 40, 8, 2, 4)
    check(2, 256, 288, 32, 4, 8)
    check(5, 8, 8, 4, 1, 1)            # no redundancy
    print("eplb transfers: %d layers equal to the numpy model (seed %d)" %
          (checks, seed))


main()
