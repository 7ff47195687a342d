#!/bin/sh
# mdecode.sh - the mdecode benchmark, repeated: N invocations of
# `mdecode --bench ARGS` (each with its own read-bandwidth probe), then, per
# isa/threads/bsz/layout/density row, the median over invocations of ms,
# gbps, probe_gbps and frac.  The machines are shared and their memory bandwidth moves
# between minutes, hence several invocations and medians.
#
#   N=5 sh tests/bench/mdecode.sh [ARGS...]     (default N=3)
#
# Needs build/bin (make all).  Prints the per-invocation tables, then the
# summary.
set -eu
n=${N:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/moekit-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "command: mdecode --bench $*"
i=1
while [ $i -le "$n" ]; do
	build/bin/mdecode --bench "$@" > "$tmp/run$i.csv"
	echo "-- invocation $i"
	cat "$tmp/run$i.csv"
	i=$((i + 1))
done
echo "-- median over $n invocations"
echo "isa,threads,bsz,layout,density,ms,gbps,probe_gbps,frac"
# keep the order of the first table; median of each column per row key
awk -F, 'FNR > 1 {
	key = $1 "," $2 "," $3 "," $4 "," $5
	if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
	for (c = 6; c <= 9; c++) v[key, c, ++cnt[key, c]] = $c
}
function med(key, c,   m, i, j, t, a) {
	m = cnt[key, c]
	for (i = 1; i <= m; i++) a[i] = v[key, c, i] + 0
	for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) {
		t = a[j]; a[j] = a[j-1]; a[j-1] = t
	}
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
END {
	for (k = 1; k <= nk; k++)
		printf "%s,%.3f,%.2f,%.2f,%.3f\n", order[k], med(order[k], 6),
		    med(order[k], 7), med(order[k], 8), med(order[k], 9)
}' "$tmp"/run*.csv
