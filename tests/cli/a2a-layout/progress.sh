# The progress line: on stderr only when it is a terminal (here it is not:
# nothing), --quiet silences it, MOEKIT_PROGRESS=always shows it anyway at
# every step (logs; timing parts cut here), erased at the end.
awk 'BEGIN { print "# name=ids shape=40,4,6,2 dtype=i32"; for (i = 0; i < 960; i++) print (i * 3) % 8 "," (i * 5 + 1) % 8 }' > t.csv
a2a-layout -E 8 -o /dev/null t.csv 2> quiet.err
echo "not a terminal: $(wc -c < quiet.err) bytes on stderr"
MOEKIT_PROGRESS=always a2a-layout -E 8 -o /dev/null t.csv 2> always.err
tr '\r' '\n' < always.err | sed -n 's/, [0-9.]*\/s.*//p' | sed -n '1p;20p;$p'
echo "ends erased: $(tail -c 4 always.err | od -An -c | tr -s ' ')"
MOEKIT_PROGRESS=always a2a-layout --quiet -E 8 -o /dev/null t.csv 2> q.err
echo "--quiet: $(wc -c < q.err) bytes on stderr"
MOEKIT_PROGRESS=always mdecode --bench --isa generic --bsz 1 --max-length 512 --reps 1 --mask-density 0,0.5 -o /dev/null 2> b.err
tr '\r' '\n' < b.err | sed -n 's/, [0-9.]*\/s.*//p'
