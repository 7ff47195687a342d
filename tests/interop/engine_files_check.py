"""The engines' own files through moekit, checked with loaders written here
from each engine's source:

  vLLM     tools/eplb/generate_static_mapping.py's record and
           EplbState._load_initial_mapping (tests/distributed/
           test_eplb_utils.py at the commit eplb-plan(1) names): one JSON
           line, record_type eplb_initial_mapping, version 1,
           num_redundant_experts and num_slots that fit, a key "0".."L-1"
           per MoE layer; and its eplb_load_stats lines (loads by physical
           slot with each step's p2l_map) replaying exactly as the same
           expert loads [T, L, E];
  TensorRT-LLM  yaml.safe_load then MoeLoadBalancerConfig(**d) (extra keys
           forbidden), initial_global_assignments looked up by the int
           layer index, each list num_slots long holding every expert; and
           its rank*.safetensors statistics (testdata/trtllm-stats/) read
           as their key-wise sum, testdata/trtllm-stats-log.npy;
  SGLang   {"physical_to_logical_map": [[R] x L_model]}, every model layer.

Fresh random loads each run (the seed is printed).  Run by
tests/interop/run.sh."""
import json
import os
import subprocess
import sys
import time

import numpy as np
import yaml

BIN = os.environ["MOEKIT_BIN"]
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                    "testdata")
seed = int(os.environ.get("MOEKIT_SEED", time.time_ns() % 2**32))
rng = np.random.default_rng(seed)
checks = 0


def fail(msg):
    sys.exit("engine files check failed (seed %d): %s" % (seed, msg))


def run(tool, args):
    p = subprocess.run([os.path.join(BIN, tool), "--quiet"] + args,
                       capture_output=True)
    if p.returncode != 0:
        fail("%s %s: %s" % (tool, " ".join(args), p.stderr.decode()))
    return p.stdout


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        fail(what)


def vllm_mapping(path, L, E, R):
    """vLLM's _load_initial_mapping: the [L, R] map, or an exception."""
    rec = None
    for line in open(path):
        if line.strip():
            r = json.loads(line)
            if r.get("record_type") == "eplb_initial_mapping":
                rec = r
    assert rec is not None and rec["version"] == 1
    assert rec["num_redundant_experts"] == R - E
    assert rec["num_slots"] == R
    a = rec["initial_global_assignments"]
    assert sorted(a, key=int) == [str(layer) for layer in range(L)]
    p2l = np.array([a[str(layer)] for layer in range(L)])
    assert p2l.shape == (L, R) and p2l.min() >= 0 and p2l.max() < E
    for row in p2l:
        assert len(np.unique(row)) == E
    return p2l


def trtllm_config(path, layers, E, G):
    """TensorRT-LLM's MoeLoadBalancerConfig from its YAML."""
    d = yaml.safe_load(open(path))
    assert set(d) <= {"num_slots", "initial_global_assignments",
                      "layer_updates_per_iter"}, d.keys()
    R = d["num_slots"]
    assert R >= E and R % G == 0
    assert isinstance(d["layer_updates_per_iter"], int)
    a = d["initial_global_assignments"]
    out = []
    for layer in layers:                       # looked up by int
        row = a[layer]
        assert len(row) == R and set(row) == set(range(E))
        out.append(row)
    assert sorted(a) == list(layers)
    return np.array(out)


