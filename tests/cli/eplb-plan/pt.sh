# SGLang's torch .pt dumps (tests/gen/eplb_pt.py): the good ones plan as
# their loads do in NPY or JSON, the bad ones fail with one line.
ln -s "$TESTDATA/pt" pt
P=pt
eplb-plan -r 10 -G 2 --skip-zero-layers $P/stat.npy > npy.out 2>/dev/null
[ -s npy.out ] || die "stat.npy planned nothing"
for f in stat stat-p4 stat-big stat-offset; do
	eplb-plan -r 10 -G 2 --skip-zero-layers $P/$f.pt > pt.out 2>/dev/null
	cmp -s npy.out pt.out || die "$f.pt plans differently from stat.npy"
done
eplb-plan -r 10 -G 2 --window 2 --history 3 $P/stat.npy > npy.out 2>&1 ||
    die "stat.npy with windows failed"
eplb-plan -r 10 -G 2 --window 2 --history 3 $P/stat.pt > pt.out 2>&1
cmp -s npy.out pt.out || die "windows of stat.pt differ from stat.npy's"
eplb-plan -r 288 -G 32 --skip-zero-layers -f sglang \
    "$TESTDATA/eplb-dsv3-prefill_in1024.json" > json.out 2>/dev/null
[ -s json.out ] || die "the JSON planned nothing"
eplb-plan -r 288 -G 32 --skip-zero-layers -f sglang $P/dsv3.pt > pt.out
cmp -s json.out pt.out || die "dsv3.pt plans differently from its JSON"
for f in legacy truncated no-pkl no-storage short-storage wrap-numel opcode global \
    strided no-count byteorder complex; do
	fails 1 eplb-plan -r 10 -G 2 $P/$f.pt
done
printf 'PK\003\004' | fails 1 eplb-plan -r 10 -G 2
