/*
 * eplb_replay_plot.c - eplb-replay --plot: every configuration's
 * balancedness against what it moved (and against its inter-node share
 * of dispatches, where the log has routing), the Pareto front marked;
 * and the configuration's label (eplb_replay.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/svg.h"
#include "eplb/eplb_replay.h"


/*
 * Every setting the row's engine has, named as its option: no window or
 * interval for TensorRT-LLM, history and budgets for the ideal loop only,
 * "none" where a budget is off; the step scored from.
 */
const char *
mk_eplb_replay_label(const struct mk_replay_cfg *rc, char *buf, size_t size)
{
	const int trt = rc->engine == MK_ENGINE_TRTLLM;
	size_t off = 0;

#define PUT(...)	do { if (off < size) off += (size_t)snprintf(	\
	buf + off, size - off, __VA_ARGS__); } while (0)
	PUT("%s, r %d, G %d, n %d", mk_eplb_engine_name(rc->engine), rc->c.R,
	    rc->c.G, rc->c.N);
	if (!trt)
		PUT(", g %d, %s, %s, window %d, interval %d", rc->c.K,
		    mk_eplb_policy_name(rc->c.hier),
		    mk_eplb_algo_names[rc->c.algo],
		    rc->window, rc->interval);
	switch (rc->engine) {
	case MK_ENGINE_IDEAL:
		PUT(", history %d", rc->history);
		if (rc->max_moves < 0)
			PUT(", max-moves none");
		else
			PUT(", max-moves %lld", (long long)rc->max_moves);
		if (rc->min_gain < 0)
			PUT(", min-gain none");
		else
			PUT(", min-gain %g", rc->min_gain);
		break;
	case MK_ENGINE_VLLM:
		PUT(", async %s", rc->async ? "on" : "off");
		break;
	case MK_ENGINE_SGLANG:
		if (rc->chunk > 0)
			PUT(", layers-per-chunk %d", rc->chunk);
		else
			PUT(", layers-per-chunk all");
		break;
	default:
		PUT(", layer-updates-per-iter %d", rc->updates);
		break;
	}
	PUT(", scored from step %d", rc->score_from);
#undef PUT
	return buf;
}

/* A panel's geometry: data (x0..x1, y0..y1) into the box at (X, Y). */
struct panel {
	double	 X, Y, W, H;
	double	 x0, x1, y0, y1;
	int	 logx;		/* x is log10(1 + value) */
};

static double
px(const struct panel *p, double v)
{
	if (p->logx)
		v = log10(1 + v);
	return p->X + (v - p->x0) / (p->x1 - p->x0) * p->W;
}

static double
py(const struct panel *p, double v)
{
	return p->Y + p->H - (v - p->y0) / (p->y1 - p->y0) * p->H;
}

/* Whether point i is on the Pareto front of (x less, y more). */
static int
front(const double *x, const double *y, int n, int i)
{
	int j;

	for (j = 0; j < n; j++)
		if (j != i && x[j] <= x[i] && y[j] >= y[i] && (x[j] < x[i] ||
		    y[j] > y[i]))
			return 0;
	return 1;
}

static int
by_x(const void *a, const void *b, void *x)
{
	double u = ((double *)x)[*(const int *)a], v = ((double *)x)[*(const
	    int *)b];

	return (u > v) - (u < v);
}

