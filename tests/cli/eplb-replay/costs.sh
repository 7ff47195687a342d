# What a change costs (issue 62): transfers and batches for every engine
# (TensorRT-LLM copies from host: none), move_s with --link-gbps and
# --expert-bytes, moe_s and speedup with --moe-ms; vLLM's async moves are
# not charged.  Rows of one sweep are scored from the same step, the
# latest first window, with a note.  Zero, negative, NaN, or a link
# without bytes: usage errors.
L="$TESTDATA/eplb-replay-log.npy"
eplb-replay --engine ideal,vllm,sglang,trtllm --async on,off --layer-updates-per-iter 2 -r 288 -G 32 -n 4 -g 8 --window 40 --interval 40 --expert-bytes 44M --link-gbps 400 --moe-ms 2 "$L" | cut -d, -f1,13,17,18,21,22,26-
echo "-- without the options: transfers and batches, no seconds; windows 40 and 60 scored from 60"
eplb-replay --engine sglang -r 288 -G 32 -n 4 -g 8 --window 40,60 --interval 60 "$L" | cut -d, -f1,8,17,21,22,26-
echo "-- --score-from: no note"
eplb-replay --engine vllm,trtllm --layer-updates-per-iter 1 -r 288 -G 32 --window 40 --interval 40 --score-from 50 "$L" | cut -d, -f1,17,21,22,26-
for v in 0 -1 nan 1e99; do fails 2 eplb-replay --engine vllm -r 288 -G 32 --window 40 --interval 40 --expert-bytes 44M --link-gbps $v "$L"; done
for v in 0 -3 nan; do fails 2 eplb-replay --engine vllm -r 288 -G 32 --window 40 --interval 40 --moe-ms $v "$L"; done
fails 2 eplb-replay --engine vllm -r 288 -G 32 --window 40 --interval 40 --link-gbps 400 "$L"
only_files
