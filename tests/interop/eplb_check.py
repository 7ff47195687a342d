"""eplb-plan against numpy: --eval's table and gpu_load recomputed from the
plan and the loads; scenario plans checked for what they promise (every
expert placed, replicas of an expert on distinct GPUs when there are
enough, an objective never above the references' on any layer); -f sglang
read back the way SGLang reads --init-expert-location (json.loads, the
one key passed as keyword arguments, a [num_layers, num_physical] map,
every logical expert with a physical replica).  Fresh random loads each
run (the seed is printed).  Run by tests/interop/run.sh."""
import csv
import io
import json
import os
import subprocess
import sys
import time

import numpy as np

from npstream import arrays

BIN = os.environ["MOEKIT_BIN"]
seed = int(os.environ.get("MOEKIT_SEED", time.time_ns() % 2**32))
rng = np.random.default_rng(seed)
checks = 0


def fail(msg):
    sys.exit("eplb check failed (seed %d): %s" % (seed, msg))


def run(args):
    p = subprocess.run([os.path.join(BIN, "eplb-plan")] + args,
                       capture_output=True)
    if p.returncode != 0:
        fail("eplb-plan %s: %s" % (" ".join(args), p.stderr.decode()))
    return p.stdout


def close(what, got, want, rel=1e-9, tol=0.0):
    global checks
    checks += 1
    got, want = np.asarray(got, float), np.asarray(want, float)
    if got.shape != want.shape or not np.allclose(got, want, rtol=rel,
                                                  atol=tol):
        fail("%s:\n got %r\nwant %r" % (what, got, want))


def loads(S, L, E, zero=()):
    """S scenarios of skewed loads [L, E]; the layers in zero all zero."""
    w = rng.gamma(0.4, 1000, size=(S, L, E)).round()
    w[:, list(zero), :] = 0
    names = []
    for s in range(S):
        names.append("sc%d.npy" % s)
        np.save(names[-1], w[s])
    return w, names


