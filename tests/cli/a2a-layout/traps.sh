# Runs that do what was asked but likely not what was meant say so in one
# line: ids that leave half of -E without a token, a trace with as many
# steps as the plan has layers but no --layer-per-step, sizes drawn for
# the default hidden size.
cp "$TESTDATA/a2a-mixtral-gsm8k-head.jsonl" r.jsonl
echo "-- -E 16 on an 8-expert trace"
a2a-layout -E 16 -R 4 --hidden 4096 -o /dev/null r.jsonl 2>&1
a2a-layout -E 8 -R 4 --hidden 4096 -o /dev/null r.jsonl 2>&1
echo "-- a plan of 4 layers, a trace of 4 layers"
printf '5,1,2,9,3,3,8,1\n1,2,3,4,5,6,7,8\n8,7,6,5,4,3,2,1\n2,2,2,2,9,9,1,1\n' > w.csv
eplb-plan -r 12 --num-gpus 4 --emit phy2log -o plan.npy w.csv
a2a-layout --phy2log plan.npy -R 4 --hidden 4096 -o /dev/null r.jsonl 2>&1
a2a-layout --phy2log plan.npy -R 4 --hidden 4096 --layer-per-step -o /dev/null r.jsonl 2>&1
a2a-layout --phy2log plan.npy -R 4 --hidden 4096 --layer 2 -o /dev/null r.jsonl 2>&1
echo "-- --plot sized for 7168 unless --hidden"
a2a-layout -E 8 -R 4 --plot p.svg -o /dev/null r.jsonl 2>&1
a2a-layout -E 8 -R 4 --plot p.svg --hidden 4096 -o /dev/null r.jsonl 2>&1
rm -f r.jsonl w.csv plan.npy p.svg
only_files
