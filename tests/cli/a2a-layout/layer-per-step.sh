# --phy2log PLAN --layer-per-step: a trace whose step axis is the layer
# goes through plan row s at step s; equal to running each step alone with
# --layer s.  Too few layers, no step axis, or --layer beside it: refused.
set -e
cat > plan.csv <<'CSV'
# name=phy2log shape=3,10 dtype=i64
0,1,2,3,4,5,6,7,0,1
7,6,5,4,3,2,1,0,7,6
0,0,1,2,3,4,5,6,7,1
CSV
awk 'BEGIN { print "# name=ids shape=3,2,5,2 dtype=i32"; for (i = 0; i < 30; i++) print (i * 5) % 8, (i * 3 + 1) % 8 }' > s3.csv
a2a-layout --phy2log plan.csv --layer-per-step --emit num_tokens_per_expert -f csv s3.csv | tee all.csv
sed 1d all.csv > got.csv
for s in 0 1 2; do
	a2a-layout --phy2log plan.csv --layer $s --emit num_tokens_per_expert -f csv s3.csv | sed -n "$((s * 2 + 2)),$((s * 2 + 3))p"
done > want.csv
cmp got.csv want.csv && echo "each step as with --layer s"
head -3 plan.csv > plan2.csv
sed -i 's/shape=3,10/shape=2,10/' plan2.csv
fails 2 a2a-layout --phy2log plan2.csv --layer-per-step s3.csv
awk 'BEGIN { print "# name=ids shape=2,5,2 dtype=i32"; for (i = 0; i < 10; i++) print i % 8, (i + 1) % 8 }' > one.csv
fails 2 a2a-layout --phy2log plan.csv --layer-per-step one.csv
fails 2 a2a-layout --phy2log plan.csv --layer 1 --layer-per-step s3.csv
fails 2 a2a-layout -E 8 --layer-per-step s3.csv
