#!/bin/bash
# eplb_speed.sh - what a user waits for (issue 10): whole-process times of
# eplb-plan beside `eplb-plan --version` (the process start), in one run.
#
#   bash tests/bench/eplb_speed.sh [ROUNDS]      (default 41)
#
# Commands, run in turn within each round so that a noisy spell of the
# machine hits all of them alike (shared VMs are noisy):
#   version    eplb-plan --version
#   ds-npy     -a deepseek, DeepSeek-V3's shape as NPY ([58, 256] i64),
#              288 slots, 32 GPUs, 4 nodes, 8 groups
#   ds-json    the same from the SGLang JSON dump (61 layers, 154 KB)
#   best-7     -a best on 7 real prefill dumps as 7 scenarios, global
#   best-1     -a best on the one NPY (288/8/4/32)
# and in-process figures from -v: the JSON read and the planning.
# Prints the median and the quartiles (ms) of each, and ds-npy's ratio to
# version.  Needs build/bin, python3 with numpy (the dumps: testdata/real).
set -eu
rounds=${1:-41}
bin=$(cd build/bin && pwd)
data=${DATA:-testdata/real}
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/moekit-speed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
$py -c '
import json, sys, numpy as np
w = np.array(json.load(open(sys.argv[1]))["logical_count"], dtype=np.int64)[3:]
np.save(sys.argv[2], w)' "$data/prefill_in1024.json" "$tmp/dsv3.npy"
json=$data/prefill_in1024.json
seven=$(ls "$data"/prefill_*.json | head -7)
hier="-r 288 -G 32 -n 4 -g 8"

declare -A cmd=(
	[version]="$bin/eplb-plan --version"
	[ds-npy]="$bin/eplb-plan -a deepseek $hier -o /dev/null $tmp/dsv3.npy"
	[ds-json]="$bin/eplb-plan -a deepseek $hier --skip-zero-layers -o /dev/null $json"
	[best-7]="$bin/eplb-plan -r 288 -G 32 --skip-zero-layers -o /dev/null $seven"
	[best-1]="$bin/eplb-plan $hier -o /dev/null $tmp/dsv3.npy"
)
names="version ds-npy ds-json best-7 best-1"
for n in $names; do ${cmd[$n]} > /dev/null 2>&1; done	# warm the page cache
for ((r = 0; r < rounds; r++)); do
	for n in $names; do
		s=$EPOCHREALTIME
		${cmd[$n]} > /dev/null 2>&1
		e=$EPOCHREALTIME
		echo "$n $(echo "($e - $s) * 1000" | bc -l)"
	done
	# in-process: the JSON read and deepseek's planning, from -v
	$bin/eplb-plan -v -a deepseek $hier --skip-zero-layers -o /dev/null \
	    "$json" 2>&1 | awk '/read in/ { print "json-read", $4 }
	    /planned in/ { print "ds-plan", $4 }'
done > "$tmp/t"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $rounds rounds"
echo "what,median_ms,q1_ms,q3_ms"
for n in $names json-read ds-plan; do
	grep "^$n " "$tmp/t" | cut -d' ' -f2 | sort -g | awk -v n=$n '
	    { v[NR] = $1 }
	    END { printf "%s,%.3f,%.3f,%.3f\n", n, v[int((NR + 1) / 2)],
		v[int((NR + 3) / 4)], v[int((3 * NR + 1) / 4)] }'
done | tee "$tmp/s"
awk -F, '$1 == "version" { v = $2 } $1 == "ds-npy" { d = $2 }
    END { printf "ds-npy / version: %.2f\n", d / v }' "$tmp/s"
