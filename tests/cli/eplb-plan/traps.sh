# No silent traps: all-zero (dense) layers planned without
# --skip-zero-layers get a note; a plan has a row for every layer, the
# unplanned ones the trivial map, so a row is a layer (what a2a-layout
# --layer takes); --eval of a plan of the planned layers alone says which
# row is which; --help prints K % N.
set -e
printf '0,0,0,0\n5,1,2,9\n0,0,0,0\n3,3,8,1\n' > w.csv
eplb-plan -r 6 -G 2 -o /dev/null w.csv
eplb-plan -r 6 -G 2 --skip-zero-layers --stats -f csv --emit phy2log w.csv 2>&1
printf '0,1,2,3,0,1\n0,1,2,3,0,3\n' > rows.csv
eplb-plan -r 6 -G 2 --skip-zero-layers --eval rows.csv w.csv 2>/dev/null
eplb-plan --help | grep -F 'K % N'
# the names vLLM/SGLang users know: --num-redundant-experts N is R = E + N
# spare slots on top of one per expert (-r is the total); --num-gpus is
# -G (GPUs), --num-groups is -g (expert groups), --num-nodes is -n
eplb-plan -r 6 -G 2 -f csv --emit phy2log w.csv > a.csv 2>/dev/null
eplb-plan --num-redundant-experts 2 --num-gpus 2 -f csv --emit phy2log w.csv > b.csv 2>/dev/null
cmp a.csv b.csv && echo "--num-redundant-experts 2 with 4 experts = -r 6"
eplb-plan -r 8 -G 4 -n 2 -g 2 -f csv --emit phy2log w.csv > c.csv 2>/dev/null
eplb-plan -r 8 --num-gpus 4 --num-nodes 2 --num-groups 2 -f csv --emit phy2log w.csv > d.csv 2>/dev/null
cmp c.csv d.csv && echo "--num-gpus --num-nodes --num-groups = -G -n -g"
# --log2phy-width: full (the default) or max
eplb-plan -r 6 -G 2 -f csv --emit log2phy w.csv 2>/dev/null | head -1
eplb-plan -r 6 -G 2 --log2phy-width full -f csv --emit log2phy w.csv 2>/dev/null | head -1
# --quiet is accepted by every tool; eplb-plan draws no progress line
eplb-plan --quiet -r 6 -G 2 -f csv --emit phy2log w.csv > q.csv 2>/dev/null
cmp a.csv q.csv && echo "--quiet: the same plan"
# routing records handed to eplb-plan as loads: said what they are, and
# which tool reads them (the kind recognised in lib/moe, once)
cp "$TESTDATA/a2a-mixtral-gsm8k-head.jsonl" r.jsonl
fails 1 eplb-plan -r 16 -G 4 -o /dev/null r.jsonl
rm r.jsonl
