# --prev and --eval read every map eplb-plan writes: vLLM's initial
# mapping line, TensorRT-LLM's YAML (rows keyed by the model's layer),
# SGLang's JSON, NPY, CSV, NPZ: the same plan, the same figures, nothing
# moved.  A YAML line of another form, a layer missing, a layer twice:
# one line, exit 1.
D="$TESTDATA/eplb-dsv3-prefill_in1024.json"
eplb-plan -r 288 -G 32 --skip-zero-layers -f npy -o p.npy "$D" 2>/dev/null
for f in vllm:p.jsonl trtllm:p.yaml sglang:p.json csv:p.csv npz:p.npz; do
	eplb-plan -r 288 -G 32 --skip-zero-layers --layer-updates-per-iter 1 -f ${f%%:*} -o ${f#*:} "$D" 2>/dev/null ||
	eplb-plan -r 288 -G 32 --skip-zero-layers -f ${f%%:*} -o ${f#*:} "$D" 2>/dev/null
done
for f in p.npy p.jsonl p.yaml p.json p.csv p.npz; do
	printf '%s: ' $f
	eplb-plan -r 288 -G 32 --skip-zero-layers --prev $f --stats --report r.csv -o /dev/null "$D" 2>/dev/null
	printf 'moved %s, ' "$(grep total r.csv | cut -d, -f11)"
	eplb-plan -G 32 --skip-zero-layers --eval $f "$D" 2>/dev/null | grep total | cut -d, -f5
done
echo "-- refused"
printf 'initial_global_assignments:\n  3: [0, 1, 2\n' > bad.yaml
fails 1 eplb-plan -G 2 --eval bad.yaml "$D"
printf 'initial_global_assignments:\n  3: [0, 1]\n  3: [1, 0]\n' > twice.yaml
fails 1 eplb-plan -G 2 --eval twice.yaml "$D"
sed '/^  4:/d' p.yaml > gap.yaml
fails 1 eplb-plan -G 32 --skip-zero-layers --eval gap.yaml "$D"
printf '{"initial_global_assignments": {"x": [0]}}\n' > bad.jsonl
fails 1 eplb-plan -G 2 --eval bad.jsonl "$D"
rm p.npy p.jsonl p.yaml p.json p.csv p.npz r.csv bad.yaml twice.yaml gap.yaml bad.jsonl
only_files
echo "-- a2a-layout --phy2log: the YAML's rows by layer"
eplb-plan -r 288 -G 32 --skip-zero-layers -f trtllm --layer-updates-per-iter 1 -o p.yaml "$D" 2>/dev/null
eplb-plan -r 288 -G 32 --skip-zero-layers -f sglang -o p.json "$D" 2>/dev/null
T="$TESTDATA/a2a-dsv3-trace.npy"
a2a-layout -R 32 --phy2log p.yaml --layer 5 --report -o /dev/null "$T" > a.txt
a2a-layout -R 32 --phy2log p.json --layer 5 --report -o /dev/null "$T" > b.txt
cmp a.txt b.txt && echo "layer 5: the same layout"
fails 2 a2a-layout -R 32 --phy2log p.yaml --report -o /dev/null "$T"
rm p.yaml p.json a.txt b.txt
only_files
