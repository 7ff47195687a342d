# MLA (--v-dim DV): no v is read; V is the first DV elements of each K
# row, so --v-dim D is v = k, and --v-dim 4 its first 4 columns.  Its
# scale has no safe default (the query-key head size's, not the row's):
# --scale is required, here 8^-0.5, the default of the plain run.
ex="$TESTDATA/mdecode-example.npy"
tensor-cat --emit 0 "$ex" > q.npy
tensor-cat --emit 1 "$ex" > k.npy
tensor-cat --emit 3 "$ex" > m.npy
mdecode -q q.npy -k k.npy -v k.npy -m m.npy -f csv --emit out --out-dtype f32 > vk.csv
mdecode -q q.npy -k k.npy --v-dim 8 --scale 0.35355339059327373 -m m.npy -f csv --emit out --out-dtype f32 > v8.csv
mdecode -q q.npy -k k.npy --v-dim 4 --scale 0.35355339059327373 -m m.npy -f csv --emit out --out-dtype f32 > v4.csv
cmp vk.csv v8.csv && echo "--v-dim 8 = v is k"
awk -F, 'NR == 1 { sub(/shape=1,4,1,8/, "shape=1,4,1,4"); print; next } { print $1 "," $2 "," $3 "," $4 }' vk.csv | cmp - v4.csv && echo "--v-dim 4 = its first 4 columns"
tensor-cat q.npy k.npy m.npy | mdecode --v-dim 4 --scale 0.35 --emit out | tensor-cat --info
echo "-- refused"
fails 2 mdecode -q q.npy -k k.npy --v-dim 4
fails 2 mdecode -q q.npy -k k.npy -v k.npy --v-dim 4 --scale 0.35
fails 2 mdecode -q q.npy -k k.npy --v-dim 9 --scale 0.35
cp "$ex" ex.npy
fails 1 mdecode --v-dim 4 --scale 0.35 ex.npy
fails 2 mdecode --bench --v-dim 512	# wider than the bench's --dim 128
rm -f q.npy k.npy m.npy ex.npy vk.csv v8.csv v4.csv
only_files
