# The README's cookbook, its shell commands as written (from the
# repository root), each checked for what it promises.
cd "$ROOT"
t=$(mktemp -d "${TMPDIR:-/tmp}/moekit-cook.XXXXXX")
eplb-plan --num-redundant-experts 32 --num-gpus 32 --num-nodes 4 -g 8 --skip-zero-layers \
    --plot $t/plan.svg -o $t/plan.json testdata/eplb-dsv3-prefill_in1024.json 2>/dev/null
head -c 30 $t/plan.json; echo
grep -c '<title>after: layer' $t/plan.svg
eplb-plan -r 288 -G 32 -n 4 -g 8 --skip-zero-layers -o $t/old.npz testdata/eplb-dsv3-prefill_in1024.json 2>/dev/null
eplb-plan -r 288 -G 32 -n 4 -g 8 --skip-zero-layers --prev $t/old.npz --min-gain 0.02 \
    --stats --plot $t/moves.svg -o $t/new.npz testdata/eplb-dsv3-prefill_in2048.json 2> $t/stats.csv
grep -e '^layer' -e '^total' $t/stats.csv | cut -d, -f1,5,11-
tensor-cat --info $t/new.npz
grep -o 'balancedness (sum of means / sum of maxima): --prev' $t/moves.svg
a2a-layout -E 8 -R 4 --hidden 4096 --max-tokens 128 --report --plot $t/recv.svg \
    -o /dev/null testdata/a2a-mixtral-gsm8k-head.jsonl | grep -e recommended -e num_worst
grep -c '<title>step' $t/recv.svg
rm -rf "$t"
