# One [T_r, K] tensor per rank, different token counts, an empty rank.
set -e
cat > r.csv <<'CSV'
# name=r0 shape=3,2 dtype=i64
0,7
3,3
-1,5
# name=r1 shape=0,2 dtype=i64
# name=r2 shape=1,2 dtype=i64
6,1
# name=r3 shape=4,2 dtype=i64
2,4
5,-1
7,7
0,1
CSV
a2a-layout -E 8 --num-sms 2 --rank 3 --emit num_tokens_per_rank,num_recv_tokens,send_head -f csv r.csv
echo "-- one [T_r, K] per rank: one dtype for every rank (found by fuzz_trace)"
printf '# name=a dtype=i64\n3,5\n1,2\n# name=b dtype=i32\n3,5\n1,2\n' > mixed.csv
fails 1 a2a-layout -E 8 mixed.csv
