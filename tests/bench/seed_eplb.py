"""Time the waterfill reference's rebalance_experts (its text outside this
repository) under torch.

usage: seed_eplb.py SEED_TXT LOADS R K N G [REPS]
LOADS is .npy [L, E] or an SGLang JSON dump (all-zero layers dropped, as
eplb-plan --skip-zero-layers does).  Prints the median wall time in ms of
REPS calls (default 11) after one warm-up.
"""
import json
import os
import statistics
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gen"))
from eplb_goldens import load_seed  # noqa: E402  (the reference's EVOLVE block)


def main():
    fn = load_seed(sys.argv[1])
    path = sys.argv[2]
    R, K, N, G = (int(x) for x in sys.argv[3:7])
    reps = int(sys.argv[7]) if len(sys.argv) > 7 else 11
    if path.endswith(".json"):
        w = np.array(json.load(open(path))["logical_count"], dtype=np.float64)
    else:
        w = np.load(path).astype(np.float64)
    w = w[w.sum(1) > 0]
    t = torch.tensor(w)
    fn(t, R, K, N, G)
    ts = []
    for _ in range(reps):
        s = time.perf_counter()
        fn(t, R, K, N, G)
        ts.append(time.perf_counter() - s)
    print("%.3f" % (statistics.median(ts) * 1e3))


main()
