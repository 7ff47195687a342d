/*
 * clock.h - seconds on the monotonic clock, for timings that steer the
 * work (a2a-layout's read trial) or report on it (the progress line, -v
 * timings, --bench).
 */
#ifndef MK_CLOCK_H
#define MK_CLOCK_H

#include <time.h>

static inline double
mk_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Milliseconds since t0, a value of mk_seconds(). */
static inline double
mk_ms_since(double t0)
{
	return (mk_seconds() - t0) * 1e3;
}

#endif
