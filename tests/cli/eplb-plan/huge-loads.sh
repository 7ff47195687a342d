# Loads beyond the largest float32 (3.4e38) plan exactly as the same loads
# scaled down, with every algorithm; loads that sum beyond what double
# precision carries are one line, exit 1.
printf '1e39,2e39,3e39,5e39\n7e38,1e38,4e38,4e38\n' > huge.csv
printf '1,2,3,5\n0.7,0.1,0.4,0.4\n' > small.csv
for a in best deepseek waterfill; do
	eplb-plan -a $a -r 8 -G 2 -f csv huge.csv > huge.out
	eplb-plan -a $a -r 8 -G 2 -f csv small.csv > small.out
	cmp -s huge.out small.out || die "-a $a: plans differ with the scale"
	echo "-a $a: $(grep -A2 logcnt huge.out | tail -2 | tr '\n' ' ')"
done
printf '1e-300,2e-300,3e-300,5e-300\n' > tiny.csv
eplb-plan -r 8 -G 2 -f csv --emit logcnt tiny.csv
printf '{"logical_count": [[[1e308,1e308,1e308,1e308]]]}' > sum.json
fails 1 eplb-plan -r 8 -G 2 sum.json
printf '1e39,inf,1,1\n' > inf.csv
fails 1 eplb-plan -r 8 -G 2 inf.csv
echo "-- best's search table is bounded (4 S^2 G bytes per node)"
printf '1,2,3,4\n' > l.csv
fails 2 eplb-plan -r 16777216 -G 1 l.csv
fails 2 eplb-plan -r 65536 -G 2 l.csv
eplb-plan -r 65536 -G 2 -a waterfill -f csv --emit logcnt l.csv
