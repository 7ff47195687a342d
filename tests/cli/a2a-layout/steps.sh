# A stepped trace [S, R, T, K] (32 layers of real Mixtral-8x7B routing
# through an EP-4 group) gives the same layout from a file and from a
# pipe; outputs gain the step dimension; per-token tensors need --step.
set -e
m=$TESTDATA/a2a-mixtral-gsm8k.npy
a2a-layout -E 8 "$m" > file.npy
cat "$m" | a2a-layout -E 8 > pipe.npy
cmp file.npy pipe.npy
tensor-cat --info file.npy
a2a-layout -E 8 --rank 1 --step 31 --emit recv_src_idx "$m" | tensor-cat --info
fails 2 a2a-layout -E 8 --rank 1 "$m"
fails 2 a2a-layout -E 8 --rank 1 --step 32 "$m"
# -v says how the file's 32 steps were read (the choice depends on timing)
a2a-layout -v -E 8 -o v.npy "$m" 2>&1 | grep -c '^a2a-layout: 32 steps; trial steps took [0-9.]* ms by pread, [0-9.]* ms mapped (the fastest of 4 each); the rest \(mapped\|by pread\)$'
cmp v.npy file.npy
# a trace too short to time: mapped on hosts of 8 CPUs or more, else as
# fast as its first MiB loaded in place says (the same layout either way)
d=$TESTDATA/a2a-dsv3-trace.npy
a2a-layout -v -E 256 "$d" 2>&1 > short-v.npy | grep -c '^a2a-layout: 1 steps, \(\(mapped\|by pread\) (a trace too short to time; its first [0-9]* KiB loaded in place at [0-9.]* GB/s)\|mapped (a trace too short to time, on [0-9]* CPUs)\)$'
MOEKIT_A2A_READ=pread a2a-layout -E 256 "$d" > short-p.npy
cmp short-v.npy short-p.npy
# every step read in place (MOEKIT_A2A_READ=map: 16 steps laid out at
# once) or by pread: the same layouts, and a step inside a batch per rank
MOEKIT_A2A_READ=map a2a-layout -E 8 "$m" > map.npy
cmp map.npy file.npy
MOEKIT_A2A_READ=pread a2a-layout -E 8 "$m" > pread.npy
cmp pread.npy file.npy
a2a-layout -E 8 --rank 1 --step 13 "$m" > r13.npy
MOEKIT_A2A_READ=map a2a-layout -E 8 --rank 1 --step 13 "$m" > r13map.npy
cmp r13.npy r13map.npy
MOEKIT_A2A_READ=map a2a-layout -v -E 8 -o v.npy "$m" 2>&1 | grep -v isa
fails 2 env MOEKIT_A2A_READ=mmap a2a-layout -E 8 "$m"
a2a-layout --help | grep -c "^MOEKIT_A2A_READ=pread|map: "
a2a-layout --help | grep -c "^MOEKIT_STACK_DRAIN=1|0: "
# ids out of range in steps 37 and 38 of 40, in one batch (32-39): the
# earlier is named, read in place or by pread
awk 'BEGIN { print "# name=ids shape=40,2,1,2 dtype=i64"
	for (s = 0; s < 40; s++) { print (s == 38 ? 9 : 0) ",1"
		print "2," (s == 37 ? 7 : 3) } }' > b40.csv
tensor-cat -f npy b40.csv > b40.npy
fails 1 env MOEKIT_A2A_READ=map a2a-layout -E 4 b40.npy
fails 1 env MOEKIT_A2A_READ=pread a2a-layout -E 4 b40.npy
# outputs wait in memory up to a budget, then in a temporary file: all in
# the file (MOEKIT_STACK_MEM=0), some of each (1000 bytes: each output's
# first slices in memory, the rest spilled), or all in memory: one result,
# as NPY, NPZ and CSV
for b in 0 1000 ''; do
	MOEKIT_STACK_MEM=$b a2a-layout -E 8 "$m" > mem$b.npy
	cmp mem$b.npy file.npy
	MOEKIT_STACK_MEM=$b a2a-layout -E 8 -o mem$b.npz "$m"
	MOEKIT_STACK_MEM=$b a2a-layout -E 8 -f csv "$m" > mem$b.csv
done
cmp mem0.npz mem.npz
cmp mem1000.npz mem.npz
cmp mem0.csv mem.csv
cmp mem1000.csv mem.csv
tensor-cat -f npy mem.npz | cmp - file.npy
fails 2 env MOEKIT_STACK_MEM=lots a2a-layout -E 8 "$m"
fails 2 env MOEKIT_STACK_MEM=-1 a2a-layout -E 8 "$m"
# outputs drained while the steps are laid out (written to -o FILE by a
# thread of their own; by default on hosts of 8 CPUs or more): the same
# file, read in place (batches of 16) or by pread, with the report beside
# it; where they cannot be (a budget too small to hold them, .npz, a
# device, stdout) they are written at the end as before
for r in map pread; do
	MOEKIT_A2A_READ=$r MOEKIT_STACK_DRAIN=1 a2a-layout -E 8 -o d$r.npy "$m"
	cmp d$r.npy file.npy
done
MOEKIT_STACK_DRAIN=1 a2a-layout -E 8 --hidden 4096 --report -o drep.npy "$m" > drep.csv
MOEKIT_STACK_DRAIN=0 a2a-layout -E 8 --hidden 4096 --report -o rep.npy "$m" > rep.csv
cmp drep.npy rep.npy
cmp drep.csv rep.csv
MOEKIT_STACK_DRAIN=1 MOEKIT_STACK_MEM=1000 a2a-layout -E 8 -o dmem.npy "$m"
cmp dmem.npy file.npy
# a drain holds a ring of a few steps' outputs (here 2 to 5 of a 1.2 KB
# step, the budget's worth), written by a thread of its own or by the
# thread that lays the steps out each time the ring is full: the same
# file however often the rings wrap around
for b in 2500 4000 6000; do
	for d in 1 ''; do
		MOEKIT_STACK_DRAIN=$d MOEKIT_STACK_MEM=$b a2a-layout -v -E 8 \
		    -o ring$b$d.npy "$m" 2>&1 | grep -c '^a2a-layout: outputs written while the steps are laid out, [0-9]* steps\{0,1\} at a time, by \(a thread of their own\|the thread that lays them out\)$'
		cmp ring$b$d.npy file.npy
	done
done
# a run that fails at step 37 leaves no file behind, though its rings
# (of a few steps) had written the steps before
for d in 1 ''; do
	fails 1 env MOEKIT_STACK_DRAIN=$d MOEKIT_STACK_MEM=1000 a2a-layout -E 4 \
	    -o b40out.npy b40.npy
	[ -z "$(ls | grep b40out)" ] && echo "nothing left"
done
MOEKIT_STACK_DRAIN=1 a2a-layout -E 8 -o d.npz "$m"
cmp d.npz mem.npz
MOEKIT_STACK_DRAIN=1 a2a-layout -E 8 -o /dev/null "$m"
MOEKIT_STACK_DRAIN=1 a2a-layout -E 8 "$m" | cmp - file.npy
fails 2 env MOEKIT_STACK_DRAIN=yes a2a-layout -E 8 "$m"
