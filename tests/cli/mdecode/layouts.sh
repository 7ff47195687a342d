# Cache layouts read in place: [B, M, KH, D] (--kv-layout bmhd, or from the
# shapes) and a paged cache with a block table and lengths give the bytes
# the [B, KH, M, D] example gives.
ex=$TESTDATA/mdecode-example.npy
echo "-- bmhd: the shapes say so (KH 10 does not divide QH 4)"
mdecode "$ex" > bhmd.npy
mdecode "$TESTDATA/mdecode-bmhd.npy" | cmp - bhmd.npy && echo same
mdecode --kv-layout bmhd --verbose --valid-length 7 "$TESTDATA/mdecode-bmhd.npy" 2>&1 >/dev/null |
    grep layout
echo "-- from files, mapped in only where read: the bytes of the stream"
for i in 0 1 2 3; do tensor-cat --emit $i "$ex" > t$i.npy; done
mdecode --verbose --threads 2 --valid-length 5 -q t0.npy -k t1.npy -v t2.npy \
    -m t3.npy 2> err.txt > files.npy
mdecode --valid-length 5 "$ex" | cmp - files.npy && echo same
grep 'started in' err.txt
echo "-- paged: sequence 0 is the example at length 7, sequence 1 at 5"
mdecode --valid-length 7 --emit out -f csv "$ex" | sed 1d > want.csv
mdecode --valid-length 5 --emit out -f csv "$ex" | sed 1d >> want.csv
mdecode --block-table "$TESTDATA/mdecode-paged-table.npy" \
    --seq-lens "$TESTDATA/mdecode-paged-lens.npy" --emit out -f csv \
    "$TESTDATA/mdecode-paged.npy" > paged.csv
sed -n 1p paged.csv
sed 1d paged.csv | cmp - want.csv && echo same
echo "-- with and without the next pages brought into L2: the same bytes"
for l2 in 0 1; do
	MOEKIT_PAGED_L2=$l2 mdecode --block-table "$TESTDATA/mdecode-paged-table.npy" \
	    --seq-lens "$TESTDATA/mdecode-paged-lens.npy" --emit out -f csv \
	    --verbose "$TESTDATA/mdecode-paged.npy" 2> err.txt | cmp - paged.csv &&
	    echo same
	grep -o "next pages[^)]*" err.txt
done
mdecode --help | grep -o "^MOEKIT_PAGED_L2=0|1"
echo "-- without --seq-lens, --valid-length is every sequence's length"
mdecode --block-table "$TESTDATA/mdecode-paged-table.npy" --valid-length 5 \
    --emit lse -f csv "$TESTDATA/mdecode-paged.npy" |
    awk '/^#/ || /inf/ { print; next } { printf "%.4f\n", $1 }'
echo "-- the same from -q -k -v -m files, and CSV tables"
tensor-cat --emit 0 "$TESTDATA/mdecode-paged.npy" > q.npy
tensor-cat --emit 1 "$TESTDATA/mdecode-paged.npy" > k.npy
tensor-cat --emit 2 "$TESTDATA/mdecode-paged.npy" > v.npy
tensor-cat --emit 3 "$TESTDATA/mdecode-paged.npy" > m.npy
tensor-cat -f csv "$TESTDATA/mdecode-paged-table.npy" > table.csv
tensor-cat -f csv "$TESTDATA/mdecode-paged-lens.npy" > lens.csv
cat table.csv lens.csv
mdecode -q q.npy -k k.npy -v v.npy -m m.npy --block-table table.csv \
    --seq-lens lens.csv --emit out -f csv | sed 1d | cmp - want.csv && echo same
