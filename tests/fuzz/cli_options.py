#!/usr/bin/python3
"""cli_options.py - hostile option values, whole processes, every tool.

  cli_options.py BIN_DIR TESTDATA [RUNS [SEED]]

Each run takes a valid command of one tool (eplb-replay's lists, eplb-plan,
mdecode's scales and FP8/MLA/query-token inputs, a2a-layout's sizes),
spoils one or two option values (empty items, stray commas, lists past
the length limit, huge, negative, NaN, unit-suffixed or garbled numbers)
and holds the process to the contract (SPEC): exit 0, 1 or 2, never a
signal; on failure nothing on stdout and one line on stderr naming the
tool; on success only note:/warning: lines on stderr, no NaN or inf in a
table; no file left behind but the one -o named on success.  RUNS (default
400) spread over the tools; SEED (default 1) makes a run repeatable.
Prints the executions per tool, and each broken contract (exit 1).
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile

NUMS = ["", ",", ",,,", "-1", "-0", "0", "1", "nan", "inf", "-inf", "1e300",
        "1e-400", "1e300T", "9" * 40, "18446744073709551616", "0x1f", " 1",
        "1 ", "1.5", "4G", "4Gi", "3Q", "none", "NONE", "all", "\uff11",
        "2/3", "1e3", "65536", "2147483648", "-2147483649", "1,,2", "1,"]
CHARS = ",-.0123456789eEkMGTinfaxX/+ "


def spoil(rng, v):
    """A hostile variant of the option value v."""
    k = rng.randrange(6)
    if k == 0:
        return rng.choice(NUMS)
    if k == 1:                      # a list past the length limit
        return ",".join([v or "1"] * rng.choice([2, 600, 3000]))
    if k == 2:                      # a stray comma
        return rng.choice([",", ""]) + v + rng.choice([",", ",,", ""])
    if k == 3:                      # a character changed, added or cut
        s = list(v or "1")
        i = rng.randrange(len(s) + 1)
        op = rng.randrange(3)
        if op == 0 and i < len(s):
            s[i] = rng.choice(CHARS)
        elif op == 1:
            s.insert(i, rng.choice(CHARS))
        elif i < len(s):
            del s[i]
        return "".join(s)
    if k == 4:                      # an item of NUMS inside the list
        items = (v or "1").split(",")
        items[rng.randrange(len(items))] = rng.choice(NUMS)
        return ",".join(items)
    return v + "," + rng.choice(NUMS)


def commands(td, work):
    """(tool, argv with {opt: value} to spoil, kinds) for each family."""
    log = os.path.join(td, "eplb-replay-log.npy")
    dump = os.path.join(td, "eplb-dsv3-prefill_in1024.json")
    ex = os.path.join(td, "mdecode-example.npy")
    mla = os.path.join(work, "mla.npy")
    a2a = os.path.join(td, "a2a-mixtral-gsm8k-head.jsonl")
    return [
        ("eplb-replay", [log], {
            "--engine": "ideal,vllm", "-r": "288", "-G": "32", "-n": "4",
            "-g": "8", "--window": "40", "--interval": "40,80",
            "--max-moves": "none,300", "--min-gain": "none",
            "--expert-bytes": "44M", "--history": "1", "--async": "on",
            "--score-from": "40", "--shard": "1/2", "--threads": "2"}),
        ("eplb-replay", [log], {
            "--engine": "sglang,trtllm", "-r": "288", "-G": "32",
            "--layers-per-chunk": "1,2", "--layer-updates-per-iter": "2",
            "--interval": "40", "--expert-bytes": "1Gi"}),
        ("eplb-plan", [dump], {
            "-r": "288", "-G": "32", "-n": "4", "-g": "8",
            "--skip-zero-layers": None, "--effort": "8",
            "--threads": "1", "-a": "best", "--policy": "auto",
            "--max-moves": "100", "--min-gain": "0.02",
            "--prev": os.path.join(work, "prev.npy")}),
        ("eplb-plan", [log], {
            "--num-redundant-experts": "32", "-G": "32", "--window": "40",
            "--history": "2", "--objective": "worst", "-f": "csv",
            "--log2phy-width": "max"}),
        ("mdecode", [ex], {
            "--valid-length": "7", "--scale": "0.35", "--threads": "2",
            "--out-dtype": "f32", "--kv-layout": "bhmd"}),
        ("mdecode", [mla], {
            "--dtype": "fp8_e4m3", "--v-dim": "32", "--scale": "0.1352",
            "--k-scale": "0.5", "--valid-length": "9"}),
        # the report on stdout: with tensors there it goes to stderr
        ("a2a-layout", ["-o", "/dev/null", a2a], {
            "-E": "8", "-R": "4", "--hidden": "4096", "--report": None,
            "--max-tokens": "128", "--num-sms": "20", "--num-nodes": "1",
            "--expert-alignment": "4", "--scaleup-ranks": "4",
            "--hidden-bytes": "8192", "--topk-idx-bits": "64"}),
    ]


def make_inputs(bin_dir, td, work):
    """An FP8 MLA cache [B=1, 1, M=12, 64] and q [1, 4, 2, 64] (two query
    tokens): q f16, the cache E4M3 bytes; a plan for --prev."""
    rows = ["# name=q shape=1,4,2,64 dtype=f16"]
    rows += [",".join("%.3f" % (((i * 7 + j * 3) % 13 - 6) / 8)
                      for j in range(64)) for i in range(8)]
    rows += ["# name=k shape=1,1,12,64 dtype=u8"]
    rows += [",".join(str((i * 29 + j * 5) % 120) for j in range(64))
             for i in range(12)]
    rows += ["# name=mask shape=1,1,12 dtype=bool", "0,0,1,0,0,0,0,1,0,0,0,0"]
    subprocess.run([os.path.join(bin_dir, "tensor-cat"), "-f", "npy", "-o",
                    os.path.join(work, "mla.npy")],
                   input=("\n".join(rows) + "\n").encode(), check=True)
    # a previous plan for eplb-plan's --prev
    subprocess.run([os.path.join(bin_dir, "eplb-plan"), "--quiet", "-r", "288",
                    "-G", "32", "-n", "4", "-g", "8", "--skip-zero-layers",
                    "-a", "deepseek", "--emit", "phy2log", "-o",
                    os.path.join(work, "prev.npy"), os.path.join(
                        td, "eplb-dsv3-prefill_in2048.json")],
                   check=True)


def check(tool, argv, r, before, after, out_named):
    """The contract's breaches of one run (a list of strings)."""
    bad = []
    err = r.stderr.decode("utf-8", "replace")
    lines = [l for l in err.split("\n") if l]
    if r.returncode not in (0, 1, 2):
        bad.append("exit %d" % r.returncode)
    if "runtime error" in err or "Sanitizer" in err:
        bad.append("sanitizer: " + err[:300])
    if r.returncode != 0:
        if r.stdout:
            bad.append("stdout on failure")
        if len(lines) != 1 or not lines[0].startswith(tool + ": "):
            bad.append("stderr: %r" % err[:300])
        if after != before:
            bad.append("left behind: %s" % sorted(after - before))
    else:
        for l in lines:
            if not (l.startswith(tool + ": note: ") or
                    l.startswith(tool + ": warning: ")):
                bad.append("stderr on success: %r" % l[:200])
        new = after - before
        if new - {out_named}:
            bad.append("left behind: %s" % sorted(new - {out_named}))
        if tool.startswith("eplb"):
            text = r.stdout.decode("utf-8", "replace")
            for tok in text.replace("\n", ",").split(","):
                if tok.strip().lower() in ("nan", "inf", "-inf"):
                    bad.append("a table with %s" % tok)
                    break
    return bad


