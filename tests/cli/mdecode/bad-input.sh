# Bad inputs and options: one line each (file, what, the limit), nothing on
# stdout, no output file left behind.
cp "$TESTDATA/mdecode-example.npy" ex.npy
ex=ex.npy
tensor-cat --emit 0 "$ex" > q.npy
tensor-cat --emit 1 "$ex" > k.npy
tensor-cat --emit 2 "$ex" > v.npy
tensor-cat --emit 3 "$ex" > m.npy
echo "-- files"
fails 1 mdecode missing.npy
head -c 300 "$ex" > trunc.npy
fails 1 mdecode trunc.npy
tensor-cat --emit 0,1 "$ex" > two.npy
fails 1 mdecode two.npy
tensor-cat "$ex" q.npy > five.npy
fails 1 mdecode five.npy
tensor-cat "$ex" > both.npy
fails 1 mdecode -q both.npy -k k.npy -v v.npy
printf '' | fails 1 mdecode
echo "-- shapes"
fails 2 mdecode --valid-length 11 "$ex"
fails 1 mdecode -q q.npy -k k.npy -v q.npy
tensor-cat --emit 0,0,2,3 "$ex" > kq.npy
fails 1 mdecode kq.npy
awk 'BEGIN { print "# name=q shape=1,3,1,8 dtype=f16"; for (i = 0; i < 3; i++) print "1,0,0,0,0,0,0,0" }' > q3.csv
fails 1 mdecode -q q3.csv -k k.npy -v v.npy
awk 'BEGIN { print "# name=q shape=1,4,2,4 dtype=f16"; for (i = 0; i < 8; i++) print "1,0,0,0" }' > q2.csv
fails 1 mdecode -q q2.csv -k k.npy -v v.npy
awk 'BEGIN { print "# name=q shape=1,4,1,4 dtype=f16"; for (i = 0; i < 4; i++) print "1,0,0,0" }' > q4.csv
fails 1 mdecode -q q4.csv -k k.npy -v v.npy
awk 'BEGIN { print "# name=mask shape=1,2,5 dtype=bool"; print "0,1,0,1,0"; print "1,1,0,0,1" }' > m5.csv
fails 1 mdecode -q q.npy -k k.npy -v v.npy -m m5.csv
fails 2 mdecode --kv-heads 4 "$ex"
echo "-- flat buffers"
cp "$TESTDATA/mdecode-flat.npy" flat.npy
fails 2 mdecode flat.npy
fails 2 mdecode --kv-heads 2 flat.npy
fails 1 mdecode --kv-heads 2 --valid-length 10 flat.npy
tensor-cat --emit 1 flat.npy > kf.npy
tensor-cat --emit 2 flat.npy > vf.npy
fails 1 mdecode --kv-heads 2 --valid-length 7 -q q.npy -k kf.npy -v vf.npy -m m.npy
fails 1 mdecode --kv-heads 2 --valid-length 7 -q q.npy -k kf.npy -v v.npy
echo "-- dtypes"
awk 'BEGIN { print "# name=k shape=1,2,10,8 dtype=i32"; for (i = 0; i < 20; i++) print "1,2,3,4,5,6,7,8" }' > ki.csv
fails 1 mdecode -q q.npy -k ki.csv -v v.npy
tensor-cat --emit 1 --dtype f32 "$ex" > k32.npy
fails 1 mdecode -q q.npy -k k32.npy -v v.npy
tensor-cat --emit 1 --dtype u16 --bf16 "$ex" > ku.npy 2>/dev/null || tensor-cat --emit 1 --dtype bf16 "$ex" > ku.npy
fails 1 mdecode -q q.npy -k ku.npy -v ku.npy
fails 1 mdecode --dtype f32 "$ex"
tensor-cat --emit 3 --dtype f32 "$ex" > mf.npy
fails 1 mdecode -q q.npy -k k.npy -v v.npy -m mf.npy
echo "-- options"
fails 2 mdecode -q q.npy -k k.npy
fails 2 mdecode -q q.npy -k k.npy -v v.npy "$ex"
fails 2 mdecode -q - -k - -v v.npy
fails 2 mdecode --bsz 1 "$ex"
fails 2 mdecode --dtype f8 "$ex"
fails 2 mdecode --out-dtype i32 "$ex"
fails 2 mdecode --threads 0 "$ex"
fails 2 mdecode --valid-length 0 "$ex"
fails 2 mdecode --emit lse,att "$ex"
fails 2 mdecode --bench "$ex"
fails 2 mdecode --bench --mask-density 1.5
fails 2 mdecode --bench --q-heads 30
fails 2 mdecode --bench --valid-length 9 --max-length 8
MOEKIT_ISA=sse9 fails 2 mdecode "$ex"
MOEKIT_PAGED_L2=yes fails 2 mdecode "$ex"
MOEKIT_TILE_ROWS=x fails 2 mdecode "$ex"
MOEKIT_TILE_ROWS=0 fails 2 mdecode "$ex"
MOEKIT_TILE_ROWS=4097 fails 2 mdecode "$ex"
echo "-- output"
fails 1 mdecode --valid-length 7 -o res.npy --kv-heads 3 flat.npy
mdecode --valid-length 7 "$ex" > /dev/full 2>err.txt && die "wrote to /dev/full"
cat err.txt
rm err.txt
mdecode --valid-length 7 "$ex" | head -c 10 | wc -c
rm -f *.npy *.csv
only_files
# -v is --values here: where a -v meant as --verbose breaks the command
# line, the error says so
cp "$TESTDATA/mdecode-example.npy" ex.npy
fails 2 mdecode -v ex.npy
fails 2 mdecode -v -o x.npy ex.npy
fails 2 mdecode -v
rm ex.npy
