# --dtype converts; lossy integer conversions fail with the element named;
# --bf16 reads <u2 arrays as bf16 bits.
set -e
cp "$TESTDATA/tensor-cat-mixed.npy" m.npy
m=m.npy
tensor-cat --emit 6 --dtype f16 -f csv "$m"
tensor-cat --emit 9 --bf16 -f csv "$m"
tensor-cat --emit 9 --bf16 --dtype f32 "$m" | tensor-cat -f csv
tensor-cat --emit 0 --dtype bf16 "$m" | tensor-cat --info
fails 1 tensor-cat --emit 7 --dtype i32 "$m"
fails 1 tensor-cat --emit 13 --dtype i64 "$m"
