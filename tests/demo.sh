#!/bin/sh
# demo.sh - what `make demo` runs: real pipelines over the shipped testdata.
set -eu
bin=$(cd "${MOEKIT_BIN:-build/bin}" && pwd)
export PATH="$bin:$PATH" LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/moekit-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

step() { printf '\n$ %s\n' "$*"; }

echo "== tensor-cat: tensor streams, NPY <-> CSV"
step "tensor-cat --info testdata/tensor-cat-mixed.npy"
tensor-cat --info testdata/tensor-cat-mixed.npy
step "tensor-cat -f csv --emit 0,6 --names weights,cube testdata/tensor-cat-mixed.npy"
tensor-cat -f csv --emit 0,6 --names weights,cube testdata/tensor-cat-mixed.npy
step "tensor-cat -f csv testdata/tensor-cat-mixed.npy | tensor-cat -f npy | cmp - testdata/tensor-cat-roundtrip.npy"
tensor-cat -f csv testdata/tensor-cat-mixed.npy | tensor-cat -f npy |
    cmp - testdata/tensor-cat-roundtrip.npy && echo "round trip: identical"
step "tensor-cat --dtype f16 --emit 0 testdata/tensor-cat-mixed.npy | tensor-cat -f csv"
tensor-cat --dtype f16 --emit 0 testdata/tensor-cat-mixed.npy | tensor-cat -f csv

echo
echo "== eplb-plan: place DeepSeek-V3's experts from a real SGLang load dump"
step "eplb-plan -r 288 -G 32 -n 4 -g 8 --skip-zero-layers -o \$tmp/plan.npy testdata/eplb-dsv3-prefill_in1024.json"
eplb-plan -r 288 -G 32 -n 4 -g 8 --skip-zero-layers -o "$tmp/plan.npy" testdata/eplb-dsv3-prefill_in1024.json
step "tensor-cat --info \$tmp/plan.npy"
tensor-cat --info "$tmp/plan.npy"
step "tensor-cat -f csv --emit 0 \$tmp/plan.npy | head -2 | cut -c1-100"
tensor-cat -f csv --emit 0 --names phy2log "$tmp/plan.npy" | head -2 | cut -c1-100
for a in deepseek waterfill best; do
	step "eplb-plan -a $a ... --stats (total: balancedness, gap to the lower bound)"
	eplb-plan -a $a -r 288 -G 32 -n 4 -g 8 --skip-zero-layers --stats \
	    -o /dev/null testdata/eplb-dsv3-prefill_in1024.json 2>&1 |
	    awk -F, '/^total/ { printf "balancedness %s, max/bound %s\n", $4, $6 }'
done

echo
echo "== eplb-plan: a plan serves the next traffic: plan on three dumps, score on a fourth"
past="testdata/eplb-dsv3-prefill_in512.json testdata/eplb-dsv3-prefill_in1024.json testdata/eplb-dsv3-prefill_in2048.json"
next=testdata/eplb-dsv3-prefill_in4096.json
for a in deepseek best; do
	step "eplb-plan -a $a -r 288 -G 32 --skip-zero-layers -o \$tmp/$a.npy (3 dumps)"
	eplb-plan -a $a -r 288 -G 32 --skip-zero-layers -o "$tmp/$a.npy" $past 2>/dev/null
	step "eplb-plan --eval \$tmp/$a.npy -G 32 --skip-zero-layers $next"
	eplb-plan --eval "$tmp/$a.npy" -G 32 --skip-zero-layers "$next" 2>/dev/null |
	    awk -F, '/total/ { printf "held-out balancedness %s (no EPLB: %s)\n", $6, $10 }'
done
step "eplb-plan -r 288 -G 32 --skip-zero-layers -f sglang -o \$tmp/plan.json (3 dumps)   # SGLang's --init-expert-location"
eplb-plan -r 288 -G 32 --skip-zero-layers -f sglang -o "$tmp/plan.json" $past 2>/dev/null
head -c 120 "$tmp/plan.json"; echo " ..."

echo
echo "== a2a-layout: lay a routing trace out through that plan, size DeepEP's buffers"
step "eplb-plan ... --emit phy2log | a2a-layout --phy2log - --layer 10 --report -o \$tmp/layout.npy testdata/a2a-dsv3-trace.npy"
eplb-plan -r 288 -G 32 -n 4 -g 8 --skip-zero-layers --emit phy2log \
    testdata/eplb-dsv3-prefill_in1024.json 2>/dev/null |
    a2a-layout --phy2log - --layer 10 --num-sms 24 --max-tokens 128 --report \
    -o "$tmp/layout.npy" testdata/a2a-dsv3-trace.npy
step "tensor-cat --info \$tmp/layout.npy"
tensor-cat --info "$tmp/layout.npy"
step "a2a-layout -E 8 --emit num_recv_tokens -f csv testdata/a2a-mixtral-gsm8k.npy | head -6   # real Mixtral routing, EP-4"
a2a-layout -E 8 --emit num_recv_tokens -f csv testdata/a2a-mixtral-gsm8k.npy | head -6

echo
echo "== mdecode: masked decode attention on the CPU"
step "mdecode --valid-length 7 --emit out -f csv testdata/mdecode-example.npy   # kv head 1 fully masked"
mdecode --valid-length 7 --emit out -f csv testdata/mdecode-example.npy
step "mdecode --kv-heads 2 --valid-length 7 testdata/mdecode-flat.npy | cmp - <(same as a KV cache)   # the seed's flat layout"
mdecode --valid-length 7 testdata/mdecode-example.npy > "$tmp/cache.npy"
mdecode --kv-heads 2 --valid-length 7 testdata/mdecode-flat.npy |
    cmp - "$tmp/cache.npy" && echo "flat and KV-cache layouts: identical"
step "mdecode --bench --bsz 1 --max-length 16384 --reps 3   # the seed's shape at 1/8 of its length"
mdecode --bench --bsz 1 --max-length 16384 --reps 3
