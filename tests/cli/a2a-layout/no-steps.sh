# A trace [0, R, T, K] has no step: every group output is empty along
# the step axis, the report counts none, and --step has none to give.
# An array after a stepped trace is an error, not more ids.
set -e
printf '# name=ids shape=0,4,3,2 dtype=i64\n' | tensor-cat -f npy > z.npy
a2a-layout -E 8 --emit num_tokens_per_rank,layout_range z.npy |
    tensor-cat --info
a2a-layout -E 8 --report -o /dev/null z.npy 2>/dev/null | grep '^trace.steps'
cat z.npy | a2a-layout -E 8 -f csv --emit num_recv_tokens
fails 2 a2a-layout -E 8 --rank 0 --step 0 z.npy
printf '# name=a shape=1,2 dtype=i64\n0,1\n' | tensor-cat -f npy > one.npy
cat z.npy one.npy > two.npy
fails 1 a2a-layout -E 8 two.npy
cat two.npy | fails 1 a2a-layout -E 8
