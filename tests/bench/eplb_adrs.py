#!/usr/bin/python3
"""eplb_adrs.py - the OpenEvolve/ADRS protocol on per-step load logs: plan
on the last K windows of N steps, score the plan on the next window, move
on by one window; report the total balancedness (sum of mean GPU loads
over sum of maxima, as vLLM logs it) averaged over the windows scored.

Two logs:
  mixtral   the real Mixtral-8x7B routing records (vLLM decode, 32 layers,
            8 experts, top-2; testdata/real, SOURCES.md): the decode
            tokens of gsm8k then humaneval, each token one step;
  drift     a synthetic log: 16 layers of 64 experts whose popularity
            drifts (a random walk of the log-weights), 512 top-2 tokens a
            step, seeded.
Plans compared:
  ds-last    -a deepseek on the last window (what vLLM does)
  best-last  -a best on the last window
  best-hist2 -a best on the last 2 windows as 2 scenarios (--history 2)
  best-hist  -a best on the last K windows as K scenarios (--history K)
  oracle     -a best on the window being scored (the ceiling)

  /usr/bin/python3 tests/bench/eplb_adrs.py [DATA_DIR]

Needs build/bin/eplb-plan and numpy.
"""
import collections
import gzip
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

BIN = os.path.join("build", "bin", "eplb-plan")


def mixtral_log(data):
    """[T, 32, 8] counts: a step per decode token, both traces in turn."""
    steps = collections.OrderedDict()
    for name in ("gsm8k_2_routing.jsonl", "humaneval_2_routing.jsonl"):
        path = os.path.join(data, name)
        # testdata/real keeps the traces gzipped (SOURCES.md)
        for line in (gzip.open(path + ".gz", "rt") if not
                     os.path.exists(path) else open(path)):
            r = json.loads(line)
            key = (name, r["problem_id"], r["token_idx"])
            steps.setdefault(key, []).append((r["layer"], r["experts"]))
    log = np.zeros((len(steps), 32, 8))
    for t, key in enumerate(sorted(steps)):
        for layer, experts in steps[key]:
            for x in experts:
                log[t, layer, x] += 1
    return log


def drift_log(T=2000, L=16, E=64, tokens=512, seed=1):
    rng = np.random.default_rng(seed)
    logw = rng.normal(0, 1.0, (L, E))
    log = np.zeros((T, L, E))
    for t in range(T):
        logw += rng.normal(0, 0.01, (L, E))
        p = np.exp(logw)
        p /= p.sum(1, keepdims=True)
        for l in range(L):
            log[t, l] = rng.multinomial(2 * tokens, p[l])
    return log


def run(args, tmp):
    r = subprocess.run([BIN] + args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("eplb-plan %s: %s" % (" ".join(args), r.stderr))
    return r.stdout


def score(plan, window, opts, tmp):
    path = os.path.join(tmp, "next.npy")
    np.save(path, window)
    out = run(opts + ["--eval", plan, path], tmp)
    for line in out.splitlines():
        f = line.split(",")
        if f[1] == "total":
            return float(f[5])
    sys.exit("no total row")


def protocol(log, N, K, opts, tmp):
    logpath = os.path.join(tmp, "log.npy")
    plan = os.path.join(tmp, "plan.npy")
    res = collections.defaultdict(list)
    for t in range(K * N, log.shape[0] - N + 1, N):
        np.save(logpath, log[:t])
        nxt = log[t:t + N].sum(0)
        cur = os.path.join(tmp, "cur.npy")
        np.save(cur, nxt)
        for name, args in (
                ("ds-last", ["-a", "deepseek", "--window", str(N), logpath]),
                ("best-last", ["--window", str(N), logpath]),
                ("best-hist2", ["--window", str(N), "--history", "2",
                                logpath]),
                ("best-hist", ["--window", str(N), "--history", str(K),
                               logpath]),
                ("oracle", [cur])):
            run(opts + args + ["-o", plan], tmp)
            res[name].append(score(plan, nxt, opts, tmp))
    return res


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else "testdata/real"
    cases = [
        ("mixtral", mixtral_log(data), 16, 4, ["-r", "12", "-G", "4"]),
        ("mixtral", None, 16, 4, ["-r", "16", "-G", "8"]),
        ("drift", drift_log(), 100, 4, ["-r", "80", "-G", "16"]),
        ("drift", None, 100, 4, ["-r", "80", "-G", "16", "-n", "2",
                                 "-g", "8"]),
    ]
    last = None
    with tempfile.TemporaryDirectory() as tmp:
        print("log opts N K windows plan mean worst")
        for name, log, N, K, opts in cases:
            log = last if log is None else log
            last = log
            res = protocol(log, N, K, opts, tmp)
            for p, v in res.items():
                print("%s '%s' %d %d %d %s %.4f %.4f" % (
                    name, " ".join(opts), N, K, len(v), p, np.mean(v),
                    np.min(v)))


main()
