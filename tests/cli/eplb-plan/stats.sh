# --stats on a real DeepSeek-V3 dump: best beats deepseek and waterfill on
# total balancedness and stays within 0.1% of the lower bound; --report
# writes the same table to a file; layer indices are the input's.
set -e
w=$TESTDATA/eplb-dsv3-prefill_in1024.json
for cfg in "-n 4 -g 8" "-n 1 -g 1"; do
	for a in best deepseek waterfill; do
		eplb-plan -a $a -r 288 -G 32 $cfg --skip-zero-layers --stats \
		    -o /dev/null "$w" 2>&1 | grep '^total' | cut -d, -f5,7 > $a
	done
	awk -F, -v d="$(cat deepseek)" -v w="$(cat waterfill)" '{
		split(d, D, ","); split(w, W, ",")
		print ($1 >= D[1] && $1 >= W[1] ? "best balances best" : "WORSE"), \
		    ($2 <= 1.001 ? "gap <= 1.001" : "GAP " $2) }' best
done
eplb-plan -r 288 -G 32 -n 4 -g 8 --skip-zero-layers --report r.csv -o /dev/null "$w" 2> err
head -1 r.csv
sed -n 2p r.csv | cut -d, -f1
[ "$(wc -l < r.csv)" = 60 ] && echo "58 layers and a total"
