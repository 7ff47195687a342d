/* a2a_plot.c - a2a-layout --plot; see a2a_plot.h. */
#include <stdlib.h>
#include <string.h>

#include "a2a/a2a_plot.h"
#include "base/svg.h"

#define MAX_ROWS	240

/* Room for cap steps of R counts in *v.  Returns 0 or -1 (memory). */
static int
grow_rows(int32_t **v, int cap, int R)
{
	void *p;

	if ((p = realloc(*v, sizeof(int32_t) * (size_t)cap * (size_t)R)) ==
	    NULL)
		return -1;
	*v = p;
	return 0;
}

int
mk_a2a_series_add(struct mk_a2a_series *ser, const struct mk_a2a_cfg *c,
    const struct mk_a2a_group *g, struct mk_err *e)
{
	/* the RDMA panel is DeepEP's normal internode mode's */
	int inter = mk_a2a_internode(c) && !c->ll_only;

	if (ser->S == ser->cap) {
		int cap = ser->cap ? 2 * ser->cap : 64;

		if (grow_rows(&ser->recv, cap, c->R) < 0 || (inter &&
		    grow_rows(&ser->rdma, cap, c->R) < 0))
			return mk_err_data(e, "out of memory for the plot");
		ser->cap = cap;
	}
	ser->R = c->R;
	memcpy(ser->recv + (size_t)ser->S * (size_t)c->R, g->recv_tokens,
	    sizeof(int32_t) * (size_t)c->R);
	if (inter)
		memcpy(ser->rdma + (size_t)ser->S * (size_t)c->R,
		    g->rdma_recv_tokens, sizeof(int32_t) * (size_t)c->R);
	ser->S++;
	return 0;
}

void
mk_a2a_series_free(struct mk_a2a_series *ser)
{
	free(ser->recv);
	free(ser->rdma);
	memset(ser, 0, sizeof(*ser));
}

/* The largest count of steps [s0, s1) at rank r. */
static int32_t
bin_max(const int32_t *v, int R, int s0, int s1, int r)
{
	int32_t m = 0;
	int s;

	for (s = s0; s < s1; s++)
		if (v[(size_t)s * (size_t)R + (size_t)r] > m)
			m = v[(size_t)s * (size_t)R + (size_t)r];
	return m;
}

struct geom {
	double	x, y0, cw, ch;
	int	rows, per;	/* rows drawn, steps a row */
};

/* One panel: steps by ranks, the worst cell framed. */
static void
panel(FILE *fp, const struct mk_a2a_series *ser, const int32_t *v,
    const struct geom *gm, const char *name, const char *what)
{
	int32_t top = 0, m;
	int r, k, s0, s1, ws = 0, wr = 0;
	char col[8];

	for (k = 0; k < ser->S * ser->R; k++)
		if (v[k] > top) {
			top = v[k];
			ws = k / ser->R;
			wr = k % ser->R;
		}
	mk_svg_text(fp, gm->x + ser->R * gm->cw / 2, gm->y0 - 8, "middle", 13,
	    "%s", name);
	for (k = 0; k < gm->rows; k++) {
		s0 = k * gm->per;
		s1 = s0 + gm->per < ser->S ? s0 + gm->per : ser->S;
		for (r = 0; r < ser->R; r++) {
			m = bin_max(v, ser->R, s0, s1, r);
			mk_svg_level(top > 0 ? (double)m / top : 0, col);
			if (s1 - s0 == 1)
				mk_svg_rect(fp,
				    (struct mk_svg_box){ .x = gm->x + r * gm->cw,
				    .y = gm->y0 + k * gm->ch, .w = gm->cw,
				    .h = gm->ch }, col, "step %d, rank %d: %d "
				    "tokens %s", s0, r, m, what);
			else
				mk_svg_rect(fp,
				    (struct mk_svg_box){ .x = gm->x + r * gm->cw,
				    .y = gm->y0 + k * gm->ch, .w = gm->cw,
				    .h = gm->ch }, col, "steps %d to %d, rank "
				    "%d: at most %d tokens %s", s0, s1 - 1, r,
				    m, what);
		}
	}
	mk_svg_frame(fp, (struct mk_svg_box){ .x = gm->x, .y = gm->y0,
	    .w = ser->R * gm->cw, .h = gm->rows * gm->ch }, "#666", 0.6);
	/* the worst: a frame around its cell, a little larger */
	mk_svg_frame(fp, (struct mk_svg_box){ .x = gm->x + wr * gm->cw - 1.5,
	    .y = gm->y0 + ws / gm->per * gm->ch - 1.5, .w = gm->cw + 3,
	    .h = gm->ch + 3 }, "#000", 1.5);
	mk_svg_text(fp, gm->x + ser->R * gm->cw / 2, gm->y0 + gm->rows *
	    gm->ch + 16, "middle", 11, "rank (0 to %d)", ser->R - 1);
	mk_svg_text(fp, gm->x + ser->R * gm->cw / 2, gm->y0 + gm->rows *
	    gm->ch + 30, "middle", 11, "framed: the largest, %d (step %d, "
	    "rank %d)", top, ws, wr);
}

