/*
 * threads.h - how many threads a parallel pass runs on: one rule for
 * every tool.  --threads N fixes the count.  Without it a pass runs on
 * every usable CPU, unless it is too short to pay for waking them.  On a
 * small machine a short pass runs on one thread: on a 2-CPU virtual
 * machine one a2a-layout step ran slower on two (waking a second vCPU
 * cost more than the work).  On a host of 8 CPUs or more it takes a
 * thread per slice of work, as the same step ran faster there with each
 * thread added up to a few (an OpenMP team starts there in a fraction
 * of a millisecond).  A pass states its work as the
 * milliseconds it would take one thread.
 */
#ifndef MK_THREADS_H
#define MK_THREADS_H

/* Work of this many milliseconds or more runs on every CPU. */
#define MK_THREADS_MIN_MS	5.0
/* Below it, hosts of this many CPUs take a thread per slice of work. */
#define MK_THREADS_HOST_CPUS	8
#define MK_THREADS_SLICE_MS	0.1

/* --threads N (1 to 1024), or 0 for the default. */
void	mk_threads_set(int n);

/*
 * The CPUs this process may run on (1 to 1024): the online CPUs, fewer
 * where the affinity mask or a cgroup v2 quota (cpu.max, rounded up)
 * allows fewer.  A container given 2 CPUs of a 64-CPU host gets 2.
 */
int	mk_usable_cpus(void);

/* --threads N, else every usable CPU: the most a pass may use. */
int	mk_threads_max(void);

/*
 * Threads for a pass of ms milliseconds on one thread: --threads N, else
 * every usable CPU from MK_THREADS_MIN_MS, else one per started
 * MK_THREADS_SLICE_MS on hosts of MK_THREADS_HOST_CPUS or more, else 1.
 */
int	mk_threads_for(double ms);

/* The rule alone, for a host of cpus CPUs (no --threads). */
int	mk_threads_pick(double ms, int cpus);

#endif
