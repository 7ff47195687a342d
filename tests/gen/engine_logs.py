#!/usr/bin/python3
"""What each engine records, at DeepSeek-V3's scale, for the README's
record -> decide -> deploy commands (make demo writes them to build/demo/).

DeepSeek-V3: 61 layers (0-2 dense), 58 MoE layers of 256 experts, top-8,
on 32 GPUs; each step's counts drift among the 12 real SGLang dumps'
popularities (tests/gen/eplb_steps.py, 4096 tokens a step).  Into DIR:

  stats.jsonl  vLLM's statistics (PR #41141) recorded every 10 steps
               (expert_load_stats_interval 10): an eplb_load_meta line,
               then eplb_load_stats records, loads by physical slot (288:
               32 redundant) credited through their p2l_map
  rec.pt       SGLang's recorder, stat mode, buffer -1: torch.save's zip
               of {"rank": 0, "logical_count": int32 [T, 61, 256],
               "average_utilization_rate_over_window": None}, written
               without torch (the pickle torch 2.x writes, protocol 2)
  stats/       TensorRT-LLM's statistics (EXPERT_STATISTIC_ITER_RANGE
               100-400): meta_info.json and rank0/rank1.safetensors, I64
               counts "<iteration>_<layer>" by expert, the tokens split
               over the ranks, tensors sorted by name as the Rust writer
               sorts them, the header padded with spaces to 8 bytes

  /usr/bin/python3 tests/gen/engine_logs.py -o build/demo --steps 1200

Deterministic for a seed (--seed, default 1).
"""
import argparse
import json
import os
import struct
import sys
import zipfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eplb_steps import dumps, drift  # noqa: E402

DENSE = 3          # DeepSeek-V3's first three layers have no experts
SLOTS = 288        # 256 experts and 32 redundant slots on 32 GPUs


def vllm_stats(path, counts, every, rng):
    """vLLM's records: one every `every` steps, loads by slot."""
    T, L, E = counts.shape
    p2l = np.concatenate([np.arange(E), rng.choice(E, SLOTS - E,
                                                   replace=False)])
    nslots = np.bincount(p2l, minlength=E)
    first = np.zeros(SLOTS, bool)
    first[np.unique(p2l, return_index=True)[1]] = True
    maps = json.dumps([p2l.tolist()] * L)
    with open(path, "w") as f:
        f.write('{"record_type": "eplb_load_meta", "version": 1}\n')
        for t in range(0, T, every):
            c = counts[t]
            # an expert's tokens split over its slots, the remainder to
            # its first slot
            slot = c[:, p2l] // nslots[p2l]
            slot[:, first] += (c % nslots)[:, p2l[first]]
            f.write('{"record_type": "eplb_load_stats", "version": 1, '
                    '"step": %d, "num_ranks": 32, "expert_load": %s, '
                    '"p2l_map": %s}\n' % (t, json.dumps(slot.tolist()),
                                          maps))


def pickle_counts(shape):
    """torch.save's data.pkl of the recorder's dict, an int32 tensor of
    shape stored as archive/data/0 (protocol 2, as torch writes it)."""
    def uni(s):
        b = s.encode()
        return b"X" + struct.pack("<I", len(b)) + b

    def integer(v):
        return b"J" + struct.pack("<i", v)

    n = int(np.prod(shape))
    stride = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
    p = b"\x80\x02}(" + uni("rank") + integer(0) + uni("logical_count")
    p += b"ctorch._utils\n_rebuild_tensor_v2\n("
    p += b"(" + uni("storage") + b"ctorch\nIntStorage\n" + uni("0")
    p += uni("cpu") + integer(n) + b"tQ" + integer(0)
    p += b"(" + b"".join(integer(d) for d in shape) + b"t"
    p += b"(" + b"".join(integer(d) for d in stride) + b"t"
    p += b"\x89ccollections\nOrderedDict\n)RtR"
    p += uni("average_utilization_rate_over_window") + b"Nu."
    return p


def sglang_pt(path, counts):
    T, L, E = counts.shape
    full = np.zeros((T, DENSE + L, E), "<i4")
    full[:, DENSE:] = counts
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", pickle_counts(full.shape))
        z.writestr("archive/data/0", full.tobytes())
        z.writestr("archive/version", "3\n")


def safetensors(path, tensors):
    """tensors: {name: int64 array}, written as safetensors' Rust writer
    does (names sorted bytewise, the header padded with spaces)."""
    names = sorted(tensors, key=lambda s: s.encode())
    hdr, at = {}, 0
    for n in names:
        size = tensors[n].nbytes
        hdr[n] = {"dtype": "I64", "shape": list(tensors[n].shape),
                  "data_offsets": [at, at + size]}
        at += size
    h = json.dumps(hdr, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for n in names:
            f.write(tensors[n].astype("<i8").tobytes())


def trtllm_stats(d, counts, first_iter, ranks, rng):
    os.makedirs(d, exist_ok=True)
    T, L, E = counts.shape
    with open(os.path.join(d, "meta_info.json"), "w") as f:
        json.dump({"num_experts": E, "num_experts_per_token": 8}, f)
    # each rank's share of every count (its own tokens)
    share = [dict() for _ in range(ranks)]
    for t in range(T):
        for layer in range(L):
            parts = rng.multinomial(counts[t, layer],
                                    [1.0 / ranks] * ranks).T
            for r in range(ranks):
                share[r]["%d_%d" % (first_iter + t, DENSE + layer)] = parts[r]
    for r in range(ranks):
        safetensors(os.path.join(d, "rank%d.safetensors" % r), share[r])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    td = os.path.join(here, "..", "..", "testdata")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", required=True, help="the directory")
    ap.add_argument("--steps", type=int, default=1200)
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    P = dumps([td, os.path.join(td, "eplb-dsv3-more")])
    os.makedirs(a.o, exist_ok=True)
    counts = np.stack(list(drift(P, a.steps, rng)))
    vllm_stats(os.path.join(a.o, "stats.jsonl"), counts, 10, rng)
    sglang_pt(os.path.join(a.o, "rec.pt"), counts)
    trtllm_stats(os.path.join(a.o, "stats"), counts[:a.iterations], 100, 2,
                 rng)


if __name__ == "__main__":
    main()
