# An output goes where its name points, in every tool: a link to an open
# descriptor (as /dev/stdout is) is written in place, through the
# descriptor, never renamed over; a second output on standard output is
# refused (they would interleave); a link to a file replaces the file and
# keeps the link; a directory is refused before anything is written;
# names of up to 255 bytes are written.  (fails runs each with stdout a
# regular file of its own, and checks that nothing was written there.)
cp "$TESTDATA/eplb-readme.npy" r.npy
printf '5,3,2,1\n' > w.csv
cp "$TESTDATA/eplb-replay-log.npy" log.npy
cp "$TESTDATA/a2a-example.npy" t.npy
ex=$TESTDATA/mdecode-example.npy
ln -s /proc/self/fd/1 out.lnk
link_kept() { [ -L out.lnk ] || die "out.lnk replaced"; }
echo "-- a link to stdout, stdout a file: the output lands in the file"
tensor-cat -f csv -o out.lnk r.npy > f.txt; link_kept; head -1 f.txt
eplb-plan -r 4 -G 2 -f csv --emit logcnt -o out.lnk w.csv > f.txt; link_kept; head -1 f.txt
eplb-replay --quiet --engine ideal -r 288 -G 32 --window 40 -o out.lnk log.npy > f.txt; link_kept; head -1 f.txt | cut -d, -f1-3
a2a-layout -E 8 -f csv --emit num_tokens_per_rank -o out.lnk t.npy > f.txt; link_kept; head -1 f.txt
mdecode -f csv --emit lse -o out.lnk "$ex" > f.txt; link_kept; head -1 f.txt
eplb-plan --quiet -r 4 -G 2 --stats --report out.lnk -o p.npy w.csv > f.txt; link_kept; head -1 f.txt
rm p.npy
eplb-replay --quiet --engine ideal -r 288 -G 32 --window 40 --steps out.lnk -o t.csv log.npy > f.txt; link_kept; head -1 f.txt
eplb-plan -r 4 -G 2 --plot out.lnk -o p.npy w.csv > f.txt; link_kept; head -c 5 f.txt; echo
rm p.npy t.csv
echo "-- a second output on stdout: refused, nothing written"
fails 2 eplb-replay --quiet --engine ideal -r 288 -G 32 --window 40 --plot out.lnk log.npy
fails 2 eplb-replay --quiet --engine ideal -r 288 -G 32 --window 40 --plot - log.npy
fails 2 eplb-replay --quiet --engine ideal -r 288 -G 32 --window 40 --steps /dev/stdout log.npy
fails 2 eplb-plan -r 4 -G 2 -f csv --plot out.lnk w.csv
fails 2 eplb-plan -r 4 -G 2 -f csv --stats --report /dev/fd/1 w.csv
fails 2 a2a-layout -E 8 -f csv --plot out.lnk t.npy
fails 2 a2a-layout -E 8 --report -o /dev/stdout t.npy
fails 2 mdecode --bench --isa generic --bsz 1 --max-length 64 --reps 1 --plot out.lnk
link_kept
echo "-- -o naming the file stdout goes to: written there, once"
tensor-cat -f csv -o f.txt r.npy > f.txt
tensor-cat -f csv r.npy | cmp - f.txt && echo same
echo "-- a link to a file: the file replaced, the link kept"
echo old > target.csv
ln -s target.csv plain.lnk
tensor-cat -f csv -o plain.lnk r.npy
[ -L plain.lnk ] || die "plain.lnk replaced"
head -1 target.csv
echo "-- a directory: refused before any output"
mkdir d
fails 1 eplb-plan -r 4 -G 2 -f csv --plot d w.csv
fails 1 eplb-replay --quiet --engine ideal -r 288 -G 32 --window 40 --plot d log.npy
fails 1 a2a-layout -E 8 -f csv --plot d t.npy
fails 1 tensor-cat -o d r.npy
ln -s d dir.lnk
fails 1 tensor-cat -f csv -o dir.lnk r.npy
rm dir.lnk
rmdir d
echo "-- names of 249 to 255 bytes"
n=249
while [ $n -le 255 ]; do
	name=$(printf "%0$((n - 4))d.csv" 0)
	tensor-cat -f csv -o "$name" r.npy || die "a name of $n bytes"
	cmp -s "$name" target.csv || die "$n: another output"
	rm "$name"
	n=$((n + 1))
done
echo "written"
rm -f f.txt r.npy w.csv log.npy t.npy out.lnk plain.lnk target.csv
only_files
