# vLLM's records number the MoE layers from 0; SGLang's map and
# TensorRT-LLM's YAML want the model's layers: --first-moe-layer N, never
# a silent 0.  With it, the YAML's keys start at N and SGLang's map has N
# dense rows first; a dump that numbers the model's layers refuses it.
cat > s.jsonl <<'X'
{"record_type": "eplb_load_stats", "version": 1, "step": 7, "num_ranks": 2, "expert_load": [[10, 1, 5, 2], [2, 8, 1, 3]], "p2l_map": [[0, 1, 2, 0], [0, 1, 2, 2]]}
{"record_type": "eplb_load_stats", "version": 1, "step": 9, "num_ranks": 2, "expert_load": [[4, 4, 4, 4], [0, 0, 9, 1]], "p2l_map": [[2, 1, 0, 1], [1, 0, 2, 1]]}
X
fails 2 eplb-plan -r 4 -G 2 -f trtllm s.jsonl
fails 2 eplb-plan -r 4 -G 2 -o p.json s.jsonl
eplb-plan -r 4 -G 2 --first-moe-layer 3 -f trtllm s.jsonl
eplb-plan -r 4 -G 2 --first-moe-layer 3 -o p.json s.jsonl
cat p.json
echo "-- read back: --prev takes the rows of layers 3 and 4"
eplb-plan -r 4 -G 2 --first-moe-layer 3 --prev p.json --stats -o /dev/null s.jsonl 2>&1 | cut -d, -f1,11
echo "-- vLLM's own file: rows in order, no layer numbers needed"
eplb-plan -r 4 -G 2 -f vllm s.jsonl
cp "$TESTDATA/eplb-dsv3-prefill_in1024.json" d.json
fails 2 eplb-plan -r 4 -G 2 --first-moe-layer 3 -f npy -o /dev/null d.json
rm s.jsonl p.json d.json
only_files
