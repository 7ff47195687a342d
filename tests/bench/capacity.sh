#!/bin/sh
# capacity.sh - a2a-layout --capacity: the README's table (what each
# library's receive buffer costs by default and at p = 0.001, on testdata's
# real traces: Mixtral-8x7B's gsm8k routing fitted, humaneval held out;
# the DeepSeek-V3 trace), and the speed against laying the same trace out.
#
#   sh tests/bench/capacity.sh table     deterministic (any machine)
#   sh tests/bench/capacity.sh speed     1,000 steps of 32 ranks x 4,096
#                                        tokens x top-8 (i32, 512 MB) in
#                                        TMPDIR: --capacity against a
#                                        layout pass, farm-bench, 5 pairs
set -eu
bin=$(cd "${MOEKIT_BIN:-build/bin}" && pwd)
td=testdata
what=${1:-table}

# rows OPTS...: --capacity 0.001's rows, library,knob,value,MiB,default MiB,
# held-out steps over
rows() {
	"$bin/a2a-layout" --quiet "$@" --capacity 0.001 | awk -F, 'NR > 1 {
		printf "%s,%s,%s,%.2f,%.2f,%s\n", $1, $2, $4, $6 / 1048576,
		    $8 / 1048576, $10 }'
}

if [ "$what" = table ]; then
	rows -E 8 --hidden 4096 --eval "$td/a2a-mixtral-humaneval.npy" \
	    "$td/a2a-mixtral-gsm8k.npy" > "${TMPDIR:-/tmp}/cap-m.$$"
	rows -E 256 --hidden 7168 "$td/a2a-dsv3-trace.npy" |
	    paste -d, "${TMPDIR:-/tmp}/cap-m.$$" - | awk -F, '
	BEGIN {
		print "| library `knob` | Mixtral gsm8k: value at p = 0.001 | MiB (default) | humaneval steps over | DeepSeek-V3: value | MiB (default) |"
		print "|---|---:|---:|---:|---:|---:|"
	}
	{ printf "| %s `%s` | %s | %s (%s) | %s of 32 | %s | %s (%s) |\n", $1, $2,
	    $3, $4, $5, $6, $9, $10, $11 }'
	rm -f "${TMPDIR:-/tmp}/cap-m.$$"
	exit 0
fi

tmp=${TMPDIR:-/tmp}/moekit-capacity.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$tmp/trace.npy" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(1)
out = np.lib.format.open_memmap(sys.argv[1], mode="w+", dtype=np.int32,
                                shape=(1000, 32, 4096, 8))
for s in range(1000):
    # eight distinct experts a token, one from each block of 32, the
    # offset within a block skewed toward a few experts
    off = np.minimum((rng.random((32, 4096, 8)) ** 2 * 32).astype(np.int32),
                     31)
    out[s] = (np.arange(8, dtype=np.int32) * 32 + off) % 256
out.flush()
PY
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
farm-bench -n 5 --timeout 1200 --vs "$bin/a2a-layout -E 256 --emit num_recv_tokens -o /dev/null $tmp/trace.npy" -- \
    "$bin/a2a-layout" --quiet -E 256 --capacity 0.001,0.01 -o /dev/null "$tmp/trace.npy"
