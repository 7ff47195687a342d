# --transfers: what a change sends.  Two GPUs, experts 0 and 1 the hot
# ones on GPU 0: the new plan parts them, GPU 0 sends expert 1 and GPU 1
# expert 3 back (vLLM's transfers), two batches since each GPU is in both
# flows; 44M an expert.  Without --prev it is a usage error.
printf '# name=phy2log shape=1,4 dtype=i64\n0,1,2,3\n' > p.csv
printf '10,9,1,1\n' > w.csv
eplb-plan -r 4 -G 2 --prev p.csv --transfers t.csv --expert-bytes 44M -f csv -o new.csv w.csv
head -2 new.csv
cat t.csv
echo "-- no bytes: the column is empty; standard output takes the table"
eplb-plan -r 4 -G 2 --prev p.csv --transfers - -o /dev/null w.csv
echo "-- DeepSeek-V3: 58 layers, every row a layer, model layer numbers"
eplb-plan -r 288 -G 32 -n 4 -g 8 --skip-zero-layers -o old.npy "$TESTDATA/eplb-dsv3-prefill_in1024.json"
eplb-plan -r 288 -G 32 -n 4 -g 8 --skip-zero-layers --prev old.npy --transfers t.csv -o /dev/null "$TESTDATA/eplb-dsv3-more/decode_in1000out1000.json"
sed -n '1p;2p;$p' t.csv
wc -l < t.csv
fails 2 eplb-plan -r 4 -G 2 --transfers t.csv w.csv
fails 2 eplb-plan -r 4 -G 2 --prev p.csv --transfers w.csv w.csv
rm p.csv w.csv new.csv t.csv old.npy
only_files
