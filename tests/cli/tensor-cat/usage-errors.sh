# Usage errors: status 2, nothing on stdout, the problem named.
m=$TESTDATA/tensor-cat-mixed.npy
tensor-cat --bogus "$m" > out 2> err && die "--bogus accepted"
[ $? = 2 ] || die "--bogus: wrong status"
[ -s out ] && die "--bogus wrote to stdout"
head -1 err
fails 2 tensor-cat -f xml "$m" | head -1
fails 2 tensor-cat --dtype f128 "$m" | head -1
fails 2 tensor-cat --emit nosuch "$m" | head -1
fails 2 tensor-cat --emit 99 "$m" | head -1
fails 2 tensor-cat --threads 0 "$m" | head -1
fails 2 tensor-cat --info -f csv "$m" | head -1
