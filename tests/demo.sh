#!/bin/sh
# demo.sh - what `make demo` runs: real pipelines over the shipped testdata.
# Each command is printed exactly as it is run (run CMD evaluates the text
# it prints), in a scratch directory (removed at the end) that sees the
# repository's testdata/: pasted in the repository, each runs as shown.
# Last, what each engine records at DeepSeek-V3's scale goes to DEMO_DIR
# (default build/demo; tests/gen/engine_logs.py), and the README's record
# -> decide -> deploy commands run there, as the README writes them.
set -eu
bin=$(cd "${MOEKIT_BIN:-build/bin}" && pwd)
demo=${DEMO_DIR:-build/demo}
python=${PYTHON:-/usr/bin/python3}
root=$(pwd)
export PATH="$bin:$PATH" LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/moekit-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ln -s "$(pwd)/testdata" "$tmp/testdata"
cd "$tmp"

run() {
	printf '\n$ %s\n' "$1"
	eval "$1"
}

echo "== tensor-cat: tensor streams, NPY <-> CSV"
run 'tensor-cat --info testdata/tensor-cat-mixed.npy'
run 'tensor-cat -f csv --emit 0,6 --names weights,cube testdata/tensor-cat-mixed.npy'
run 'tensor-cat -f csv testdata/tensor-cat-mixed.npy | tensor-cat -f npy | cmp - testdata/tensor-cat-roundtrip.npy && echo "round trip: identical"'
run 'tensor-cat --dtype f16 --emit 0 testdata/tensor-cat-mixed.npy | tensor-cat -f csv'

echo
echo "== eplb-plan: place DeepSeek-V3's experts from a real SGLang load dump"
echo "   (-r 288 slots on 32 GPUs in 4 nodes, 8 expert groups)"
run 'eplb-plan -r 288 --num-gpus 32 --num-nodes 4 --num-groups 8 --skip-zero-layers -o plan.npy testdata/eplb-dsv3-prefill_in1024.json'
run 'tensor-cat --info plan.npy'
run 'tensor-cat -f csv --emit 0 plan.npy | head -2 | cut -c1-100'
for a in deepseek waterfill best; do
	run "eplb-plan -a $a -r 288 --num-gpus 32 --num-nodes 4 --num-groups 8 --skip-zero-layers --stats -o /dev/null testdata/eplb-dsv3-prefill_in1024.json 2>&1 | awk -F, '/^total/ { printf \"balancedness %s, max/bound %s\\n\", \$5, \$7 }'"
done

echo
echo "== eplb-plan: a plan serves the next traffic: plan on three dumps, score on a fourth"
past="testdata/eplb-dsv3-prefill_in512.json testdata/eplb-dsv3-prefill_in1024.json testdata/eplb-dsv3-prefill_in2048.json"
for a in deepseek best; do
	run "eplb-plan -a $a -r 288 --num-gpus 32 --skip-zero-layers -o $a.npy $past 2>/dev/null"
	run "eplb-plan --eval $a.npy --num-gpus 32 --skip-zero-layers testdata/eplb-dsv3-prefill_in4096.json 2>/dev/null | awk -F, '/total/ { printf \"held-out balancedness %s (no EPLB: %s)\\n\", \$6, \$10 }'"
done
echo "   SGLang's --init-expert-location file:"
run "eplb-plan -r 288 --num-gpus 32 --skip-zero-layers -f sglang -o plan.json $past 2>/dev/null"
run 'head -c 120 plan.json; echo " ..."'

echo
echo "== eplb-replay: what each engine's own rebalancing loop keeps and moves"
echo "   (a 240-step log drifting among the real dumps; re-plans every 40 or 80 steps)"
run "eplb-replay --quiet --engine ideal,vllm,sglang -r 288 --num-gpus 32 --num-nodes 4 --num-groups 8 --window 40 --interval 40,80 --expert-bytes 44M --plot replay.svg testdata/eplb-replay-log.npy | cut -d, -f1,9,18,21,22,23"
echo "   replay.svg numbers the settings on the Pareto front (no other as balanced with fewer moves)"
run "eplb-plan -r 288 --num-gpus 32 --num-nodes 4 --num-groups 8 --window 40 --history 4 -o map.jsonl testdata/eplb-replay-log.npy && head -c 100 map.jsonl; echo ' ...'"
echo "   map.jsonl is vLLM's initial mapping (-f trtllm: TensorRT-LLM's YAML, -f sglang: SGLang's JSON)"

echo
echo "== a2a-layout: lay a routing trace out through that plan, size DeepEP's buffers"
run 'eplb-plan -r 288 --num-gpus 32 --num-nodes 4 --num-groups 8 --skip-zero-layers --emit phy2log testdata/eplb-dsv3-prefill_in1024.json 2>/dev/null | a2a-layout --phy2log - --layer 10 --num-sms 24 --max-tokens 128 --report -o layout.npy testdata/a2a-dsv3-trace.npy'
run 'tensor-cat --info layout.npy'
echo "   real Mixtral routing (8 experts), 4 ranks:"
run 'a2a-layout -E 8 --hidden 4096 --emit num_recv_tokens -f csv testdata/a2a-mixtral-gsm8k.npy | head -6'

echo
echo "== mdecode: masked decode attention on the CPU"
echo "   (kv head 1 fully masked)"
run 'mdecode --valid-length 7 --emit out -f csv testdata/mdecode-example.npy'
echo "   a flat buffer and a KV cache of the same data:"
run 'mdecode --valid-length 7 testdata/mdecode-example.npy > cache.npy'
run 'mdecode --kv-heads 2 --valid-length 7 testdata/mdecode-flat.npy | cmp - cache.npy && echo "flat and KV-cache layouts: identical"'
echo "   the benchmark at 1/8 of a 128K context:"
run 'mdecode --bench --bsz 1 --max-length 16384 --reps 3'
echo "   kept n/3: the rounds no other process preempted (threads that waited for"
echo "   a CPU over 5 % of a pass); a row's figures are the medians of those."
echo "   0/3 (and a warning after the table) means another process held the CPUs in every"
echo "   round: that row does not measure the kernel; run it again when quieter."

echo
echo "== the README's record -> decide -> deploy, as written, on what each engine"
echo "   records at DeepSeek-V3's scale (tests/gen/engine_logs.py: 1,200 steps; $demo/)"
mkdir -p "$root/$demo"
"$python" "$root/tests/gen/engine_logs.py" -o "$root/$demo"
cd "$root/$demo"
# the section's eplb- commands, continuation lines joined
awk '/^## EPLB for the engine you run/ { on = 1; next } /^## / { on = 0 }
	on && /^```sh/ { code = 1; next } /^```/ { code = 0; next }
	on && code { line = line $0; if (sub(/\\$/, "", line)) next
		sub(/^ +/, "", line); if (line ~ /^eplb-/) print line; line = "" }' \
    "$root/README.md" > readme.cmds
[ -s readme.cmds ] || { echo "demo: no eplb- command in the README's EPLB section"; exit 1; }
while IFS= read -r c; do
	run "$c"
done < readme.cmds
echo
echo "the pictures and files are in $demo/: $(ls | grep -v -e '^stats$' -e readme.cmds | tr '\n' ' ')"
