# Outputs never replace the run's inputs (-o, --plot, --report, through a
# link too), and an existing non-regular -o target is opened once, never
# truncated; .npz member names stay plain names (no zip-slip).
cp "$TESTDATA/eplb-readme.npy" r.npy
fails 2 tensor-cat -o r.npy r.npy
ln -s r.npy link.npy
fails 2 tensor-cat -o link.npy r.npy
ln -s r.npy in.svg
fails 2 eplb-plan -r 16 --num-gpus 8 --plot in.svg -o /dev/null in.svg
fails 2 eplb-plan -r 16 --num-gpus 8 --report r.npy -o /dev/null r.npy
cp "$TESTDATA/a2a-example.npy" t.npy
ln -s t.npy t.svg
fails 2 a2a-layout -E 8 --plot t.svg -o /dev/null t.npy
rm t.npy t.svg
tensor-cat --info r.npy
tensor-cat -f csv -o /dev/stdout r.npy | head -1
fails 1 tensor-cat -f npz --names ../evil r.npy
fails 1 tensor-cat -f npz --names /abs -o x.npz r.npy
fails 1 tensor-cat -f npz --names . r.npy
rm -f link.npy r.npy in.svg
only_files
# any number of inputs is guarded: the 17th too
i=1
while [ $i -le 17 ]; do printf '%d\n' $i | tensor-cat -f npy > f$i.npy; i=$((i + 1)); done
cp f17.npy f17.keep
fails 2 tensor-cat -o f17.npy f1.npy f2.npy f3.npy f4.npy f5.npy f6.npy f7.npy f8.npy f9.npy f10.npy f11.npy f12.npy f13.npy f14.npy f15.npy f16.npy f17.npy
cmp f17.npy f17.keep && echo "the 17th input kept"
printf '5,3,2,1\n' > w.csv
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17; do cp w.csv w$i.csv; done
cp w17.csv w17.keep
fails 2 eplb-plan -r 4 -G 2 -f csv -o w17.csv w1.csv w2.csv w3.csv w4.csv w5.csv w6.csv w7.csv w8.csv w9.csv w10.csv w11.csv w12.csv w13.csv w14.csv w15.csv w16.csv w17.csv
cmp w17.csv w17.keep && echo "the 17th load file kept"
rm -f f*.npy f17.keep w*.csv w17.keep
# two outputs of one run into one file, however it is spelled: refused,
# nothing left
printf '5,3,2,1\n' > w.csv
fails 2 eplb-plan -r 4 -G 2 --stats --plot x.svg --report ./x.svg -o p.npy w.csv
fails 2 eplb-plan -r 4 -G 2 --stats --report p.npy -o p.npy w.csv
cp "$TESTDATA/eplb-replay-log.npy" log.npy
fails 2 eplb-replay --engine ideal -r 288 -G 32 --window 40 --plot s.svg --steps s.svg log.npy
fails 2 eplb-replay --engine ideal -r 288 -G 32 --window 40 --plot o.svg -o ../work/o.svg log.npy
ls x.svg p.npy s.svg o.svg 2>&1 | sed 's/.*cannot access/cannot access/'
rm -f w.csv log.npy
