# --lint: a line for each library limit the trace or the sizes asked of it
# break, naming the library, the limit, its source and the option value
# that fixes it; status 1 if any, nothing and 0 if none.
awk 'BEGIN { print "# name=ids shape=2,4,100,2 dtype=i32"
	for (i = 0; i < 800; i++) print (i * 3) % 16 "," (i * 3 + 5) % 16 }' > t.csv
a2a-layout -E 16 --max-tokens 128 --lint t.csv && echo "128 tokens a rank: none broken"
a2a-layout -E 16 --max-tokens 102 --lint t.csv; echo "status $?"
a2a-layout -E 16 --max-tokens 90 --hidden 7168 --lint t.csv; echo "status $?"
a2a-layout -E 16 --hidden 4194304 --max-tokens 128 --lint t.csv; echo "status $?"
awk 'BEGIN { print "# name=ids shape=1,2,64,1 dtype=i32"
	for (i = 0; i < 128; i++) print i % 2048 }' > big.csv
a2a-layout -E 2048 --lint big.csv; echo "status $?"
fails 2 a2a-layout -E 16 --lint --capacity 0.1 t.csv
fails 2 a2a-layout -E 16 --lint --emit num_recv_tokens t.csv
rm t.csv big.csv
