#!/bin/sh
# mdecode_density.sh - how much a mask of density 0.5 speeds mdecode up
# over no masked position, on the seed's shape: invocations alternate
# between the two densities (so both see the same machine state), and the
# speed-up is the median over pairs of ms(density 0) / ms(density 0.5).
#
#   N=5 sh tests/bench/mdecode_density.sh [ARGS...]   (default N=5; ARGS
#                                         go to mdecode --bench, e.g.
#                                         --threads 2 --bsz 8)
set -eu
n=${N:-5}
i=1
while [ $i -le "$n" ]; do
	for d in 0 0.5; do
		build/bin/mdecode --bench --mask-density $d "$@" |
		    awk -F, -v d=$d -v i=$i 'NR > 1 { print i "," d "," $0 }'
	done
	i=$((i + 1))
done | awk -F, '
{ ms[$1, $2, $3 "," $4 "," $5] = $6; keys[$3 "," $4 "," $5] = 1; n = $1 > n ? $1 : n
  g[$2, $3 "," $4 "," $5, ++c[$2, $3 "," $4 "," $5]] = $7 }
function sort(a, m,   i, j, t) {
	for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) {
		t = a[j]; a[j] = a[j-1]; a[j-1] = t }
}
function med(a, m) { sort(a, m); return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
END {
	print "isa,threads,bsz,gbps_density0,gbps_density05,speedup"
	for (k in keys) {
		m = 0
		for (i = 1; i <= n; i++) r[++m] = ms[i, 0, k] / ms[i, 0.5, k]
		for (i = 1; i <= n; i++) { x[i] = g[0, k, i]; y[i] = g[0.5, k, i] }
		printf "%s,%.2f,%.2f,%.2f\n", k, med(x, n), med(y, n), med(r, m)
	}
}' | sort
