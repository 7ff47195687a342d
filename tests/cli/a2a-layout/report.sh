# --report: DeepEP's hints as real DeepEP prints them (PR #434 values),
# the low-latency hint and the 32 GiB cap; on stdout with -o, on stderr
# when the tensors take stdout.
set -e
a2a_trace 16 32 8 256 > r16.csv
a2a-layout -E 256 --num-sms 24 --config 8,512,16,128 --hidden-bytes 7168 \
    --report -o /dev/null r16.csv | grep -E 'buffer_size_hint|need'
a2a_trace 8 32 8 288 > r8.csv
a2a-layout -E 288 --max-tokens 128 --hidden 7168 --report -o /dev/null r8.csv |
    grep low_latency
a2a_trace 16 32 8 448 > r16b.csv
a2a-layout -E 448 --max-tokens 2048 --hidden 5120 --report -o /dev/null r16b.csv |
    grep -E 'low_latency|cap'
a2a-layout -E 256 --report -o tensors.csv r16.csv > rep
head -1 rep
echo "-- the report and the tensors both on stdout: refused, -o named"
fails 2 a2a-layout -E 256 --report r16.csv
fails 2 a2a-layout -E 256 --report -o - r16.csv
tensor-cat --info tensors.csv | head -2
echo "-- num_worst_tokens internode covers what a rank receives over RDMA"
# rank 0 sends its 8 tokens to experts 8..15, one per rank of node 1: each
# receives 1 token, but rank 8 receives all 8 over RDMA before forwarding
awk 'BEGIN { print "# name=topk_idx shape=16,8,1 dtype=i64"; for (r = 0; r < 16; r++) for (t = 0; t < 8; t++) print (r == 0 ? 8 + t : -1) }' > w16.csv
a2a-layout -E 16 --report -o /dev/null w16.csv | grep -e '^trace.max_recv_tokens' -e num_worst
echo "-- limits DeepEP asserts: buffers above INT_MAX flagged, --max-tokens below the trace's tokens refused"
a2a_trace 64 16 8 128 > r64.csv
a2a-layout -E 128 --num-sms 132 --report -o /dev/null r64.csv | grep -e '^recommended' -e INT_MAX
a2a_trace 8 6 2 16 > r8t6.csv
fails 2 a2a-layout -E 16 --max-tokens 1 --report -o /dev/null r8t6.csv
a2a-layout -E 16 --max-tokens 6 --report -o /dev/null r8t6.csv | grep low_latency
fails 2 a2a-layout -E 16 --style triton-dist --max-tokens 2 -o /dev/null r8t6.csv
