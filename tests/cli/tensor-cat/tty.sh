# NPY is never written to a terminal; CSV is.
m=$TESTDATA/tensor-cat-mixed.npy
script -qec "tensor-cat $m" /dev/null > out 2>&1
echo "status $?"
tr -d '\r' < out
script -qec "tensor-cat -f csv --emit 1 $m" /dev/null | tr -d '\r'
