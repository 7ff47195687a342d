#!/bin/bash
# busy.sh - every tool's whole process on a quiet machine and beside two
# busy loops (a shared VM, a CI runner, a login node), this build against
# an older one in the same run:
#  - a2a-layout --report over a trace file with the default threads and
#    with --threads 1, and the same trace from a pipe (`cat |`);
#  - eplb-plan on a real SGLang dump writing .npz and .npy (replacing the
#    last run's file, as a user's loop does);
#  - mdecode over f16 caches read from .npy files;
#  - tensor-cat turning the trace into an .npz;
#  - eplb-replay of a 2,000-step log, two algorithms.
#
#   bash tests/bench/busy.sh [OLD_BIN]
#
# OLD_BIN: the bin/ of another build (say, `git worktree add ../old
# REV && make -C ../old`), run in turn with this one; without it only
# this build.  N runs per figure and state (default 5), medians of wall
# time in ms; the sides and the states alternate run by run, so drift
# moves both.  The busy loops are two `while :; do :; done` shells, as
# many as this VM's CPUs; the tools run at the same priority.
# Inputs are generated with numpy into a temporary directory (~700 MB)
# and removed at exit.  Prints one table; the ratios the issue asks for
# follow it.
set -eu
n=${N:-5}
new=$(cd "${BIN:-build/bin}" && pwd)
old=${1:-}
[ -n "$old" ] && old=$(cd "$old" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
py=python3
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null &&
    py=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/moekit-busy.XXXXXX")
loops=
cleanup() {
	[ -n "$loops" ] && kill $loops 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# a trace of 500 steps [32 ranks, 512 tokens, top-8] i32 (262 MB), f16
# caches [8, 8 heads, 4096, 128] (67 MB each) with 32 query heads, and
# a log of 2,000 steps x 4 layers x 64 experts
$py - "$tmp" <<'EOF'
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(1)
R, T, K, E, S = 32, 512, 8, 256, 500
pats = [np.argpartition(rng.random((R * T, E), dtype=np.float32), K,
        axis=1)[:, :K].astype(np.int32).reshape(R, T, K) for _ in range(8)]
with open(d + "/trace.npy", "wb") as f:
    np.lib.format.write_array_header_1_0(f, {"descr": "<i4",
        "fortran_order": False, "shape": (S, R, T, K)})
    for s in range(S):
        f.write(pats[s % 8].tobytes())
B, QH, KH, M, D = 8, 32, 8, 4096, 128
np.save(d + "/q.npy", rng.standard_normal((B, QH, 1, D)).astype(np.float16))
np.save(d + "/k.npy", rng.standard_normal((B, KH, M, D)).astype(np.float16))
np.save(d + "/v.npy", rng.standard_normal((B, KH, M, D)).astype(np.float16))
hot = rng.gamma(0.5, 1.0, (4, 64))
np.save(d + "/log.npy", rng.poisson(hot * 40, (2000, 4, 64)).astype(np.int64))
EOF
sync
dump="$root/testdata/eplb-dsv3-prefill_in1024.json"

# the cases: NAME and a command run by bash -c with $B the tool directory
cases=(
	"a2a --report, file|\$B/a2a-layout -E 256 --hidden 7168 --report -o /dev/null $tmp/trace.npy"
	"a2a --report, file, --threads 1|\$B/a2a-layout -E 256 --hidden 7168 --report --threads 1 -o /dev/null $tmp/trace.npy"
	"a2a --report, pipe|cat $tmp/trace.npy | \$B/a2a-layout -E 256 --hidden 7168 --report -o /dev/null -"
	"eplb-plan -o .npz|\$B/eplb-plan -r 288 --num-gpus 32 -a deepseek -o $tmp/p.\$S.npz $dump"
	"eplb-plan -o .npy|\$B/eplb-plan -r 288 --num-gpus 32 -a deepseek -o $tmp/p.\$S.npy $dump"
	"mdecode f16 from files|\$B/mdecode -q $tmp/q.npy -k $tmp/k.npy -v $tmp/v.npy -o $tmp/o.\$S.npy"
	"tensor-cat trace to .npz|\$B/tensor-cat -o $tmp/t.\$S.npz $tmp/trace.npy"
	"eplb-replay 2 algorithms|\$B/eplb-replay -r 80 --num-gpus 8 --window 200 --interval 200 -a deepseek,waterfill $tmp/log.npy"
)

# whether side $2 has case $1's tool (an old build may lack eplb-replay)
has() {
	local t=${cases[$1]#*\$B/}
	[ "$2" = new ] || [ -x "$old/${t%% *}" ]
}

# one run of case $1 by side $2 (new|old); prints ms
run1() {
	local cmd=${cases[$1]#*|} B S t0 t1
	B=$new S=new
	[ "$2" = old ] && B=$old S=old
	cmd=${cmd//\$B/$B}
	cmd=${cmd//\$S/$S}
	t0=$EPOCHREALTIME
	bash -c "$cmd" > /dev/null 2>&1 || { echo "busy.sh: failed: $cmd" >&2; exit 1; }
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }'
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else
		printf "%.1f\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

sides=new
[ -n "$old" ] && sides="new old"
# every (case, side) run n times in each state, alternating
measure() {
	local state=$1 c s r
	for ((r = 0; r < n; r++)); do
		for c in "${!cases[@]}"; do
			for s in $sides; do
				if has "$c" "$s"; then
					echo "$c $s $(run1 "$c" "$s")"
				fi
			done
		done
	done > "$tmp/$state.txt"
}

for c in "${!cases[@]}"; do
	for s in $sides; do
		if has "$c" "$s"; then run1 "$c" "$s" > /dev/null; fi
	done
done
measure quiet
for i in 1 2; do
	bash -c 'while :; do :; done' &
	loops="$loops $!"
done
measure busy
kill $loops 2>/dev/null
loops=

get() {
	awk -v c="$1" -v s="$2" '$1 == c && $2 == s { print $3 }' "$tmp/$3.txt" |
	    median
}
printf '# busy.sh: %s, %d CPUs, %s, N=%d\n' "$(uname -m)" "$(nproc)" \
    "$(date -u +%Y-%m-%d)" "$n"
if [ -n "$old" ]; then
	echo "case,quiet_ms,quiet_old_ms,quiet_new/old,busy_ms,busy_old_ms,busy_new/old"
else
	echo "case,quiet_ms,busy_ms,busy/quiet"
fi
declare -A q b
for c in "${!cases[@]}"; do
	name=${cases[$c]%%|*}
	q[$c]=$(get "$c" new quiet)
	b[$c]=$(get "$c" new busy)
	if [ -n "$old" ]; then
		qo=$(get "$c" old quiet)
		bo=$(get "$c" old busy)
		awk -v n="$name" -v q="${q[$c]}" -v qo="$qo" -v b="${b[$c]}" -v bo="$bo" \
		    'BEGIN { if (qo == "nan") printf "%s,%s,-,-,%s,-,-\n", n, q, b
			else printf "%s,%s,%s,%.2f,%s,%s,%.2f\n", n, q, qo, q / qo, b, bo, b / bo }'
	else
		awk -v n="$name" -v q="${q[$c]}" -v b="${b[$c]}" \
		    'BEGIN { printf "%s,%s,%s,%.2f\n", n, q, b, b / q }'
	fi
done
awk -v a="${b[0]}" -v t="${b[1]}" -v p="${b[2]}" -v qa="${q[0]}" -v qp="${q[2]}" \
    -v z="${q[3]}" -v y="${q[4]}" 'BEGIN {
	printf "# busy: default threads / --threads 1 = %.2f (want <= 1.25)\n", a / t
	printf "# pipe / file = %.2f quiet, %.2f busy (want <= 2)\n", qp / qa, p / a
	printf "# .npz / .npy = %.2f quiet (want <= 1.3)\n", z / y }'
