# An FP8 cache is its bytes (u8, or i8) with --dtype fp8_e4m3|fp8_e5m2
# and vLLM's per-tensor scales: bytes of 1.0 (E4M3 0x38, E5M2 0x3c) with
# --k-scale 0.5 --v-scale 3 give what an f16 cache of 0.5 and 3 gives;
# what cannot be meant is refused.
ex="$TESTDATA/mdecode-example.npy"
tensor-cat --emit 0 "$ex" > q.npy
tensor-cat --emit 3 "$ex" > m.npy
fill() {	# the example's k, every value replaced by $1, as dtype $2
	tensor-cat -f csv --emit 1 "$ex" |
	    awk -F, -v x="$1" 'NR == 1 { print; next } { for (i = 1; i <= NF; i++) $i = x } 1' OFS=, |
	    tensor-cat --dtype "$2" -o "$3"
}
fill 56 u8 k4.npy
fill 60 u8 k5.npy
fill 0.5 f16 kh.npy
fill 3 f16 vh.npy
mdecode -q q.npy -k kh.npy -v vh.npy -m m.npy -f csv > want.csv
mdecode --dtype fp8_e4m3 --k-scale 0.5 --v-scale 3 -q q.npy -k k4.npy -v k4.npy -m m.npy -f csv > e4m3.csv
mdecode --dtype fp8_e5m2 --k-scale 0.5 --v-scale 3 -q q.npy -k k5.npy -v k5.npy -m m.npy -f csv > e5m2.csv
cmp want.csv e4m3.csv && cmp want.csv e5m2.csv && echo "E4M3 and E5M2 equal f16: $(wc -l < want.csv) lines"
# MLA: V is K's own bytes, so it takes K's scale (0.5 here, as v = k)
mdecode -q q.npy -k kh.npy -v kh.npy -m m.npy -f csv > want.csv
mdecode --dtype fp8_e4m3 --k-scale 0.5 --v-dim 8 --scale 0.35355339059327373 -q q.npy -k k4.npy -m m.npy -f csv > mla.csv
cmp want.csv mla.csv && echo "MLA over FP8: V scaled by --k-scale"
echo "-- refused"
fails 1 mdecode -q q.npy -k k4.npy -v k4.npy -m m.npy
fails 1 mdecode --dtype fp8_e4m3 -q q.npy -k kh.npy -v vh.npy -m m.npy
fails 2 mdecode --k-scale 2 -q q.npy -k kh.npy -v vh.npy
fails 2 mdecode --dtype fp8_e5m2 --v-scale 0 -q q.npy -k k5.npy -v k5.npy
fails 2 mdecode --dtype fp8_e5m2 --k-scale inf -q q.npy -k k5.npy -v k5.npy
# a v scale with which V's largest value passes f32's range: out inf
fails 2 mdecode --dtype fp8_e4m3 --v-scale 4e38 -q q.npy -k k4.npy -v k4.npy -m m.npy
fails 2 mdecode --dtype fp8_e5m2 --v-scale 1e34 -q q.npy -k k5.npy -v k5.npy -m m.npy
fails 1 mdecode --dtype fp8_e4m3 -q k4.npy -k k4.npy -v k4.npy
fails 2 mdecode --bench --dtype f16,fp8_e4m3 --k-scale 2
fails 2 mdecode --dtype fp8_e4m3 --v-dim 8 --v-scale 2 -q q.npy -k k4.npy
fails 2 mdecode --dtype f16,fp8_e4m3 -q q.npy -k k4.npy -v k4.npy
# scales whose scores f32 cannot hold: q x the scale past 3.4e38, or a
# score on K's largest values (FP8's 448, f16's 65504) past it
fails 2 mdecode --scale 1e39 -q q.npy -k kh.npy -v vh.npy -m m.npy
fails 2 mdecode --scale 1e35 -q q.npy -k kh.npy -v vh.npy -m m.npy
# a negative scale: checked by its magnitude; a small one is taken
fails 2 mdecode --scale -1e38 -q q.npy -k kh.npy -v vh.npy -m m.npy
fails 2 mdecode --scale -1e300 -q q.npy -k kh.npy -v vh.npy -m m.npy
mdecode --scale -0.5 -q q.npy -k kh.npy -v vh.npy -m m.npy -f csv --emit lse | sed -n 2p
fails 2 mdecode --dtype fp8_e4m3 --k-scale 1e36 -q q.npy -k k4.npy -v k4.npy
echo "-- inside f32's range, lse: $(mdecode --dtype fp8_e4m3 --k-scale 1e30 -q q.npy -k k4.npy -v k4.npy -m m.npy -f csv --emit lse | awk 'NR > 1 { printf "%.3g ", $1 }')"
rm -f q.npy m.npy k4.npy k5.npy kh.npy vh.npy want.csv e4m3.csv e5m2.csv mla.csv
only_files
