/*
 * mdec_plot.c - mdecode --bench --plot: each path's GB/s beside the read
 * bandwidth of the same run (see mdec_bench.h).
 */
#include <math.h>
#include <string.h>

#include "base/svg.h"
#include "mdec/mdec_bench.h"
#include "simd/kern.h"

/* Bar colours by kernel path: generic, avx2, avx512, avx512bf16, amx. */
static const char *const isa_colour[MK_NISA] = { "#9e9e9e", "#f4a582",
	"#2166ac", "#4dac26", "#7b3294" };

/* Is row b in the same group (bars side by side) as row a? */
static int
same_group(const struct mk_mdec_bench_row *a,
    const struct mk_mdec_bench_row *b)
{
	return a->threads == b->threads && a->bsz == b->bsz &&
	    a->layout == b->layout && a->density == b->density &&
	    a->qtok == b->qtok && strcmp(a->dtype, b->dtype) == 0;
}

/*
 * A round top for the axis, whose five ticks are then round too: the
 * least of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 or 10 times a power of ten not
 * below v (1, 2 or 5 alone left bars of 21 GB/s under an axis to 50).
 */
static double
nice_top(double v)
{
	static const double step[] = { 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 };
	double p = pow(10, floor(log10(v > 0 ? v : 1)));
	size_t i;

	for (i = 0; i < sizeof(step) / sizeof(step[0]); i++)
		if (v <= step[i] * p)
			return step[i] * p;
	return 10 * p;
}

