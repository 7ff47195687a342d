#!/usr/bin/python3
"""coverage.py BUILD - what the tests reached in a --coverage build.

  python3 tests/coverage.py build/cov

From gcov's JSON (gcc's gcov, --json-format) of every object of lib/:
each folder's lines executed, and every kernel copy of MK_MDEC_VARIANTS
(the heads* functions) in every dtype file of every kernel level, and
the amx row's walks (walk_*: a kind of K/V rows each), called or not.  A level this CPU cannot run is listed, not judged.  Exits 1 if
a copy of a level this CPU runs was never called.
"""
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile


def gcov_json(obj_dir, src, tmp):
    """gcov's JSON for one source compiled into obj_dir: its files."""
    subprocess.run(["gcov", "--json-format", "-o", obj_dir, src], cwd=tmp,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = os.path.join(tmp, os.path.basename(src)[:-2] + ".gcov.json.gz")
    if not os.path.exists(out):
        return []
    with gzip.open(out) as f:
        files = json.load(f)["files"]
    os.unlink(out)
    return files


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/cov")
    root = os.getcwd()
    levels = subprocess.run([os.path.join(build, "bin", "tensor-cat"),
                             "--isa-list"], capture_output=True,
                            text=True).stdout.split()
    lines = {}       # folder -> {(file, line): executed}
    copies = []      # (source, level, function, calls)
    with tempfile.TemporaryDirectory() as tmp:
        for src in sorted(glob.glob(os.path.join(root, "lib", "*", "*.c"))):
            folder = os.path.basename(os.path.dirname(src))
            obj_dir = os.path.join(build, "obj", "lib", folder)
            base = os.path.basename(src)[:-2]
            if not os.path.exists(os.path.join(obj_dir, base + ".gcda")):
                continue
            for f in gcov_json(obj_dir, src, tmp):
                name = f["file"]
                if not name.startswith("lib/"):
                    continue
                seen = lines.setdefault(name.split("/")[1], {})
                for ln in f["lines"]:
                    key = (name, ln["line_number"])
                    seen[key] = seen.get(key, False) or ln["count"] > 0
                for fn in f["functions"]:
                    if folder == "mdec" and (re.match(
                            r"heads[0-9](_[0-9]+)?$", fn["name"]) or
                            (base == "mdec_amx" and
                             fn["name"].startswith("walk_"))):
                        lvl = ("amx" if "amx" in base else "avx512" if
                               "avx512" in base else "avx2"
                               if "avx2" in base else "generic")
                        copies.append((base + ".c", lvl, fn["name"],
                                       fn["execution_count"]))
    print("lines executed, by folder (this CPU's levels: %s):"
          % " ".join(levels))
    for folder in sorted(lines):
        v = lines[folder]
        print("  lib/%-8s %5.1f %% of %d lines" % (
            folder, 100.0 * sum(v.values()) / max(1, len(v)), len(v)))
    bad = 0
    print("kernel copies (MK_MDEC_VARIANTS, amx's walks) called, by file:")
    for src, lvl, fn, n in sorted(copies):
        if n > 0:
            what = "called %d times" % n
        elif lvl in levels:
            what = "NEVER CALLED"
            bad += 1
        else:
            what = "not run here (%s)" % lvl
        print("  %-22s %-11s %s" % (src, fn, what))
    if bad:
        print("coverage: %d kernel copies of this CPU's levels never called"
              % bad)
        sys.exit(1)
    print("coverage: every kernel copy of this CPU's levels was called "
          "(%d of %d listed)" % (sum(1 for c in copies if c[3] > 0),
                                  len(copies)))


if __name__ == "__main__":
    main()
