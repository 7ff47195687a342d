# Options no other test runs: --effort (best's search steps: more finds
# plans at least as balanced here) and --threads (the plan does not
# depend on it); -v's lines (the kernel path, timings: their shape only).
set -e
d="$TESTDATA/eplb-dsv3-prefill_in1024.json"
hw="-r 288 -G 32 -n 4 -g 8 --skip-zero-layers"
for e in 1 8 64; do
	eplb-plan --quiet $hw --effort $e --stats -o /dev/null "$d" 2>&1 |
	    tail -1 | cut -d, -f3,5 | sed "s/^/effort $e: /"
done
eplb-plan --quiet $hw -o all.npy "$d"
eplb-plan --quiet $hw --threads 1 -o one.npy "$d"
cmp all.npy one.npy && echo "--threads 1: the same plan"
eplb-plan $hw -v -o /dev/null "$d" 2>&1
fails 2 eplb-plan $hw --effort 0 "$d"
fails 2 eplb-plan $hw --threads 0 "$d"
