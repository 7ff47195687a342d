# CSV as other programs write it: np.savetxt's default (blank-separated,
# with or without a header line), a UTF-8 byte order mark (Excel); a
# first row is a header only when it is not numbers in any separator.
printf '0.000000000000000000e+00 1.000000000000000000e+00 2.5e+00\n3.000000000000000000e+00 4.000000000000000000e+00 5.0e+00\n' > savetxt.txt
tensor-cat -f csv savetxt.txt
printf 'a b c\n1 2 3\n4\t5  6\n' > header.txt
tensor-cat --info header.txt
tensor-cat -f csv header.txt
printf '\357\273\2771,2,3,4\n5,6,7,8\n' > bom.csv
tensor-cat -f csv bom.csv
printf '\357\273\277expert,load\n0,10\n1,20\n' > bomh.csv
tensor-cat --info bomh.csv
echo "-- one column stays one column; a comma row after blanks is refused"
printf 'load per expert\n1\n2\n' > col.csv
tensor-cat -f csv col.csv
printf '1 2\n3,4\n' > mixed.txt
fails 1 tensor-cat mixed.txt
echo "-- a shape beyond 2^63 bytes"
printf '# name=x shape=10000000000,300000000000 dtype=f64\n1,2,3\n' > huge.csv
fails 1 tensor-cat huge.csv
