# The README's record -> decide -> deploy, for each engine, at testdata's
# scale: what each engine records (made here from testdata), replayed
# through its loop, and planned into the file it loads.
echo "-- vLLM: eplb_load_stats lines, loads by slot with each record's map"
# slot p holds expert 255 - p: a record is credited through its own map
tensor-cat -f csv "$TESTDATA/eplb-replay-log.npy" | awk -F, '
	/^#/ { next }
	{ l = n % 2; s = int(n / 2); n++
	  row[l] = ""; map[l] = ""
	  for (p = 1; p <= NF; p++) {
		row[l] = row[l] (p > 1 ? ", " : "") $(NF + 1 - p)
		map[l] = map[l] (p > 1 ? ", " : "") (NF - p)
	  }
	  if (l == 1)
		printf "{\"record_type\": \"eplb_load_stats\", \"version\": 1, " \
		    "\"step\": %d, \"num_ranks\": 32, \"expert_load\": [[%s], " \
		    "[%s]], \"p2l_map\": [[%s], [%s]]}\n", s, row[0], row[1],
		    map[0], map[1]
	}' > stats.jsonl
hw="--num-redundant-experts 32 --num-gpus 32 --num-nodes 4 --num-groups 8"
eplb-replay --quiet --engine vllm $hw --window 20,40 --interval 20,40 \
    --async on,off --expert-bytes 44M --plot vllm.svg stats.jsonl > vllm.csv
echo "rows: $(($(wc -l < vllm.csv) - 1)); picture: $(grep -c '<circle' vllm.svg) points"
eplb-replay --quiet --engine vllm $hw --window 20,40 --interval 20,40 \
    --async on,off --expert-bytes 44M "$TESTDATA/eplb-replay-log.npy" |
    cmp - vllm.csv && echo "the same rows as the log [T, L, E]"
eplb-plan $hw --window 40 --history 4 -o map.jsonl stats.jsonl
cut -c1-100 map.jsonl
echo "-- SGLang: the recorder's .pt (stat mode, a step axis)"
cp "$TESTDATA/pt/stat.pt" rec.pt
eplb-replay --quiet --engine sglang -r 12 --num-gpus 2 --skip-zero-layers \
    --interval 2,3 --layers-per-chunk 3,1 --expert-bytes 44M rec.pt |
    cut -d, -f1,9,14,18,21,22,23
eplb-plan --quiet -r 12 --num-gpus 2 --skip-zero-layers --window 2 \
    --history 2 -o plan.json rec.pt
head -2 plan.json
echo "-- TensorRT-LLM: the statistics directory"
cp -r "$TESTDATA/trtllm-stats" stats
eplb-replay --quiet --engine trtllm -r 12 --num-gpus 2 \
    --layer-updates-per-iter 1,2 --expert-bytes 44M stats |
    cut -d, -f1,15,18,21,22,23
eplb-plan -r 12 --num-gpus 2 --layer-updates-per-iter 1 --window 1 \
    --history 2 -o eplb.yaml stats
cat eplb.yaml
rm -r stats
only_files eplb.yaml map.jsonl plan.json rec.pt stats.jsonl vllm.csv vllm.svg
