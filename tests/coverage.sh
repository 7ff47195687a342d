#!/bin/sh
# coverage.sh BUILD - what make check reached in a --coverage build: each
# lib/ folder's lines, and every kernel copy of MK_MDEC_VARIANTS in each
# dtype file of the kernel levels this CPU runs (a copy of a level it
# cannot run is listed, not judged).  Exits 1 if a copy of a level it
# runs was never called.  Needs gcov (gcc's).
set -u
build=${1:-build/cov}
levels=$("$build/bin/tensor-cat" --isa-list | tr '\n' ' ')
tmp=$(mktemp -d "${TMPDIR:-/tmp}/moekit-cov.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
root=$(pwd)
bad=0
echo "lines executed, by folder (make check, this CPU: $levels):"
for d in base simd tensor cli moe eplb a2a mdec; do
	(cd "$tmp" && gcov -n -o "$root/$build/obj/lib/$d" \
	    "$root"/lib/$d/*.c 2>/dev/null) | awk -v d="lib/$d" '
	    /^File .*\/lib\// { f = 1; next }
	    f && /^Lines executed:/ { split($2, a, "%"); sub(/.*:/, "", a[1])
		n = $4; hit += a[1] / 100 * n; all += n; f = 0 }
	    END { if (all) printf "  %-12s %5.1f %% of %d lines\n", d,
		100 * hit / all, all }'
done
echo "kernel copies (MK_MDEC_VARIANTS) called, by file:"
for o in "$build"/obj/lib/mdec/mdec_*_generic.o "$build"/obj/lib/mdec/mdec_*_avx2.o \
    "$build"/obj/lib/mdec/mdec_*_avx512.o "$build"/obj/lib/mdec/mdec_generic.o; do
	[ -f "$o" ] || continue
	src=lib/mdec/$(basename "$o" .o).c
	lvl=generic
	case $o in *avx512*) lvl=avx512 ;; *avx2*) lvl=avx2 ;; esac
	(cd "$tmp" && gcov -n -f -o "$root/$(dirname "$o")" "$root/$src" \
	    2>/dev/null) > "$tmp/out"
	awk -v file="$(basename "$src")" -v lvl="$lvl" -v runs="$levels" '
	    /^Function / { fn = $2; gsub(/\047/, "", fn); next }
	    /^Lines executed:/ && fn ~ /^heads[0-9]/ {
		split($2, a, "%"); sub(/.*:/, "", a[1])
		called = a[1] + 0 > 0
		can = index(" " runs " ", " " lvl " ") > 0
		printf "  %-24s %-12s %s\n", file, fn, called ? "called" :
		    can ? "NEVER CALLED" : "not run here (" lvl ")"
		if (!called && can) bad = 1
		fn = "" }
	    END { exit bad }' "$tmp/out" || bad=1
done
[ $bad = 0 ] && echo "every copy of the levels this CPU runs was called"
exit $bad
