/*
 * eplb_plot.c - eplb-plan --plot: what is on each GPU and how loaded,
 * before and after, as a picture (see eplb.h).
 */
#include <stdlib.h>
#include <string.h>

#include "base/svg.h"
#include "eplb/eplb.h"

/* Loads summed over scenarios: out[L][G] for plan p, or without EPLB. */
static void
gpu_sum(const struct mk_eplb_cfg *c, const double *w, int S, int L,
    const struct mk_eplb_out *p, double *tmp, double *out)
{
	int s, l, g, x;

	memset(out, 0, sizeof(double) * (size_t)L * (size_t)c->G);
	if (p != NULL) {
		mk_eplb_gpu_loads(c, w, S, L, p, tmp);
		for (s = 0; s < S; s++)
			for (l = 0; l < L * c->G; l++)
				out[l] += tmp[(size_t)s * (size_t)L *
				    (size_t)c->G + (size_t)l];
		return;
	}
	/* no EPLB: one replica each, in order on the GPUs */
	for (s = 0; s < S; s++)
		for (l = 0; l < L; l++)
			for (x = 0; x < c->E; x++) {
				g = mk_eplb_noeplb_gpu(c, x);
				out[(size_t)l * (size_t)c->G + (size_t)g] +=
				    w[((size_t)s * (size_t)L + (size_t)l) *
				    (size_t)c->E + (size_t)x];
			}
}

/* A layer's mean and largest GPU load. */
static void
row_stats(const double *v, int G, double *mean, double *max)
{
	int g;

	*mean = *max = 0;
	for (g = 0; g < G; g++) {
		*mean += v[g];
		*max = v[g] > *max ? v[g] : *max;
	}
	*mean /= G;
}

struct geom {
	double	x0, y0, cw, ch;		/* first panel, cell size */
	double	pw, gap;		/* panel width, gap between panels */
};

/* One heatmap panel: rows are layers, columns GPUs, colour load/mean. */
static void
panel(FILE *fp, const struct mk_eplb_picture *pp, const struct geom *gm, int k,
    const double *v, const char *name)
{
	const struct mk_eplb_cfg *c = pp->c;
	double x = gm->x0 + k * (gm->pw + gm->gap), mean, max;
	char col[8];
	int l, g;

	mk_svg_text(fp, x + gm->pw / 2, gm->y0 - 8, "middle", 13, "%s", name);
	for (l = 0; l < pp->L; l++) {
		row_stats(v + (size_t)l * (size_t)c->G, c->G, &mean, &max);
		for (g = 0; g < c->G; g++) {
			double r = mean > 0 ? v[(size_t)l * (size_t)c->G +
			    (size_t)g] / mean : 1;

			mk_svg_ratio(r, col);
			mk_svg_rect(fp,
			    (struct mk_svg_box){ .x = x + g * gm->cw,
			    .y = gm->y0 + l * gm->ch, .w = gm->cw,
			    .h = gm->ch }, col, "%s: layer %d, GPU %d: load "
			    "%.6g = %.3f x the layer's mean",
			    name, pp->layer ? pp->layer[l] : l, g,
			    v[(size_t)l * (size_t)c->G + (size_t)g], r);
		}
	}
	mk_svg_frame(fp, (struct mk_svg_box){ .x = x, .y = gm->y0, .w = gm->pw,
	    .h = pp->L * gm->ch }, "#666", 0.6);
	for (g = 0; g < c->G; g += c->G / c->N) {
		if (g > 0)	/* node boundaries */
			mk_svg_line(fp,
			    (struct mk_svg_seg){ .x1 = x + g * gm->cw,
			    .y1 = gm->y0, .x2 = x + g * gm->cw,
			    .y2 = gm->y0 + pp->L * gm->ch }, "#333", 1.2);
	}
	mk_svg_text(fp, x + gm->pw / 2, gm->y0 + pp->L * gm->ch + 16,
	    "middle", 11, "GPU (0 to %d%s)", c->G - 1, c->N > 1 ?
	    "; lines part the nodes" : "");
}

/* Balancedness (mean/max) per layer, before (grey) and after (blue). */
static void
bal_panel(FILE *fp, const struct mk_eplb_picture *pp, const struct geom *gm,
    const double *before, const double *after, double x, double bw)
{
	const struct mk_eplb_cfg *c = pp->c;
	double mb, xb, ma, xa, h = gm->ch;
	int l, i;

	mk_svg_text(fp, x + bw / 2, gm->y0 - 8, "middle", 13,
	    "balancedness");
	for (l = 0; l < pp->L; l++) {
		row_stats(before + (size_t)l * (size_t)c->G, c->G, &mb, &xb);
		row_stats(after + (size_t)l * (size_t)c->G, c->G, &ma, &xa);
		mk_svg_rect(fp, (struct mk_svg_box){ .x = x,
		    .y = gm->y0 + l * h, .w = bw * (xb > 0 ? mb / xb : 1),
		    .h = h * 0.45 }, "#b0b0b0", "layer %d %s: %.4f",
		    pp->layer ? pp->layer[l] : l, pp->before_name,
		    xb > 0 ? mb / xb : 1);
		mk_svg_rect(fp, (struct mk_svg_box){ .x = x,
		    .y = gm->y0 + l * h + h * 0.45,
		    .w = bw * (xa > 0 ? ma / xa : 1), .h = h * 0.45 },
		    "#2166ac", "layer %d %s: %.4f",
		    pp->layer ? pp->layer[l] : l, pp->after_name,
		    xa > 0 ? ma / xa : 1);
	}
	for (i = 0; i <= 4; i++) {
		mk_svg_line(fp, (struct mk_svg_seg){ .x1 = x + bw * i / 4,
		    .y1 = gm->y0, .x2 = x + bw * i / 4,
		    .y2 = gm->y0 + pp->L * h }, "#ddd", 0.5);
		mk_svg_text(fp, x + bw * i / 4, gm->y0 + pp->L * h + 16,
		    "middle", 10, "%g", i / 4.0);
	}
	mk_svg_rect(fp, (struct mk_svg_box){ .x = x,
	    .y = gm->y0 + pp->L * h + 24, .w = 10, .h = 8 }, "#b0b0b0", NULL);
	mk_svg_text(fp, x + 14, gm->y0 + pp->L * h + 32, "start", 10, "%s",
	    pp->before_name);
	mk_svg_rect(fp, (struct mk_svg_box){ .x = x,
	    .y = gm->y0 + pp->L * h + 38, .w = 10, .h = 8 }, "#2166ac", NULL);
	mk_svg_text(fp, x + 14, gm->y0 + pp->L * h + 46, "start", 10, "%s",
	    pp->after_name);
}

