# Bad NPY traces, which are read a step at a time (from a file by pread or
# in place, from a pipe by read): one line each, nothing on stdout.
# 200 ranks (DeepEP's normal mode stops at 160: --low-latency), 600
# (a2a-layout reads up to 512)
awk 'BEGIN { print "# name=ids shape=200,1,1 dtype=i64"
	for (i = 0; i < 200; i++) print 0 }' > wide.csv
tensor-cat -f npy wide.csv > wide.npy
fails 2 a2a-layout -E 200 wide.npy
awk 'BEGIN { print "# name=ids shape=600,1,1 dtype=i64"
	for (i = 0; i < 600; i++) print 0 }' > wider.csv
tensor-cat -f npy wider.csv > wider.npy
fails 1 a2a-layout -E 600 --low-latency wider.npy
# a stepped trace cut short, as a file and on a pipe
printf '# name=ids shape=2,2,1,2 dtype=i64\n0,1\n2,3\n0,1\n2,3\n' > s.csv
tensor-cat -f npy s.csv > s.npy
head -c 150 s.npy > cut.npy
fails 1 a2a-layout -E 4 cut.npy
cat cut.npy | fails 1 a2a-layout -E 4
# an id out of range in the second step, as a file and on a pipe
printf '# name=ids shape=2,2,1,2 dtype=i64\n0,1\n2,3\n0,1\n2,9\n' > b.csv
tensor-cat -f npy b.csv > b.npy
fails 1 a2a-layout -E 4 b.npy
cat b.npy | fails 1 a2a-layout -E 4
echo "-- a header claiming a 64 TB step: memory follows the bytes that arrive"
cp "$TESTDATA/corpus/trace/bad-claim-64tb-step.npy" claim.npy
cat claim.npy | fails 1 a2a-layout -E 8 --report -o /dev/null
fails 1 a2a-layout -E 8 --report -o /dev/null claim.npy
# the header's word is no size to allocate: --lenient narrows i64 ids into
# buffers sized as the steps come
cat claim.npy | fails 1 a2a-layout -E 16 --lenient -o /dev/null
echo "-- top-k outside 1..32, named at the shape"
printf '# name=ids shape=2,3,0 dtype=i64\n' > k0.csv
fails 2 a2a-layout -E 8 k0.csv
awk 'BEGIN { print "# name=ids shape=2,1,33 dtype=i32"; for (r = 0; r < 2; r++) { s = "0"; for (j = 1; j < 33; j++) s = s ",0"; print s } }' > k33.csv
fails 2 a2a-layout -E 8 k33.csv
