# The bad-input catalogue: each gives status 1, one line naming the file,
# the place and the value, nothing on stdout.
c=$TESTDATA/corpus
for f in bad-truncated-preamble bad-truncated-header bad-short-data \
    bad-magic bad-version bad-huge-shape bad-dim-overflow bad-huge-claim \
    bad-dtype bad-not-tuple bad-extra-key bad-trailing-junk bad-header-length; do
	cp "$c/npy/$f.npy" .
	fails 1 tensor-cat "$f.npy"
	rm "$f.npy"
done
for f in bad-ragged bad-text bad-empty bad-shape bad-range bad-quote bad-dtype; do
	cp "$c/csv/$f.csv" .
	fails 1 tensor-cat "$f.csv"
	rm "$f.csv"
done
fails 1 tensor-cat missing.npy
mkdir d
fails 1 tensor-cat d
printf '' | fails 1 tensor-cat
printf '{"logical_count": [[1]]}' | fails 1 tensor-cat
