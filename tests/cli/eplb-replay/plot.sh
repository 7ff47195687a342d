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
# the front's numbers clear of every point and of each other: two front
# points 21 px apart (the demo's log) keep numbers 3 and 4 apart
eplb-replay --quiet --engine ideal,vllm,sglang -r 288 -G 32 -n 4 -g 8 --window 40 \
    --interval 40,80 --plot f.svg $log > /dev/null
render f.svg
awk '{
	while (match($0, /<circle cx="[0-9.]+" cy="[0-9.]+"/)) {
		split(substr($0, RSTART, RLENGTH), a, "\"")
		cx[++nc] = a[2]; cy[nc] = a[4]
		$0 = substr($0, RSTART + RLENGTH)
	}
}
{ line[NR] = $0 }
END {
	for (r = 1; r <= NR; r++) {
		s = line[r]
		while (match(s, /<text x="[0-9.]+" y="[0-9.]+" font-size="11" text-anchor="[a-z]+">[0-9]+</)) {
			t = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
			split(t, a, "\""); x = a[2]; y = a[4]; an = a[8]
			if (t ~ />1000</ || t ~ />10k</) continue
			x0 = an == "start" ? x : an == "end" ? x - 7 : x - 3.5
			for (i = 1; i <= nc; i++)
				if (x0 < cx[i] + 5 && cx[i] - 5 < x0 + 7 && y - 9 < cy[i] + 5 && cy[i] - 5 < y + 1)
					bad++
			for (i = 1; i <= nn; i++)
				if (x0 < nx[i] + 7 && nx[i] < x0 + 7 && y - 9 < ny[i] && ny[i] - 9 < y)
					meet++
			nx[++nn] = x0; ny[nn] = y
		}
	}
	printf "front numbers: %d, on a point: %d, on another number: %d\n", nn, bad, meet
}' f.svg
# the colours' key names only the placements drawn: hierarchical alone
# (the demo's), then both
grep -o 'hover: which): [^;]*' f.svg
eplb-replay --quiet --engine ideal -r 288 -G 32 -n 4 -g 8 --policy hierarchical,global \
    --window 40 --interval 40 --plot k.svg $log > /dev/null
render k.svg
grep -o 'hover: which): [^;]*' k.svg
# the hover text names every setting each engine has, none it lacks, no
# internal value (-1), and the step scored from
eplb-replay --quiet --engine ideal,vllm,sglang,trtllm -r 288 -G 32 -n 4 -g 8 --window 40 \
    --interval 40 --layers-per-chunk 8 --layer-updates-per-iter 2 --plot h.svg $log > /dev/null
render h.svg
sed -n 's/.*<circle[^>]*><title>\([^:]*\):.*/\1/p' h.svg
echo "internal values: $(grep -c -- '-1[,<]' h.svg)"
