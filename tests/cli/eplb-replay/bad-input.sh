# Options that do not fit, one line each, exit 2 (usage) or 1 (data);
# nothing on stdout, nothing left behind.
cp "$TESTDATA/eplb-replay-log.npy" log.npy
log=log.npy
cp "$TESTDATA/a2a-mixtral-gsm8k-head.jsonl" mixtral.jsonl
cp "$TESTDATA/eplb-dsv3-prefill_in1024.json" dump.json
fails 2 eplb-replay -G 32 $log
fails 2 eplb-replay -r 288 --num-redundant-experts 32 -G 32 $log
fails 2 eplb-replay -r 288 $log
fails 2 eplb-replay -r 288 -G 32 --window 240 $log
# a window the user never typed is named as what set it
fails 2 eplb-replay --engine sglang -r 288 -G 32 --interval 1000 $log
fails 2 eplb-replay --engine sglang -r 288 -G 32 $log
fails 2 eplb-replay --engine vllm -r 288 -G 32 $log
fails 2 eplb-replay -r 288 -G 32 --window 40 --interval 0 $log
fails 2 eplb-replay -r 288,290 -G 32 --window 40 $log
fails 2 eplb-replay -r 288 -G 32 --window 40 --min-gain 1.5 --engine ideal $log
fails 2 eplb-replay -r 288 -G 32 --window 40 --max-moves -3 --engine ideal $log
fails 2 eplb-replay -r 288 -G 32 --window 40 --expert-bytes 44X $log
fails 2 eplb-replay -r 288 -G 32 --window 40,50 --steps s.csv $log
fails 2 eplb-replay -r 288 -G 32 --window 40 -E 256 $log
fails 2 eplb-replay -r 16 -G 4 --window 4 mixtral.jsonl
fails 1 eplb-replay -r 16 -G 4 --window 4 -E 4 mixtral.jsonl
# lists with no value (these crashed), an empty value, a list longer
# than any buffer (it was cut silently), a size past 2^53 bytes (inf)
fails 2 eplb-replay -r 288 -G 32 --window 40 --max-moves , --engine ideal $log
fails 2 eplb-replay -r 288 -G 32 --window 40 --max-moves ,,, --engine ideal $log
fails 2 eplb-replay -r 288 -G 32 --window 40 --min-gain , --engine ideal $log
fails 2 eplb-replay -r 288 -G 32 --window 40 --expert-bytes , $log
fails 2 eplb-replay -r 288 -G 32 --window 40 --max-moves 1000,,0 --engine ideal $log
long=$(awk 'BEGIN { for (i = 0; i < 30; i++) printf "%s%040d", i ? "," : "", 1000 + i }')
eplb-replay -r 288 -G 32 --window 40 -a deepseek --engine ideal --max-moves "$long" $log |
    awk -F, 'NR > 1 && $11 != 998 + NR { print "row " NR ": max_moves " $11 }'
long=$(awk 'BEGIN { for (i = 0; i < 4096; i++) printf "0"; print "1000" }')
fails 2 eplb-replay -r 288 -G 32 --window 40 --max-moves "$long" --engine ideal $log
fails 2 eplb-replay -r 288 -G 32 --window 40 --expert-bytes 1e300T $log
# what an engine cannot run, refused naming why
fails 2 eplb-replay -r 288 -G 32 -n 4 -g 8 --window 40 --policy global $log
fails 2 eplb-replay -r 288 -G 32 -n 4 -g 8 --window 40 -a best $log
fails 2 eplb-replay -r 288 -G 32 --window 40 --max-moves 100 $log
fails 2 eplb-replay -r 288 -G 32 --window 40 --history 2 --engine sglang $log
fails 2 eplb-replay -r 288 -G 32 --window 80 --interval 40 --engine sglang $log
fails 2 eplb-replay -r 288 -G 32 --engine trtllm $log
fails 2 eplb-replay -r 288 -G 32 --engine trtllm --layer-updates-per-iter 2 --window 40 $log
fails 2 eplb-replay -r 288 -G 32 -g 8 --engine trtllm --layer-updates-per-iter 2 $log
fails 2 eplb-replay -r 288 -G 32 --window 40 --async off --engine sglang $log
fails 2 eplb-replay -r 288 -G 32 --window 40 --layers-per-chunk 4 $log
fails 2 eplb-replay -r 288 -G 32 --window 40 --layer-updates-per-iter 4 $log
fails 2 eplb-replay -r 288 -G 32 --window 40 --engine tensorrt $log
fails 2 eplb-replay -r 288 -G 32 --window 40 --async maybe $log
fails 2 eplb-replay -r 288 -G 32 --window 40 --score-from 240 $log
fails 1 eplb-replay -r 288 -G 32 --window 40 dump.json
fails 1 eplb-replay -r 288 -G 32 --window 40 missing.npy
printf '1,2\n3,4\n' > flat.csv
fails 1 eplb-replay -r 2 -G 1 --window 1 flat.csv
# a sparse file claiming 2^31 + 1 experts: refused before any int wraps
hdr="{'descr': '|i1', 'fortran_order': False, 'shape': (1, 1, 2147483649), }"
{ printf '\223NUMPY\001\000\166\000%s' "$hdr"
  printf '%*s\n' $((117 - ${#hdr})) ''; } > huge.npy
truncate -s $((128 + 2147483649)) huge.npy
fails 1 eplb-replay -r 80 -G 8 huge.npy
rm -f huge.npy
only_files dump.json flat.csv log.npy mixtral.jsonl
