# A query head holding NaN or inf gives NaN in that head's out and lse
# (the formula's answer), not a fully masked row; the other heads are
# computed as usual.
ex="$TESTDATA/mdecode-example.npy"
tensor-cat --emit 1 "$ex" > k.npy
tensor-cat --emit 2 "$ex" > v.npy
tensor-cat --emit 3 "$ex" > m.npy
tensor-cat -f csv --emit 0 "$ex" | awk -F, 'NR == 3 { $2 = "nan" } NR == 5 { $1 = "inf" } 1' OFS=, > q.csv
# (the finite values to 5 digits: kernel paths differ in the last bits)
mdecode -q q.csv -k k.npy -v v.npy -m m.npy -f csv --emit lse | awk 'NR == 1 || $1 == "nan" { print; next } { printf "%.5f\n", $1 }'
mdecode -q q.csv -k k.npy -v v.npy -m m.npy -f csv --emit out | awk -F, 'NR > 1 { n = 0; for (i = 1; i <= NF; i++) n += ($i == "nan"); print "head " NR - 2 ": " n " of " NF " NaN" }'
