#!/bin/bash
# eplb_loo.sh - plans that hold on the next traffic (issue 10): leave one
# dump out, plan on the others, score the plan on the one left out.
#
#   bash tests/bench/eplb_loo.sh [GROUP...]     (default: prefill decode)
#
# For each group of real DeepSeek-V3 dumps (testdata's sources, SOURCES.md)
# and each configuration R/K/N/G, every fold plans on all dumps but one
# and scores on that one (eplb-plan --eval, total balancedness), with:
#   ds-raw    -a deepseek on the raw sum of the dumps (one load file: what
#             summing logs gives; the dumps differ 7x in tokens)
#   best-raw  -a best on that raw sum
#   ds-sum    -a deepseek on the dumps as scenarios (their normalised sum)
#   best-sc   -a best on the dumps as scenarios (the mean objective)
#   best-worst  the same, --objective worst
#   oracle    -a best on the held-out dump itself (the ceiling)
# and prints each fold, then the mean and worst fold per plan.  Needs
# build/bin and python3 with numpy (to sum the dumps).
set -eu
bin=$(cd build/bin && pwd)
data=${DATA:-testdata/real}
py=python3
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null &&
    py=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/moekit-loo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
groups=${*:-prefill decode}
configs="288/1/1/32 288/8/4/32 320/8/8/64"

# the raw sum of JSON dumps as one [L, E] NPY file
sum() {
	local out=$1
	shift
	$py - "$out" "$@" <<'PY'
import sys, json, numpy as np
out, files = sys.argv[1], sys.argv[2:]
np.save(out, sum(np.array(json.load(open(f))["logical_count"],
    dtype=np.float64) for f in files))
PY
}

# total balancedness of plan $1 on dump $2 under options $3...
score() {
	local plan=$1 dump=$2
	shift 2
	"$bin/eplb-plan" "$@" --skip-zero-layers --eval "$plan" "$dump" \
	    2>/dev/null | awk -F, '$2 == "total" { print $6 }'
}

for g in $groups; do
	files=("$data"/${g}_*.json)
	n=${#files[@]}
	for cfg in $configs; do
		IFS=/ read -r R K N G <<< "$cfg"
		opts="-r $R -G $G -n $N -g $K"
		for ((h = 0; h < n; h++)); do
			tr=()
			for ((i = 0; i < n; i++)); do
				[ $i = $h ] || tr+=("${files[$i]}")
			done
			sum "$tmp/sum.npy" "${tr[@]}"
			line="$g $cfg $(basename "${files[$h]}" .json)"
			for p in ds-raw best-raw ds-sum best-sc best-worst oracle; do
				case $p in
				ds-raw)   set -- -a deepseek "$tmp/sum.npy" ;;
				best-raw) set -- -a best "$tmp/sum.npy" ;;
				ds-sum)   set -- -a deepseek "${tr[@]}" ;;
				best-sc)  set -- -a best "${tr[@]}" ;;
				best-worst) set -- -a best --objective worst \
				    "${tr[@]}" ;;
				oracle)   set -- -a best "${files[$h]}" ;;
				esac
				# shellcheck disable=SC2086
				"$bin/eplb-plan" $opts --skip-zero-layers \
				    -o "$tmp/plan.npy" "$@" 2>/dev/null
				# shellcheck disable=SC2086
				line="$line $p=$(score "$tmp/plan.npy" \
				    "${files[$h]}" $opts)"
			done
			echo "$line"
		done
	done
done | tee "$tmp/folds"
echo
echo "group config plan mean worst"
awk '{ k = $1 " " $2; for (i = 4; i <= NF; i++) { split($i, a, "=")
	s[k " " a[1]] += a[2]; c[k " " a[1]]++
	if (!((k " " a[1]) in m) || a[2] < m[k " " a[1]]) m[k " " a[1]] = a[2] }
	keys[k] = 1 }
	END { for (x in s) printf "%s %.4f %.4f\n", x, s[x] / c[x], m[x] }' \
    "$tmp/folds" | sort
