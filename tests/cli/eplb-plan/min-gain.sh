# --min-gain keeps the previous plan unless the new one lowers the
# objective by that fraction; -v says which and why; status 0 either way.
set -e
printf '10,10,10,10,10,10,10,10\n10,10,10,10,10,10,10,10\n' > flat.csv
printf '90,132,40,61,104,165,39,4\n5,80,12,300,7,60,33,90\n' > skew.csv
eplb-plan -r 12 -G 4 -o old.csv flat.csv
# the same loads: nothing to gain, the previous plan is kept
eplb-plan -r 12 -G 4 --prev old.csv --min-gain 0.01 -v -o same.csv flat.csv \
    2>&1 | grep min-gain
cmp -s old.csv same.csv && echo "flat loads: previous plan kept"
# skewed loads: a large gain, the new plan is taken
eplb-plan -r 12 -G 4 --prev old.csv --min-gain 0.05 -v -o new.csv skew.csv \
    2>&1 | grep min-gain
eplb-plan -r 12 -G 4 --prev old.csv -o want.csv skew.csv
cmp -s new.csv want.csv && echo "skewed loads: new plan, as without --min-gain"
# a gain asked for that this one does not reach
eplb-plan -r 12 -G 4 --prev old.csv --min-gain 0.9 -v -o kept.csv skew.csv \
    2>&1 | grep min-gain
cmp -s old.csv kept.csv && echo "--min-gain 0.9: previous plan kept"
fails 2 eplb-plan -r 12 -G 4 --min-gain 0.05 skew.csv
fails 2 eplb-plan -r 12 -G 4 --prev old.csv --min-gain 1.5 skew.csv
fails 2 eplb-plan -r 12 -G 4 --prev old.csv --min-gain lots skew.csv
fails 2 eplb-plan -r 12 -G 4 --prev old.csv --min-gain -0.1 skew.csv
