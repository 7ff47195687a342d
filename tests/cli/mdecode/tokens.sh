# Several query tokens a sequence (q [B, QH, Q, D], Q up to 16): token i
# is the cache's position V - Q + i and sees the positions up to it, so
# its answers are a one-token run's with --valid-length V - Q + 1 + i.
ex="$TESTDATA/mdecode-example.npy"
tensor-cat --emit 1 "$ex" > k.npy
tensor-cat --emit 2 "$ex" > v.npy
tensor-cat --emit 3 "$ex" > m.npy
# the example's 4 heads' rows, each twice: two tokens of the same query
tensor-cat -f csv --emit 0 "$ex" |
    awk 'NR == 1 { sub(/shape=1,4,1,8/, "shape=1,4,2,8"); print; next } { print; print }' > q2.csv
mdecode -q q2.csv -k k.npy -v v.npy -m m.npy --valid-length 9 -f csv --emit lse > two.csv
tensor-cat -f csv --emit 0 "$ex" > q1.csv
for V in 8 9; do
	mdecode -q q1.csv -k k.npy -v v.npy -m m.npy --valid-length $V -f csv --emit lse |
	    tail -n +2 > one$V.csv
done
# a line of two.csv a head: token 0, token 1 (to 5 digits: the tokens
# are computed together, the one-token runs alone)
awk -F, 'NR > 1 { printf "%.5f\n", $1 > "tok0.csv"; printf "%.5f\n", $2 > "tok1.csv" }' two.csv
for V in 8 9; do
	awk '{ printf "%.5f\n", $1 }' one$V.csv > r && mv r one$V.csv
done
cmp tok0.csv one8.csv && cmp tok1.csv one9.csv && echo "2 tokens = runs at V 8 and 9"
head -1 two.csv
echo "-- refused"
tensor-cat -f csv --emit 0 "$ex" |
    awk 'NR == 1 { sub(/shape=1,4,1,8/, "shape=1,4,17,8"); print; next } { for (i = 0; i < 17; i++) print }' > q17.csv
fails 1 mdecode -q q17.csv -k k.npy -v v.npy
fails 1 mdecode -q q2.csv -k k.npy -v v.npy --valid-length 1
rm -f k.npy v.npy m.npy q1.csv q2.csv q17.csv two.csv one8.csv one9.csv tok0.csv tok1.csv
only_files
