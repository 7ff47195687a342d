# One scenario plans as releases before scenarios did, byte for byte: the
# outputs' sha256 of -a best at bb8d00e (testdata/eplb-best-v1.txt) on
# every golden case and on a real DeepSeek-V3 dump in three shapes.  These
# hashes were made by the code under test: a regression lock, not an
# oracle (best's plans are checked for validity, bounds and the
# references elsewhere: tests/unit/test_eplb.c, tests/interop/).  The
# same file given twice is two scenarios: a plan of its own, with no
# expert twice on one GPU (the one-scenario plan has 44 such pairs on this
# dump, which buy it 0.2% of balance on the loads it was made from).
set -e
while read -r f args; do
	want=${args##* }
	args=${args% *}
	got=$(eplb-plan $args "$TESTDATA/$f" 2>/dev/null | sha256sum | cut -c1-64)
	[ "$got" = "$want" ] || die "$f $args: not the plan of bb8d00e"
	echo "$f $args: same"
done < "$TESTDATA/eplb-best-v1.txt"
w=$TESTDATA/eplb-dsv3-prefill_in1024.json
opts="-r 288 -G 32 --skip-zero-layers"
eplb-plan $opts --stats -o one.npy "$w" 2>&1 | grep total | cut -d, -f5 > a
eplb-plan $opts --stats -o two.npy "$w" "$w" 2>&1 | grep total | cut -d, -f6 \
    | sort -u > b
echo "balancedness, one scenario: $(cat a); the same twice: $(cat b)"
