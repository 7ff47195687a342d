#!/bin/bash
# a2a.sh - a2a-layout throughput (issue 5), in one run:
#  - whole process on one 32-rank x 4096-token x top-8 step (256 experts);
#  - a trace of STEPS such steps from a file and from a pipe: seconds, GB/s
#    of input bytes, peak RSS;
#  - against the machine's memory read bandwidth (the read probe of
#    mdecode --bench over 2 GiB) and the page-cache read rate (dd);
#  - beside the floors of each case in the same run: a process that reads
#    the file (mapped or by pread) or writes the outputs' bytes, a reader
#    that places a pipe's steps and does nothing else or has every CPU
#    load them (iofloor.c, compiled here with cc), a2a-layout --version,
#    and a process doing one step's floor of work (iofloor step: map,
#    load, write an output).
#
#   bash tests/bench/a2a.sh [STEPS [DTYPE]]     (default 1000 int64)
#
# N runs per figure, medians (default N=5).  Traces are generated with
# numpy into a temporary directory (1000 int64 steps are 8.4 GB: keep
# that much memory free for the page cache) and removed at exit.  Needs
# build/bin and build/libmoekit.a (make all; BIN and LIB name others) and
# python3 with numpy.
set -eu
steps=${1:-1000}
dtype=${2:-int64}
n=${N:-5}
bin=$(cd "${BIN:-build/bin}" && pwd)
lib=${LIB:-build/libmoekit.a}
py=python3
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null &&
    py=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/moekit-a2a.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Random top-8 of 256 experts, distinct within a token; 8 step patterns
# repeated (the counting pass does not care which ids repeat).
$py - "$tmp" "$steps" "$dtype" <<'EOF'
import sys, numpy as np
d, S, dt = sys.argv[1], int(sys.argv[2]), np.dtype(sys.argv[3])
R, T, K, E = 32, 4096, 8, 256
rng = np.random.default_rng(1)
pats = [np.argpartition(rng.random((R * T, E), dtype=np.float32), K,
        axis=1)[:, :K].astype(dt).reshape(R, T, K) for _ in range(8)]
np.save(d + "/step.npy", pats[0])
with open(d + "/trace.npy", "wb") as f:
    np.lib.format.write_array_header_1_0(f, {"descr": dt.str,
        "fortran_order": False, "shape": (S, R, T, K)})
    for s in range(S):
        f.write(pats[s % 8].tobytes())
EOF
# on disk before anything is timed: writing back 8 GB of dirty pages
# while the runs read them made them twice as slow on the device
sync
bytes=$(( $(stat -c %s "$tmp/trace.npy") - 128 ))

