# --report: DeepEP's hints as real DeepEP prints them (PR #434 values),
# the low-latency hint and the 32 GiB cap; on stdout with -o, on stderr
# when the tensors take stdout.
set -e
gen() {	# R T K E: a CSV trace of R ranks, ids spread over E experts
	awk -v R=$1 -v T=$2 -v K=$3 -v E=$4 'BEGIN {
		printf "# name=ids shape=%d,%d,%d dtype=i32\n", R, T, K
		for (i = 0; i < R * T; i++) {
			line = ""
			for (j = 0; j < K; j++)
				line = line (j ? "," : "") (i * 7 + j * 13) % E
			print line
		} }'
}
gen 16 32 8 256 > r16.csv
a2a-layout -E 256 --num-sms 24 --config 8,512,16,128 --hidden-bytes 7168 \
    --report -o /dev/null r16.csv | grep -E 'buffer_size_hint|need'
gen 8 32 8 288 > r8.csv
a2a-layout -E 288 --max-tokens 128 --hidden 7168 --report -o /dev/null r8.csv |
    grep low_latency
gen 16 32 8 448 > r16b.csv
a2a-layout -E 448 --max-tokens 2048 --hidden 5120 --report -o /dev/null r16b.csv |
    grep -E 'low_latency|cap'
a2a-layout -E 256 --report r16.csv 2> rep > tensors.npy
head -1 rep
tensor-cat --info tensors.npy | head -2
