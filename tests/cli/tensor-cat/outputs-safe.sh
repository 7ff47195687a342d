# Outputs never replace the run's inputs (-o, --plot, --report, through a
# link too), and an existing non-regular -o target is opened once, never
# truncated; .npz member names stay plain names (no zip-slip).
cp "$TESTDATA/eplb-readme.npy" r.npy
fails 2 tensor-cat -o r.npy r.npy
ln -s r.npy link.npy
fails 2 tensor-cat -o link.npy r.npy
fails 2 eplb-plan -r 16 --num-gpus 8 --plot r.npy -o /dev/null r.npy
fails 2 eplb-plan -r 16 --num-gpus 8 --report r.npy -o /dev/null r.npy
cp "$TESTDATA/a2a-example.npy" t.npy
fails 2 a2a-layout -E 8 --plot t.npy -o /dev/null t.npy
rm t.npy
tensor-cat --info r.npy
tensor-cat -f csv -o /dev/stdout r.npy | head -1
fails 1 tensor-cat -f npz --names ../evil r.npy
fails 1 tensor-cat -f npz --names /abs -o x.npz r.npy
fails 1 tensor-cat -f npz --names . r.npy
rm -f link.npy r.npy
only_files
