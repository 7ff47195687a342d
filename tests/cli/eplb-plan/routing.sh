# --routing: with routing records (vLLM's Mixtral captures), the table of
# --eval and --stats gains each layer's share of dispatches leaving their
# token's node, and the total's; a layer the loads do not have is refused.
cp "$TESTDATA/eplb-mixtral-gsm8k.jsonl" r.jsonl
# the loads the records route: slots per expert per layer
awk -F'[][]' '{ split($2, x, ","); l = $0; sub(/.*"layer":/, "", l);
	sub(/,.*/, "", l); for (i in x) c[l "," x[i]]++ }
	END { for (l = 0; l < 32; l++) { s = ""; for (e = 0; e < 8; e++)
	s = s (e ? "," : "") (c[l "," e] + 0); print s } }' r.jsonl > loads.csv
for p in global hierarchical; do
	eplb-plan -r 16 -G 4 -n 2 -g 2 --policy $p -a deepseek -o $p.npy loads.csv
	eplb-plan --eval $p.npy -G 4 -n 2 -g 2 --policy $p --routing r.jsonl loads.csv |
	    sed -n '1p;$p'
done
eplb-plan -r 16 -G 4 -n 2 -g 2 --routing r.jsonl --stats -o /dev/null loads.csv 2>&1 |
    tail -1 | cut -d, -f1,5,11,12
head -3 loads.csv > three.csv
eplb-plan -r 16 -G 4 -n 2 -g 2 -o three.npy three.csv
fails 2 eplb-plan --eval three.npy -G 4 -n 2 -g 2 --routing r.jsonl three.csv
fails 2 eplb-plan -r 16 -G 4 --routing r.jsonl -o x.npy loads.csv
