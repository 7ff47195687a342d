# Bad traces and DeepEP's rules: one line each, nothing on stdout.
printf '# name=ids shape=2,1,2 dtype=i64\n0,1\n2,9\n' > range.csv
fails 1 a2a-layout -E 8 range.csv
a2a-layout -E 8 --lenient --emit num_tokens_per_expert -f csv range.csv
printf '# name=ids shape=2,1,2 dtype=f32\n0,1\n2,3\n' > float.csv
fails 1 a2a-layout -E 8 float.csv
printf '# name=ids shape=3,1,2 dtype=i64\n0,1\n2,3\n4,5\n' > r3.csv
fails 2 a2a-layout -E 6 r3.csv
fails 2 a2a-layout -E 7 range.csv
fails 2 a2a-layout -E 8 --num-sms 5 range.csv
fails 2 a2a-layout -E 8 --config 8,8,6,128 --report -o /dev/null range.csv
fails 2 a2a-layout range.csv
fails 2 a2a-layout -E 8 -R 4 range.csv
fails 2 a2a-layout -E 8 --rank 2 range.csv
# a token reaching 9 of 12 nodes (96 ranks, one expert per rank)
awk 'BEGIN { for (r = 0; r < 96; r++) { printf "# name=r%d shape=1,9 dtype=i32\n", r
	print (r == 5 ? "0,8,16,24,32,40,48,56,64" : "1,1,1,1,1,1,1,1,1") } }' > far.csv
fails 1 a2a-layout -E 96 far.csv
printf '' | fails 1 a2a-layout -E 8
fails 1 a2a-layout -E 8 missing.npy
# a second input file, an option given twice: said plainly
fails 2 a2a-layout -E 8 "$TESTDATA/a2a-example.npy" second.npy
fails 2 a2a-layout -E 8 --rank 1 --rank 2 "$TESTDATA/a2a-example.npy"
fails 2 mdecode "$TESTDATA/mdecode-example.npy" second.npy
fails 2 eplb-replay -r 288 -G 32 "$TESTDATA/eplb-replay-log.npy" second.npy
# a trace of no tokens: no warning about the experts it uses (none)
printf '# name=ids shape=2,0,2 dtype=i32\n' | a2a-layout -E 8 --hidden 4096 --num-nodes 1 --max-tokens 8 --emit num_tokens_per_rank -f csv - 2>&1 | head -3
