# Heavily skewed loads (a few very hot experts), few slots per GPU: the
# counts that minimise the largest replica are not the best ones.  best
# must be worse than neither reference on any layer and better than each
# on average.  The loads come from a seeded generator (an LCG in awk).
gen() {
	awk -v L=$1 -v E=$2 -v seed=$3 'BEGIN {
		s = seed
		for (l = 0; l < L; l++) {
			line = ""
			for (e = 0; e < E; e++) {
				s = (s * 1103515245 + 12345) % 2147483648
				u = s / 2147483648
				v = int(10 + 1000 * u ^ 8 + (u > 0.85 ? 4000 * u : 0))
				line = line (e ? "," : "") v
			}
			print line
		}
	}'
}
for shape in "16 32 16" "64 96 32"; do
	set -- $shape
	gen 40 $1 7 > w.csv
	for a in best deepseek waterfill; do
		eplb-plan -a $a -r $2 -G $3 --policy global --stats -o /dev/null \
		    w.csv 2>&1 | grep -v '^layer\|^total' | cut -d, -f3 > $a.max ||
		    die "eplb-plan -a $a failed"
	done
	paste -d, best.max deepseek.max waterfill.max | awk -F, -v s="$shape" '
	{ b += $1; d += $2; w += $3
	  if ($1 > $2 * (1 + 1e-12) || $1 > $3 * (1 + 1e-12)) worse++ }
	END { printf "E R G = %s: %s, %s\n", s,
	    worse ? "WORSE on " worse " layers" : "never worse",
	    b < d && b < w ? "better on average" : "NOT better on average" }'
done
