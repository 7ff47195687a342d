# --lost-gpus: a plan on the survivors of the plan before.  Four GPUs of
# two slots, GPU 2 (experts 4 and 5, their only copies) lost: the least
# that works changes two slots, the spare copies of 0 and 2 on GPU 3 (the
# note names the lost experts); --max-moves 1 is too few (exit 1); the
# transfers table counts the two reloads.  --prev-gpus: the same plan on
# a group of five GPUs (one empty: two slots to fill) or of three.
printf '# name=phy2log shape=1,8 dtype=i64\n0,1,2,3,4,5,0,2\n' > old.csv
printf '9,3,8,2,6,5\n' > w.csv
eplb-plan -r 8 -G 4 --prev old.csv --lost-gpus 2 --max-moves 2 --transfers t.csv -f csv --emit phy2log w.csv
cat t.csv
eplb-plan -r 8 -G 4 --prev old.csv --lost-gpus 2 --stats --report r.csv -f csv --emit phy2log -o new.csv w.csv
cut -d, -f1,5,11,12 r.csv
fails 1 eplb-plan -r 8 -G 4 --prev old.csv --lost-gpus 2 --max-moves 1 w.csv
echo "-- a larger group, a smaller one"
eplb-plan -r 10 -G 5 --prev old.csv --prev-gpus 4 --max-moves 2 -f csv --emit phy2log w.csv
eplb-plan -r 6 -G 3 --prev old.csv --prev-gpus 4 -f csv --emit phy2log w.csv
echo "-- refused"
fails 2 eplb-plan -r 8 -G 4 --lost-gpus 2 w.csv
fails 2 eplb-plan -r 8 -G 4 --prev old.csv --lost-gpus 4 w.csv
fails 2 eplb-plan -r 8 -G 4 --prev old.csv --lost-gpus 1,1 w.csv
fails 2 eplb-plan -r 8 -G 4 --prev old.csv --lost-gpus 0,1,2,3 w.csv
fails 2 eplb-plan -r 8 -G 4 --prev old.csv --lost-gpus 0,1 w.csv
fails 2 eplb-plan -r 8 -G 4 --prev old.csv --lost-gpus 1 --prev-gpus 4 w.csv
fails 1 eplb-plan -r 10 -G 5 --prev old.csv --prev-gpus 3 w.csv
fails 1 eplb-plan -r 10 -G 5 --prev old.csv w.csv
fails 1 eplb-plan -r 6 -G 2 --prev old.csv --lost-gpus 1 w.csv
fails 2 eplb-plan -r 8 -G 4 --prev old.csv --lost-gpus -1 w.csv
printf '# name=phy2log shape=2,8 dtype=i64\n0,1,2,3,4,5,0,2\n0,1,2,3,4,5,0,2\n' > old2.csv
fails 1 eplb-plan -r 8 -G 4 --prev old2.csv --lost-gpus 1 w.csv
printf '# name=phy2log shape=1,8 dtype=i64\n0,1,2,3,4,9,0,2\n' > old9.csv
fails 1 eplb-plan -r 8 -G 4 --prev old9.csv --lost-gpus 1 w.csv
fails 1 eplb-plan -r 10 -G 5 --prev old9.csv --prev-gpus 4 w.csv
rm old.csv old2.csv old9.csv w.csv t.csv new.csv r.csv
only_files
