# --plot: the tokens each rank receives at each step (and, internode, over
# RDMA), the largest framed, num_worst_tokens and its buffer in the
# heading; rendered by a real renderer; numbers on hover.
cp "$TESTDATA/a2a-mixtral-gsm8k.npy" mix.npy
a2a-layout -E 8 --hidden 4096 --plot m.svg -o /dev/null mix.npy
render m.svg
grep -o 'num_worst_tokens [^<]*' m.svg
echo "cells: $(grep -c '<title>step [0-9]*, rank' m.svg) (32 steps x 4 ranks)"
grep -o '<title>step 8, rank 0: [^<]*' m.svg
a2a-layout -E 8 --hidden 4096 --report -o /dev/null mix.npy | grep num_worst
cp "$TESTDATA/a2a-dsv3-trace.npy" ds.npy
a2a-layout -E 288 --num-sms 24 --plot d.svg -o /dev/null ds.npy
render d.svg
grep -o 'tokens received over RDMA (internode)' d.svg
# a long trace: rows are bins of steps, each showing its largest count
awk 'BEGIN { print "# name=ids shape=600,2,3,1 dtype=i32"; for (i = 0; i < 3600; i++) print i % 5 == 0 ? -1 : (i * 7) % 4 }' > long.csv
a2a-layout -E 4 --plot l.svg -o /dev/null long.csv
render l.svg
grep -o '<title>steps 0 to 2, rank 0: [^<]*' l.svg
fails 1 a2a-layout -E 4 --plot nodir/l.svg -o out.npy long.csv
# a title of a long file name: the picture widens to it
cp long.csv routing-trace-of-a-four-expert-toy-model-over-six-hundred-steps.csv
a2a-layout -E 4 --hidden 4096 --plot t.svg -o /dev/null routing-trace-of-a-four-expert-toy-model-over-six-hundred-steps.csv
render t.svg
rm routing-trace-of-a-four-expert-toy-model-over-six-hundred-steps.csv
only_files d.svg ds.npy l.svg long.csv m.svg mix.npy t.svg
