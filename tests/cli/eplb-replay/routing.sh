# Routing records (vLLM's Mixtral captures, JSON lines): per-step loads
# and the share of dispatches that leave their token's node, for the
# placements over time; a node of all GPUs sends nothing away.
cp "$TESTDATA/a2a-mixtral-gsm8k-head.jsonl" r.jsonl
r=r.jsonl
eplb-replay --quiet --engine ideal,vllm -E 8 -r 8,16 -G 4 -n 1,2 -a deepseek \
    --window 8 --interval 8 --tokens-per-step 2 $r |
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
	{ print $c["engine"] "," $c["replicas"] "," $c["gpus"] "," \
	    $c["nodes"] "," $c["balancedness"] "," $c["rebalances"] "," \
	    $c["moves"] "," $c["inter_node_share"] }'
