# -o writes atomically: the file appears only on success, no temporary is
# left behind on failure, and an existing file survives a failed run.
set -e
m=$TESTDATA/tensor-cat-mixed.npy
tensor-cat -o out.npy "$m"
tensor-cat "$m" | cmp - out.npy
only_files out.npy
cp "$TESTDATA/corpus/csv/bad-text.csv" .
set +e
fails 1 tensor-cat -o new.npy "$m" bad-text.csv
fails 1 tensor-cat -o out.npy bad-text.csv
set -e
only_files bad-text.csv out.npy
tensor-cat "$m" | cmp - out.npy
fails 1 tensor-cat -o nodir/x.npy "$m"
# Data of 8 MiB or more bound for a file goes out in 4 MiB pieces that
# several threads write at their offsets (io.c, write_pieces): the same
# bytes as one stream to a pipe.  9.6 MB of int64 that no two pieces share.
awk 'BEGIN { x = 12345; for (i = 0; i < 1200000; i++) {
	x = (x * 69069 + 1) % 4294967296; printf "%d\n", x - 2147483648 } }' > big.csv
tensor-cat -o big.npy big.csv
tensor-cat -f npy big.csv | cmp - big.npy
tensor-cat --threads 1 -o big1.npy big.csv
cmp big.npy big1.npy
