#!/bin/sh
# eplb_engines.sh - what eplb-replay advises for each engine on the
# real-drift log (issue 48), and what -a eplb-replay defaults to.
#
#   sh tests/bench/eplb_engines.sh [advice|algo|speed|costs ...] (default:
#   all but costs)
#
# The log: 10,000 steps of DeepSeek-V3 (58 MoE layers, 256 experts),
# each step's popularity a drifting mixture of the 12 real SGLang dumps'
# (tests/gen/eplb_steps.py --steps 10000 --tokens 4096 --seed 1; made
# once into build/bench/dsv3-drift-10k.npy, 594 MB).  32 GPUs in 4 nodes,
# 8 expert groups, 288 slots; every row scored from step 3000 so that
# engines compare.
#   advice  each engine's sweep over its own knobs (a CSV table each),
#           moves charged on a 400 Gbit/s link, a step's MoE 20 ms at
#           perfect balance; vLLM's picture is the README's,
#           docs/eplb-replay-vllm.svg
#   algo    the ideal loop, -a deepseek against -a best, one window a
#           re-plan and several (--history): held out by construction
#   speed   farm-bench: --engine vllm beside ideal on one sweep; the
#           24-configuration sweep beside OLD_BIN's (if OLD_BIN is set:
#           an eplb-replay from before the engines, b6ab6d6)
#   costs   farm-bench: the README's vLLM sweep with transfers, batches
#           and seconds (--link-gbps 400 --moe-ms 20) beside OLD_BIN's
#           without them (an eplb-replay from before, 28cc0db);
#           eplb-plan --prev with --transfers beside without, on the
#           DeepSeek-V3 dumps
# Needs build/bin, /usr/bin/python3 with numpy; speed and costs need
# farm-bench.
set -eu
bin=$(cd build/bin && pwd)
mkdir -p build/bench
[ -s build/bench/dsv3-drift-10k.npy ] || /usr/bin/python3 tests/gen/eplb_steps.py \
    -o build/bench/dsv3-drift-10k.npy --steps 10000 --tokens 4096 --seed 1
# from beside the log, so that the pictures name it as the README does
cd build/bench
log=dsv3-drift-10k.npy
hw="-r 288 --num-gpus 32 --num-nodes 4"
run() { "$bin/eplb-replay" --quiet $hw --expert-bytes 44M "$@" "$log"; }
what=${*:-advice algo speed}

for w in $what; do
	case $w in
	advice)
		cost="--link-gbps 400 --moe-ms 20"
		run $cost -g 8 --score-from 3000 --engine ideal --window 200,1000 \
		    --interval 100,1000,3000
		run $cost -g 8 --score-from 3000 --engine vllm --window 200,1000 \
		    --interval 100,1000,3000 --async on,off \
		    --plot ../../docs/eplb-replay-vllm.svg
		run $cost -g 8 --score-from 3000 --engine sglang \
		    --interval 100,1000,3000 --layers-per-chunk 58,8
		run $cost --score-from 3000 --engine trtllm \
		    --layer-updates-per-iter 1,2,8,58
		;;
	algo)
		run -g 8 --engine ideal -a deepseek,best --policy \
		    global,hierarchical --window 1000 --interval 100,1000
		run -g 8 --engine ideal -a deepseek,best --policy \
		    global,hierarchical --window 100 --history 1,2,10 \
		    --interval 100,1000
		;;
	speed)
		v="$hw -g 8 --num-redundant-experts 0,32,64 --window 1000"
		v="$v --interval 100,1000 --expert-bytes 44M -o /dev/null"
		farm-bench -n 3 --warmup 0 --timeout 600 --vs \
		    "$bin/eplb-replay --quiet --engine ideal -a deepseek --policy hierarchical $v $log" \
		    -- "$bin/eplb-replay" --quiet --engine vllm $v "$log"
		s="-a deepseek $hw -g 8 --num-redundant-experts 0,32,64"
		s="$s --policy global,hierarchical --window 1000"
		s="$s --interval 100,1000 --max-moves none,2000"
		s="$s --expert-bytes 44M -o /dev/null"
		[ -n "${OLD_BIN:-}" ] && farm-bench -n 3 --warmup 0 \
		    --timeout 600 --vs "$OLD_BIN --quiet $s $log" -- \
		    "$bin/eplb-replay" --quiet --engine ideal $s "$log"
		;;
	costs)
		v="$hw -g 8 --score-from 3000 --engine vllm --window 200,1000"
		v="$v --interval 100,1000,3000 --async on,off"
		v="$v --expert-bytes 44M -o /dev/null"
		[ -n "${OLD_BIN:-}" ] && farm-bench -n 5 --warmup 0 \
		    --timeout 600 --vs "$OLD_BIN --quiet $v $log" -- \
		    "$bin/eplb-replay" --quiet --link-gbps 400 --moe-ms 20 $v \
		    "$log"
		t=../../testdata
		p="-r 288 -G 32 -n 4 -g 8 --skip-zero-layers"
		"$bin/eplb-plan" --quiet $p -o old.npy \
		    $t/eplb-dsv3-prefill_in1024.json
		farm-bench -n 9 --warmup 1 --vs "$bin/eplb-plan --quiet $p \
		    --prev old.npy -o /dev/null \
		    $t/eplb-dsv3-more/decode_in1000out1000.json" -- \
		    "$bin/eplb-plan" --quiet $p --prev old.npy \
		    --transfers /dev/null -o /dev/null \
		    $t/eplb-dsv3-more/decode_in1000out1000.json
		;;
	*)	echo "eplb_engines.sh: $w: advice, algo, speed or costs" >&2
		exit 2 ;;
	esac
done
