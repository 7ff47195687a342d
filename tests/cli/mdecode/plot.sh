# --bench --plot: each path's GB/s beside the read probe of the same run,
# a group per (threads, batch size, layout, density, dtype); rendered by a real
# renderer; the numbers on hover.  (Timings vary; only the shape of the
# picture is checked; --quiet: on a busy machine a row may keep no round.)
mdecode --bench --quiet --isa generic --bsz 1,2 --max-length 2048 --threads 1 --reps 1 --mask-density 0,0.5 --plot b.svg > b.csv
render b.svg
echo "rows: $(($(wc -l < b.csv) - 1)), bars: $(grep -c '<title>[a-z0-9]*, 1 threads, bsz' b.svg)"
# a row that kept no round is an open bar, said on hover and under the legend
n=$(grep -c ',0/1,' b.csv)
[ "$(grep -c 'every round preempted' b.svg)" = "$n" ] || die "$n rows kept 0"
[ "$n" = 0 ] || grep -q 'open bars: rows whose every round' b.svg || die "legend"
grep -o 'groups: [^<]*' b.svg
# three dtypes name a title longer than 640 pixels: the picture widens to it
mdecode --bench --quiet --isa generic --bsz 1 --max-length 256 --threads 1 --reps 1 --mask-density 0 --dtype f16,fp8_e4m3,fp8_e5m2 --plot c.svg > /dev/null
render c.svg
grep -o 'mdecode --bench: [^<]*' c.svg | head -1
# the groups spread over the whole width, however few: the axis ends 40
# pixels from the right edge
for f in b.svg c.svg; do
	w=$(sed -n 's/.*<svg[^>]* width="\([0-9]*\)".*/\1/p' $f)
	x=$(sed -n 's/.*<line x1="70.00" y1="400.00" x2="\([0-9.]*\)" y2="400.00" stroke="#444".*/\1/p' $f)
	echo "$f: axis to $x of $w"
done
fails 2 mdecode --bench-kernel --plot k.svg
fails 2 mdecode --plot k.svg "$TESTDATA/mdecode-example.npy"
fails 1 mdecode --bench --bsz 1 --max-length 256 --reps 1 --plot nodir/b.svg
only_files b.csv b.svg c.svg
