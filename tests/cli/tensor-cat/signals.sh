# A run stopped by a signal leaves no temporary file and ends with the
# signal's status; an input file shortened under the reader's mapping is
# one line (SIGBUS caught), exit 1, nothing left behind.  The conversion
# of 64 MiB of doubles to CSV takes seconds, so the signal lands mid-run.
big() {
	printf "\223NUMPY\001\000\166\000{'descr': '<f8', 'fortran_order': False, 'shape': (8388608,), }" > big.npy
	printf '%*s\n' 54 '' >> big.npy
	head -c 67108864 /dev/zero | tr '\000' '\077' >> big.npy
}
# start CMD...: run it in the background, give it time to open its output
start() {
	"$@" > out.txt 2> err.txt &
	pid=$!
	sleep 0.4
	kill -0 $pid 2>/dev/null || die "$* ended before the signal"
}
big
tensor-cat --info big.npy
for sig in TERM HUP INT; do
	start env --default-signal tensor-cat -f csv big.npy -o out.csv
	kill -s $sig $pid
	rc=0; wait $pid 2>/dev/null || rc=$?
	echo "SIG$sig: status $rc, stderr $(wc -c < err.txt) bytes, stdout $(wc -c < out.txt) bytes"
	rm out.txt err.txt
	only_files big.npy
done
start tensor-cat -f csv big.npy -o out.csv
truncate -s 8192 big.npy
rc=0; wait $pid 2>/dev/null || rc=$?
echo "shrunk: status $rc, stdout $(wc -c < out.txt) bytes"
cat err.txt
rm out.txt err.txt
only_files big.npy
