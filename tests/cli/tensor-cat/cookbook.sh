# The README's shell commands that run on testdata (from the repository
# root), as written, each checked for what it promises; its engines'
# record -> decide -> deploy: eplb-replay/engines.sh.
cd "$ROOT"
t=$(mktemp -d "${TMPDIR:-/tmp}/moekit-cook.XXXXXX")
eplb-plan --num-redundant-experts 32 --num-gpus 32 --skip-zero-layers -o $t/plan.npy \
    testdata/eplb-dsv3-prefill_in512.json testdata/eplb-dsv3-prefill_in1024.json testdata/eplb-dsv3-prefill_in2048.json 2>/dev/null
tensor-cat --info $t/plan.npy
eplb-plan --eval $t/plan.npy --num-gpus 32 --skip-zero-layers testdata/eplb-dsv3-prefill_in4096.json 2>/dev/null |
    grep total
eplb-plan -r 288 --num-gpus 32 --skip-zero-layers --prev $t/plan.npy --min-gain 0.02 --stats \
    -o $t/new.npy testdata/eplb-dsv3-prefill_in4096.json 2> $t/stats.csv
grep -e '^layer' -e '^total' $t/stats.csv | cut -d, -f1,5,11-
a2a-layout -E 8 --num-sms 4 --rank 0 -f csv testdata/a2a-example.npy | head -3
a2a-layout -E 8 -R 4 --hidden 4096 --max-tokens 128 --report --plot $t/recv.svg \
    -o /dev/null testdata/a2a-mixtral-gsm8k-head.jsonl | grep -e recommended -e num_worst
grep -c '<title>step' $t/recv.svg
rm -rf "$t"
