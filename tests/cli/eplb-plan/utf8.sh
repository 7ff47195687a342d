# JSON text is UTF-8 (RFC 8259 8.1): strings with overlong forms,
# surrogates, truncated sequences or bytes that are no UTF-8 are refused
# with one line naming the place; well-formed UTF-8 is read.
printf '{"logical_count": [[1,2]], "k\303\251": 1}' > ok.json
eplb-plan -r 2 -G 1 -f csv --emit logcnt ok.json
printf '{"logical_count": [[1,2]], "k\300\257": 1}' > overlong.json
fails 1 eplb-plan -r 2 -G 1 overlong.json
printf '{"logical_count": [[1,2]], "k\355\240\200": 1}' > surrogate.json
fails 1 eplb-plan -r 2 -G 1 surrogate.json
printf '{"logical_count": [[1,2]], "k\342\202": 1}' > cut.json
fails 1 eplb-plan -r 2 -G 1 cut.json
printf '{"\377\376": 1, "logical_count": [[1,2]]}' > ff.json
fails 1 eplb-plan -r 2 -G 1 ff.json
printf '{"layer": 0, "experts": [1, 2], "t\364\220\200\200": 1}\n' > above.jsonl
fails 1 a2a-layout -E 8 -R 1 above.jsonl
rm -f *.json *.jsonl
only_files
