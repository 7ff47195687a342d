/*
 * threads.h - how many threads a parallel pass runs on: one rule for
 * every tool.  --threads N fixes the count.  Without it a pass runs on
 * every online CPU, unless it is too short to pay for waking them: on a
 * 2-CPU virtual machine one 8 MB a2a-layout step took 7 ms on one thread
 * and 10 to 18 ms on two (waking and spinning cost more than the work).
 * A pass states its work as the milliseconds it would take one thread.
 */
#ifndef MK_THREADS_H
#define MK_THREADS_H

/* Work below this many milliseconds runs on one thread. */
#define MK_THREADS_MIN_MS	5.0

/* --threads N (1 to 1024), or 0 for the default. */
void	mk_threads_set(int n);

/* The number of online CPUs (1 to 1024). */
int	mk_online_cpus(void);

/* --threads N, else every online CPU: the most a pass may use. */
int	mk_threads_max(void);

/*
 * Threads for a pass of ms milliseconds on one thread: --threads N, else
 * 1 below MK_THREADS_MIN_MS, else mk_threads_max().
 */
int	mk_threads_for(double ms);

#endif
