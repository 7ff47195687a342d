#!/bin/sh
# farm.sh - long fuzzing runs, every target at once in libFuzzer's fork
# mode, for the figures of RESULTS.md (>= 10 million executions each).
# Needs the binaries of `make fuzz` (build/fuzz/fuzz_*; they link only
# libc and libstdc++, so they run on another x86-64 Linux host as built).
#
#   sh tests/fuzz/farm.sh SECONDS TARGET:FORKS...
#   e.g. sh tests/fuzz/farm.sh 500 csv:16 plan:16 npy:8 loads:8 pt:8 trace:8
#
# Each target's log, final totals and any crash go to $OUT (default
# build/fuzz/farm); the corpora grow in build/fuzz/corpus-TARGET.
set -u
secs=$1
shift
out=${OUT:-build/fuzz/farm}
mkdir -p "$out"
for tf in "$@"; do
	t=${tf%%:*}
	n=${tf#*:}
	mkdir -p "build/fuzz/corpus-$t" "$out/$t"
	build/fuzz/fuzz_$t -fork="$n" -ignore_crashes=1 -max_total_time="$secs" \
	    -artifact_prefix="$out/$t/" -dict="tests/fuzz/$t.dict" \
	    "build/fuzz/corpus-$t" "testdata/corpus/$t" > "$out/$t.log" 2>&1 &
done
wait
# the fork mode's last status line: total executions, coverage, crashes
for tf in "$@"; do
	t=${tf%%:*}
	printf '%s forks %s: %s\n' "$t" "${tf#*:}" \
	    "$(grep -E '^#[0-9]+:' "$out/$t.log" | tail -1)"
done | tee "$out/summary.txt"
