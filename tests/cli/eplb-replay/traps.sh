# A new user's traps: a size with thousands separators is refused, not
# three settings; --plot writes SVG only under a .svg name (or to stdout,
# a pipe, /dev/null); vLLM records written every N steps each stand for
# their N steps (windows and intervals stay vLLM's steps), as a log of
# every step repeating each record N times would, and a note says so.
cp "$TESTDATA/eplb-replay-log.npy" log.npy
run() { eplb-replay --quiet --engine ideal -r 288 -G 32 --window 40 "$@"; }
fails 2 run --expert-bytes 44,000,000 log.npy
fails 2 run --expert-bytes 44M,0 log.npy
fails 2 eplb-plan -r 288 -G 32 --expert-bytes 1,500 log.npy
run --expert-bytes 44M,88MB log.npy | cut -d, -f16
fails 2 run --plot pic.png log.npy
fails 2 eplb-plan -r 288 -G 32 --plot pic.png -o /dev/null log.npy
fails 2 a2a-layout -E 8 --plot pic -o /dev/null "$TESTDATA/a2a-example.npy"
fails 2 mdecode --bench --isa generic --bsz 1 --max-length 64 --reps 1 --plot b.csv
run --plot /dev/null log.npy > /dev/null && echo "/dev/null: drawn"
run --plot PIC.SVG log.npy > /dev/null && ls PIC.SVG
echo "-- vLLM records every 10 steps"
i=0
while [ $i -lt 6 ]; do
	printf '{"record_type": "eplb_load_stats", "step": %d, "expert_load": [[%d, 2, 3, 4]], "p2l_map": [[0, 1, 2, 0]]}\n' $((7 + 10 * i)) $((i + 1))
	i=$((i + 1))
done > ten.jsonl
{ echo "# name=log shape=60,1,3 dtype=i64"
  for i in 1 2 3 4 5 6; do for k in 1 2 3 4 5 6 7 8 9 10; do echo "$((i + 4)),2,3"; done; done; } > ten.csv
for e in ideal vllm sglang; do
	eplb-replay --engine $e -r 4 -G 2 --window 20 --interval 20 ten.jsonl > a.csv
	eplb-replay --engine $e -r 4 -G 2 --window 20 --interval 20 ten.csv 2> /dev/null |
	    cmp - a.csv && echo "$e: as every step"
done
eplb-plan -r 4 -G 2 --window 20 -o a.npy ten.jsonl
eplb-plan -r 4 -G 2 --window 20 -o b.npy ten.csv && cmp a.npy b.npy && echo "the plan of the last 20 steps"
fails 2 eplb-plan -r 4 -G 2 --window 25 ten.jsonl
rm log.npy PIC.SVG ten.jsonl ten.csv a.csv a.npy b.npy
only_files
