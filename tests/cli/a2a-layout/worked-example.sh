# The intranode worked example of a2a-layout(1): R=4, E=8, K=2, 4 SMs
# (2 channels), expert alignment 4; group-wide outputs and rank 0's.
set -e
cat > ids.csv <<'CSV'
# name=topk_idx shape=4,6,2 dtype=i64
0,3
5,-1
2,3
7,6
1,1
4,2
6,7
0,2
-1,-1
3,4
5,0
2,6
1,5
3,3
0,7
4,6
2,1
6,5
7,0
2,4
5,6
1,3
0,-1
4,7
CSV
a2a-layout -E 8 --num-sms 4 --expert-alignment 4 --rank 0 \
    --emit num_tokens_per_rank,rank_prefix_matrix,num_recv_tokens_per_expert,send_head,recv_src_idx,recv_channel_prefix_matrix ids.csv
