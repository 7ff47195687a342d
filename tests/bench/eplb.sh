#!/bin/sh
# eplb.sh - eplb-plan against the waterfill reference's rebalance_experts
# (torch, its text outside this repository) on this machine, in one run:
# whole-process times (hyperfine medians) beside the reference's call
# (median of 11, torch already imported), and plan quality on the twelve
# real DeepSeek-V3 dumps (testdata/real).  The reference is the seed
# document's text, which stays outside the repository: give its path to
# time it (seeds/000_07f5f318e5d483a5.txt of the project's documents);
# without it the reference's column is empty and torch is not needed.
#
#   sh tests/bench/eplb.sh [REFERENCE_TXT]
#
# Needs: build/bin (make all), hyperfine (and python3-torch with a
# reference).
set -eu
seed=${1:-}
[ -z "$seed" ] || [ -r "$seed" ] || { echo "$seed: cannot read it"; exit 1; }
real=testdata/real
bin=$(cd build/bin && pwd)
py=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/moekit-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)"; exit 1; }
[ -z "$seed" ] || $py -c 'import torch' || { echo "needs python3-torch"; exit 1; }

median_ms() {	# command... -> hyperfine median in ms
	hyperfine -N -w 5 -r "${RUNS:-40}" --export-json "$tmp/h.json" "$*" >/dev/null 2>&1
	$py -c 'import json,sys; print("%.3f" % (json.load(open(sys.argv[1]))["results"][0]["median"] * 1e3))' "$tmp/h.json"
}

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "process start (eplb-plan --version): $(median_ms "$bin/eplb-plan --version") ms"
# The DeepSeek-V3 shape as NPY: the 58 MoE layers of a real dump.
$py -c '
import json, sys, numpy as np
w = np.array(json.load(open(sys.argv[1]))["logical_count"], dtype=np.int64)[3:]
np.save(sys.argv[2], w)' "$real/prefill_in1024.json" "$tmp/dsv3.npy"

echo
echo "## speed: whole process vs the reference's call (ms, medians)"
echo "input,config,seed_ms,deepseek_ms,waterfill_ms,best_ms,seed/deepseek,seed/waterfill,seed/best"
for input in "$tmp/dsv3.npy" "$real/prefill_in1024.json" "$real/decode_in1000out1000.json"; do
	for cfg in "288 8 4 32" "288 1 1 32"; do
		set -- $cfg
		s=
		[ -z "$seed" ] || s=$($py tests/bench/seed_eplb.py "$seed" "$input" $1 $2 $3 $4)
		line="$(basename "$input"),$1/$2/$3/$4,$s"
		ratios=
		for a in deepseek waterfill best; do
			m=$(median_ms "$bin/eplb-plan -a $a -r $1 -g $2 -n $3 -G $4 --skip-zero-layers -o /dev/null $input")
			line="$line,$m"
			ratios="$ratios,$(awk -v s="$s" -v m=$m 'BEGIN { if (s != "") printf "%.1f", s / m }')"
		done
		echo "$line$ratios"
	done
done

echo
echo "## quality on the real dumps: total balancedness (sum mean / sum max) and mean gap to the lower bound"
echo "file,config,best_bal,deepseek_bal,waterfill_bal,best_gap,deepseek_gap,waterfill_gap"
for f in "$real"/*.json; do
	for cfg in "288 8 4 32" "288 1 1 32"; do
		set -- $cfg
		line="$(basename "$f" .json),$1/$2/$3/$4"
		gaps=
		for a in best deepseek waterfill; do
			t=$("$bin/eplb-plan" -a $a -r $1 -g $2 -n $3 -G $4 --skip-zero-layers \
			    --stats -o /dev/null "$f" 2>&1 | grep '^total')
			line="$line,$(echo "$t" | cut -d, -f4)"
			gaps="$gaps,$(echo "$t" | cut -d, -f6)"
		done
		echo "$line$gaps"
	done
done | tee "$tmp/q.csv"
awk -F, '{ n++; g += $6; d += $7; w += $8; if ($3 < $4 || $3 < $5) worse++ }
END { printf "mean gap over %d runs: best %.6f deepseek %.6f waterfill %.6f; best below a reference: %d\n", n, g / n, d / n, w / n, worse + 0 }' "$tmp/q.csv"
