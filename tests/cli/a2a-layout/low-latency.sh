# DeepEP's low-latency mode alone (--low-latency): groups its normal mode
# refuses (above 160 ranks, or not 8n with n in its table), tokens on
# more than 8 nodes, top-11 at most; get_dispatch_layout's counts and
# low_latency_dispatch's outputs only, and a report of its one buffer.
set -e
a2a_trace 256 3 11 256 > r256.csv
fails 2 a2a-layout -E 256 r256.csv
a2a-layout -E 256 --low-latency -o ll.npz r256.csv
tensor-cat --info ll.npz
# packed_recv_count: the experts receive every slot, 256 x 3 x 11
a2a-layout -E 256 --low-latency -f csv --emit packed_recv_count r256.csv |
    grep -v '^#' | tr ',' '\n' | awk '{ s += $1 } END { print s }'
a2a-layout -E 256 --low-latency --max-tokens 128 --hidden 7168 --report \
    --emit num_tokens_per_rank -o /dev/null r256.csv
a2a-layout -E 256 --low-latency --rank 200 --emit is_token_in_rank r256.csv | tensor-cat --info
# tokens on 11 nodes: refused by normal mode at 160 ranks, not here
a2a_trace 160 2 11 160 > r160.csv
fails 1 a2a-layout -E 160 r160.csv
a2a-layout -E 160 --low-latency --emit num_tokens_per_rdma_rank r160.csv | tensor-cat --info
# 40 and 6 ranks: no normal-mode config, fine for low latency
a2a_trace 40 2 4 80 > r40.csv
fails 2 a2a-layout -E 80 --report -o /dev/null r40.csv
a2a-layout -E 80 --low-latency --emit layout_range r40.csv | tensor-cat --info
# DeepEP's rules for the mode, and ours
a2a_trace 12 2 2 24 > r12.csv
fails 2 a2a-layout -E 24 --low-latency r12.csv
a2a_trace 8 2 12 64 > k12.csv
fails 2 a2a-layout -E 64 --low-latency k12.csv
fails 2 a2a-layout -E 256 --low-latency --style triton-dist r256.csv
a2a_trace 520 1 1 520 > r520.csv
fails 1 a2a-layout -E 520 --low-latency r520.csv
a2a-layout --help | grep -c -- "--low-latency  "
# the picture: one panel (no RDMA receive buffer in this mode), the
# heading without normal mode's num_worst_tokens
a2a-layout -E 256 --low-latency --plot ll.svg -o /dev/null r256.csv
render ll.svg
grep -c "DeepEP low-latency mode: the busiest rank receives" ll.svg
grep -c "num_worst_tokens\|over RDMA" ll.svg || true
