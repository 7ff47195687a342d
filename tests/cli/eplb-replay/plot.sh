# --plot: balancedness against moves for every configuration, the Pareto
# front ringed and joined; with routing, a second panel against the
# inter-node share.  Rendered by a real renderer; --steps: one
# configuration's series.
cp "$TESTDATA/eplb-replay-log.npy" log.npy
log=log.npy
cp "$TESTDATA/a2a-mixtral-gsm8k-head.jsonl" mixtral.jsonl
eplb-replay --quiet --engine ideal,vllm -a deepseek --num-redundant-experts 0,32 \
    -G 32 -n 4 -g 8 --window 40 --interval 40,80 --max-moves none,300 \
    --plot p.svg $log > /dev/null
render p.svg
echo "points: $(grep -c '<circle' p.svg), on the front: $(grep -c 'Pareto front)' p.svg)"
# the front's key: each numbered point's configuration, readable in a PNG
sed -n 's/.*<text[^>]*>\([0-9][0-9]*  [^<]*moves [0-9]*\)<.*/\1/p' p.svg
eplb-replay --quiet --engine ideal -E 8 -r 16 -G 4 -n 2 -a deepseek,best --window 8 \
    --interval 8,16 --tokens-per-step 2 --plot q.svg \
    mixtral.jsonl > /dev/null
render q.svg
grep -c 'inter-node share 0' q.svg
eplb-replay --quiet -a deepseek -r 288 -G 32 -n 4 -g 8 --window 40 --interval 80 \
    --steps s.csv $log > /dev/null
head -1 s.csv
echo "steps: $(($(wc -l < s.csv) - 1)); re-plans moving slots: $(awk -F, 'NR > 1 && $5 > 0' s.csv | wc -l)"
sed -n '42p' s.csv | cut -d, -f1,5
# a title of a long file name: the picture widens to it
long=expert-load-log-of-the-deepseek-v3-serving-run-over-240-steps-kept-for-replaying-the-rebalancing-of-the-next-deployment.npy
cp $log $long
eplb-replay --quiet -a deepseek -r 288 -G 32 --window 40 --interval 80 --plot t.svg $long > /dev/null
render t.svg
rm $long
