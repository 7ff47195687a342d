#!/bin/sh
# valgrind.sh - `make valgrind`: one good and one bad run of each tool
# under memcheck, strict: any error, and any leak that is definite,
# indirect or possible, fails the run (tests/valgrind.supp holds the one
# suppression, libgomp's parked threads).  Still-reachable blocks at exit
# (libgomp's thread pool, stdio) are not leaks.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
bin=$(cd "${MOEKIT_BIN:-$root/build/bin}" && pwd) || exit 2
T=$root/testdata
dir=$(mktemp -d "${TMPDIR:-/tmp}/moekit-vg.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 2
fail=0 n=0

# vg WANT CMD...: CMD under memcheck must exit WANT and report nothing.
vg() {
	want=$1
	shift
	n=$((n + 1))
	rc=0
	valgrind -q --error-exitcode=99 --leak-check=full \
	    --errors-for-leak-kinds=definite,indirect,possible \
	    --show-leak-kinds=definite,indirect,possible \
	    --suppressions="$here/valgrind.supp" "$@" >out 2>err || rc=$?
	if [ "$rc" != "$want" ] || grep -q '^==[0-9]*==' err; then
		echo "FAIL (exit $rc, want $want): $*"
		sed -n '1,40p' err
		fail=$((fail + 1))
	fi
}

printf '1,2,3\n4,5\n' > ragged.csv
printf '1e39,nan,1,1\n' > nan.csv
vg 0 "$bin/tensor-cat" -f csv "$T/tensor-cat-mixed.npy"
vg 1 "$bin/tensor-cat" ragged.csv
vg 0 "$bin/eplb-plan" -r 288 -G 32 -n 4 -g 8 --skip-zero-layers \
    "$T/eplb-dsv3-prefill_in1024.json" "$T/eplb-dsv3-prefill_in2048.json"
vg 1 "$bin/eplb-plan" -r 8 -G 2 nan.csv
vg 0 "$bin/a2a-layout" -E 64 --report "$T/a2a-mixtral-gsm8k.npy"
vg 1 "$bin/a2a-layout" -E 4 "$T/a2a-example.npy"
vg 0 "$bin/tensor-cat" -o two.npz --emit 0,6 --names a,b "$T/tensor-cat-mixed.npy"
vg 0 "$bin/tensor-cat" -f csv two.npz
vg 0 "$bin/a2a-layout" -E 8 -R 4 --report --plot recv.svg -o /dev/null \
    "$T/a2a-mixtral-gsm8k-head.jsonl"
vg 0 "$bin/eplb-plan" -r 16 -G 8 -n 2 -g 4 --plot p.svg -o p.npz \
    "$T/eplb-readme.npy"
vg 0 "$bin/mdecode" "$T/mdecode-example.npy"
vg 1 "$bin/mdecode" ragged.csv
vg 0 "$bin/mdecode" --threads 2 --kv-layout paged \
    --block-table "$T/mdecode-paged-table.npy" \
    --seq-lens "$T/mdecode-paged-lens.npy" "$T/mdecode-paged.npy"
echo "valgrind: $((n - fail)) of $n runs clean"
[ $fail = 0 ]
