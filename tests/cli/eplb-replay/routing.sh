# Routing records (vLLM's Mixtral captures, JSON lines): per-step loads
# and the share of dispatches that leave their token's node, for the
# placements over time; a node of all GPUs sends nothing away.
cp "$TESTDATA/a2a-mixtral-gsm8k-head.jsonl" r.jsonl
r=r.jsonl
eplb-replay --quiet -E 8 -r 8,16 -G 4 -n 1,2 -a deepseek --window 8 \
    --interval 8 --tokens-per-step 2 $r | cut -d, -f1-3,13,16,17,20