def main():
    L, E, G = 5, 16, 4
    R = E + 4
    w = rng.poisson(40, (L, E)) * (rng.random((L, E)) < 0.9)
    w[:, 0] += 1                               # no all-zero layer
    np.save("w.npy", w.astype(np.int64))
    args = ["-r", str(R), "-G", str(G), "w.npy"]
    run("eplb-plan", args + ["-f", "npy", "--emit", "phy2log", "-o",
                             "p.npy"])
    want = np.load("p.npy")
    run("eplb-plan", args + ["-o", "m.jsonl"])
    try:
        check(np.array_equal(vllm_mapping("m.jsonl", L, E, R), want),
              "vLLM's map differs from phy2log")
    except (AssertionError, KeyError, ValueError) as x:
        fail("vLLM's loader refused m.jsonl: %r" % x)
    run("eplb-plan", args + ["-o", "c.yaml"])
    try:
        check(np.array_equal(trtllm_config("c.yaml", range(L), E, G), want),
              "TensorRT-LLM's assignments differ from phy2log")
    except (AssertionError, KeyError, TypeError) as x:
        fail("TensorRT-LLM's loader refused c.yaml: %r" % x)
    run("eplb-plan", args + ["-o", "s.json"])
    s = json.load(open("s.json"))
    check(list(s) == ["physical_to_logical_map"] and np.array_equal(
        np.array(s["physical_to_logical_map"]), want), "SGLang's map")
    # a dump with dense layers: TensorRT-LLM's keys are the model's layers
    wd = np.concatenate([np.zeros((2, E), np.int64), w])
    np.save("wd.npy", wd)
    run("eplb-plan", ["-r", str(R), "-G", str(G), "--skip-zero-layers",
                      "-o", "d.yaml", "wd.npy"])
    try:
        trtllm_config("d.yaml", range(2, L + 2), E, G)
        check(True, "")
    except (AssertionError, KeyError, TypeError) as x:
        fail("TensorRT-LLM's loader refused d.yaml: %r" % x)
    # vLLM's statistics: physical loads under changing maps replay as the
    # expert loads they are
    T = 40
    log = rng.poisson(25, (T, L, E))
    with open("stats.jsonl", "w") as f:
        f.write(json.dumps({"record_type": "eplb_load_meta",
                            "version": 1}) + "\n")
        for t in range(T):
            maps, loads = [], []
            for layer in range(L):
                p2l = np.concatenate([rng.permutation(E),
                                      rng.integers(0, E, R - E)])
                sl = np.zeros(R, int)
                for e in range(E):
                    slots = np.flatnonzero(p2l == e)
                    q, r = divmod(int(log[t, layer, e]), len(slots))
                    sl[slots] = q
                    sl[slots[:r]] += 1
                maps.append(p2l.tolist())
                loads.append(sl.tolist())
            f.write(json.dumps({"record_type": "eplb_load_stats",
                                "version": 1, "step": 5 * t,
                                "num_ranks": G, "expert_load": loads,
                                "p2l_map": maps}) + "\n")
    # records 5 steps apart each stand for their 5 steps: the log of
    # every step repeats each record 5 times
    np.save("log.npy", np.repeat(log, 5, axis=0).astype(np.int64))
    rep = ["-r", str(R), "-G", str(G), "--window", "40", "--interval",
           "40,80", "--engine", "vllm,ideal"]
    check(run("eplb-replay", rep + ["stats.jsonl"]) ==
          run("eplb-replay", rep + ["log.npy"]),
          "vLLM's statistics replay unlike their loads")
    # TensorRT-LLM's statistics: the key-wise sum over rank files
    st = os.path.join(DATA, "trtllm-stats")
    run("eplb-plan", ["-r", "12", "-G", "2", "--window", "3", "-o", "a.npy",
                      st])
    run("eplb-plan", ["-r", "12", "-G", "2", "--window", "3", "-o", "b.npy",
                      os.path.join(DATA, "trtllm-stats-log.npy")])
    # the plan's rows are the model's layers: 3 and 4, rows 0-2 trivial
    check(np.array_equal(np.load("a.npy")[3:], np.load("b.npy")),
          "TensorRT-LLM's statistics plan unlike their log")
    rep = ["-r", "12", "-G", "2", "--engine", "trtllm",
           "--layer-updates-per-iter", "1,2"]
    check(run("eplb-replay", rep + [st]) == run(
        "eplb-replay", rep + [os.path.join(DATA, "trtllm-stats-log.npy")]),
        "TensorRT-LLM's statistics replay unlike their log")
    run("eplb-plan", ["-r", "12", "-G", "2", "-o", "t.yaml", st])
    try:
        trtllm_config("t.yaml", [3, 4], 8, 2)
        check(True, "")
    except (AssertionError, KeyError, TypeError) as x:
        fail("TensorRT-LLM's loader refused t.yaml: %r" % x)
    print("engine files: %d checks with vLLM's, TensorRT-LLM's and "
          "SGLang's loaders passed (seed %d)" % (checks, seed))


main()
