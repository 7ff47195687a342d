# --capacity: the receive capacity at each p and every library's knob for
# it, on a trace small enough to check by hand; --eval scores a held-out
# trace of other tokens a rank; --plot draws the distribution; what
# cannot be meant is refused.
# 4 ranks of 2 experts, top-1, 4 tokens a rank; steps 0-3 send rank 0 (of
# experts 0, 1) 4, 8, 12 and 16 tokens
awk 'BEGIN { print "# name=ids shape=4,4,4,1 dtype=i32"
	for (s = 0; s < 4; s++) for (r = 0; r < 4; r++) for (t = 0; t < 4; t++)
		print (r <= s ? t % 2 : 2 + (r + t) % 6) }' > t.csv
a2a-layout -E 8 --hidden 128 --capacity 0,0.25,0.5 t.csv | cut -d, -f1-10,12
echo "-- held out: 8 tokens a rank, the counts scaled (x 2)"
awk 'BEGIN { print "# name=ids shape=2,4,8,1 dtype=i32"
	for (s = 0; s < 2; s++) for (r = 0; r < 4; r++) for (t = 0; t < 8; t++)
		print (r <= 2 * s + 1 ? t % 2 : 2 + (r + t) % 6) }' > h.csv
a2a-layout -E 8 --hidden 128 --capacity 0.25,0.5 --eval h.csv -o cap.csv t.csv
cut -d, -f1,3,5,9,10 cap.csv | grep -e '^library' -e '^moekit' -e '^vllm'
a2a-layout --quiet -E 8 --capacity 0 --plot cap.svg t.csv > /dev/null
render cap.svg
echo "-- refused"
fails 2 a2a-layout -E 8 --capacity 1 t.csv
fails 2 a2a-layout -E 8 --capacity -0.1 t.csv
fails 2 a2a-layout -E 8 --capacity nan t.csv
fails 2 a2a-layout -E 8 --capacity 0.1,,0.2 t.csv
fails 2 a2a-layout -E 8 --capacity 0.1,0.1 t.csv
fails 2 a2a-layout -E 8 --capacity 0.1 --emit num_recv_tokens t.csv
fails 2 a2a-layout -E 8 --capacity 0.1 --report -o x.csv t.csv
fails 2 a2a-layout -E 8 --capacity 0.1 -f npy t.csv
fails 2 a2a-layout -E 8 --eval h.csv t.csv
awk 'BEGIN { print "# name=ids shape=1,2,4,1 dtype=i32"; for (i = 0; i < 8; i++) print i % 8 }' > r2.csv
fails 1 a2a-layout -E 8 --capacity 0.1 --eval r2.csv t.csv
rm t.csv h.csv r2.csv cap.csv cap.svg
only_files
