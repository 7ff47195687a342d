# Bad loads and impossible options: one line each, nothing on stdout.
printf '1,-2,3,4\n' > neg.csv
fails 1 eplb-plan -r 4 -G 2 neg.csv
printf '1,nan,3,4\n' > nan.csv
fails 1 eplb-plan -r 4 -G 2 nan.csv
printf '{"logical_count": [[1, 2, 3, 4], [1, 2]]}' > ragged.json
fails 1 eplb-plan -r 4 -G 2 ragged.json
printf '{"logical_count": [[1, 2, 3, 4]' > broken.json
fails 1 eplb-plan -r 4 -G 2 broken.json
printf '{"counts": [[1, 2]]}' > other.json
fails 1 eplb-plan -r 4 -G 2 other.json
printf '# name=x shape=1,1,1,2 dtype=f32\n1,2\n' > rank4.csv
fails 1 eplb-plan -r 4 -G 2 rank4.csv
printf '1,2,3,4\n' > ok.csv
fails 2 eplb-plan -r 3 -G 1 ok.csv
fails 2 eplb-plan -r 6 -G 4 ok.csv
fails 2 eplb-plan -r 8 -G 4 -n 3 ok.csv
fails 2 eplb-plan -r 8 -G 4 -g 3 ok.csv
fails 2 eplb-plan -r 8 -G 4 -n 2 -g 1 --policy hierarchical ok.csv
fails 2 eplb-plan -r 8 -G 4 --window 2 ok.csv
fails 2 eplb-plan -G 4 ok.csv
fails 2 eplb-plan -r 8 -G 4 -a magic ok.csv
fails 2 eplb-plan -r 8 -G 4 --emit log2phy,nothing ok.csv
fails 2 eplb-plan -r x -G 4 ok.csv
printf '0,1,2,3\n' > prev.csv
fails 1 eplb-plan -r 8 -G 4 --prev prev.csv ok.csv
printf '0,1,2,3,0,1,2,9\n' > prev2.csv
fails 1 eplb-plan -r 8 -G 4 --prev prev2.csv ok.csv
fails 1 eplb-plan -r 8 -G 4 missing.json
ls
# a run that fails says one thing: the note about dense layers is not
# printed before the usage error
fails 2 eplb-plan -r 128 -G 32 "$TESTDATA/eplb-dsv3-prefill_in1024.json"
# a bad value in a plan's row 10 is named as row 10, whatever layers
# --skip-zero-layers drops from the loads (here 0-2)
d="$TESTDATA/eplb-dsv3-prefill_in1024.json"
eplb-plan --quiet -r 288 -G 32 --skip-zero-layers --emit phy2log -f csv "$d" |
    awk 'NR == 12 { sub(/^[0-9]+/, "999") } { print }' > row10.csv
fails 1 eplb-plan --quiet --eval row10.csv -G 32 --skip-zero-layers "$d"
fails 1 eplb-plan --quiet -r 288 -G 32 --skip-zero-layers --prev row10.csv "$d"
rm row10.csv