/* Sum of means over sum of maxima, as vLLM logs balancedness. */
static double
total_balance(const double *v, int L, int G)
{
	double sm = 0, sx = 0, m, x;
	int l;

	for (l = 0; l < L; l++) {
		row_stats(v + (size_t)l * (size_t)G, G, &m, &x);
		sm += m;
		sx += x;
	}
	return sx > 0 ? sm / sx : 1;
}

int
mk_eplb_plot(FILE *fp, const struct mk_eplb_picture *pp, struct mk_err *e)
{
	const struct mk_eplb_cfg *c = pp->c;
	size_t n = (size_t)pp->L * (size_t)c->G;
	double *tmp, *before, *after, bw = 140;
	struct geom gm;
	char other[80] = "";
	int W, H, l, step;

	tmp = malloc(sizeof(double) * n * (size_t)pp->S);
	before = malloc(sizeof(double) * n * 2);	/* and the other's */
	after = malloc(sizeof(double) * n);
	if (tmp == NULL || before == NULL || after == NULL) {
		free(tmp);
		free(before);
		free(after);
		return mk_err_data(e, "out of memory for the plot");
	}
	gpu_sum(c, pp->w, pp->S, pp->L, pp->before, tmp, before);
	gpu_sum(c, pp->w, pp->S, pp->L, pp->after, tmp, after);
	/* what the other policy would keep: the choice the stripes show */
	if (pp->other != NULL) {
		gpu_sum(c, pp->w, pp->S, pp->L, pp->other, tmp, before + n);
		snprintf(other, sizeof(other), "; a %s plan keeps %.4f",
		    mk_eplb_policy_name(!c->hier), total_balance(before + n,
		    pp->L, c->G));
	}
	gm.cw = 480.0 / c->G;
	gm.cw = gm.cw < 2 ? 2 : gm.cw > 24 ? 24 : gm.cw;
	gm.ch = 640.0 / pp->L;
	gm.ch = gm.ch < 3 ? 3 : gm.ch > 18 ? 18 : gm.ch;
	gm.pw = gm.cw * c->G;
	gm.gap = 40;
	gm.x0 = 70;
	gm.y0 = 92;
	W = (int)(gm.x0 + 2 * gm.pw + 2 * gm.gap + bw + 30);
	H = (int)(gm.y0 + pp->L * gm.ch + 110);
	if (W < 640)
		W = 640;
	W = mk_svg_fit(W, 16, pp->title);
	mk_svg_open(fp, W, H, pp->title);
	mk_svg_text(fp, 16, 24, "start", 16, "%s", pp->title);
	mk_svg_text(fp, 16, 44, "start", 12, "%d layers, %d experts, %d "
	    "slots on %d GPUs (%d node%s, %d group%s); colour: a GPU's load "
	    "over its layer's mean", pp->L, c->E, c->R, c->G, c->N,
	    c->N == 1 ? "" : "s", c->K, c->K == 1 ? "" : "s");
	mk_svg_text(fp, 16, 62, "start", 12, "balancedness (sum of means / "
	    "sum of maxima): %s %.4f, %s %.4f (%s policy%s%s)%s",
	    pp->before_name, total_balance(before, pp->L, c->G),
	    pp->after_name, total_balance(after, pp->L, c->G),
	    mk_eplb_policy_name(c->hier), c->hier ? ": whole groups a node" :
	    "", other, pp->S > 1 ? "; loads of all scenarios summed" : "");
	step = (int)(12 / gm.ch) + 1;
	for (l = 0; l < pp->L; l += step)
		mk_svg_text(fp, gm.x0 - 6, gm.y0 + l * gm.ch + gm.ch / 2 + 4,
		    "end", 10, "%d", pp->layer ? pp->layer[l] : l);
	mk_svg_vtext(fp, 18, gm.y0 + pp->L * gm.ch / 2, 12, "layer");
	panel(fp, pp, &gm, 0, before, pp->before_name);
	panel(fp, pp, &gm, 1, after, pp->after_name);
	bal_panel(fp, pp, &gm, before, after, gm.x0 + 2 * (gm.pw + gm.gap),
	    bw);
	mk_svg_scale_bar(fp, (struct mk_svg_box){ .x = gm.x0,
	    .y = gm.y0 + pp->L * gm.ch + 40, .w = 240, .h = 12 },
	    &(struct mk_svg_scale){ .lo = 0, .hi = 2, .n = 4, .level = 0,
	    .caption = "load / layer mean (red: above, blue: below)" });
	mk_svg_close(fp);
	free(tmp);
	free(before);
	free(after);
	return 0;
}
