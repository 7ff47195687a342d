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