# the median of the numbers on stdin, printed with FORMAT (default %.2f)
median() {
	sort -g | awk -v f="${1:-%.2f}" '{ v[NR] = $1 } END {
		printf f "\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# median of n wall-clock runs of "$@", in ms (bash's clock: no fork)
median_ms() {
	local i t0 t1
	for ((i = 0; i < n; i++)); do
		t0=$EPOCHREALTIME
		"$@" > /dev/null
		t1=$EPOCHREALTIME
		echo "$t0 $t1"
	done | awk '{ print ($2 - $1) * 1000 }' | median
}

a2a() { "$bin/a2a-layout" -E 256 --hidden 7168 "$@"; }
a2a_generic() { MOEKIT_ISA=generic "$bin/a2a-layout" -E 256 --hidden 7168 "$@"; }
from_pipe() { cat "$tmp/trace.npy" | a2a "$@"; }
# The floor of a pipe as the earlier visits took it: a reader that does
# nothing with the bytes (a 1 MiB pipe, as a2a-layout asks for, reads of
# up to 8 MiB, each into the buffer's start), fed by a producer that
# splices the file into the pipe (no copy on its side); and that producer.
cat > "$tmp/sink.py" <<'EOF2'
import os, fcntl
try:
    fcntl.fcntl(0, 1031, 1 << 20)   # F_SETPIPE_SZ
except OSError:
    pass
b = memoryview(bytearray(8 << 20))
while os.readv(0, [b]) > 0:
    pass
EOF2
cat > "$tmp/splice.py" <<'EOF2'
import os, sys, fcntl
fd = os.open(sys.argv[1], os.O_RDONLY)
n, off = os.fstat(fd).st_size, 0
try:
    fcntl.fcntl(1, 1031, 1 << 20)
except OSError:
    pass
while off < n:
    k = os.splice(fd, 1, 1 << 20, offset_src=off)
    if k <= 0:
        break
    off += k
EOF2
splice_sink() { $py "$tmp/splice.py" "$tmp/trace.npy" | $py "$tmp/sink.py"; }
# The floors a2a-layout faces: each 8 MiB step placed whole in one buffer
# (the sink above reads every piece into its first MiB, which stays in
# cache), then loaded by nobody (pipe 0) or by every CPU (pipe N).
cat_place() { cat "$tmp/trace.npy" | "$tmp/iofloor" pipe "$1" > /dev/null; }
splice_place() { $py "$tmp/splice.py" "$tmp/trace.npy" | "$tmp/iofloor" pipe "$1" > /dev/null; }
from_splice() { $py "$tmp/splice.py" "$tmp/trace.npy" | a2a "$@"; }
# The floor of writing the outputs: copying their bytes to a new file.
copy_out() { cat "$tmp/o.npy" > "$tmp/o2.npy"; }
# The floors of reading the file and writing the outputs: threads that
# map or pread the file, or write the outputs' bytes to a new file with
# pwrite or through a mapping, and do nothing else (iofloor.c; its own
# clock, no process start).
inc="$(dirname "$0")/../../lib"	# the library's headers
cc -O2 -pthread -I"$inc" -o "$tmp/iofloor" "$(dirname "$0")/iofloor.c"
# The ceiling of the counting's arithmetic: the kernel alone on ids in
# cache, every CPU counting its own (scanrate.c, against the library).
cc -std=c11 -O2 -D_GNU_SOURCE -fopenmp -I"$inc" -o "$tmp/scanrate" \
    "$(dirname "$0")/scanrate.c" "$lib" -lm
median_floor() {	# BYTES MODE ARGS -> the median GB/s of n runs, as ms
	local i b=$1
	shift
	for ((i = 0; i < n; i++)); do
		"$tmp/iofloor" "$1" "$(nproc)" "${@:2}"
	done | median %.9g | awk -v b="$b" '{ printf "%.2f\n", b / $1 / 1e6 }'
}

isa=generic
for i in avx2 avx512; do
	MOEKIT_ISA=$i "$bin/a2a-layout" --version >/dev/null 2>&1 && isa=$i
done
probe=$("$bin/mdecode" --bench --isa "$isa" --bsz 16 --max-length 32768 \
    --threads "$(nproc)" --reps 3 | awk -F, 'NR == 1 {
	for (i = 1; i <= NF; i++) if ($i == "probe_gbps") c = i }
    NR == 2 { print $c }')
cat "$tmp/trace.npy" > /dev/null	# into the page cache
dd_gbps=$(dd if="$tmp/trace.npy" of=/dev/null bs=8M 2>&1 |
    awk '/copied/ { print $(NF - 1) }')

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel path $isa"
echo "memory read probe (mdecode --bench, $(nproc) threads): $probe GB/s"
echo "page-cache read (dd bs=8M, one thread): $dd_gbps GB/s"
for sk in 0 1; do
	echo "counting alone, ids in cache (scanrate, $(nproc) threads, Zipf $sk): $(
	    "$tmp/scanrate" "$(nproc)" $sk | sed 's/.*, R 32: //')"
	echo "  the same, one thread: $("$tmp/scanrate" 1 $sk | sed 's/.*, R 32: //')"
done
echo "trace: $steps x [32, 4096, 8] $dtype, $bytes bytes; median of $n runs"
echo
echo "case,ms,gbps,frac_probe"
row() {	# name ms bytes
	awk -v c="$1" -v ms="$2" -v b="$3" -v p="$probe" 'BEGIN {
		g = b / ms / 1e6
		printf "%s,%s,%.2f,%.3f\n", c, ms, g, g / p }'
}
sbytes=$(( bytes / steps ))
# One step beside the floor of a whole process, --version (issue 12's
# target: within 2x of it), and the floor of a one-step run: a process
# that maps the step, loads its lines on T threads (the best of 1, 2, 4,
# 8) and writes an output of the size a2a-layout writes (iofloor step),
# beside one that only starts (iofloor none).  Taken in turns, 3N
# rounds; medians.
a2a --report --emit num_tokens_per_rank -o "$tmp/o.npy" "$tmp/step.npy" > /dev/null
ob1=$(stat -c %s "$tmp/o.npy")
one_cmds=(ver all rep fnone)
for t in 1 2 4 8; do
	if [ "$t" -le "$(nproc)" ]; then one_cmds+=("f$t"); fi
done
one_run() {
	case $1 in
	ver) "$bin/a2a-layout" --version ;;
	all) a2a -o "$tmp/o.npy" "$tmp/step.npy" ;;
	rep) a2a --report --emit num_tokens_per_rank -o "$tmp/o.npy" "$tmp/step.npy" ;;
	fnone) "$tmp/iofloor" none ;;
	f*) "$tmp/iofloor" step "${1#f}" "$tmp/step.npy" 128 "$tmp/o3.npy" "$ob1" ;;
	esac
}
for ((r = 0; r < 3 * n; r++)); do
	for c in "${one_cmds[@]}"; do
		t0=$EPOCHREALTIME
		one_run "$c" > /dev/null
		t1=$EPOCHREALTIME
		echo "$c $t0 $t1"
	done
