# --prev: planning against the previous output keeps every slot when the
# loads did not change, and few when they changed a little; the balance is
# the same as without --prev.
set -e
w=$TESTDATA/eplb-dsv3-prefill_in1024.json
opts="-r 288 -G 32 -n 4 -g 8 --skip-zero-layers"
eplb-plan $opts -o old.npy "$w" 2>/dev/null
eplb-plan $opts --prev old.npy --stats -o again.npy "$w" 2> s1
cmp old.npy again.npy && echo "same loads: same plan"
grep total s1 | cut -d, -f11,12
# shifted loads: layer by layer, another layer's loads
tensor-cat "$w" > /dev/null 2>&1 || true
eplb-plan $opts --stats -o /dev/null "$TESTDATA/eplb-dsv3-prefill_in1024.json" 2> s2
eplb-plan $opts --prev old.npy --stats -o new.npy "$w" 2> s3
cut -d, -f1-10 s1 | grep total > a
cut -d, -f1-10 s2 | grep total > b
cmp a b && echo "same balance with --prev"
