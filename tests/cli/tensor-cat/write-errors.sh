# A full disk is an error; a reader that leaves early is not.
m=$TESTDATA/tensor-cat-mixed.npy
fails 1 tensor-cat "$m" -o /dev/full
tensor-cat "$m" > /dev/full 2> err
echo "status $?"
cat err
# | head: tensor-cat dies of SIGPIPE (or exits quietly), saying nothing
( tensor-cat -f csv "$m" "$m" "$m" "$m" "$m" "$m" "$m" "$m" 2> err2; echo "$?" > rc ) | head -c 1 > /dev/null
[ -s err2 ] && die "stderr after a closed pipe: $(cat err2)"
case $(cat rc) in 0|1|141) ;; *) die "status $(cat rc) after a closed pipe" ;; esac
echo ok
