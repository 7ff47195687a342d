# The small example of testdata/mdecode-example.npy: out (f16, like q) and
# lse (rounded to 4 decimals: the last bits of f32 depend on the kernel
# path and thread count); kv head 1 is fully masked: lse -inf, out 0.
ex=$TESTDATA/mdecode-example.npy
mdecode --valid-length 7 --emit out -f csv "$ex"
mdecode --valid-length 7 --emit lse "$ex" | tensor-cat -f csv |
    awk '/^#/ || /inf/ { print; next } { printf "%.4f\n", $1 }'
echo "-- both outputs, as a stream"
mdecode --valid-length 7 "$ex" | tensor-cat --info
echo "-- flat buffers with --kv-heads give the same bytes"
mdecode --valid-length 7 "$ex" > cache.npy
mdecode --valid-length 7 --kv-heads 2 "$TESTDATA/mdecode-flat.npy" > flat.npy
cmp cache.npy flat.npy && echo same
echo "-- -q -k -v -m files give the same bytes"
tensor-cat --emit 0 "$ex" > q.npy
tensor-cat --emit 1 "$ex" > k.npy
tensor-cat --emit 2 "$ex" > v.npy
tensor-cat --emit 3 "$ex" > m.npy
mdecode --valid-length 7 -q q.npy -k k.npy -v v.npy -m m.npy | cmp - cache.npy && echo same
mdecode --valid-length 7 -q - -k k.npy -v v.npy -m m.npy < q.npy | cmp - cache.npy && echo same
echo "-- --out-dtype f32, and no mask: every valid position counts"
mdecode --valid-length 7 --out-dtype f32 --emit out "$ex" | tensor-cat --info
mdecode --valid-length 7 -q q.npy -k k.npy -v v.npy --emit lse -f csv |
    awk '/^#/ { print; next } { printf "%.4f\n", $1 }'
echo "-- --valid-length defaults to all M positions; --scale"
mdecode --emit lse -f csv --scale 0.5 "$ex" | awk '/^#/ || /inf/ { print; next } { printf "%.4f\n", $1 }'
echo "-- -o writes atomically"
mdecode --valid-length 7 -o res.npy "$ex" && cmp res.npy cache.npy && echo same
# an NPY stream through CSV and back into mdecode: unnamed tensors stay
# unnamed, taken by place
tensor-cat -f csv "$TESTDATA/mdecode-example.npy" | mdecode --valid-length 7 | cmp - cache.npy &&
    echo "through CSV: the same outputs"
