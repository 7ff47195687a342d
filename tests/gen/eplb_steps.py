#!/usr/bin/python3
"""A per-step expert load log [T, L, E] (int32) that drifts the way serving
does, built from the real DeepSeek-V3 dumps' per-layer popularity.

The 12 SGLang dumps (testdata/eplb-dsv3-*.json and testdata/eplb-dsv3-more/,
or the directories given with --dumps) give, for each MoE layer, 12 measured expert popularities:
what the same model routed under 12 workloads.  A step's popularity of
layer l is a mixture of them, weights softmax(z), z a random walk
(--drift per step) that now and then jumps (--switch: the chance a step
that the workload changes), times a slow per-expert wobble exp(u), u an
AR(1) process (--wobble, correlation 0.999 a step).  A step's counts are
Poisson with mean tokens x top-k x popularity (--tokens, top-k 8): the
(token, slot) assignments SGLang's recorder counts, top-k's distinctness
within a token not modelled.

  /usr/bin/python3 tests/gen/eplb_steps.py -o log.npy --steps 10000 \\
      --tokens 4096 --seed 1

Deterministic for a seed.  make check uses small logs of it.
"""
import argparse
import glob
import json
import os

import numpy as np


def dumps(where):
    files = sorted(f for w in where
                   for f in glob.glob(os.path.join(w, "*.json")))
    files = [f for f in files if "logical_count" in open(f).read(200)]
    if not files:
        raise SystemExit("no SGLang dumps (logical_count JSON) in " +
                         " ".join(where))
    rows = []
    for f in files:
        c = np.asarray(json.load(open(f))["logical_count"], float)
        c = c[c.sum(1) > 0]                      # the MoE layers
        rows.append(c / c.sum(1, keepdims=True))
    return np.stack(rows)                        # [D, L, E]


def drift(P, n, rng, tokens=4096, drift=0.05, switch=0.001, wobble=0.02):
    """n steps' counts [L, E] (int), one at a time, from popularities
    P [D, L, E], as the module's docstring says."""
    D, L, E = P.shape
    z = rng.normal(0, 1, D)
    u = np.zeros((L, E))
    rho = 0.999
    for _ in range(n):
        if rng.random() < switch:
            z = rng.normal(0, 2, D)
        else:
            z = z + rng.normal(0, drift, D)
        m = np.exp(z - z.max())
        m /= m.sum()
        u = rho * u + wobble * rng.normal(0, 1, (L, E))
        p = np.einsum("d,dle->le", m, P) * np.exp(u)
        p /= p.sum(1, keepdims=True)
        yield rng.poisson(tokens * 8 * p)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", required=True)
    td = os.path.join(here, "..", "..", "testdata")
    ap.add_argument("--dumps", nargs="+",
                    default=[td, os.path.join(td, "eplb-dsv3-more")])
    ap.add_argument("--steps", type=int, default=10000)
    ap.add_argument("--layers", type=int, default=0,
                    help="the first N MoE layers (default all 58)")
    ap.add_argument("--tokens", type=float, default=4096)
    ap.add_argument("--drift", type=float, default=0.05)
    ap.add_argument("--switch", type=float, default=0.001)
    ap.add_argument("--wobble", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    P = dumps(a.dumps)
    if a.layers:
        P = P[:, :a.layers]
    D, L, E = P.shape
    out = np.lib.format.open_memmap(a.o, mode="w+", dtype=np.int32,
                                    shape=(a.steps, L, E))
    for t, c in enumerate(drift(P, a.steps, rng, a.tokens, a.drift,
                                a.switch, a.wobble)):
        out[t] = c
    out.flush()


if __name__ == "__main__":
    main()
