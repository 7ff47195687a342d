/* threads.c - the thread count of parallel passes; see threads.h. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/threads.h"

static int given;	/* --threads N, or 0 */

void
mk_threads_set(int n)
{
	given = n > 0 ? (n > 1024 ? 1024 : n) : 0;
}

/*
 * The CPUs a cgroup v2 quota ("cpu.max": QUOTA PERIOD, or "max") grants
 * the cgroup at dir, rounded up; 0 where there is no quota or no file.
 */
static int
quota_cpus(const char *dir)
{
	char path[4200], line[64];
	long long quota, period;
	FILE *f;
	int n = 0;

	if (snprintf(path, sizeof(path), "/sys/fs/cgroup%s/cpu.max", dir) >=
	    (int)sizeof(path) || (f = fopen(path, "re")) == NULL)
		return 0;
	if (fgets(line, sizeof(line), f) != NULL &&
	    sscanf(line, "%lld %lld", &quota, &period) == 2 && quota > 0 &&
	    period > 0)
		n = (int)((quota + period - 1) / period);
	fclose(f);
	return n;
}

/*
 * The tightest quota on the way from this process's cgroup up to the
 * root ("0::/a/b" in /proc/self/cgroup), or 0 where none is set.
 */
static int
cgroup_cpus(void)
{
	char line[4096], *dir, *slash;
	FILE *f;
	int best = 0, n;

	if ((f = fopen("/proc/self/cgroup", "re")) == NULL)
		return 0;
	dir = NULL;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "0::", 3) == 0) {
			dir = line + 3;
			dir[strcspn(dir, "\n")] = '\0';
			break;
		}
	fclose(f);
	while (dir != NULL) {
		if ((n = quota_cpus(dir)) > 0 && (best == 0 || n < best))
			best = n;
		if ((slash = strrchr(dir, '/')) == NULL || slash == dir ||
		    dir[1] == '\0')
			break;
		*slash = '\0';
	}
	return best;
}

static int usable;	/* mk_usable_cpus, found once */

static void
find_usable(void)
{
	long online;
	cpu_set_t set;
	int n, quota;

	online = sysconf(_SC_NPROCESSORS_ONLN);
	n = online < 1 ? 1 : online > 1024 ? 1024 : (int)online;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0 &&
	    CPU_COUNT(&set) < n)
		n = CPU_COUNT(&set);
	if ((quota = cgroup_cpus()) > 0 && quota < n)
		n = quota;
	usable = n;
}

int
mk_usable_cpus(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	(void)pthread_once(&once, find_usable);
	return usable;
}

int
mk_threads_max(void)
{
	return given > 0 ? given : mk_usable_cpus();
}

int
mk_threads_for(double ms)
{
	return given > 0 ? given : mk_threads_pick(ms, mk_usable_cpus());
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
