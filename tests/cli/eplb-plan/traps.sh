# No silent traps: all-zero (dense) layers planned without
# --skip-zero-layers get a note; --stats names each row's input layer and
# its plan row (what a2a-layout --layer takes); --help prints K % N.
set -e
printf '0,0,0,0\n5,1,2,9\n0,0,0,0\n3,3,8,1\n' > w.csv
eplb-plan -r 6 -G 2 -o /dev/null w.csv
eplb-plan -r 6 -G 2 --skip-zero-layers --stats -o /dev/null w.csv 2>&1
eplb-plan --help | grep -F 'K % N'