def gpu_loads(w, p2l, G):
    """[S, L, G]: each slot's expert load split evenly over its replicas."""
    S, L, E = w.shape
    R = p2l.shape[1]
    out = np.zeros((S, L, G))
    for l in range(L):
        cnt = np.bincount(p2l[l], minlength=E)
        share = w[:, l, p2l[l]] / cnt[p2l[l]]
        out[:, l, :] = share.reshape(S, G, R // G).sum(2)
    return out


def check_eval(w, names, p2l, G, cfg):
    """--eval's table and --emit gpu_load against numpy."""
    np.save("plan.npy", p2l)
    S, L, E = w.shape
    gl = gpu_loads(w, p2l, G)
    got = arrays(run(cfg + ["--eval", "plan.npy", "--emit", "gpu_load"] +
                     names))
    close("gpu_load", got[0], gl, 1e-12)
    rows = list(csv.DictReader(io.StringIO(run(
        cfg + ["--eval", "plan.npy"] + names).decode())))
    noeplb = w.reshape(S, L, G, E // G).sum(3).max(2)
    for s in range(S):
        mine = [r for r in rows if r["scenario"] == str(s)]
        per = [r for r in mine if r["layer"] != "total"]
        tot = [r for r in mine if r["layer"] == "total"][0]
        if len(per) != L:
            fail("--eval: %d rows for scenario %d, want %d" % (len(per), s, L))
        mx, mean = gl[s].max(1), gl[s].mean(1)
        col = lambda k, rs: [float(r[k]) for r in rs]
        close("max_load s%d" % s, col("max_load", per), mx, 1e-9)
        close("mean_load s%d" % s, col("mean_load", per), mean, 1e-9)
        close("balancedness s%d" % s, col("balancedness", per),
              np.where(mx > 0, mean / np.where(mx > 0, mx, 1), 1), 0, 1e-6)
        close("noeplb s%d" % s, col("noeplb_max_load", per), noeplb[s],
              1e-9)
        close("total s%d" % s, [float(tot["max_load"]),
                                float(tot["mean_load"]),
                                float(tot["balancedness"])],
              [mx.sum(), mean.sum(), mean.sum() / mx.sum()], 1e-6)
        close("gap s%d" % s, col("gap", per), np.array(
            col("max_load", per)) / np.array(col("lower_bound", per)), 1e-5)


def objective(w, p2l, G, worst):
    """Per layer: mean (or worst) over scenarios of the largest GPU load of
    each scenario's loads normalised to sum 1."""
    sums = w.sum(2, keepdims=True)
    wn = w / np.where(sums > 0, sums, 1)
    m = gpu_loads(wn, p2l, G).max(2)
    return m.max(0) if worst else m.mean(0)


def check_plan(w, p2l, cnt, G, N, hier, refs=()):
    """Counts, and (several scenarios: one scenario keeps the plans of
    earlier releases byte for byte) replicas on distinct GPUs, except in a
    layer that is a reference's plan taken as it is (eplb-plan(1): the one
    case where two replicas may share a GPU)."""
    global checks
    S, L, E = w.shape
    R = p2l.shape[1]
    for l in range(L):
        c = np.bincount(p2l[l], minlength=E)
        checks += 1
        if (c < 1).any() or not np.array_equal(c, cnt[l]):
            fail("layer %d: counts %r, logcnt %r" % (l, c, cnt[l]))
        gpu = np.arange(R) // (R // G)
        room = (G // N if hier else G) if S > 1 else 0
        if any(np.array_equal(p2l[l], ref[l]) for ref in refs):
            room = 0
        for e in np.nonzero((c > 1) & (c <= room))[0]:
            on = gpu[p2l[l] == e]
            checks += 1
            if len(set(on)) != len(on):
                fail("layer %d: expert %d twice on one GPU %r" % (l, e, on))


def scenario_case(S, L, E, R, G, N, K):
    w, names = loads(S, L, E)
    cfg = ["-r", str(R), "-G", str(G), "-n", str(N), "-g", str(K)]
    hier = K % N == 0 and N > 1
    refs = {a: arrays(run(cfg + ["-a", a] + names))[0]
            for a in ("deepseek", "waterfill")}
    for worst in (0, 1):
        obj = ["--objective", "worst"] if worst else []
        best = arrays(run(cfg + obj + names))
        check_plan(w, best[0], best[2], G, N, hier, refs.values())
        mine = objective(w, best[0], G, worst)
        for ref, p in refs.items():
            theirs = objective(w, p, G, worst)
            global checks
            checks += 1
            if (mine > theirs * (1 + 1e-9) + 1e-12).any():
                l = int(np.argmax(mine - theirs))
                fail("%s: best %g above %s %g on layer %d" % (
                    cfg + obj, mine[l], ref, theirs[l], l))
    check_eval(w, names, best[0], G, cfg)


def sglang_case():
    """-f sglang, read back as SGLang reads --init-expert-location."""
    L0, E, R, G = 7, 16, 24, 4
    zero = (0, 1, 2)
    w, names = loads(2, L0, E, zero)
    plan = arrays(run(["-r", str(R), "-G", str(G), "--skip-zero-layers"] +
                      names))[0]
    text = run(["-r", str(R), "-G", str(G), "--skip-zero-layers", "-f",
                "sglang"] + names).decode()
    data = json.loads(text)
    global checks
    checks += 1
    # init_by_mapping(server_args, model_config, **data_dict): one key only
    if set(data) != {"physical_to_logical_map"}:
        fail("sglang keys %r" % sorted(data))
    m = np.array(data["physical_to_logical_map"])
    checks += 1
    if m.shape != (L0, R) or m.dtype.kind != "i":
        fail("sglang map %s %s, want (%d, %d) integers" % (m.shape, m.dtype,
                                                            L0, R))
    for l in range(L0):
        # logical_to_all_physical_map: every logical expert has a replica
        phys = [np.nonzero(m[l] == e)[0] for e in range(E)]
        checks += 1
        if min(len(p) for p in phys) < 1 or m[l].min() < 0 or \
                m[l].max() >= E:
            fail("sglang layer %d: experts without a replica: %r" % (l, m[l]))
    close("sglang dense layers", m[list(zero)],
          np.tile(np.arange(R) % E, (len(zero), 1)), 0)
    # the NPY plan has the same row for every layer, dense ones included
    close("sglang rows = the NPY plan's rows", m, plan, 0)


def main():
    scenario_case(3, 5, 16, 20, 4, 1, 1)
    scenario_case(4, 4, 32, 48, 8, 2, 4)
    scenario_case(2, 3, 64, 80, 16, 4, 8)
    scenario_case(1, 4, 16, 24, 8, 1, 1)
    sglang_case()
    print("eplb: %d checks against numpy and SGLang's reading passed "
          "(seed %d)" % (checks, seed))


main()
