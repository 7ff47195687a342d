# Lists sweep: one row per configuration of their cross product, the
# columns named as the man page names them; on a drifting log made from
# the real DeepSeek-V3 dumps (testdata/README).  The ideal loop:
# --max-moves keeps every re-plan within its budget; 0 moves nothing.
cp "$TESTDATA/eplb-replay-log.npy" log.npy
log=log.npy
# col NAME...: those columns of a table, by their header's names
col() {
	awk -F, -v want="$*" 'NR == 1 { n = split(want, w, " ")
		for (i = 1; i <= NF; i++) c[$i] = i }
		{ for (i = 1; i <= n; i++) printf "%s%s", $c[w[i]],
		    i < n ? "," : "\n" }'
}
eplb-replay --quiet --engine ideal -a deepseek --num-redundant-experts 0,32 \
    -G 32 -n 4 -g 8 --window 40 --interval 40,80 --max-moves none,300,0 \
    --expert-bytes 44M $log > out.csv
head -1 out.csv
echo "rows: $(($(wc -l < out.csv) - 1)) (2 x 2 x 3)"
# every row's moves within (re-plans x budget), 0 for a budget of 0
col max_moves rebalances moves bytes_moved < out.csv | awk -F, '
	NR > 1 && $1 != "none" && $3 > $1 * $2 { print "over budget: " $0 }
	NR > 1 && $1 == 0 && ($3 != 0 || $2 != 0) { print "moved: " $0 }
	NR > 1 && ($4 % 44000000 != 0 || ($4 == 0) != ($3 == 0)) {
	    print "bytes: " $0 }'
# a threads' count changes nothing
eplb-replay --quiet --threads 1 --engine ideal -a deepseek \
    --num-redundant-experts 0,32 -G 32 -n 4 -g 8 --window 40 \
    --interval 40,80 --max-moves none,300,0 --expert-bytes 44M $log |
    cmp - out.csv && echo "one thread: the same rows"
# the global policy, named in its column
eplb-replay --quiet --engine ideal -a deepseek -r 288 -G 32 -n 4 -g 8 \
    --policy global,hierarchical --window 40 --interval 80 $log |
    col policy balancedness
echo "-- the engines' own loops, each with its own defaults and columns"
eplb-replay --quiet --engine vllm,sglang,trtllm,ideal -r 288 -G 32 -n 4 -g 8 \
    --window 40 --interval 40,80 --async on,off --layers-per-chunk 20 \
    --layer-updates-per-iter 4 --expert-bytes 44M $log > eng.csv
col engine policy algo window interval async layers_per_chunk \
    layer_updates_per_iter score_from balancedness rebalances moves < eng.csv
# bytes: copies of an expert's weights; across nodes: a part of them
col bytes_moved bytes_inter_node < eng.csv | awk -F, 'NR > 1 &&
    ($1 % 44000000 || $2 % 44000000 || $2 > $1) { print "bytes: " $0 }'
echo "-- one step scores every row alike"
eplb-replay --quiet --engine vllm,trtllm -r 288 -G 32 -n 4 -g 8 --window 40 \
    --interval 80 --layer-updates-per-iter 8 --score-from 100 $log |
    col engine score_from balancedness
echo "-- no --expert-bytes: no bytes, not 0"
eplb-replay --quiet -r 288 -G 32 --window 40 --interval 80 $log |
    col engine bytes_moved bytes_inter_node
