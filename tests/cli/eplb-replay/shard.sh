# --shard I/N: a job array.  Each shard prints the header and a contiguous
# slice of the cross product; the slices, headers dropped but the first,
# are the whole sweep's rows in the whole sweep's order.
cp "$TESTDATA/eplb-replay-log.npy" log.npy
sweep() {
	eplb-replay --quiet --engine ideal,vllm -r 288 -G 32 -n 4 -g 8 \
	    --window 40 --interval 40,80 --max-moves none,300 "$@" log.npy
}
sweep > all.csv
echo "configurations: $(($(wc -l < all.csv) - 1))"
for n in 3 8; do
	i=1
	while [ $i -le $n ]; do
		sweep --shard $i/$n > part$i.csv
		printf '%s/%s: %s rows\n' $i $n $(($(wc -l < part$i.csv) - 1))
		i=$((i + 1))
	done
	awk 'NR == 1 || FNR > 1' $(i=1; while [ $i -le $n ]; do
	    echo part$i.csv; i=$((i + 1)); done) | cmp - all.csv &&
	    echo "$n shards: the whole sweep"
	rm part*.csv
done
# a slice holding no configuration is the header alone, and says so
sweep --shard 1/8 | wc -l
eplb-replay --engine ideal -r 288 -G 32 -n 4 -g 8 --window 40 --shard 1/8 \
    log.npy 2>&1 >/dev/null
# 1/1 is the whole sweep
sweep --shard 1/1 | cmp - all.csv && echo "1/1: the whole sweep"
echo "-- refused"
for s in 0/3 4/3 3 1/0 a/b 1/2x 1/5000 1/-2; do
	sweep --shard $s > out 2> err
	echo "$s: exit $? stdout $(wc -c < out) $(cat err)"
done
