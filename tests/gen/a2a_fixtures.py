#!/usr/bin/python3
"""a2a-layout fixtures:

  testdata/a2a-example.npy    [4, 6, 2] i64: the intranode worked example of
                              shared/reference/a2a-notes.md §4.5.
  testdata/a2a-dsv3-trace.npy [32, 64, 8] i32: a logical routing trace for
                              DeepSeek-V3 on 32 ranks: each token takes 8
                              distinct experts drawn with the probabilities
                              of MoE layer 10 (input layer 13) of
                              testdata/eplb-dsv3-prefill_in1024.json.

Run from the repository root: /usr/bin/python3 tests/gen/a2a_fixtures.py
(numpy, seed 20261122).
"""
import json

import numpy as np

ex = np.array([
    [[0, 3], [5, -1], [2, 3], [7, 6], [1, 1], [4, 2]],
    [[6, 7], [0, 2], [-1, -1], [3, 4], [5, 0], [2, 6]],
    [[1, 5], [3, 3], [0, 7], [4, 6], [2, 1], [6, 5]],
    [[7, 0], [2, 4], [5, 6], [1, 3], [0, -1], [4, 7]]], dtype=np.int64)
np.save("testdata/a2a-example.npy", ex)

rng = np.random.default_rng(20261122)
load = np.array(json.load(open("testdata/eplb-dsv3-prefill_in1024.json"))["logical_count"][13])
p = load / load.sum()
trace = np.stack([np.stack([rng.choice(256, 8, replace=False, p=p) for _ in range(64)])
                  for _ in range(32)]).astype(np.int32)
np.save("testdata/a2a-dsv3-trace.npy", trace)
