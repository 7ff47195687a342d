#!/usr/bin/python3
"""Turn the real Mixtral-8x7B routing traces (vLLM decode, testdata/real,
see SOURCES.md there) into a2a-layout fixtures:

  testdata/a2a-mixtral-gsm8k.npy     [32 layers, 4 ranks, 60 tokens, 2] i32
  testdata/a2a-mixtral-humaneval.npy [32 layers, 4 ranks, 80 tokens, 2] i32

Each layer's decode tokens, in (problem_id, token_idx) order, cut to the
first 4*T and split into 4 ranks of T consecutive tokens: a layer is one
step of an EP-4 group (8 experts, 2 per rank).  Run from the repository root:

  /usr/bin/python3 tests/gen/a2a_mixtral.py testdata/real
"""
import collections
import gzip
import json
import os
import sys

import numpy as np


def convert(path, T, out):
    layers = collections.defaultdict(list)
    # testdata/real keeps the traces gzipped (SOURCES.md)
    for line in (gzip.open(path + ".gz", "rt") if not os.path.exists(path)
                 else open(path)):
        r = json.loads(line)
        layers[r["layer"]].append((r["problem_id"], r["token_idx"], r["experts"]))
    steps = []
    for layer in sorted(layers):
        toks = sorted(layers[layer])
        ids = np.array([e for _, _, e in toks[:4 * T]], dtype=np.int32)
        assert ids.shape == (4 * T, 2), (layer, ids.shape)
        steps.append(ids.reshape(4, T, 2))
    np.save(out, np.stack(steps))


real = sys.argv[1]
convert(os.path.join(real, "gsm8k_2_routing.jsonl"), 60, "testdata/a2a-mixtral-gsm8k.npy")
convert(os.path.join(real, "humaneval_2_routing.jsonl"), 80, "testdata/a2a-mixtral-humaneval.npy")
