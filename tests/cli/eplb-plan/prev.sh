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
# other loads (the next dump): --prev relabels GPUs and reorders slots, so
# the balance is that of planning without --prev, with fewer slots changed
v=$TESTDATA/eplb-dsv3-prefill_in2048.json
eplb-plan $opts --stats -o /dev/null "$v" 2> s2
eplb-plan $opts --prev old.npy --stats -o new.npy "$v" 2> s3
grep '^total' s2 | cut -d, -f1-10 > a
grep '^total' s3 | cut -d, -f1-10 > b
[ -s a ] || die "no total row without --prev"
cmp a b && echo "same balance with --prev"
changed=$(grep '^total' s3 | cut -d, -f11)
[ "$changed" -gt 0 ] && [ "$changed" -lt $((58 * 288)) ] ||
    die "--prev on other loads changed $changed of $((58 * 288)) slots"
echo "other loads: some slots changed, not all"