void
mk_a2a_plot(FILE *fp, const struct mk_a2a_cfg *c,
    const struct mk_a2a_series *ser, uint64_t bytes_per_token,
    int64_t num_worst, const char *title)
{
	struct geom gm;
	double pw;
	int W, H, k, step, panels = ser->rdma != NULL ? 2 : 1;

	gm.per = (ser->S + MAX_ROWS - 1) / MAX_ROWS;
	gm.per = gm.per < 1 ? 1 : gm.per;
	gm.rows = (ser->S + gm.per - 1) / gm.per;
	gm.cw = 480.0 / ser->R;
	gm.cw = gm.cw < 3 ? 3 : gm.cw > 72 ? 72 : gm.cw;
	gm.ch = 600.0 / (gm.rows > 0 ? gm.rows : 1);
	gm.ch = gm.ch < 2.5 ? 2.5 : gm.ch > 40 ? 40 : gm.ch;
	gm.y0 = 92;
	pw = ser->R * gm.cw;
	W = (int)(70 + panels * (pw + 50) + 20);
	H = (int)(gm.y0 + gm.rows * gm.ch + 110);
	W = W < 720 ? 720 : W;
	W = mk_svg_fit(W, 16, title);
	mk_svg_open(fp, W, H, title);
	mk_svg_text(fp, 16, 24, "start", 16, "%s", title);
	mk_svg_text(fp, 16, 44, "start", 12, "%d ranks, %d experts, top-%d, "
	    "%d step%s%s; colour: tokens a rank receives, darkest the largest",
	    c->R, c->E, c->K, ser->S, ser->S == 1 ? "" : "s", gm.per > 1 ?
	    " (a row is the largest of its steps)" : "");
	if (c->style == MK_A2A_TRITON || c->ll_only)
		mk_svg_text(fp, 16, 62, "start", 12, "%s: the busiest rank "
		    "receives %lld tokens (%s: see --report)", c->ll_only ?
		    "DeepEP low-latency mode" : "Triton-distributed",
		    (long long)num_worst, c->ll_only ? "its buffer is sized "
		    "by --max-tokens" : "EPAll2AllLayer's buffers");
	else
		mk_svg_text(fp, 16, 62, "start", 12, "num_worst_tokens %lld: a "
		    "receive buffer of %lld tokens x %llu bytes = %.2f MiB",
		    (long long)num_worst, (long long)num_worst,
		    (unsigned long long)bytes_per_token,
		    (double)num_worst * (double)bytes_per_token / 1048576.0);
	step = (int)(12 / gm.ch) + 1;
	for (k = 0; k < gm.rows; k += step)
		mk_svg_text(fp, 64, gm.y0 + k * gm.ch + gm.ch / 2 + 4, "end",
		    10, "%d", k * gm.per);
	mk_svg_vtext(fp, 18, gm.y0 + gm.rows * gm.ch / 2, 12, "step");
	gm.x = 70;
	panel(fp, ser, ser->recv, &gm, "tokens received", "received");
	if (ser->rdma != NULL) {
		gm.x = 70 + pw + 50;
		panel(fp, ser, ser->rdma, &gm, "tokens received over RDMA "
		    "(internode)", "over RDMA");
	}
	mk_svg_scale_bar(fp, (struct mk_svg_box){ .x = 70,
	    .y = gm.y0 + gm.rows * gm.ch + 50, .w = 240, .h = 12 },
	    &(struct mk_svg_scale){ .lo = 0, .hi = 1, .n = 4, .level = 1,
	    .caption = "tokens / the largest count" });
	mk_svg_close(fp);
}
