# Unsigned 64-bit integers (numpy's uint64, what torch's and numpy's
# index arithmetic often gives) are read as their values wherever the
# tools take integers: plans (--eval, --prev, --phy2log), block tables
# and sequence lengths.  Beside each: the same as i64.
set -e
for t in i64 u64; do
	printf '# name=p shape=1,6 dtype=%s\n0,1,2,3,0,1\n' $t | tensor-cat -f npy > p$t.npy
done
tensor-cat --info pu64.npy
printf '5,3,2,1\n' > w.csv
for t in i64 u64; do
	eplb-plan --quiet --eval p$t.npy -G 2 w.csv | tail -1
	eplb-plan --quiet -r 6 -G 2 --prev p$t.npy --emit phy2log -f csv w.csv | tail -1
done
printf '# name=ids shape=2,3,2 dtype=i32\n0,1\n2,3\n1,2\n3,0\n0,2\n1,3\n' > ids.csv
for t in i64 u64; do
	a2a-layout --phy2log p$t.npy --emit num_tokens_per_expert -f csv ids.csv | md5sum
done
# mdecode's paged cache: the block table (its unused -1 entries 0) and
# the sequence lengths as u64
tensor-cat -f csv "$TESTDATA/mdecode-paged-table.npy" | sed "s/dtype=i32/dtype=u64/; s/-1/0/g" | tensor-cat -f npy > bt.npy
tensor-cat -f csv "$TESTDATA/mdecode-paged-lens.npy" | sed 's/dtype=i32/dtype=u64/' | tensor-cat -f npy > sl.npy
tensor-cat --info bt.npy sl.npy
mdecode --block-table "$TESTDATA/mdecode-paged-table.npy" --seq-lens "$TESTDATA/mdecode-paged-lens.npy" \
    "$TESTDATA/mdecode-paged.npy" > want.npy
mdecode --block-table bt.npy --seq-lens sl.npy "$TESTDATA/mdecode-paged.npy" | cmp - want.npy &&
    echo "paged: the same outputs"
# past INT64_MAX: out of range, not wrapped
printf '# name=p shape=1,6 dtype=u64\n18446744073709551615,1,2,3,0,1\n' | tensor-cat -f npy > big.npy
fails 1 eplb-plan --eval big.npy -G 2 w.csv
