# NPY is never written to a terminal; CSV is.
m=$TESTDATA/tensor-cat-mixed.npy
script -qec "tensor-cat $m" /dev/null > out 2>&1
echo "status $?"
tr -d '\r' < out
script -qec "tensor-cat -f csv --emit 1 $m" /dev/null | tr -d '\r'
# nor NPZ; eplb-plan's SGLang JSON is text and goes
script -qec "tensor-cat -f npz --emit 1 $m" /dev/null > out 2>&1
echo "npz: status $?"
tr -d '\r' < out
printf '1,2,3,4\n' > w.csv
script -qec "eplb-plan -r 8 -G 2 -f sglang w.csv" /dev/null | tr -d '\r' | head -2
