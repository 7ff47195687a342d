# A stepped trace [S, R, T, K] (32 layers of real Mixtral-8x7B routing
# through an EP-4 group) gives the same layout from a file and from a
# pipe; outputs gain the step dimension; per-token tensors need --step.
set -e
m=$TESTDATA/a2a-mixtral-gsm8k.npy
a2a-layout -E 8 "$m" > file.npy
cat "$m" | a2a-layout -E 8 > pipe.npy
cmp file.npy pipe.npy
tensor-cat --info file.npy
a2a-layout -E 8 --rank 1 --step 31 --emit recv_src_idx "$m" | tensor-cat --info
fails 2 a2a-layout -E 8 --rank 1 "$m"
fails 2 a2a-layout -E 8 --rank 1 --step 32 "$m"
# -v says how the file's 32 steps were read (the choice depends on timing)
a2a-layout -v -E 8 -o v.npy "$m" 2>&1 | grep -c '^a2a-layout: 32 steps; trial steps took [0-9.]* ms by pread, [0-9.]* ms mapped; the rest \(mapped\|by pread\)$'
cmp v.npy file.npy
