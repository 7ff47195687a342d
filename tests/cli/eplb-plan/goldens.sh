# deepseek and waterfill reproduce deepseek-ai/EPLB and the waterfill
# reference program (round-robin waterfilling, Hamilton counts), run under
# torch by tests/gen/eplb_goldens.py: phy2log and logcnt exactly; log2phy
# as the set of slots of each expert (replicas of one expert tie in the
# GPU packing, and torch's unstable sort orders them arbitrarily).
set -e
# each log2phy row with its slots sorted, -1 padding kept at the end
sorted_rows() {
	awk -F, '/^#/ { print; next } {
		n = 0
		for (i = 1; i <= NF; i++) if ($i >= 0) v[n++] = $i + 0
		for (i = 1; i < n; i++) for (j = i; j > 0 && v[j-1] > v[j]; j--) {
			t = v[j]; v[j] = v[j-1]; v[j-1] = t }
		line = ""
		for (i = 0; i < NF; i++) line = line (i ? "," : "") (i < n ? v[i] : -1)
		print line
	}'
}
while read -r name R K N G; do
	for algo in deepseek waterfill; do
		w=full
		[ $algo = deepseek ] && w=max
		eplb-plan -a $algo --log2phy-width $w -r "$R" -g "$K" -n "$N" \
		    -G "$G" "$TESTDATA/eplb-$name.npy" | tensor-cat -f csv \
		    --names phy2log,log2phy,logcnt > got.csv
		tensor-cat -f csv --names phy2log,log2phy,logcnt \
		    "$TESTDATA/eplb-$name.$algo.out.npy" > want.csv
		tensor-cat --emit phy2log,logcnt got.csv > a
		tensor-cat --emit phy2log,logcnt want.csv > b
		cmp -s a b || die "$name $algo: phy2log or logcnt differ"
		tensor-cat --emit log2phy got.csv | sorted_rows > a
		tensor-cat --emit log2phy want.csv | sorted_rows > b
		cmp -s a b || die "$name $algo: log2phy differs"
		echo "$name $algo ok"
	done
done < "$TESTDATA/eplb-goldens.txt"
