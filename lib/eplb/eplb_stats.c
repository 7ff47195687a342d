/*
 * eplb_stats.c - what eplb-plan --stats reports: each layer's balance
 * against the lower bound and the other policy, and the table written as
 * CSV; see mk_eplb_stats and mk_eplb_stats_write in eplb.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/threads.h"
#include "eplb/eplb.h"

int
mk_eplb_stats(const struct mk_eplb_cfg *c, const double *w,
    const struct mk_eplb_out *plan, const int64_t *prev,
    struct mk_eplb_stat *st, struct mk_err *e)
{
	struct mk_eplb_cfg oc = *c;
	struct mk_err ignore;
	int l, bad = 0, other;

	/* The other policy: global for hierarchical plans, and back. */
	other = mk_eplb_config(&oc, c->hier ? MK_EPLB_GLOBAL : MK_EPLB_HIER,
	    &ignore) == 0 && oc.hier != c->hier;
	/* a layer's bound and other plan take about 0.25 ms on one thread */
#pragma omp parallel for schedule(dynamic) reduction(|:bad) \
    num_threads(mk_threads_for(plan->L * 0.25))
	for (l = 0; l < plan->L; l++) {
		const double *wl = w + (size_t)l * (size_t)c->E;
		const int64_t *pl = plan->phy2log + (size_t)l * (size_t)c->R;
		struct mk_eplb_stat *s = &st[l];
		struct mk_eplb_plan op;
		int64_t *buf;

		memset(s, 0, sizeof(*s));
		s->max = mk_eplb_max_load(c, wl, pl, plan->cnt + (size_t)l *
		    (size_t)c->E, &s->mean);
		s->balancedness = s->max > 0 ? s->mean / s->max : 1;
		s->lower_bound = mk_eplb_lower_bound(c, wl);
		s->gap = s->lower_bound > 0 ? s->max / s->lower_bound : 1;
		if (prev != NULL)
			mk_eplb_migration(c, prev + (size_t)l * (size_t)c->R,
			    pl, &s->changed, &s->copies);
		if (!other)
			continue;
		buf = malloc(sizeof(int64_t) * (size_t)(2 * c->R + c->E));
		if (buf == NULL) {
			bad |= 1;
			continue;
		}
		op.phy2log = buf;
		op.rank = buf + c->R;
		op.cnt = buf + 2 * c->R;
		if (mk_eplb_layer(&oc, wl, &op) < 0) {
			bad |= 1;
		} else {
			s->has_other = 1;
			s->other_max = mk_eplb_max_load(&oc, wl, op.phy2log,
			    op.cnt, NULL);
			s->other_balancedness = s->other_max > 0 ? s->mean /
			    s->other_max : 1;
		}
		free(buf);
	}
	return bad ? mk_err_data(e, "out of memory computing statistics") : 0;
}

/* The name of the other policy of c, for the table. */
static const char *
other_name(const struct mk_eplb_cfg *c)
{
	return c->hier ? "global" : "hierarchical";
}

/* One row: a layer's figures, or the totals. */
static void
stat_row(FILE *fp, const struct mk_eplb_cfg *c, const char *label,
    const struct mk_eplb_stat *s, int other, int prev)
{
	fprintf(fp, "%s,%.10g,%.10g,%.6f,%.10g,%.6f,", label, s->max, s->mean,
	    s->balancedness, s->lower_bound, s->gap);
	if (other)
		fprintf(fp, "%s,%.10g,%.6f", other_name(c), s->other_max,
		    s->other_balancedness);
	else
		fprintf(fp, ",,");
	if (prev)
		fprintf(fp, ",%lld,%lld", (long long)s->changed,
		    (long long)s->copies);
	fputc('\n', fp);
}

void
mk_eplb_stats_write(FILE *fp, const struct mk_eplb_cfg *c, int L,
    const int *layer, const struct mk_eplb_stat *st, int prev)
{
	struct mk_eplb_stat tot;
	char label[32];
	int l, other = L > 0 && st[0].has_other;
	double sgap = 0;

	memset(&tot, 0, sizeof(tot));
	fprintf(fp, "layer,max_load,mean_load,balancedness,lower_bound,gap,"
	    "other_policy,other_max_load,other_balancedness%s\n",
	    prev ? ",slots_changed,experts_copied" : "");
	for (l = 0; l < L; l++) {
		snprintf(label, sizeof(label), "%d", layer[l]);
		stat_row(fp, c, label, &st[l], st[l].has_other, prev);
		tot.max += st[l].max;
		tot.mean += st[l].mean;
		tot.lower_bound += st[l].lower_bound;
		sgap += st[l].gap;
		tot.other_max += st[l].other_max;
		tot.changed += st[l].changed;
		tot.copies += st[l].copies;
	}
	/* totals: sums, vLLM's balancedness, and the mean gap of layers */
	tot.balancedness = tot.max > 0 ? tot.mean / tot.max : 1;
	tot.gap = L ? sgap / L : 1;
	tot.other_balancedness = tot.other_max > 0 ? tot.mean / tot.other_max :
	    1;
	stat_row(fp, c, "total", &tot, other, prev);
}
