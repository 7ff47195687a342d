# A stream of every dtype goes NPY -> CSV -> NPY with dtypes, shapes and
# values preserved (big-endian and Fortran inputs come out little-endian,
# C order), whether the input is mapped, piped or given as -.
set -e
m=$TESTDATA/tensor-cat-mixed.npy
tensor-cat "$m" > direct.npy
tensor-cat -f csv "$m" > mixed.csv
tensor-cat -f npy mixed.csv > back.npy
cmp direct.npy back.npy
cat "$m" | tensor-cat | cmp - direct.npy
tensor-cat - < "$m" | cmp - direct.npy
cat mixed.csv | tensor-cat -f npy - | cmp - direct.npy
cmp mixed.csv "$TESTDATA/tensor-cat-mixed.out.csv"
tensor-cat --info back.npy
