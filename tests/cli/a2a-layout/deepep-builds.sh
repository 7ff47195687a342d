# DeepEP as built and as it reads ids: --lenient reads int64 ids as
# DeepEP's layout kernel does (static_cast<int>: the low 32 bits, so
# 2^32+3 is expert 3 and 2^31 is negative, ignored); --topk-idx-bits 32
# sizes the hints of a TOPK_IDX_BITS=32 build (issue #422's R = 16 figure).
set -e
cat > wide.csv <<'CSV'
# name=ids shape=2,3,2 dtype=i64
4294967299,1
2147483648,5
-1,-1
-1,-1
-1,-1
-4294967289,8589934592
CSV
fails 1 a2a-layout -E 8 wide.csv
a2a-layout -E 8 --lenient --emit num_tokens_per_expert -f csv wide.csv
echo "-- the same ids in i32 give the same layout"
sed 's/i64/i32/; s/4294967299/3/; s/2147483648/-2147483648/; s/-4294967289/7/; s/8589934592/0/' wide.csv > narrow.csv
a2a-layout -E 8 --lenient -f npy wide.csv > w.npy
a2a-layout -E 8 --lenient -f npy narrow.csv > n.npy
cmp w.npy n.npy && echo same
echo "-- TOPK_IDX_BITS=32: 128 top-k ids of 4 bytes fewer per buffered token"
awk 'BEGIN { print "# name=ids shape=16,4,2 dtype=i32"; for (i = 0; i < 64; i++) print i % 64, (i * 3 + 1) % 64 }' > r16.csv
a2a-layout -E 64 --hidden 7168 --report -o /dev/null r16.csv | grep -e '^nvl_buffer_size_hint.dispatch' -e '^rdma_buffer_size_hint.dispatch'
a2a-layout -E 64 --hidden 7168 --topk-idx-bits 32 --report -o /dev/null r16.csv | grep -e TOPK_IDX -e '^nvl_buffer_size_hint.dispatch' -e '^rdma_buffer_size_hint.dispatch' | sed 's/^# R=16.*config/# ... config/'
fails 2 a2a-layout -E 64 --topk-idx-bits 16 --report -o /dev/null r16.csv
echo "-- EPv2 ElasticBuffer: hybrid (NVLink domains of 8) and flat, 2 MiB aligned"
a2a-layout -E 64 --hidden 7168 --max-tokens 4096 --report -o /dev/null r16.csv | grep -i elastic
a2a-layout -E 64 --hidden 7168 --max-tokens 4096 --scaleup-ranks 16 --dtype fp8 --report -o /dev/null r16.csv | grep -i elastic
fails 2 a2a-layout -E 64 --scaleup-ranks 5 --report -o /dev/null r16.csv
