/* progress.c - the progress line; see progress.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "cli/cli.h"
#include "cli/progress.h"

void
mk_progress_start(struct mk_progress *p, const char *what, int64_t total,
    int quiet)
{
	const char *env = getenv("MOEKIT_PROGRESS");

	memset(p, 0, sizeof(*p));
	p->what = what;
	p->total = total;
	p->t0 = mk_seconds();
	p->next = p->t0 + 0.5;
	p->always = env != NULL && strcmp(env, "always") == 0;
	p->on = !quiet && (p->always || (isatty(STDERR_FILENO) &&
	    !(env != NULL && strcmp(env, "off") == 0)));
}

void
mk_progress_set(struct mk_progress *p, int64_t done, double bytes)
{
	double t, dt, rate;
	char eta[32] = "", gb[32] = "", of[48] = "";

	if (!p->on)
		return;
	t = mk_seconds();
	if (!p->always && t < p->next)
		return;
	p->next = t + 0.2;
	dt = t - p->t0 > 1e-9 ? t - p->t0 : 1e-9;
	rate = (double)done / dt;
	if (p->total > 0) {
		snprintf(of, sizeof(of), "/%lld (%d%%)", (long long)p->total,
		    (int)(100.0 * (double)done / (double)p->total));
		if (rate > 0 && done < p->total)
			snprintf(eta, sizeof(eta), ", %.1f s left",
			    (double)(p->total - done) / rate);
	}
	if (bytes > 0)
		snprintf(gb, sizeof(gb), ", %.2f GB/s", bytes / dt / 1e9);
	fprintf(stderr, "\r%s: %s %lld%s, %.1f/s%s%s\033[K", mk_progname(),
	    p->what, (long long)done, of, rate, gb, eta);
	fflush(stderr);
	p->shown = 1;
}

void
mk_progress_end(struct mk_progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->shown = 0;
}
