# A header claiming 8 TB on a pipe fails after the bytes that exist,
# without trying to allocate 8 TB first.
cat "$TESTDATA/corpus/npy/bad-huge-claim.npy" | fails 1 tensor-cat
