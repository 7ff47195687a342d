/* threads.c - the thread count of parallel passes; see threads.h. */
#include <unistd.h>

#include "base/threads.h"

static int given;	/* --threads N, or 0 */

void
mk_threads_set(int n)
{
	given = n > 0 ? (n > 1024 ? 1024 : n) : 0;
}

int
mk_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

int
mk_threads_max(void)
{
	return given > 0 ? given : mk_online_cpus();
}

int
mk_threads_for(double ms)
{
	return given > 0 ? given : mk_threads_pick(ms, mk_online_cpus());
}

int
mk_threads_pick(double ms, int cpus)
{
	int n;

	if (ms >= MK_THREADS_MIN_MS)
		return cpus;
	if (cpus < MK_THREADS_HOST_CPUS || !(ms > 0))
		return 1;
	n = (int)(ms / MK_THREADS_SLICE_MS) + 1;
	return n < cpus ? n : cpus;
}
