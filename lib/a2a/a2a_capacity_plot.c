/* a2a_capacity_plot.c - the capacity picture; see a2a_capacity_plot.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "a2a/a2a_capacity_plot.h"
#include "base/svg.h"

/* The plot area: its left and top edges, its height (its width is the
 * picture's less the margins). */
#define X0	90.0
#define Y0	110.0
#define PH	300.0
#define BINS	400	/* points of a curve at most */

struct axes {
	double	 top;	/* tokens at the top of the y axis */
};

static double PW = 560.0;

static double
ypos(const struct axes *a, double v)
{
	return Y0 + PH - (v > a->top ? a->top : v) / a->top * PH;
}

static int
by_size(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x < y) - (x > y);
}

/* 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten, at or above v. */
static double
nice(double v)
{
	static const double step[] = { 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10 };
	double m = pow(10, floor(log10(v > 1 ? v : 1)));
	size_t i;

	for (i = 0; i < sizeof(step) / sizeof(step[0]) - 1 && v > step[i] * m;
	    i++)
		;
	return step[i] * m;
}

/*
 * One curve: d[0..S) (times scale) sorted down, step i at share
 * (i + 1) / S; at most BINS segments (a bin's first, its largest).
 */
static int
curve(FILE *fp, const struct axes *a, const int64_t *d, int S, double scale,
    const char *colour, const char *what, struct mk_err *e)
{
	int64_t *v;
	double px = X0, py = 0, x, y;
	int i, step = S > BINS ? (S + BINS - 1) / BINS : 1;

	if (S == 0)
		return 0;
	if ((v = malloc(sizeof(int64_t) * (size_t)S)) == NULL)
		return mk_err_data(e, "out of memory");
	memcpy(v, d, sizeof(int64_t) * (size_t)S);
	qsort(v, (size_t)S, sizeof(int64_t), by_size);
	py = ypos(a, (double)v[0] * scale);
	for (i = 0; i < S; i += step) {
		x = X0 + PW * (double)(i + 1) / S;
		y = ypos(a, (double)v[i] * scale);
		mk_svg_line(fp, (struct mk_svg_seg){ px, py, x, py }, colour, 2);
		mk_svg_line(fp, (struct mk_svg_seg){ x, py, x, y }, colour, 2);
		px = x;
		py = y;
	}
	mk_svg_line(fp, (struct mk_svg_seg){ px, py, X0 + PW, py }, colour, 2);
	mk_svg_circle(fp, (struct mk_svg_dot){ X0 + PW / S, ypos(a,
	    (double)v[0] * scale), 3, colour, NULL }, "%s: the busiest step "
	    "received %lld tokens on a rank", what, (long long)v[0]);
	free(v);
	return 0;
}

/* A level across the plot, labelled at its right end. */
static void
level(FILE *fp, const struct axes *a, double v, const char *colour,
    const char *label)
{
	double y = ypos(a, v);

	mk_svg_line(fp, (struct mk_svg_seg){ X0, y, X0 + PW, y }, colour, 1.2);
	mk_svg_text(fp, X0 + PW + 6, y + 4, "start", 11, "%s", label);
}

static void
frame(FILE *fp, const struct axes *a)
{
	double lead = a->top / pow(10, floor(log10(a->top)));
	/* ticks at round numbers: fifths of 1, 1.5, 2.5 and 5, else fourths */
	int i, n = lead == 1 || lead == 1.5 || lead == 2.5 || lead == 5 ? 5 : 4;

	mk_svg_frame(fp, (struct mk_svg_box){ X0, Y0, PW, PH }, "#999", 1);
	for (i = 0; i <= n; i++)
		mk_svg_text(fp, X0 - 6, ypos(a, a->top * i / n) + 4, "end", 11,
		    "%.0f", a->top * i / n);
	for (i = 0; i <= 4; i++)
		mk_svg_text(fp, X0 + PW * i / 4, Y0 + PH + 16, "middle", 11,
		    "%g", i / 4.0);
	mk_svg_vtext(fp, 24, Y0 + PH / 2, 12, "tokens received by the busiest "
	    "rank");
	mk_svg_text(fp, X0 + PW / 2, Y0 + PH + 36, "middle", 12, "share of the "
	    "steps that received at least so many");
}