/* Axes, ticks and labels of p. */
static void
axes(FILE *fp, const struct panel *p, const char *xlabel)
{
	double v, step;
	int d;

	mk_svg_frame(fp, (struct mk_svg_box){ .x = p->X, .y = p->Y, .w = p->W,
	    .h = p->H }, "#888", 1);
	step = p->y1 - p->y0 > 0.3 ? 0.1 : p->y1 - p->y0 > 0.12 ? 0.05 : 0.02;
	for (v = ceil(p->y0 / step) * step; v <= p->y1 + 1e-9; v += step) {
		mk_svg_line(fp, (struct mk_svg_seg){ .x1 = p->X, .y1 = py(p, v),
		    .x2 = p->X + p->W, .y2 = py(p, v) }, "#eee", 1);
		mk_svg_text(fp, p->X - 6, py(p, v) + 4, "end", 11, "%.2f", v);
	}
	if (p->logx)	/* 0, then the powers of ten in the range */
		for (d = -1; d <= (int)p->x1; d++) {
			v = d < 0 ? 0 : pow(10, d);
			if (log10(1 + v) < p->x0 - 1e-9)
				continue;
			mk_svg_line(fp, (struct mk_svg_seg){ .x1 = px(p, v),
			    .y1 = p->Y, .x2 = px(p, v), .y2 = p->Y + p->H },
			    "#eee", 1);
			mk_svg_text(fp, px(p, v), p->Y + p->H + 15, "middle", 11,
			    "%g%s", v >= 1e6 ? v / 1e6 : v >= 1e4 ? v / 1e3 : v,
			    v >= 1e6 ? "M" : v >= 1e4 ? "k" : "");
		}
	else {
		step = p->x1 - p->x0 > 0.3 ? 0.1 : p->x1 - p->x0 > 0.12 ? 0.05 :
		    0.02;
		for (v = ceil(p->x0 / step - 1e-9) * step; v <= p->x1 + 1e-9;
		    v += step) {
			mk_svg_line(fp, (struct mk_svg_seg){ .x1 = px(p, v),
			    .y1 = p->Y, .x2 = px(p, v), .y2 = p->Y + p->H },
			    "#eee", 1);
			mk_svg_text(fp, px(p, v), p->Y + p->H + 15, "middle", 11,
			    "%.2f", v);
		}
	}
	mk_svg_text(fp, p->X + p->W / 2, p->Y + p->H + 34, "middle", 12, "%s",
	    xlabel);
	mk_svg_vtext(fp, p->X - 44, p->Y + p->H / 2, 12, "balancedness "
	    "(mean / max GPU load)");
}

/* What set rc[i] apart in the sweep: the settings that vary, in brief. */
static const char *
short_label(const struct mk_replay_cfg *rc, int n, int i, char *buf,
    size_t size)
{
	const struct mk_replay_cfg *x = &rc[i];
	int vary[12] = { 0 }, k;
	size_t off = 0;

	for (k = 0; k < n; k++) {
		vary[0] |= rc[k].engine != x->engine;
		vary[1] |= rc[k].c.R != x->c.R;
		vary[2] |= rc[k].c.G != x->c.G || rc[k].c.N != x->c.N;
		vary[3] |= rc[k].c.hier != x->c.hier;
		/* the engines' own algorithms are theirs: not a label */
		vary[4] |= rc[k].engine == x->engine && rc[k].c.algo !=
		    x->c.algo;
		vary[5] |= rc[k].window != x->window;
		vary[6] |= rc[k].interval != x->interval;
		vary[7] |= rc[k].history != x->history;
		vary[8] |= rc[k].max_moves != x->max_moves;
		vary[9] |= rc[k].min_gain != x->min_gain;
		vary[10] |= rc[k].async != x->async || rc[k].chunk != x->chunk;
		vary[11] |= rc[k].updates != x->updates;
	}
#define ADD(...)	do { if (off < size) off += (size_t)snprintf(	\
	buf + off, size - off, __VA_ARGS__); } while (0)
	buf[0] = '\0';
	if (vary[0])
		ADD("%s ", mk_eplb_engine_name(x->engine));
	if (vary[1])
		ADD("r%d ", x->c.R);
	if (vary[2])
		ADD("G%d n%d ", x->c.G, x->c.N);
	if (vary[3])
		ADD("%s ", x->c.hier ? "hier" : "global");
	if (vary[4])
		ADD("%s ", mk_eplb_algo_names[x->c.algo]);
	if (vary[5] && x->window > 0)
		ADD("W%d ", x->window);
	if (vary[6] && x->interval > 0)
		ADD("I%d ", x->interval);
	if (vary[7])
		ADD("K%d ", x->history);
	if (vary[8] && x->max_moves >= 0)
		ADD("M%lld ", (long long)x->max_moves);
	if (vary[9] && x->min_gain >= 0)
		ADD("gain %g ", x->min_gain);
	if (vary[10] && x->engine == MK_ENGINE_VLLM)
		ADD("%s ", x->async ? "async" : "sync");
	if (vary[10] && x->engine == MK_ENGINE_SGLANG && x->chunk > 0)
		ADD("chunk %d ", x->chunk);
	if (vary[11] && x->engine == MK_ENGINE_TRTLLM)
		ADD("k%d ", x->updates);
