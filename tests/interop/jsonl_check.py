"""a2a-layout on routing records (JSON lines) lays out exactly the trace
a numpy model builds from them as a2a-layout(1) says: a step per distinct
step value (ascending), its tokens in (sequence, token) order dealt over
R ranks in contiguous blocks of ceil(N/R), padded with -1; K the longest
expert list.  Checked on random records (shuffled, ragged expert lists,
custom field names) and on the real Mixtral records when present."""
import gzip
import json
import os
import random
import subprocess

import numpy as np

BIN = os.environ.get("MOEKIT_BIN", "build/bin")
REAL = os.path.join(os.path.dirname(__file__), "../../testdata/real")
seed = int.from_bytes(os.urandom(4), "little")
rnd = random.Random(seed)
checks = 0


def model(recs, R, step, seq, tok, experts):
    steps = sorted({r[step] for r in recs})
    K = max(len(r[experts]) for r in recs)
    per = {}
    for i, r in enumerate(recs):
        per.setdefault(r[step], []).append(
            (r.get(seq, 0) if seq else 0, r.get(tok, 0) if tok else 0, i,
             r[experts]))
    T = max((len(v) + R - 1) // R for v in per.values())
    x = np.full((len(steps), R, T, K), -1, np.int32)
    for s, st in enumerate(steps):
        toks = sorted(per[st])
        cnt = (len(toks) + R - 1) // R
        for t, (_, _, _, ids) in enumerate(toks):
            x[s, t // cnt, t % cnt, :len(ids)] = ids
    return x


def layout(path, *args):
    return subprocess.run([os.path.join(BIN, "a2a-layout")] + list(args) +
                          [path], check=True, capture_output=True).stdout


def compare(recs, R, E, fields=None):
    global checks
    names = fields or ["layer", "problem_id", "token_idx", "experts"]
    with open("r.jsonl", "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")
    np.save("m.npy", model(recs, R, names[0],
                           None if names[1] == "-" else names[1],
                           None if names[2] == "-" else names[2], names[3]))
    extra = ["--fields", ",".join(names)] if fields else []
    a = layout("r.jsonl", "-E", str(E), "-R", str(R), *extra)
    b = layout("m.npy", "-E", str(E))
    assert a == b, ("outputs differ", R, E, fields, seed)
    checks += 1


for trial in range(12):
    R = rnd.choice([2, 4, 8])
    E = R * rnd.choice([1, 2, 4])
    recs = []
    for layer in rnd.sample(range(40), rnd.randint(1, 5)):
        for p in range(rnd.randint(1, 3)):
            for t in range(rnd.randint(1, 30)):
                k = rnd.randint(1, 3)
                recs.append({"problem_id": p, "layer": layer,
                             "token_idx": t, "gating_probs": [0.5] * k,
                             "experts": [rnd.randrange(-1, E)
                                         for _ in range(k)]})
    rnd.shuffle(recs)
    if trial % 3 == 2:
        recs = [{"blk": r["layer"], "ids": r["experts"]} for r in recs]
        compare(recs, R, E, ["blk", "-", "-", "ids"])
    else:
        compare(recs, R, E)

# the real trace, kept gzipped (testdata/real/SOURCES.md)
real = os.path.join(REAL, "gsm8k_2_routing.jsonl.gz")
recs = [json.loads(l) for l in gzip.open(real, "rt")]
compare(recs, 4, 8)
print("jsonl: %d trials equal to the numpy model (seed %d)" % (checks, seed))
