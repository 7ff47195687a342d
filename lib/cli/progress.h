/*
 * progress.h - the one progress line of a long run, on standard error:
 * units done of the total, the rate (and GB/s where bytes are known), the
 * time left.  Shown only when standard error is a terminal, from half a
 * second into the run, redrawn at most five times a second and erased at
 * the end; --quiet silences it.  MOEKIT_PROGRESS=always shows it on any
 * standard error at every update (logs, tests); =off never.
 */
#ifndef MK_PROGRESS_H
#define MK_PROGRESS_H

#include <stdint.h>

struct mk_progress {
	const char	*what;		/* the units: "steps" */
	int64_t		 total;		/* 0: unknown */
	double		 t0, next;	/* start, next redraw (seconds) */
	int		 on, always, shown;
};

void	mk_progress_start(struct mk_progress *p, const char *what,
	    int64_t total, int quiet);

/* done units so far, and the bytes they read (0: not shown). */
void	mk_progress_set(struct mk_progress *p, int64_t done, double bytes);

/* Erase the line (if drawn). */
void	mk_progress_end(struct mk_progress *p);

#endif
