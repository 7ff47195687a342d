/*
 * stamp.h - was a timed pass preempted?  A benchmark on a shared machine
 * keeps only the passes whose threads ran whenever they wanted to.  Linux
 * counts, per thread, the time it spent runnable but waiting for a CPU
 * (the second field of /proc/self/task/N/schedstat, "run_delay"): another
 * process holding the CPU shows there, while a thread that sleeps because
 * its share of the work is done does not.  Where that file cannot be read,
 * the process's CPU time stands in: a pass that got less than 80 % of
 * threads x its wall time of CPU counts as preempted (which also drops
 * passes whose threads idle at the end, so it is only the fallback).
 */
#ifndef MK_STAMP_H
#define MK_STAMP_H

#include <stdint.h>

struct mk_stamp {
	double	 wall_in;	/* ms, taken last: where a pass starts */
	double	 wall_out;	/* ms, taken first: where a pass ends */
	double	 cpu;		/* the process's CPU time, ms */
	int64_t	 wait_ns;	/* its threads' run-queue wait, or -1 */
};

/*
 * A pass's share of run-queue wait (summed over its threads) above which
 * it counts as preempted: 5 % of threads x wall.
 */
#define MK_STAMP_MAX_WAIT	0.05

/* The clocks now. */
struct mk_stamp	mk_stamp_now(void);

/* The wall time of the pass from a to b, ms. */
double	mk_stamp_ms(const struct mk_stamp *a, const struct mk_stamp *b);

/*
 * Whether the pass from a to b, run on `threads` threads, had the CPUs
 * it wanted: its run-queue wait at most MK_STAMP_MAX_WAIT of threads x
 * its wall time (the CPU-time rule where the wait is unknown).
 */
int	mk_stamp_whole(const struct mk_stamp *a, const struct mk_stamp *b,
	    int threads);

/*
 * The rule alone: wait (ns, or -1 unknown), cpu and wall (ms) of a pass on
 * threads threads.
 */
int	mk_stamp_judge(int64_t wait_ns, double cpu_ms, double wall_ms,
	    int threads);

#endif
