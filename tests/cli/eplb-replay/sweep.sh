# Lists sweep: one row per configuration of their cross product, the
# columns named as the man page names them; on a drifting log made from
# the real DeepSeek-V3 dumps (testdata/README).  --max-moves keeps every
# re-plan within its budget; 0 moves nothing.
cp "$TESTDATA/eplb-replay-log.npy" log.npy
log=log.npy
eplb-replay --quiet -a deepseek --num-redundant-experts 0,32 -G 32 -n 4 -g 8 \
    --window 40 --interval 40,80 --max-moves none,300,0 --expert-bytes 44M \
    $log > out.csv
head -1 out.csv
echo "rows: $(($(wc -l < out.csv) - 1)) (2 x 2 x 3)"
# every row's moves within (re-plans x budget), 0 for a budget of 0
awk -F, 'NR > 1 && $10 >= 0 && $17 > $10 * $16 { print "over budget: " $0 }
	NR > 1 && $10 == 0 && ($17 != 0 || $16 != 0) { print "moved: " $0 }
	NR > 1 && ($18 % 44000000 != 0 || ($18 == 0) != ($17 == 0)) { print "bytes: " $0 }' out.csv
# a threads' count changes nothing
eplb-replay --quiet --threads 1 -a deepseek --num-redundant-experts 0,32 -G 32 \
    -n 4 -g 8 --window 40 --interval 40,80 --max-moves none,300,0 \
    --expert-bytes 44M $log | cmp - out.csv && echo "one thread: the same rows"
# the global policy, named in its column
eplb-replay --quiet -a deepseek -r 288 -G 32 -n 4 -g 8 --policy global,hierarchical \
    --window 40 --interval 80 $log | cut -d, -f5,13