int
mk_a2a_capacity_plot(FILE *fp, const struct mk_a2a_capacity_in *in,
    const char *fit, const char *eval, struct mk_err *e)
{
	const struct mk_a2a_demands *f = in->fit, *h = in->eval;
	struct mk_a2a_knob_row r;
	struct axes a;
	int64_t most = 0, worst = in->c->R * f->T, cap[64];
	char title[600], lab[200];
	int i, k, n, W;

	for (i = 0; i < f->S; i++)
		most = f->d[MK_A2A_D_TOKENS][i] > most ?
		    f->d[MK_A2A_D_TOKENS][i] : most;
	a.top = nice(1.15 * (double)(most > 0 ? most : 1));
	if ((double)worst <= 1.5 * a.top)
		a.top = nice((double)worst);
	snprintf(title, sizeof(title), "a2a-layout --capacity: %s%s%s", fit,
	    eval ? ", held out: " : "", eval ? eval : "");
	W = mk_svg_fit(900, 16, title);
	PW = W - X0 - 190;
	mk_svg_open(fp, W, 480, title);
	mk_svg_text(fp, 16, 24, "start", 16, "%s", title);
	mk_svg_text(fp, 16, 46, "start", 12, "blue: %d step%s of %d ranks x "
	    "%lld tokens, top-%d, each step's busiest rank (DeepEP's "
	    "num_recv_tokens), sorted", f->S, f->S == 1 ? "" : "s", in->c->R,
	    (long long)f->T, in->c->K);
	mk_svg_text(fp, 16, 64, "start", 12, "grey: the capacity at each p (at "
	    "most a share p of the steps above it)%s", h ? "; orange: the "
	    "held-out trace, scaled to these tokens a rank" : "");
	mk_svg_text(fp, 16, 82, "start", 12, "the libraries' default, every "
	    "rank's tokens to one (R x T): %lld tokens%s", (long long)worst,
	    (double)worst > a.top ? ", above the plot" : "");
	frame(fp, &a);
	if ((double)worst <= a.top)
		level(fp, &a, (double)worst, "#c0392b", "default (R x T)");
	/* the capacities, a line each, the p giving the same one together */
	for (i = 0; i < in->np; i++) {
		if (mk_a2a_knob_row(in, 0, in->p[i], &r, e) < 0)
			return -1;
		cap[i] = r.capacity;
	}
	for (i = 0; i < in->np; i++) {
		for (k = 0; k < i && cap[k] != cap[i]; k++)
			;
		if (k < i)
			continue;
		lab[0] = '\0';
		for (k = i; k < in->np; k++)
			if (cap[k] == cap[i]) {
				n = (int)strlen(lab);
				snprintf(lab + n, sizeof(lab) - (size_t)n,
				    "%s%g", n ? ", " : "p ", in->p[k]);
			}
		n = (int)strlen(lab);
		snprintf(lab + n, sizeof(lab) - (size_t)n, ": %lld",
		    (long long)cap[i]);
		level(fp, &a, (double)cap[i], "#888", lab);
	}
	if (h != NULL && curve(fp, &a, h->d[MK_A2A_D_TOKENS], h->S, h->T > 0 ?
	    (double)f->T / (double)h->T : 1, "#e67e22", "held out", e) < 0)
		return -1;
	if (curve(fp, &a, f->d[MK_A2A_D_TOKENS], f->S, 1, "#2c7fb8", "fitted",
	    e) < 0)
		return -1;
	mk_svg_close(fp);
	return 0;
}
