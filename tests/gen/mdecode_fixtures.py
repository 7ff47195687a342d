#!/usr/bin/python3
"""mdecode fixtures (small, so that a person can read them with tensor-cat):

  testdata/mdecode-example.npy  the stream q [1,4,1,8] f16, k and v
                                [1,2,10,8] f16 (a KV cache of M = 10
                                positions), mask [1,2,10] bool: 4 query
                                heads over 2 kv heads (GQA group 2); used
                                with --valid-length 7, where kv head 1 has
                                every valid position masked.
  testdata/mdecode-flat.npy     the same problem as flat buffers:
                                q, then k, v and mask as 1-D buffers whose
                                first B*KH*V*D (mask: B*KH*V) elements are
                                [B, KH, V, D] with V = 7, followed by
                                padding; used with --kv-heads 2.
  testdata/mdecode-bmhd.npy     the example with k and v as [B, M, KH, D]
                                = [1, 10, 2, 8] (flash-attn's, vLLM's).
  testdata/mdecode-paged.npy    two sequences of the example's data in a
                                paged cache: q [2,4,1,8], k and v [6
                                blocks, 4 per block, 2, 8], mask [2,2,10];
                                mdecode-paged-table.npy [2, 3] i32 gives
                                sequence 0 blocks 4, 1 and sequence 1
                                blocks 4, 0 (block 4 shared, the rest
                                padded with -1); mdecode-paged-lens.npy
                                [2] i32 = 7, 5.

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

# [B, M, KH, D]
f = io.BytesIO()
for a in (q, k.transpose(0, 2, 1, 3).copy(), v.transpose(0, 2, 1, 3).copy(), mask):
    np.save(f, a)
open("testdata/mdecode-bmhd.npy", "wb").write(f.getvalue())

# paged: blocks of 4 positions; sequence 0 = the example's first 7
# positions, sequence 1 its first 5 (positions 0-3 in the shared block 4)
bs, nb = 4, 6
pk = np.full((nb, bs, KH, D), np.nan, np.float16)
pv = np.full((nb, bs, KH, D), np.nan, np.float16)
table = np.array([[4, 1, -1], [4, 0, -1]], np.int32)
lens = np.array([7, 5], np.int32)
for b in range(2):
    for j in range((lens[b] + bs - 1) // bs):
        n = min(bs, lens[b] - j * bs)
        pk[table[b, j], :n] = k[0, :, j * bs:j * bs + n].transpose(1, 0, 2)
        pv[table[b, j], :n] = v[0, :, j * bs:j * bs + n].transpose(1, 0, 2)
f = io.BytesIO()
for a in (np.concatenate([q, q]), pk, pv, np.concatenate([mask, mask])):
    np.save(f, a)
open("testdata/mdecode-paged.npy", "wb").write(f.getvalue())
np.save("testdata/mdecode-paged-table.npy", table)
np.save("testdata/mdecode-paged-lens.npy", lens)
