# --eval scores a plan as what it is: R is the plan's width (a plan that
# does not fit is named, not --replicas); a plan that spreads an expert
# group over nodes is global whatever the policy would be, and its lower
# bound the global one, so the gap is never below 1.
set -e
d="$TESTDATA/eplb-dsv3-prefill_in1024.json"
eplb-plan --quiet -r 288 -G 32 --skip-zero-layers -o global.npy "$d"
eplb-plan --quiet -r 288 -G 32 -n 4 -g 8 --skip-zero-layers -o hier.npy "$d"
for p in global hier; do
	eplb-plan --eval $p.npy -G 32 -n 4 -g 8 --skip-zero-layers "$d" > $p.csv
	echo "$p: $(tail -1 $p.csv | cut -d, -f4,7,8,11)"
	awk -F, 'NR > 1 && $8 < 1 { n++ } END { print n + 0, "rows below their bound" }' $p.csv
done
echo "-- a plan that does not fit the loads or the GPUs: the plan named"
printf '0,1,2,3\n' > p4.csv
printf '5,3,2,1,7\n' > w5.csv
printf '5,3,2,1\n' > w4.csv
fails 2 eplb-plan --eval p4.csv -G 2 w5.csv
fails 2 eplb-plan --eval p4.csv -G 3 w4.csv
fails 2 eplb-plan --eval p4.csv -r 8 -G 2 w4.csv
fails 1 eplb-plan --eval absent.csv -G 2 w4.csv
fails 1 eplb-plan -r 4 -G 2 --prev absent.csv w4.csv
echo "-- --eval writes a CSV table (or gpu_load as a tensor), nothing else"
fails 2 eplb-plan --eval p4.csv -G 2 -o ev.npy w4.csv
fails 2 eplb-plan --eval p4.csv -G 2 -f npz w4.csv
fails 2 eplb-plan --eval p4.csv -G 2 -f sglang w4.csv
fails 2 eplb-plan --eval p4.csv -G 2 -o g.json w4.csv
# the table then goes to standard error, as --stats does
eplb-plan --quiet --eval p4.csv -G 2 --emit gpu_load -o ev.npy w4.csv 2> table.csv
tensor-cat --info ev.npy
head -1 table.csv
# a size past 2^53 bytes is refused, not taken as inf
fails 2 eplb-plan -r 4 -G 2 --stats --expert-bytes 1e300T w4.csv
