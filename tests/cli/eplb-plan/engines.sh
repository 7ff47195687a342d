# Each engine's placement file (-f sglang|vllm|trtllm, or the -o file's
# extension) and each engine's own records read: vLLM's eplb_load_stats
# lines, TensorRT-LLM's statistics directory (testdata/trtllm-stats, the
# key-wise sum of its rank files: testdata/trtllm-stats-log.npy).
st="$TESTDATA/trtllm-stats"
eplb-plan -r 12 -G 2 -f trtllm "$st"
# online from this placement: 2 layers re-planned an iteration
eplb-plan -r 12 -G 2 -f trtllm --layer-updates-per-iter 2 "$st" | tail -2
eplb-plan -r 12 -G 2 -o plan.jsonl "$st" && cat plan.jsonl
eplb-plan -r 12 -G 2 --emit phy2log -f csv "$st" | sed -n '1p;5,6p'
eplb-plan -r 12 -G 2 --emit phy2log -f csv "$TESTDATA/trtllm-stats-log.npy"
echo "-- vLLM's statistics: slots credited through each record's map"
cat > stats.jsonl <<'X'
{"record_type": "eplb_load_meta", "version": 1}
{"record_type": "eplb_load_stats", "version": 1, "step": 7, "num_ranks": 2, "expert_load": [[10, 1, 5, 2], [2, 8, 1, 3]], "p2l_map": [[0, 1, 2, 0], [0, 1, 2, 2]]}
{"record_type": "eplb_load_stats", "version": 1, "step": 9, "num_ranks": 2, "expert_load": [[4, 4, 4, 4], [0, 0, 9, 1]], "p2l_map": [[2, 1, 0, 1], [1, 0, 2, 1]]}
X
eplb-plan -r 4 -G 2 --emit logcnt -f csv --stats stats.jsonl 2>&1 |
    grep -v '^layer\|^[01],\|^total'
# by expert: layer 0 12,1,5 + 4,8,4; layer 1 2,8,4 + 0,1,9
printf '16,9,9\n2,9,13\n' | tensor-cat -f npy > sum.npy
eplb-plan -r 4 -G 2 -f csv stats.jsonl > s.csv
eplb-plan -r 4 -G 2 -f csv sum.npy | cmp - s.csv &&
    echo "the same plan as the summed expert loads"
echo "-- refused"
fails 2 eplb-plan -r 288 -G 32 -f vllm "$TESTDATA/eplb-dsv3-prefill_in1024.json"
fails 2 eplb-plan -r 288 -G 32 -o plan.yaml "$TESTDATA/eplb-dsv3-prefill_in1024.json"
fails 2 eplb-plan -r 288 -G 32 -f sglang -o x.npy "$TESTDATA/eplb-dsv3-prefill_in1024.json"
fails 2 eplb-plan -r 12 -G 2 -f trtllm -o x.jsonl "$st"
fails 2 eplb-plan -r 12 -G 2 -f sglang --layer-updates-per-iter 2 "$st"
fails 2 eplb-plan -r 12 -G 2 -f trtllm --layer-updates-per-iter -1 "$st"
printf '{"record_type": "eplb_load_stats", "step": 3, "expert_load": [[1, 2]], "p2l_map": [[0, 1]]}\n{"record_type": "eplb_load_stats", "step": 3, "expert_load": [[1, 2]], "p2l_map": [[0, 1]]}\n' > twice.jsonl
fails 1 eplb-plan -r 2 -G 1 twice.jsonl
printf '{"record_type": "eplb_load_stats", "step": 3, "expert_load": [[1, 2]], "p2l_map": [[0, 7]]}\n' > far.jsonl
fails 1 eplb-plan -r 2 -G 1 far.jsonl
mkdir empty
fails 1 eplb-plan -r 12 -G 2 empty
mkdir bad && printf 'xx' > bad/rank0.safetensors
fails 1 eplb-plan -r 12 -G 2 bad
rm -r empty bad
only_files far.jsonl plan.jsonl s.csv stats.jsonl sum.npy twice.jsonl
