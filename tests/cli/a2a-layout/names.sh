# The names DeepEP users know, and the default they may not: the
# low-latency M as num_max_dispatch_tokens_per_rank; a note when the
# report's sizes use the default hidden size (DeepSeek-V3's 7168).
cp "$TESTDATA/a2a-mixtral-gsm8k.npy" mix.npy
a2a-layout -E 8 --max-tokens 256 --report -o /dev/null mix.npy > a.csv 2> a.err
a2a-layout -E 8 --num-max-dispatch-tokens-per-rank 256 --report -o /dev/null mix.npy > b.csv 2> b.err
cmp a.csv b.csv && echo "--num-max-dispatch-tokens-per-rank = --max-tokens"
cat a.err
a2a-layout -E 8 --hidden 4096 --num-nodes 1 --max-tokens 256 --report -o /dev/null mix.npy 2> c.err | grep low_latency
echo "with --hidden and --num-nodes: $(wc -c < c.err) bytes on stderr"
