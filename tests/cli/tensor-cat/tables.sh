# CSV from pandas (header row) and np.savetxt (comment header) read as
# tables; a one-column CSV is 1-D.
set -e
tensor-cat --info "$TESTDATA/tensor-cat-table.csv" "$TESTDATA/tensor-cat-savetxt.csv"
printf '3\n1\n2\n' | tensor-cat --info
printf '3\n1\n2\n' | tensor-cat