void
mk_mdec_bench_plot(FILE *fp, const struct mk_mdec_bench_rows *rows,
    const char *title)
{
	const struct mk_mdec_bench_row *r = rows->row;
	int group[4096], ng = 0, i, j, k, nisa[MK_NISA] = { 0 }, per = 0, W, H;
	int unkept = 0;
	double top = 0, x0 = 70, y0 = 80, ph = 320, bw, gw, x, y, h;
	char lbl[96];

	/* groups in the order the rows came, paths within a group */
	for (i = 0; i < rows->n && ng < 4096; i++) {
		for (j = 0; j < ng && !same_group(&r[group[j]], &r[i]); j++)
			;
		if (j == ng)
			group[ng++] = i;
		top = fmax(top, fmax(r[i].gbps, r[i].probe_gbps));
		nisa[r[i].isa] = 1;
	}
	for (k = 0; k < MK_NISA; k++)
		per += nisa[k];
	top = nice_top(top * 1.05);
	bw = 16;
	/* wide enough for its 9-point labels ("paged d0.25"): one path's
	 * bars alone left them overlapping their neighbours' */
	gw = per * bw + 18 < 64 ? 64 : per * bw + 18;
	W = (int)(x0 + ng * gw + 40);
	W = W < 640 ? 640 : W;
	W = mk_svg_fit(W, 16, title);
	/* the groups spread over the whole picture, their bars up to 28
	 * wide (a few groups under a long title left half of it empty) */
	if (ng > 0 && (W - x0 - 40) / ng > gw) {
		gw = (W - x0 - 40) / ng;
		bw = fmin(28, (gw - 18) / per);
	}
	H = (int)(y0 + ph + 110);
	mk_svg_open(fp, W, H, title);
	mk_svg_text(fp, 16, 24, "start", 16, "%s", title);
	mk_svg_text(fp, 16, 44, "start", 12, "bars: each kernel path's GB/s "
	    "(the K and V bytes of a dense pass over its time);");
	mk_svg_text(fp, 16, 60, "start", 12, "black tick: the read probe of "
	    "the same bytes in the same rounds");
	for (k = 0; k <= 5; k++) {
		y = y0 + ph - ph * k / 5;
		mk_svg_line(fp, (struct mk_svg_seg){ .x1 = x0, .y1 = y,
		    .x2 = x0 + ng * gw, .y2 = y }, "#e0e0e0", 0.6);
		mk_svg_text(fp, x0 - 6, y + 4, "end", 10, "%g", top * k / 5);
	}
	mk_svg_vtext(fp, 20, y0 + ph / 2, 12, "GB/s");
	for (j = 0; j < ng; j++) {
		const struct mk_mdec_bench_row *g = &r[group[j]];
		int slot = 0;

		x = x0 + j * gw + (gw - per * bw) / 2;
		for (k = 0; k < MK_NISA; k++) {
			for (i = group[j]; i < rows->n; i++)
				if (r[i].isa == k && same_group(g, &r[i]))
					break;
			if (!nisa[k])
				continue;
			if (i < rows->n) {
				/* a row no round of which was kept: its bar
				 * pale, framed, said on hover */
				h = ph * r[i].gbps / top;
				mk_svg_rect(fp,
				    (struct mk_svg_box){ .x = x + slot * bw,
				    .y = y0 + ph - h, .w = bw - 2, .h = h },
				    r[i].kept ? isa_colour[k] : "#ffffff", "%s, "
				    "%d threads, bsz %d, %s, density %g, %d "
				    "query tokens: %.2f GB/s, probe %.2f GB/s "
				    "(%.2f of it)%s",
				    mk_isa_name((enum mk_isa)k), r[i].threads,
				    r[i].bsz, mk_mdec_layout_name(r[i].layout),
				    r[i].density, r[i].qtok, r[i].gbps,
				    r[i].probe_gbps,
				    r[i].frac, r[i].kept ? "" : "; every round "
				    "preempted");
				if (!r[i].kept)
					mk_svg_frame(fp,
					    (struct mk_svg_box){ .x = x + slot * bw,
					    .y = y0 + ph - h, .w = bw - 2,
					    .h = h }, isa_colour[k], 1.5);
				unkept += !r[i].kept;
				h = ph * r[i].probe_gbps / top;
				mk_svg_line(fp,
				    (struct mk_svg_seg){ .x1 = x + slot * bw - 1,
				    .y1 = y0 + ph - h,
				    .x2 = x + slot * bw + bw - 1,
				    .y2 = y0 + ph - h }, "#000", 2);
			}
			slot++;
		}
		snprintf(lbl, sizeof(lbl), g->qtok > 1 ? "%dt b%d q%d" :
		    "%dt b%d", g->threads, g->bsz, g->qtok);
		mk_svg_text(fp, x + per * bw / 2, y0 + ph + 36, "middle", 9,
		    "%s", g->dtype);
		mk_svg_text(fp, x + per * bw / 2, y0 + ph + 14, "middle", 9,
		    "%s", lbl);
		mk_svg_text(fp, x + per * bw / 2, y0 + ph + 25, "middle", 9,
		    "%s d%g", mk_mdec_layout_name(g->layout), g->density);
	}
	mk_svg_line(fp, (struct mk_svg_seg){ .x1 = x0, .y1 = y0 + ph,
	    .x2 = x0 + ng * gw, .y2 = y0 + ph }, "#444", 0.8);
	mk_svg_text(fp, x0, y0 + ph + 52, "start", 11, "groups: threads (t), "
	    "batch size (b), tokens (q, if over 1), layout, mask density (d), "
	    "K/V dtype");
	for (k = 0, i = 0; k < MK_NISA; k++) {
		if (!nisa[k])
			continue;
		mk_svg_rect(fp, (struct mk_svg_box){ .x = x0 + i * 110,
		    .y = y0 + ph + 68, .w = 12, .h = 10 }, isa_colour[k], NULL);
		mk_svg_text(fp, x0 + i * 110 + 16, y0 + ph + 77, "start", 11,
		    "%s", mk_isa_name((enum mk_isa)k));
		i++;
	}
	mk_svg_line(fp, (struct mk_svg_seg){ .x1 = x0 + i * 110,
	    .y1 = y0 + ph + 73, .x2 = x0 + i * 110 + 14, .y2 = y0 + ph + 73 },
	    "#000", 2);
	mk_svg_text(fp, x0 + i * 110 + 18, y0 + ph + 77, "start", 11,
	    "read probe");
	if (unkept)
		mk_svg_text(fp, x0, y0 + ph + 96, "start", 11, "open bars: "
		    "rows whose every round another process preempted (kept "
		    "0): not a measure of the kernel");
	mk_svg_close(fp);
}
