# Cache layouts: a shape that fits two layouts is refused with the way
# out; the paged cache's bad cases name the file, the place and the limit.
pg=$TESTDATA/mdecode-paged.npy
tab=$TESTDATA/mdecode-paged-table.npy
lens=$TESTDATA/mdecode-paged-lens.npy
tensor-cat --emit 0 "$TESTDATA/mdecode-example.npy" > q.npy
echo "-- [1, 2, 4, 8] fits [B, KH, M, D] and [B, M, KH, D] for 4 q heads"
tensor-cat --emit 1 "$TESTDATA/mdecode-example.npy" > k10.npy
awk 'BEGIN { print "# name=k shape=1,2,4,8 dtype=f16"; for (i = 0; i < 8; i++) print "1,0,0,0,0,0,0,1" }' > k4.csv
fails 2 mdecode -q q.npy -k k4.csv -v k4.csv
mdecode --kv-layout bmhd -q q.npy -k k4.csv -v k4.csv --emit lse -f csv | sed -n 1p
mdecode --kv-layout bhmd -q q.npy -k k4.csv -v k4.csv --emit lse -f csv | sed -n 1p
fails 2 mdecode --kv-heads 4 --kv-layout bhmd -q q.npy -k k4.csv -v k4.csv
echo "-- --kv-heads names the layout too (KH 4: [B, M, KH, D])"
mdecode --kv-heads 4 --verbose -q q.npy -k k4.csv -v k4.csv --emit lse 2>&1 >/dev/null |
    grep layout

echo "-- options"
fails 2 mdecode --kv-layout paged "$pg"
fails 2 mdecode --kv-layout bmhd --block-table "$tab" "$pg"
fails 2 mdecode --kv-layout bhmd:x "$pg"
fails 2 mdecode --seq-lens "$lens" "$pg"
fails 2 mdecode --block-table - < "$pg"
fails 2 mdecode --bench --block-table "$tab"
fails 2 mdecode --block-size 16 "$pg"
fails 2 mdecode --bench --kv-layout bhmd,xy
fails 2 mdecode --bench --block-size 0
fails 2 mdecode --bench --kv-layout paged --block-size 100 --max-length 50 \
    --bsz 1 --q-heads 4 --kv-heads 2 --dim 8 --reps 1
echo "-- the block table"
printf '4,1,9\n4,0,-1\n' > far.csv
fails 1 mdecode --block-table far.csv --valid-length 9 "$pg"
printf '4,6,-1\n4,0,-1\n' > out.csv
fails 1 mdecode --block-table out.csv --seq-lens "$lens" "$pg"
printf '4,1\n4,0\n' > short.csv
printf '7\n9\n' > long.csv
fails 1 mdecode --block-table short.csv --seq-lens long.csv "$pg"
printf '4,1,0\n' > onerow.csv
fails 1 mdecode --block-table onerow.csv "$pg"
printf '4,1.5,0\n4,0,-1\n' > half.csv
fails 1 mdecode --block-table half.csv --seq-lens "$lens" "$pg"
echo "-- the lengths"
printf '7\n-1\n' > neg.csv
fails 1 mdecode --block-table "$tab" --seq-lens neg.csv "$pg"
printf '7\n5\n3\n' > three.csv
fails 1 mdecode --block-table "$tab" --seq-lens three.csv "$pg"
echo "-- the cache"
cp "$TESTDATA/mdecode-example.npy" ex.npy
fails 1 mdecode --block-table "$tab" ex.npy
rm -f *.npy *.csv
only_files
