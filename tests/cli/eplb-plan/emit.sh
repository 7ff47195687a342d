# --emit picks and orders outputs; log2phy widths; NPY shapes.
set -e
eplb-plan -r 16 -G 8 -n 2 -g 4 --emit logcnt,0 "$TESTDATA/eplb-readme.npy" | tensor-cat --info
eplb-plan -r 16 -G 8 -n 2 -g 4 --emit log2phy "$TESTDATA/eplb-readme.npy" | tensor-cat --info
eplb-plan -r 16 -G 8 -n 2 -g 4 --emit log2phy --log2phy-width max "$TESTDATA/eplb-readme.npy" | tensor-cat --info
# log2phy and phy2log agree: slot s of expert e holds e
eplb-plan -r 16 -G 8 -n 2 -g 4 -f csv "$TESTDATA/eplb-readme.npy" > p.csv
tensor-cat --emit phy2log p.csv | tail -n +2 | tr ',' ' ' > phy
tensor-cat --emit log2phy p.csv | tail -n +2 | awk -F, -v L=2 -v E=12 '
	NR == FNR { for (i = 1; i <= NF; i++) P[NR - 1, i - 1] = $i; next }
	{ l = int((FNR - 1) / E); e = (FNR - 1) % E
	  for (i = 1; i <= NF; i++) if ($i >= 0 && P[l, $i] != e) bad++ }
	END { print bad ? "INCONSISTENT" : "consistent" }' FS=' ' phy FS=, -
