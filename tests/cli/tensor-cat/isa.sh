# MOEKIT_ISA can lower the kernel path, never raise it, and -v says which
# path runs.
m=$TESTDATA/tensor-cat-mixed.npy
MOEKIT_ISA=generic tensor-cat -v --emit 3 --dtype f32 "$m" 2>&1 >/dev/null
MOEKIT_ISA=sse9 fails 2 tensor-cat "$m"
for isa in $(tensor-cat --isa-list); do
	MOEKIT_ISA=$isa tensor-cat --dtype f16 "$m" --emit 0,3,5 | cksum
done | sort -u | wc -l
tensor-cat --isa-list | head -1
if ! tensor-cat --isa-list | grep -qx avx512; then
	MOEKIT_ISA=avx512 tensor-cat "$m" > /dev/null 2> err
	[ $? = 2 ] || die "MOEKIT_ISA=avx512 accepted on a CPU without it"
	grep -q 'not supported by this CPU' err || die "message: $(cat err)"
fi
# the tiles: where the CPU (or Linux) does not give them, forcing them is
# refused, saying why
if ! tensor-cat --isa-list | grep -qx amx; then
	MOEKIT_ISA=amx tensor-cat "$m" > /dev/null 2> err
	[ $? = 2 ] || die "MOEKIT_ISA=amx accepted without AMX"
	grep -q 'not supported by this CPU (cpu: [a-z0-9]*; [A-Za-z]' err ||
	    die "message: $(cat err)"
	tensor-cat -v --emit 3 "$m" 2>&1 >/dev/null | grep -q '; not ' ||
	    die "-v does not say why the next level is not used"
fi
echo done
