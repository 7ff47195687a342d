#!/usr/bin/python3
"""Goldens for eplb-plan from the two reference implementations.

Runs deepseek-ai/EPLB's rebalance_experts and the waterfill reference's
(a rebalance_experts with a round-robin waterfilling packer)
under Debian's python3-torch on tie-free random integer loads, and writes
  testdata/eplb-<case>.npy                   the loads [L, E] (i64)
  testdata/eplb-<case>.deepseek.out.npy      phy2log, log2phy (max width), logcnt
  testdata/eplb-<case>.waterfill.out.npy     phy2log, log2phy (R-E+1), logcnt
  testdata/eplb-goldens.txt                  one line per case: name R K N G
Neither reference is part of this repository: pass their paths.

  /usr/bin/python3 tests/gen/eplb_goldens.py DEEPSEEK_EPLB_PY SEED_TXT

DEEPSEEK_EPLB_PY: eplb.py of github.com/deepseek-ai/EPLB (commit 5791971);
SEED_TXT: the text holding the waterfill reference (outside this repository;
the code between its EVOLVE-BLOCK markers is executed).  Random seed 20261122.
"""
import importlib.util
import os
import sys
import types

import numpy as np
import torch

T = "testdata"
CASES = [
    # name, L, E, R, K, N, G
    ("hier-small", 4, 16, 24, 4, 2, 8),
    ("hier-wide", 3, 64, 80, 8, 4, 16),
    ("global-fallback", 3, 12, 18, 3, 2, 6),
    ("one-node", 4, 32, 40, 1, 1, 8),
    ("one-slot", 2, 8, 16, 2, 2, 16),
    ("no-spare", 2, 16, 16, 4, 2, 4),
    ("dsv3-shape", 2, 256, 288, 8, 4, 32),
]


def load_deepseek(path):
    spec = importlib.util.spec_from_file_location("deepseek_eplb", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m.rebalance_experts


def load_seed(path):
    text = open(path).read()
    code = text[text.index("# EVOLVE-BLOCK-START"):text.index("# EVOLVE-BLOCK-END")]
    m = types.ModuleType("seed_eplb")
    exec(compile(code, path, "exec"), m.__dict__)
    return m.rebalance_experts


def save_stream(path, arrays):
    with open(path, "wb") as f:
        for a in arrays:
            np.save(f, np.asarray(a, dtype=np.int64))


def main():
    deepseek = load_deepseek(sys.argv[1])
    seed = load_seed(sys.argv[2])
    rng = np.random.default_rng(20261122)
    lines = []
    for name, L, E, R, K, N, G in CASES:
        # skewed, distinct integer loads: sums stay exact in float32
        w = np.zeros((L, E), dtype=np.int64)
        for l in range(L):
            v = rng.lognormal(0, 1.2, size=E * 4)
            v = np.unique(np.round(v / v.max() * 60000).astype(np.int64) + 1)
            w[l] = rng.permutation(v)[:E] if len(v) >= E else np.arange(1, E + 1) * 97
        np.save(os.path.join(T, "eplb-%s.npy" % name), w)
        tw = torch.tensor(w)
        save_stream(os.path.join(T, "eplb-%s.deepseek.out.npy" % name),
                    [x.numpy() for x in deepseek(tw, R, K, N, G)])
        save_stream(os.path.join(T, "eplb-%s.waterfill.out.npy" % name),
                    [x.numpy() for x in seed(tw, R, K, N, G)])
        lines.append("%s %d %d %d %d" % (name, R, K, N, G))
    # the README example of deepseek-ai/EPLB, hierarchical, 2 layers
    w = np.array([[90, 132, 40, 61, 104, 165, 39, 4, 73, 56, 183, 86],
                  [20, 107, 104, 64, 19, 197, 187, 157, 172, 86, 16, 27]])
    np.save(os.path.join(T, "eplb-readme.npy"), w)
    save_stream(os.path.join(T, "eplb-readme.deepseek.out.npy"),
                [x.numpy() for x in deepseek(torch.tensor(w), 16, 4, 2, 8)])
    save_stream(os.path.join(T, "eplb-readme.waterfill.out.npy"),
                [x.numpy() for x in seed(torch.tensor(w), 16, 4, 2, 8)])
    lines.append("readme 16 4 2 8")
    open(os.path.join(T, "eplb-goldens.txt"), "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
