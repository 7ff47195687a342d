# A tiny --bench: the CSV header, one row per path, threads, batch size,
# layout, mask density and K/V dtype (timings vary, so only the first five
# fields, the dtype and the field count are compared), every path checked
# against generic first.  Nothing here may depend on a quiet machine: on a
# busy one every round of a row may be preempted, which the row's kept
# column (0/N) and one warning line say, and the run still succeeds.

# mdecode ARGS: stderr empty, or the one warning of rows that kept no round
mdecode() {
	_rc=0
	command mdecode "$@" 2>.bench-err || _rc=$?
	[ $_rc = 0 ] || { cat .bench-err >&2; rm -f .bench-err; return $_rc; }
	grep -Ev '^mdecode: warning: [0-9]+ of [0-9]+ rows kept no round \(kept 0/N\): other processes preempted every one, so their figures do not measure the kernels$' .bench-err >&2
	[ "$(wc -l < .bench-err)" -le 1 ] || die "more than one line on stderr"
	rm -f .bench-err
}

mdecode --bench --bsz 1,2 --q-heads 4 --kv-heads 2 --max-length 600 \
    --dim 64 --reps 1 --threads 1,2 --isa generic > bench.csv
awk -F, '{ print $1 "," $2 "," $3 "," $4 "," $5 "," NF }' bench.csv
echo "-- every layout, a paged cache of blocks of 7"
mdecode --bench --bsz 2 --q-heads 4 --kv-heads 2 --max-length 600 \
    --dim 64 --reps 1 --threads 2 --isa generic --kv-layout bhmd,bmhd,paged \
    --block-size 7 \
    --mask-density 0.3 | awk -F, '{ print $1 "," $2 "," $3 "," $4 "," $5 "," NF }'
echo "-- the default --isa"
# the default --isa: every path up to the selected one (MOEKIT_ISA)
mdecode --bench --bsz 1 --q-heads 8 --kv-heads 8 --max-length 300 \
    --valid-length 257 --dim 72 --reps 3 --threads 2 --dtype bf16 \
    --mask-density 0.7 -o all.csv
want=$(mdecode --isa-list | awk -v s="${MOEKIT_ISA:-}" '{ n++ } $0 == s { m = n } END { print (m ? m : n) + 1 }')
[ "$(wc -l < all.csv)" = "$want" ] || die "one row per path: $(cat all.csv)"
awk -F, 'NR > 1 && !($6 > 0 && $7 > 0 && $8 > 0 && $9 > 0 && $10 <= $9 &&
    $9 <= $11 && $12 ~ /^[0-3]\/3$/ && $13 > 0 && $14 > 0) {
    print "bad row: " $0 }' all.csv
# --bench-kernel: one row per path and density, nanoseconds that make sense
mdecode --bench-kernel --q-heads 8 --kv-heads 2 --dim 64 --reps 3 \
    --mask-density 0,0.5 -o kern.csv
[ "$(wc -l < kern.csv)" = "$((2 * (want - 1) + 1))" ] ||
    die "one row per path and density: $(cat kern.csv)"
head -1 kern.csv
awk -F, 'NR > 1 && !($2 == 4 && $3 == 64 && $5 > 0 && $6 > 0 && $6 <= $5 &&
    $7 > 0 && $8 > 0 && $9 ~ /^[0-3]\/3$/ && $10 == "f16" && NF == 10) {
    print "bad row: " $0 }' kern.csv
echo "-- a list of dtypes: their rows side by side, each checked first"
mdecode --bench --bsz 1 --q-heads 8 --kv-heads 2 --max-length 300 --dim 128 \
    --reps 1 --threads 1 --isa generic --mask-density 0.4 \
    --dtype f16,fp8_e4m3,fp8_e5m2,bf16 | cut -d, -f1-5,15
mdecode --bench-kernel --q-heads 8 --kv-heads 2 --dim 64 --reps 1 \
    --isa generic --mask-density 0 --dtype fp8_e5m2,f32 | cut -d, -f1-4,10
echo "-- MLA (--v-dim): V is K's rows, only K's bytes are counted"
mdecode --bench --bsz 1 --q-heads 8 --kv-heads 1 --dim 72 --v-dim 64 \
    --max-length 300 --reps 1 --threads 1 --isa generic --mask-density 0 \
    --dtype f16,fp8_e5m2 | cut -d, -f1-5,15
mdecode --bench-kernel --q-heads 8 --kv-heads 1 --dim 72 --v-dim 64 --reps 1 \
    --isa generic --mask-density 0 --dtype fp8_e4m3 | cut -d, -f1-4,10
fails 2 mdecode --bench --dim 72 --v-dim 80
echo "-- a cache shorter than a block: fine unless paged is timed"
mdecode --bench --max-length 20 --bsz 1 --reps 1 --isa generic --threads 1 |
    cut -d, -f1-5
echo "-- --quiet: no warning, whatever the machine"
command mdecode --bench --quiet --max-length 64 --bsz 1 --reps 2 --isa generic \
    --threads 1 --dim 32 --q-heads 2 --kv-heads 1 --mask-density 0 | cut -d, -f1-5
# --seed: other random inputs, every path still checked against generic
# on them first (a disagreement would fail the run)
for s in 7 123456789; do
	mdecode --bench --bsz 1 --q-heads 4 --kv-heads 2 --max-length 300 \
	    --dim 64 --reps 1 --threads 1 --mask-density 0.5 --seed $s |
	    awk -F, -v s=$s -v w=$((want - 1)) 'NR > 1 { n++ }
		END { print "--seed " s ": " (n == w ? "a row per path" : n " rows") }'
done
fails 2 command mdecode --bench --seed -1
echo "-- --q-tokens: a row per token count, each checked against generic"
mdecode --bench --bsz 1 --q-heads 8 --kv-heads 2 --max-length 300 --dim 64 \
    --reps 1 --threads 1 --mask-density 0.3 --dtype f16,fp8_e4m3 \
    --q-tokens 1,4,16 | awk -F, -v w=$((want - 1)) 'NR == 1 { print $16 }
	NR > 1 { n[$16 "," $15]++ }
	END { for (k in n) if (n[k] != w) print k ": " n[k] " rows"; print "token counts: " (NR - 1) / w / 2 }'
fails 2 command mdecode --bench-kernel --q-tokens 4
fails 2 command mdecode --q-tokens 4 "$TESTDATA/mdecode-example.npy"
fails 2 command mdecode --bench --q-tokens 17
fails 2 command mdecode --bench --max-length 8 --q-tokens 2,9
