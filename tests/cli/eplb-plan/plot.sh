# --plot: per layer x GPU loads over the layer's mean, before (no EPLB, or
# --prev) and after, with each layer's balancedness; rendered by a real
# renderer.  A cell per GPU per layer per panel, the numbers on hover.
cp "$TESTDATA/eplb-dsv3-prefill_in1024.json" in.json
eplb-plan -r 288 -G 32 -n 4 -g 8 --skip-zero-layers --plot p.svg -o plan.npy in.json 2>/dev/null
render p.svg
grep -o 'balancedness (sum of means / sum of maxima): [^<]*' p.svg
echo "cells: $(grep -c '<title>.*layer [0-9]*, GPU' p.svg) (58 layers x 32 GPUs x 2)"
grep -o '<title>after: layer 3, GPU 0: [^<]*' p.svg
# the statistics say the same balancedness
eplb-plan -r 288 -G 32 -n 4 -g 8 --skip-zero-layers --stats -o /dev/null in.json 2>&1 | grep '^total' | cut -d, -f5
# beside --prev instead of no EPLB
cp "$TESTDATA/eplb-dsv3-prefill_in2048.json" next.json
eplb-plan -r 288 -G 32 -n 4 -g 8 --skip-zero-layers --prev plan.npy --plot q.svg -o /dev/null next.json 2>/dev/null
render q.svg
grep -o 'balancedness (sum of means / sum of maxima): [^<]*' q.svg
# nothing left behind when the plot cannot be written
printf '1,2,3,4\n5,6,7,8\n' > w.csv
fails 1 eplb-plan -r 8 -G 2 --plot nodir/p.svg -o out.npy w.csv

# --eval: the plan made on one dump, scored on another, beside no EPLB
eplb-plan --eval plan.npy -G 32 --skip-zero-layers --plot e.svg next.json > /dev/null 2>&1
render e.svg
grep -o 'balancedness (sum of means / sum of maxima): [^<]*' e.svg
# a title of a long file name: the picture widens to it
long=expert-load-dump-of-the-deepseek-v3-serving-run-with-prefill-at-1024-tokens-on-32-gpus-of-4-nodes-kept-for-planning-the-next-deployment.json
cp in.json $long
eplb-plan -r 288 -G 32 -n 4 -g 8 --skip-zero-layers --plot t.svg -o /dev/null $long 2>/dev/null
render t.svg
rm $long
only_files e.svg in.json next.json p.svg plan.npy q.svg t.svg w.csv