def main():
    bin_dir, td = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 400
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    work = tempfile.mkdtemp(prefix="moekit-cliopt.")
    counts, broken = {}, 0
    try:
        make_inputs(bin_dir, td, work)
        fams = commands(td, work)
        # each family's command as given must run: else nothing is tested
        for tool, files, opts in fams:
            argv = [os.path.join(bin_dir, tool)]
            for k, v in opts.items():
                argv += [k] if v is None else [k, v]
            out = [] if "-o" in files else ["-o", "base.csv"]
            r = subprocess.run(argv + out + files, cwd=work,
                               stdin=subprocess.DEVNULL, capture_output=True)
            if r.returncode != 0:
                print("BASE FAILED %s: %s" % (" ".join(argv[1:] + files),
                                              r.stderr.decode()[:300]))
                broken += 1
            if os.path.exists(os.path.join(work, "base.csv")):
                os.unlink(os.path.join(work, "base.csv"))
        for i in range(runs):
            tool, files, opts = fams[i % len(fams)]
            opts = dict(opts)
            for name in rng.sample(sorted(k for k in opts if opts[k]),
                                   rng.choice([1, 1, 2])):
                opts[name] = spoil(rng, opts[name])
            argv = [os.path.join(bin_dir, tool)]
            for k, v in opts.items():
                argv += [k] if v is None else [k, v]
            out = None
            if rng.random() < 0.3 and not tool == "a2a-layout":
                out = "out.csv"
                argv += ["-o", out]
            argv += files
            before = set(os.listdir(work))
            try:
                r = subprocess.run(argv, cwd=work, stdin=subprocess.DEVNULL,
                                   capture_output=True, timeout=600)
            except subprocess.TimeoutExpired:
                r = None
            after = set(os.listdir(work))
            bad = (check(tool, argv, r, before, after, out) if r is not None
                   else ["no answer in 600 s"])
            counts[tool] = counts.get(tool, 0) + 1
            if bad:
                broken += 1
                print("BROKEN %s: %s" % (" ".join(repr(a) for a in
                                                   argv[1:]), "; ".join(bad)))
            if out and os.path.exists(os.path.join(work, out)):
                os.unlink(os.path.join(work, out))
    finally:
        shutil.rmtree(work)
    print("cli_options: %s; %d broke the contract" % (", ".join(
        "%s %d" % kv for kv in sorted(counts.items())), broken))
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()
