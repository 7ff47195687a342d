#!/bin/sh
# device.sh - build and test moekit on a machine without apt (the lent
# AVX-512 host), then run the mdecode benchmark there.  The Debian
# packages come as .deb files in .debs/ (apt-get download libcsv3
# libcsv-dev libargtable2-0 libargtable2-dev libcunit1 libcunit1-dev
# libzip4 libzip-dev), unpacked into .deps/.
#
#   sh tests/bench/device.sh test        build, unit + CLI + interop tests at
#                                        every kernel path
#   sh tests/bench/device.sh bench ARGS  mdecode --bench ARGS
#   sh tests/bench/device.sh a2a ARGS    tests/bench/a2a.sh ARGS
#   sh tests/bench/device.sh coverage    make coverage: what the unit, CLI
#                                        and example tests reach, every
#                                        kernel copy of this CPU's levels
#   sh tests/bench/device.sh tiles       the unit tests and the numpy check
#                                        (every path, amx's tiles forced
#                                        too), then mdecode's targets on
#                                        16 threads, one --bench each, MLA
#                                        by threads, amxpeak on one CPU and
#                                        on every CPU at once, and
#                                        mdecode_torch.py's fp8 and mla
#   sh tests/bench/device.sh peak        amxpeak alone: one copy, then one
#                                        on every CPU at once
#
# Results go to $OUT (default: build/device).
set -u
out=${OUT:-build/device}
mkdir -p "$out"
P=$PWD/.deps
if [ ! -d "$P/usr/include" ]; then
	mkdir -p "$P"
	for d in .debs/*.deb; do dpkg -x "$d" "$P"; done
fi
L=$P/usr/lib/x86_64-linux-gnu
export CPPFLAGS="-I$P/usr/include" LDFLAGS="-L$L -Wl,-rpath,$L"
what=${1:-test}
[ $# -gt 0 ] && shift
# amxpeak on one CPU, then a copy on every CPU at once: each kind of
# line's first figure over the copies, least, median and most.
peak() {
	cc -O2 -mavx512f -mavx512bf16 -mamx-tile -mamx-bf16 -Ilib \
	    -o "$out/amxpeak" tests/bench/amxpeak.c &&
	    "$out/amxpeak" 5 || return 1
	n=$(nproc)
	mkdir -p "$out/cpus"	# a file a CPU: the glob below reads no other
	for c in $(seq 0 $((n - 1))); do
		taskset -c "$c" "$out/amxpeak" 5 > "$out/cpus/$c.txt" &
	done
	wait
	for kind in "operands in tiles" "operands loaded from L1" \
	    "operands loaded from L2" "beside [0-9]* vector operations" \
	    "beside 16 vector stores" "beside 32 vector stores (L1" \
	    "beside 32 vector stores (L2" "vector products"; do
		grep -h "^$kind" "$out"/cpus/*.txt |
		    sed 's/.*: \([0-9.]*\) ns.*/\1/' | sort -n |
		    awk -v k="$kind" '{ a[NR] = $1 } END { printf "%s: %d copies, least / median / most %.3f / %.3f / %.3f ns\n", k, NR, a[1], a[int((NR + 1) / 2)], a[NR] }'
	done
	rm -rf "$out/cpus" "$out/amxpeak"
}

{
	lscpu
	free -g
	gcc --version | head -1
	nproc
} > "$out/machine.txt" 2>&1
make -j"$(nproc)" all WERROR=${WERROR-1} > "$out/build.txt" 2>&1 || {
	tail -30 "$out/build.txt"
	exit 1
}
case $what in
test)
	rc=0
	# No rsvg-convert there (no apt): every path's tests but those that
	# render a picture, which make check-isa runs where it is installed.
	cli=
	command -v rsvg-convert > /dev/null ||
	    cli=$(cd tests/cli && grep -L 'render ' */*.sh | sed 's/\.sh$//')
	for isa in $(build/bin/tensor-cat --isa-list); do
		echo "== MOEKIT_ISA=$isa"
		MOEKIT_ISA=$isa build/bin/test-unit || rc=1
		MOEKIT_ISA=$isa MOEKIT_BIN=build/bin sh tests/cli/run.sh $cli ||
		    rc=1
	done > "$out/check-isa.txt" 2>&1
	make check-replay check-interop check-examples > "$out/check.txt" 2>&1 || rc=1
	tail -n 5 "$out/check-isa.txt" "$out/check.txt"
	grep -E "FAIL|failed|passed|SKIP|selected" "$out/check-isa.txt" | sort | uniq -c
	exit $rc
	;;
bench)
	build/bin/mdecode --verbose --bench "$@" > "$out/bench.csv" 2> "$out/bench.err"
	rc=$?
	cat "$out/bench.err" "$out/bench.csv"
	exit $rc
	;;
coverage)
	make coverage > "$out/coverage.txt" 2>&1
	rc=$?
	grep -v '^cc \|^make\|^ *[A-Z][A-Z]' "$out/coverage.txt" | tail -n 90
	exit $rc
	;;
tiles)
	# PYTHON: a python with numpy (and torch for the last step)
	py=${PYTHON:-python3}
	b="build/bin/mdecode --bench --isa avx512,amx --bsz 8 --threads 16 --mask-density 0 --reps 5"
	{
		MOEKIT_ISA=amx build/bin/test-unit 2>&1 | grep -E 'asserts|FAIL|SKIP|selected|^  '
		MOEKIT_BIN=build/bin "$py" tests/interop/mdecode_check.py
		echo "== gqa: 32/8 heads, D 128, 32768 positions"
		$b --max-length 65536 --dtype f16,bf16,fp8_e4m3,fp8_e5m2
		echo "== query tokens"
		$b --max-length 65536 --dtype f16,fp8_e4m3 --q-tokens 4,8
		echo "== MLA, 16 heads"
		$b --max-length 65536 --q-heads 16 --kv-heads 1 --dim 576 --v-dim 512 --dtype f16,bf16,fp8_e4m3
		echo "== MLA, 128 heads"
		$b --max-length 32768 --q-heads 128 --kv-heads 1 --dim 576 --v-dim 512 --dtype f16,fp8_e4m3
		echo "== MLA, 16 heads, by threads"
		build/bin/mdecode --bench --isa avx512,amx --bsz 8 --threads 1,2,4,8,16 --mask-density 0 --reps 3 --max-length 65536 --q-heads 16 --kv-heads 1 --dim 576 --v-dim 512 --dtype fp8_e4m3,bf16
		echo "== the tiles' peak: one copy, then one a CPU at once"
		peak
		echo "== one thread"
		build/bin/mdecode --bench --isa avx512,amx --bsz 2 --threads 1 --mask-density 0 --reps 3 --max-length 65536 --dtype f16,fp8_e4m3,fp8_e5m2
		echo "== beside PyTorch"
		PYTHONUNBUFFERED=1 "$py" tests/bench/mdecode_torch.py 16 65536 3 fp8,mla
	} 2>&1 | tee "$out/tiles.txt"
	;;
peak)
	peak 2>&1 | tee "$out/peak.txt"
	;;
a2a)
	bash tests/bench/a2a.sh "$@" > "$out/a2a.txt" 2>&1
	rc=$?
	cat "$out/a2a.txt"
	exit $rc
	;;
esac
