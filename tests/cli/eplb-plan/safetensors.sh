# TensorRT-LLM's statistics: what safetensors' own reader refuses is
# refused (tensors not end to end from byte 0, bytes past the last one,
# sizes that are not integers, a tensor given twice), and no output of a
# run may be a rank file of the directory it reads, there now or not
# (-o, --plot, --report; eplb-replay's -o, --plot, --steps).
# st FILE HEADER N: a safetensors file of HEADER (under 256 bytes) and N
# data bytes, each 1 (I32 counts of 16843009)
st() {
	printf "$(printf '\\%03o' ${#2})\\000\\000\\000\\000\\000\\000\\000" > "$1"
	printf '%s' "$2" >> "$1"
	head -c "$3" /dev/zero | tr '\000' '\001' >> "$1"
}
t() { printf '"%s": {"dtype": "I32", "shape": [%s], "data_offsets": [%s]}' "$@"; }
mkdir s
st s/rank0.safetensors "{$(t 0_3 2 0,8), $(t 1_3 2 8,16)}" 16
eplb-plan --num-redundant-experts 0 -G 1 --emit logcnt -f csv s
for c in "gap|{$(t 0_3 2 0,8), $(t 1_3 2 12,20)}|20" \
    "overlap|{$(t 0_3 2 0,8), $(t 1_3 2 4,12)}|12" \
    "trailing|{$(t 0_3 2 0,8), $(t 1_3 2 8,16)}|20" \
    "late start|{$(t 0_3 2 4,12), $(t 1_3 2 12,20)}|20" \
    "fractional shape|{$(t 0_3 2.5 0,8), $(t 1_3 2 8,16)}|16" \
    "fractional offset|{$(t 0_3 2 0,8), $(t 1_3 2 8,16.0000001)}|16" \
    "twice|{$(t 0_3 2 0,8), $(t 0_3 2 8,16)}|16" \
    "twice, one span|{$(t 0_3 2 0,8), $(t 0_3 2 0,8)}|8"; do
	echo "-- ${c%%|*}"
	rest=${c#*|}
	mkdir b
	st b/rank0.safetensors "${rest%|*}" "${rest##*|}"
	fails 1 eplb-plan --num-redundant-experts 0 -G 1 b
	rm -r b
done
echo "-- no output onto a rank file, there or not"
cp s/rank0.safetensors keep
fails 2 eplb-plan --num-redundant-experts 0 -G 1 -f npy -o s/rank0.safetensors s
fails 2 eplb-plan --num-redundant-experts 0 -G 1 -f npy -o s/rank7.safetensors s
ln -s rank0.safetensors s/r0.svg
fails 2 eplb-plan --num-redundant-experts 0 -G 1 -o p.npy --plot s/r0.svg s
fails 2 eplb-plan --num-redundant-experts 0 -G 1 -o p.npy --stats --report ./s/../s/rank3.safetensors s
fails 2 eplb-replay --engine ideal --num-redundant-experts 0 -G 1 --window 1 -o s/rank1.safetensors s
ln -s rank1.safetensors s/r1.svg
fails 2 eplb-replay --engine ideal --num-redundant-experts 0 -G 1 --window 1 --plot s/r1.svg s
rm s/r0.svg s/r1.svg
fails 2 eplb-replay --engine ideal --num-redundant-experts 0 -G 1 --window 1 --steps s/rank1.safetensors s
cmp keep s/rank0.safetensors && echo "rank0 kept"
# what the reader does not read may be written there
eplb-plan --num-redundant-experts 0 -G 1 -o s/plan.npy s && eplb-plan --num-redundant-experts 0 -G 1 -o s/rank0_raw.safetensors -f npy s
ls s
