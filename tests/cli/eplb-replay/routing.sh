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
set -e
one() { eplb-replay --quiet --engine ideal -E 8 -r 16 -G 4 -n 2 \
    --window 8 --interval 8 --tokens-per-step 2 "$@" | md5sum; }
one $r > want
# blank lines before the first record: still routing records
(printf '\n\n'; cat $r) > blank.jsonl
one blank.jsonl | cmp - want && echo "blank first lines: the same rows"
# no sequence or token fields (--fields L,-,-,E): tokens in file order,
# the k-th record of each layer the same token (as a2a-layout reads it)
sed 's/"problem_id": [0-9]*, //; s/, "token_idx": [0-9]*//' $r > bare.jsonl
head -c 60 bare.jsonl; echo
one --fields layer,-,-,experts bare.jsonl | cmp - want &&
    echo "file order: the same rows"
# --fields: a named field must occur; STEP and EXPERTS are required
fails 2 eplb-replay -E 8 -r 16 -G 4 --fields layer,problem_id,tok,experts $r
fails 2 eplb-replay -E 8 -r 16 -G 4 --fields -,-,-,experts $r
fails 2 eplb-replay -E 8 -r 16 -G 4 --fields layer,-,- $r
