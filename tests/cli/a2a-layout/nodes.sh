# --num-nodes: the nodes the ranks span.  DeepEP's normal mode runs up to
# 8 ranks as one node and more as nodes of 8 (NUM_MAX_NVL_PEERS, a build
# constant): other nodes it cannot run, so a2a-layout will not size them
# for it, and names what does (low latency, Triton-distributed, EPv2).
cp "$TESTDATA/a2a-mixtral-gsm8k-head.jsonl" r.jsonl
cp "$TESTDATA/a2a-dsv3-trace.npy" dsv3.npy
rep() { a2a-layout --hidden 4096 --report -o /dev/null "$@" | grep -e '^#' -e recommended -e elastic_buffer_size_hint,; }
echo "-- 4 ranks: one node (a note says so, and what a 0 RDMA buffer means)"
rep -E 8 -R 4 r.jsonl
rep -E 8 -R 4 --num-nodes 1 --max-tokens 128 r.jsonl
echo "-- 32 ranks: 4 nodes of 8, said or not"
rep -E 256 dsv3.npy > a
rep -E 256 --num-nodes 4 dsv3.npy | cmp - a && echo "--num-nodes 4: the same"
echo "-- Triton-distributed and EPv2 take any nodes"
rep -E 8 -R 4 --num-nodes 2 --style triton-dist r.jsonl | head -1
rep -E 256 --num-nodes 8 --low-latency --max-tokens 64 dsv3.npy
echo "-- refused"
fails 2 a2a-layout -E 8 -R 4 --num-nodes 2 --report -o /dev/null r.jsonl
fails 2 a2a-layout -E 256 --num-nodes 8 --report -o /dev/null dsv3.npy
fails 2 a2a-layout -E 256 --num-nodes 5 --low-latency -o /dev/null dsv3.npy
fails 2 a2a-layout -E 8 -R 4 --num-nodes 2 --local-world-size 4 --style triton-dist -o /dev/null r.jsonl
fails 2 a2a-layout -E 8 -R 4 --num-nodes 0 -o /dev/null r.jsonl
