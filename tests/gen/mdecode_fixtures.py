#!/usr/bin/python3
"""mdecode fixtures (small, so that a person can read them with tensor-cat):

  testdata/mdecode-example.npy  the stream q [1,4,1,8] f16, k and v
                                [1,2,10,8] f16 (a KV cache of M = 10
                                positions), mask [1,2,10] bool: 4 query
                                heads over 2 kv heads (GQA group 2); used
                                with --valid-length 7, where kv head 1 has
                                every valid position masked.
  testdata/mdecode-flat.npy     the same problem in the seed's flat form:
                                q, then k, v and mask as 1-D buffers whose
                                first B*KH*V*D (mask: B*KH*V) elements are
                                [B, KH, V, D] with V = 7, followed by
                                padding; used with --kv-heads 2.

Run from the repository root: /usr/bin/python3 tests/gen/mdecode_fixtures.py
(numpy, seed 20261122).
"""
import io

import numpy as np

rng = np.random.default_rng(20261122)
B, QH, KH, M, D, V = 1, 4, 2, 10, 8, 7
q = rng.standard_normal((B, QH, 1, D)).astype(np.float16)
k = rng.standard_normal((B, KH, M, D)).astype(np.float16)
v = rng.standard_normal((B, KH, M, D)).astype(np.float16)
mask = rng.integers(0, 2, (B, KH, M)).astype(bool)
mask[0, 1, :V] = True          # kv head 1: every valid position masked
mask[0, 0, 0] = False

f = io.BytesIO()
for a in (q, k, v, mask):
    np.save(f, a)
open("testdata/mdecode-example.npy", "wb").write(f.getvalue())

pad = 5
kf = np.concatenate([k[:, :, :V].reshape(-1), np.full(pad * D, np.nan, np.float16)])
vf = np.concatenate([v[:, :, :V].reshape(-1), np.full(pad * D, np.nan, np.float16)])
mf = np.concatenate([mask[:, :, :V].reshape(-1), np.ones(pad, bool)])
f = io.BytesIO()
for a in (q, kf, vf, mf):
    np.save(f, a)
open("testdata/mdecode-flat.npy", "wb").write(f.getvalue())
