# Routing records as JSON lines (vLLM/Mixtral captures): a step per layer,
# each layer's tokens in (problem, token) order dealt over --ranks R in
# contiguous blocks; field names with --fields; one line per bad record
# naming FILE:LINE:COL.
cp "$TESTDATA/a2a-mixtral-gsm8k-head.jsonl" r.jsonl
a2a-layout -E 8 -R 4 --emit num_recv_tokens -f csv r.jsonl
a2a-layout -E 8 -R 4 --hidden 4096 --report -o /dev/null r.jsonl | grep -e num_worst -e max_recv_tokens
fails 2 a2a-layout -E 8 r.jsonl
printf '{"blk": 0, "ids": [1, 2]}\n\n{"blk": 0, "ids": [3]}\n{"blk": 1, "ids": [0, 7]}\n' > f.jsonl
a2a-layout -E 8 -R 2 --fields blk,-,-,ids --emit num_tokens_per_rank -f csv f.jsonl
fails 1 a2a-layout -E 8 -R 2 f.jsonl
fails 2 a2a-layout -E 8 -R 2 --fields blk,ids f.jsonl
# a field --fields names that no record has is a misspelling, not "absent"
fails 2 a2a-layout -E 8 -R 4 --fields layer,problem_id,token_ix,experts r.jsonl
fails 2 a2a-layout -E 8 -R 4 --fields layer,problem,token_idx,experts r.jsonl
a2a-layout -E 8 -R 4 --fields layer,problem_id,-,experts -o /dev/null r.jsonl && echo "- for none: fine"
printf '{"layer": 0, "experts": [1, 2]}\n{"layer": 0, "experts": [1, 2.5]}\n' > bad.jsonl
fails 1 a2a-layout -E 8 -R 2 bad.jsonl
printf '{"layer": 0, "experts": [1, 2]}\n{"layer": 0, "experts": [1, 2]\n' > cut.jsonl
fails 1 a2a-layout -E 8 -R 2 cut.jsonl
printf '{"layer": 0, "experts": [1, 9]}\n' > range.jsonl
fails 1 a2a-layout -E 8 -R 2 range.jsonl
fails 1 tensor-cat r.jsonl
