# Threads wait for work asleep on hosts of fewer than 8 usable CPUs and
# spin 100,000 times on larger ones, unless the user chose
# (OMP_WAIT_POLICY or GOMP_SPINCOUNT kept); the environment entry lent
# for it at start-up is given back before the tool reads its own
# variables; the default thread count is the CPUs the process may run
# on (an affinity mask of one).
spin() {
	OMP_DISPLAY_ENV=verbose "$@" 2>&1 >/dev/null |
	    sed -n "s/^ *\(\[[a-z]*\] \)\{0,1\}GOMP_SPINCOUNT = '\(.*\)'/\2/p"
}
want=0
[ "$(nproc)" -ge 8 ] && want=100000
got=$(spin a2a-layout --version)
[ "$got" = "$want" ] && echo "spin count by default: as the host's CPU count asks" ||
    echo "spin count by default: $got on $(nproc) CPUs, want $want"
if command -v taskset >/dev/null 2>&1; then
	echo "on one CPU: $(spin taskset -c 0 a2a-layout --version)"
else
	echo "on one CPU: 0"
fi
echo "with OMP_WAIT_POLICY=active: $(OMP_WAIT_POLICY=active spin a2a-layout --version)"
echo "with GOMP_SPINCOUNT=7: $(GOMP_SPINCOUNT=7 spin a2a-layout --version)"
echo "-- the lent entry is the tool's own variable, given back in time"
env -i PATH="$PATH" MOEKIT_ISA=bogus a2a-layout --version 2>&1
echo "exit $?"
env -i PATH="$PATH" MOEKIT_ISA=generic a2a-layout --version >/dev/null 2>&1
echo "exit $?"
echo "-- one CPU in the affinity mask: one thread"
if command -v taskset >/dev/null 2>&1; then
	taskset -c 0 mdecode --bench --bsz 1 --max-length 64 --reps 1 \
	    --isa generic --mask-density 0 2>/dev/null | cut -d, -f2
else
	printf 'threads\n1\n'
fi
only_files
