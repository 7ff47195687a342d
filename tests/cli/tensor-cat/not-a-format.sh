# Bytes that are no format are refused, not read as an empty tensor: a
# text file named .npy, NUL bytes, a zip end record alone; -o with an
# extension no format has is refused unless -f names one.
echo hello > h.npy
fails 1 tensor-cat h.npy
printf 'a,b\n1,2\n' > csv.npz
fails 1 tensor-cat csv.npz
head -c 1000 /dev/zero > z.csv
fails 1 tensor-cat z.csv
printf '1,2\n3,\0004\n' > nul.csv
fails 1 tensor-cat nul.csv
printf 'PK\005\006' > end.npz
fails 1 tensor-cat end.npz
# an .npz member is one array: bytes after it (a few, a second array, 64
# MiB of deflated zeros) are refused as soon as the array is read
for f in trailing two-arrays deflated-zeros; do
	cp "$TESTDATA/corpus/npy/bad-npz-$f.npz" $f.npz
	fails 1 tensor-cat --info $f.npz
	rm $f.npz
done
printf '1,2\n' > ok.csv
fails 2 tensor-cat -o x.txt ok.csv
fails 2 eplb-plan -r 2 --num-gpus 1 -o plan.out.bin ok.csv
tensor-cat -f csv -o x.txt ok.csv && cat x.txt
tensor-cat -o noext ok.csv && cat noext
rm -f h.npy csv.npz z.csv nul.csv end.npz ok.csv x.txt noext
only_files
# text that is no CSV of numbers (a line of words, a header alone) is an
# error, not an empty tensor; a "# shape=0,N" line says one is meant
echo 'some text' > text.csv
fails 1 tensor-cat --info text.csv
printf 'a,b\n' | fails 1 tensor-cat --info
printf '# shape=0,2 dtype=i64\na,b\n' | tensor-cat --info
rm text.csv
