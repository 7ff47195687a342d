/*
 * stamp.c - the clocks of a timed pass and the rule that says whether it
 * was preempted (stamp.h).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/stamp.h"

/* One thread's run_delay (ns) from its schedstat file, or -1. */
static int64_t
task_wait(int dirfd, const char *tid)
{
	char path[64], buf[128];
	long long run, wait;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%.20s/schedstat", tid);
	if ((fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%lld %lld", &run, &wait) != 2 || wait < 0)
		return -1;
	return (int64_t)wait;
}

/*
 * The run-queue wait of every thread of the process, ns, or -1 if a file
 * could not be read.  A thread that ends between the listing and its read
 * is skipped: threads that come and go are not the timed team.
 */
static int64_t
process_wait(void)
{
	struct dirent *d;
	int64_t sum = 0, w;
	DIR *dir;
	int any = 0;

	if ((dir = opendir("/proc/self/task")) == NULL)
		return -1;
	while ((d = readdir(dir)) != NULL) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		if ((w = task_wait(dirfd(dir), d->d_name)) >= 0) {
			sum += w;
			any = 1;
		}
	}
	closedir(dir);
	return any ? sum : -1;
}

static double
cpu_ms(void)
{
	struct timespec c;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
	return (double)c.tv_sec * 1e3 + (double)c.tv_nsec / 1e6;
}

struct mk_stamp
mk_stamp_now(void)
{
	struct mk_stamp s;

	s.wall_out = mk_seconds() * 1e3;
	s.cpu = cpu_ms();
	s.wait_ns = process_wait();
	s.wall_in = mk_seconds() * 1e3;
	return s;
}

double
mk_stamp_ms(const struct mk_stamp *a, const struct mk_stamp *b)
{
	return b->wall_out - a->wall_in;
}

int
mk_stamp_judge(int64_t wait_ns, double cpu, double wall, int threads)
{
	if (wait_ns >= 0)
		return (double)wait_ns <= MK_STAMP_MAX_WAIT * 1e6 *
		    (double)threads * wall;
	return cpu >= 0.8 * (double)threads * wall;
}

int
mk_stamp_whole(const struct mk_stamp *a, const struct mk_stamp *b,
    int threads)
{
	int64_t w = a->wait_ns >= 0 && b->wait_ns >= a->wait_ns ?
	    b->wait_ns - a->wait_ns : -1;

	/* the CPU time is read between the two walls: the pass's own */
	return mk_stamp_judge(w, b->cpu - a->cpu, b->wall_out - a->wall_in,
	    threads);
}
