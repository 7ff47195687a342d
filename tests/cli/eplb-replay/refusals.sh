# What the fourth campaign found: --engine trtllm refuses --interval (it
# re-plans every iteration); an empty --shard slice that fails says only
# the error; vLLM records read whatever the order of their keys (jq -S);
# a plan that leaves an expert without a slot is refused naming the file
# and its row (--eval and --prev alike, --skip-zero-layers too).
cp "$TESTDATA/eplb-replay-log.npy" log.npy
fails 2 eplb-replay --engine trtllm -r 288 -G 32 --layer-updates-per-iter 1 --interval 40 log.npy
mkdir d
fails 1 eplb-replay --engine ideal -r 288 -G 32 --window 40 --interval 40 --shard 2/4 -o d log.npy
rmdir d
echo "-- vLLM's records with sorted keys (jq -S -c)"
cat > s.jsonl <<'X'
{"expert_load": [[10, 1, 5, 2], [2, 8, 1, 3]], "num_ranks": 2, "p2l_map": [[0, 1, 2, 0], [0, 1, 2, 2]], "record_type": "eplb_load_stats", "step": 7, "version": 1}
{"expert_load": [[4, 4, 4, 4], [0, 0, 9, 1]], "num_ranks": 2, "p2l_map": [[2, 1, 0, 1], [1, 0, 2, 1]], "record_type": "eplb_load_stats", "step": 9, "version": 1}
X
eplb-plan -r 4 -G 2 --emit logcnt -f csv s.jsonl
echo "-- a plan without a slot for an expert"
printf '# name=phy2log shape=2,4 dtype=i64\n0,1,2,3\n0,0,2,3\n' > p.csv
printf '5,3,2,1\n4,4,4,4\n' > w.csv
printf '0,0,0,0\n5,3,2,1\n4,4,4,4\n' > wz.csv
fails 1 eplb-plan --eval p.csv -G 2 w.csv
fails 1 eplb-plan --prev p.csv -r 4 -G 2 w.csv
fails 1 eplb-plan --eval p.csv -G 2 --skip-zero-layers wz.csv
printf '# name=phy2log shape=3,4 dtype=i64\n0,1,2,3\n0,1,2,3\n0,0,2,3\n' > p3.csv
fails 1 eplb-plan --eval p3.csv -G 2 --skip-zero-layers wz.csv
fails 1 eplb-plan --prev p3.csv -r 4 -G 2 --skip-zero-layers wz.csv
rm log.npy s.jsonl p.csv p3.csv w.csv wz.csv
only_files
