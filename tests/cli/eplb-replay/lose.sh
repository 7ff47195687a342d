# --lose-gpu STEP:LIST: at STEP the placement serving is carried onto the
# survivors and repaired with the fewest changes; the survivors'
# balancedness until the engine's next re-plan serves (TensorRT-LLM's:
# one step), the steps that takes, the experts that lost every copy.
# The rest of the row is the replay without the loss.  Bad values: one
# line, exit 2.
L="$TESTDATA/eplb-replay-log.npy"
eplb-replay --quiet --engine ideal,vllm,sglang,trtllm --layer-updates-per-iter 1 -r 288 -G 32 -n 4 -g 8 --window 40 --interval 40 --lose-gpu 100:5 "$L" | cut -d, -f1,18,28-
eplb-replay --quiet --engine ideal -r 288 -G 32 --window 40 --interval 40 --lose-gpu 100:5 "$L" | cut -d, -f18 > a
eplb-replay --quiet --engine ideal -r 288 -G 32 --window 40 --interval 40 "$L" | cut -d, -f18 > b
cmp a b && echo "the replay's own columns: unchanged"
echo "-- two GPUs of one node, lost after the last re-plan: to the log's end"
eplb-replay --quiet --engine ideal -r 288 -G 32 --window 40 --interval 200 --lose-gpu 239:0,1 "$L" | cut -d, -f28-
for v in 240:1 100:32 100:1,1 100: :1 x:1 100:-1; do fails 2 eplb-replay --engine ideal -r 288 -G 32 --window 40 --interval 40 --lose-gpu $v "$L"; done
fails 2 eplb-replay --engine ideal -r 256 -G 32 --window 40 --interval 40 --lose-gpu 100:3 "$L"
rm a b
only_files
