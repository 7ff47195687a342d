# --style triton-dist keeps only Triton-distributed's rule (E % W == 0):
# 40 ranks, 12 ranks on nodes of --local-world-size 4, a token on 9 nodes
# all run; the per-rank views of its preprocess and, intranode, the
# skipped-token mappings; --report gives its buffers' bytes and the
# use_aot limits.
set -e
a2a_trace 40 4 2 80 > r40.csv
fails 2 a2a-layout -E 80 -o /dev/null r40.csv
a2a-layout -E 80 --style triton-dist --emit num_recv_tokens_per_rank -o r40.npy r40.csv
tensor-cat --info r40.npy
echo "-- a token on 9 nodes of 8: DeepEP refuses it, Triton-distributed sends it"
awk 'BEGIN { print "# name=ids shape=96,1,9 dtype=i32"; for (r = 0; r < 96; r++) print (r ? "-1,-1,-1,-1,-1,-1,-1,-1,-1" : "0,8,16,24,32,40,48,56,64") }' > n9.csv
fails 1 a2a-layout -E 96 -o /dev/null n9.csv
a2a-layout -E 96 --style triton-dist --rank 0 --emit send_reqs -f csv n9.csv | tr '\n' ' '
echo
echo "-- 12 ranks on nodes of 4: what rank 5 = (node 1, local 1) holds of ranks 1, 5, 9"
a2a_trace 12 3 2 24 > r12.csv
a2a-layout -E 24 --style triton-dist --local-world-size 4 --rank 5 \
    --emit send_reqs_recv_tensor,topk_indices_tensor,token_dst_scatter_idx_buf -f csv r12.csv
fails 2 a2a-layout -E 24 --style triton-dist --local-world-size 5 -o /dev/null r12.csv
fails 2 a2a-layout -E 24 --local-world-size 4 -o /dev/null r12.csv
echo "-- intranode: a token sent to one rank twice is sent once"
cat > d4.csv <<'CSV'
# name=ids shape=4,2,2 dtype=i32
0,1
2,3
1,0
4,4
5,6
7,0
3,2
1,1
CSV
a2a-layout -E 8 --style triton-dist --rank 0 --emit \
    skipped_token_mapping_indices,skipped_token_topk_mapping_indices -f csv d4.csv
echo "-- its buffers' bytes"
a2a-layout -E 24 --style triton-dist --local-world-size 4 --max-tokens 4096 \
    --hidden 7168 --report -o /dev/null r12.csv | grep -v '^trace'