#undef ADD
	off = strlen(buf);
	if (off > 0)
		buf[off - 1] = '\0';
	return buf;
}

/* A box in the picture's pixels (a number's, or a point's circle). */
struct box {
	double	x0, y0, x1, y1;
};

static int
overlap(struct box a, struct box b)
{
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

/* Whether box b meets one of the n boxes of taken. */
static int
taken_by(struct box b, const struct box *taken, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (overlap(b, taken[i]))
			return 1;
	return 0;
}

/*
 * Front point k's number beside its point (cx, cy): right of it, else
 * left, above or below, the first place clear of every point's circle
 * and every number placed (taken[0..*nt): the circles, then the numbers;
 * the number's box is added).  Where none is clear, right.
 */
static void
number(FILE *fp, double cx, double cy, int k, struct box *taken, int *nt)
{
	/* 11-px digits: about 7 px wide, 9 above the baseline */
	const double w = k < 10 ? 7 : 14;
	static const char *const anchor[] = { "start", "end", "middle",
	    "middle" };
	const double bx[4] = { cx + 7, cx - 7 - w, cx - w / 2, cx - w / 2 };
	const double by[4] = { cy - 5, cy - 5, cy - 17, cy + 7 };
	const double tx[4] = { cx + 7, cx - 7, cx, cx };
	struct box b;
	int c;

	for (c = 0; c < 4; c++) {
		b = (struct box){ bx[c], by[c], bx[c] + w, by[c] + 10 };
		if (!taken_by(b, taken, *nt))
			break;
	}
	if (c == 4) {
		c = 0;
		b = (struct box){ bx[0], by[0], bx[0] + w, by[0] + 10 };
	}
	mk_svg_text(fp, tx[c], by[c] + 9, anchor[c], 11, "%d", k);
	taken[(*nt)++] = b;
}

/* One panel: y balancedness against x[], the front joined and ringed. */
static int
panel(FILE *fp, const struct mk_replay_cfg *rc, const double *x,
    const double *y, int n, struct panel *p, const char *xlabel,
    const char *what, double key_y)
{
	int *ord = malloc(sizeof(int) * (size_t)n), i, k, last = -1, nf = 0;
	/* every point's circle, then the numbers placed */
	struct box *taken = malloc(sizeof(struct box) * 2 * (size_t)n);
	int nt = 0;
	char lab[300];

	if (ord == NULL || taken == NULL) {
		free(ord);
		free(taken);
		return -1;
	}
	axes(fp, p, xlabel);
	for (i = 0; i < n; i++)
		ord[i] = i;
	qsort_r(ord, (size_t)n, sizeof(int), by_x, (void *)x);
	for (k = 0; k < n; k++) {
		i = ord[k];
		if (!front(x, y, n, i))
			continue;
		if (last >= 0) {	/* the front as a staircase */
			mk_svg_line(fp, (struct mk_svg_seg){ .x1 = px(p,
			    x[last]), .y1 = py(p, y[last]), .x2 = px(p, x[i]),
			    .y2 = py(p, y[last]) }, "#222", 1.2);
			mk_svg_line(fp, (struct mk_svg_seg){ .x1 = px(p, x[i]),
			    .y1 = py(p, y[last]), .x2 = px(p, x[i]), .y2 = py(p,
			    y[i]) }, "#222", 1.2);
		}
		last = i;
	}
	for (i = 0; i < n; i++)
		mk_svg_circle(fp, (struct mk_svg_dot){ .x = px(p, x[i]),
		    .y = py(p, y[i]), .r = 5,
		    .fill = rc[i].c.hier ? "#1f77b4" : "#ff7f0e",
		    .stroke = front(x, y, n, i) ? "#000" : NULL },
		    "%s: balancedness %.4f, %s %.*f%s",
		    mk_eplb_replay_label(&rc[i], lab, sizeof(lab)), y[i], what,
		    p->logx ? 0 : 4, x[i], front(x, y, n,
		    i) ? " (on the Pareto front)" : "");
	for (i = 0; i < n; i++)
		taken[nt++] = (struct box){ px(p, x[i]) - 6, py(p, y[i]) - 6,
		    px(p, x[i]) + 6, py(p, y[i]) + 6 };
	/* the front's points numbered, and named in a key under the panel
	 * (key_y: where it starts), so that a picture on paper says which
	 * they are */
	for (k = 0; k < n; k++) {
		i = ord[k];
		if (!front(x, y, n, i) || !*short_label(rc, n, i, lab,
		    sizeof(lab)))
			continue;
		nf++;
		number(fp, px(p, x[i]), py(p, y[i]), nf, taken, &nt);
		mk_svg_text(fp, p->X, key_y + 14 * nf, "start", 11, "%d  %s: "
		    "%.4f, %s %.*f", nf, lab, y[i], what, p->logx ? 0 : 4,
		    x[i]);
	}
	free(ord);
	free(taken);
	return 0;
}

/* The colours' key: only the placements the configurations use. */
static const char *
colour_key(const struct mk_replay_cfg *rc, int n)
{
	int i, hier = 0;

	for (i = 0; i < n; i++)
		hier += rc[i].c.hier != 0;
	return hier == n ? "blue: hierarchical" : hier == 0 ?
	    "orange: global" : "blue hierarchical, orange global";
}

int
mk_eplb_replay_plot(FILE *fp, const struct mk_replay_cfg *rc,
    const struct mk_replay_res *res, int n, const char *title,
    struct mk_err *e)
{
	double *x = malloc(sizeof(double) * (size_t)n * 3), *y, *s;
	double lo = 1, hi = 0, mx = 0, mn = INFINITY;
	int i, nf, two = n > 0 && !isnan(res[0].inter_share), rc0 = -1;
	struct panel p = { 80, 76, 460, 320, 0, 1, 0, 1, 1 };

	if (x == NULL)
		return mk_err_data(e, "out of memory for the plot");
	y = x + n;
	s = y + n;
	for (i = 0; i < n; i++) {
		x[i] = (double)res[i].moves;
		y[i] = res[i].balancedness;
		s[i] = res[i].inter_share;
		lo = y[i] < lo ? y[i] : lo;
		hi = y[i] > hi ? y[i] : hi;
		mx = x[i] > mx ? x[i] : mx;
		mn = x[i] < mn ? x[i] : mn;
	}
	p.y0 = floor((lo - 0.02) * 50) / 50;
	p.y1 = fmin(1, ceil((hi + 0.02) * 50) / 50);
	p.x1 = ceil(log10(1 + mx)) > 1 ? ceil(log10(1 + mx)) : 1;
	p.x0 = floor(log10(1 + mn));
	p.x0 = p.x0 >= p.x1 ? p.x1 - 1 : p.x0;
	for (i = 0, nf = 0; i < n; i++)
		nf += front(x, y, n, i);
	mk_svg_open(fp, mk_svg_fit(two ? 1180 : 620, 15, title), 486 + 14 * nf,
	    title);
	mk_svg_text(fp, 20, 28, "start", 15, "%s", title);
	mk_svg_text(fp, 20, 46, "start", 11, "each point a configuration "
	    "(hover: which): %s;", colour_key(rc, n));
	mk_svg_text(fp, 20, 60, "start", 11, "ringed, joined and numbered: the "
	    "Pareto front (no other point as balanced with fewer moves)");
	if (panel(fp, rc, x, y, n, &p, "(layer, slot) pairs moved over the "
	    "replay (log scale)", "moves", 470) < 0)
		goto out;
	if (two) {
		p.X += 580;
		p.logx = 0;
		for (i = 0, mx = 0, mn = 1; i < n; i++) {
			mx = s[i] > mx ? s[i] : mx;
			mn = s[i] < mn ? s[i] : mn;
		}
		/* a margin of a fiftieth beyond the points, within [0, 1] */
		p.x0 = fmax(0, floor((mn - 0.02) * 50) / 50);
		p.x1 = fmin(1, ceil((mx + 0.02) * 50) / 50);
		if (panel(fp, rc, s, y, n, &p, "share of dispatches leaving "
		    "the token's node", "inter-node share", 470) < 0)
			goto out;
	}
	mk_svg_close(fp);
	rc0 = 0;
out:
	free(x);
	return rc0 < 0 ? mk_err_data(e, "out of memory for the plot") : 0;
}
