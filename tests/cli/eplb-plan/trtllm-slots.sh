# TensorRT-LLM's statistics recorded with its load balancer on count by
# slot (meta_info.json's num_experts = num_slots): as many counts as -r's
# slots is refused, saying what to do, never planned as that many
# experts; --num-redundant-experts 0 settles a model without redundancy.
cp -r "$TESTDATA/trtllm-stats" stats
fails 2 eplb-plan -r 8 -G 2 -o /dev/null stats
fails 2 eplb-replay --engine trtllm -r 8,10 -G 2 --layer-updates-per-iter 1 stats
eplb-plan --num-redundant-experts 0 -G 2 -f csv --emit logcnt stats
eplb-plan -r 10 -G 2 -f csv --emit logcnt stats
rm -r stats
only_files
