# Options no other test runs: --history (several windows a re-plan; the
# ideal loop's), --skip-zero-layers (a log's all-zero layers), -o (the
# table written atomically), -v (the kernel path on stderr).
set -e
cp "$TESTDATA/eplb-replay-log.npy" log.npy
run() { eplb-replay --quiet --engine ideal -r 288 -G 32 -n 4 -g 8 --window 40 "$@"; }
run --interval 40 --history 1,2,3 log.npy | cut -d, -f7,10,18,21,22
fails 2 eplb-replay --engine vllm -r 288 -G 32 --history 2 log.npy
echo "-- a log with an all-zero (dense) layer, counted or skipped"
printf '# name=log shape=6,3,4 dtype=i64\n' > z.csv
# (no rand(): awks differ in it)
awk 'BEGIN { for (t = 0; t < 6; t++) { print (t * 7) % 9 "," (t * 5 + 3) % 9 "," (t * 4 + 1) % 9 "," 1
	print "0,0,0,0"; print 9 "," (t * 2 + 5) % 9 "," 2 "," (t * 8 + 4) % 9 } }' >> z.csv
eplb-replay --engine ideal -r 8 -G 2 --window 2 --interval 2 z.csv | cut -d, -f18,21,22
eplb-replay --engine ideal -r 8 -G 2 --window 2 --interval 2 --skip-zero-layers z.csv | cut -d, -f18,21,22
echo "-- -o: the same table, atomically"
run log.npy > want.csv
run -o got.csv log.npy
cmp want.csv got.csv && echo "-o: the same rows"
run -v log.npy 2>&1 >/dev/null