done > "$tmp/one.txt"
declare -A one_ms
for c in "${one_cmds[@]}"; do
	one_ms[$c]=$(awk -v c="$c" '$1 == c { print ($3 - $2) * 1000 }' \
	    "$tmp/one.txt" | median %.3f)
done
ver=${one_ms[ver]}
one_all=${one_ms[all]}
one_rep=${one_ms[rep]}
fbest=
for c in "${one_cmds[@]}"; do
	case $c in f[0-9]*)
		if awk -v a="${one_ms[$c]}" -v b="${fbest:-1e9}" \
		    'BEGIN { exit !(a < b) }'; then fbest=${one_ms[$c]}; fi ;;
	esac
done
row "one step, all outputs" "$one_all" $sbytes
row "one step, --report" "$one_rep" $sbytes
row "  one-step floor: map, load on 1-8 threads (best), write ${ob1} B" "$fbest" $sbytes
row "trace file, --report" "$(median_ms a2a --report --emit num_tokens_per_rank -o "$tmp/o.npy" "$tmp/trace.npy")" $bytes
row "  file floor: mapped, $(nproc) threads loading every line" "$(median_floor $bytes map "$tmp/trace.npy" 128)" $bytes
row "  file floor: pread by $(nproc) threads" "$(median_floor $bytes pread "$tmp/trace.npy" 128)" $bytes
row "trace file, all outputs" "$(median_ms a2a -o "$tmp/o.npy" "$tmp/trace.npy")" $bytes
obytes=$(stat -c %s "$tmp/o.npy")
row "  writing those outputs' bytes anew (cat o.npy > o2.npy)" "$(median_ms copy_out)" $obytes
row "  the same by $(nproc) threads, pwrite" "$(median_floor $obytes write "$tmp/o.npy" "$tmp/o2.npy")" $obytes
row "  the same by $(nproc) threads, into a mapping" "$(median_floor $obytes mapwrite "$tmp/o.npy" "$tmp/o2.npy")" $obytes
row "trace pipe, --report" "$(median_ms from_pipe --report --emit num_tokens_per_rank -o "$tmp/o.npy")" $bytes
row "  pipe floor: cat into a reader that places each step" "$(median_ms cat_place 0)" $bytes
row "  the same, then $(nproc) threads load each step" "$(median_ms cat_place "$(nproc)")" $bytes
row "trace pipe from a splicing producer, --report" "$(median_ms from_splice --report --emit num_tokens_per_rank -o "$tmp/o.npy")" $bytes
row "  pipe floor: a splicing producer into a reader that reads to its first MiB" "$(median_ms splice_sink)" $bytes
row "  pipe floor: a splicing producer into a reader that places each step" "$(median_ms splice_place 0)" $bytes
row "  the same, then $(nproc) threads load each step" "$(median_ms splice_place "$(nproc)")" $bytes
row "trace file, --report, 1 thread" "$(median_ms a2a --threads 1 --report --emit num_tokens_per_rank -o "$tmp/o.npy" "$tmp/trace.npy")" $bytes
row "trace file, --report, generic" "$(median_ms a2a_generic --report --emit num_tokens_per_rank -o "$tmp/o.npy" "$tmp/trace.npy")" $bytes
awk -v v="$ver" -v a="$one_all" -v r="$one_rep" -v fn="${one_ms[fnone]}" \
    -v fs="$fbest" 'BEGIN {
	printf "a2a-layout --version: %s ms; one step / --version: %.2f (all outputs), %.2f (--report)\n", v, a / v, r / v
	printf "one step past the start: %.3f ms (--report) against the floor'"'"'s %.3f (iofloor step %.3f - none %.3f); the floor / --version: %.2f\n", r - v, fs - fn, fs, fn, (v + fs - fn) / v }'
# the file (pread or mapped, whichever it timed faster) and the pipe agree
a2a -o "$tmp/f.npy" "$tmp/trace.npy"
cat "$tmp/trace.npy" | a2a -o "$tmp/p.npy"
cmp -s "$tmp/f.npy" "$tmp/p.npy" && echo "file and pipe outputs: identical" ||
    { echo "file and pipe outputs DIFFER"; exit 1; }
if [ -x /usr/bin/time ]; then
	echo
	for src in file pipe; do
		if [ $src = file ]; then
			/usr/bin/time -f "%M" -o "$tmp/rss" "$bin/a2a-layout" -E 256 --hidden 7168 \
			    --report --emit num_tokens_per_rank -o "$tmp/o.npy" \
			    "$tmp/trace.npy" > /dev/null
		else
			cat "$tmp/trace.npy" | /usr/bin/time -f "%M" -o "$tmp/rss" \
			    "$bin/a2a-layout" -E 256 --hidden 7168 --report --emit \
			    num_tokens_per_rank -o "$tmp/o.npy" > /dev/null
		fi
		echo "peak RSS, trace from a $src: $(cat "$tmp/rss") KiB"
	done
fi
