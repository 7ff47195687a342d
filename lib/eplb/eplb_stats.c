/*
 * eplb_stats.c - what eplb-plan --stats and --eval report: each layer's
 * balance in each scenario against the lower bound and a baseline (the
 * other policy, or no EPLB at all), and the table written as CSV; see
 * mk_eplb_stats and mk_eplb_stats_write in eplb.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/threads.h"
#include "eplb/eplb.h"

int
mk_eplb_noeplb_gpu(const struct mk_eplb_cfg *c, int e)
{
	return (int)((int64_t)e * c->G / c->E);
}

double
mk_eplb_noeplb_max(const struct mk_eplb_cfg *c, const double *w)
{
	double load = 0, max = 0;
	int e, g = 0, ge;

	/* expert e on GPU floor(e G / E): E/G in order on each */
	for (e = 0; e < c->E; e++) {
		ge = mk_eplb_noeplb_gpu(c, e);
		if (ge != g) {
			max = load > max ? load : max;
			load = 0;
			g = ge;
		}
		load += w[e];
	}
	return load > max ? load : max;
}

/* Scenario s of layer l: its raw loads. */
static const double *
row_of(const struct mk_eplb_cfg *c, const double *w, int L, int s, int l)
{
	return w + ((size_t)s * L + l) * (size_t)c->E;
}

/* The figures of one layer and scenario for the plan row pl, cnt. */
static void
figures(const struct mk_eplb_cfg *c, const double *wl, const int64_t *pl,
    const int64_t *cnt, struct mk_eplb_stat *s)
{
	memset(s, 0, sizeof(*s));
	s->max = mk_eplb_max_load(c, wl, pl, cnt, &s->mean);
	s->balancedness = s->max > 0 ? s->mean / s->max : 1;
	s->lower_bound = mk_eplb_lower_bound(c, wl);
	s->gap = s->lower_bound > 0 ? s->max / s->lower_bound : 1;
}

/* The baseline's figures into every scenario's row of layer l. */
static int
baseline(const struct mk_eplb_cfg *c, const struct mk_eplb_cfg *oc,
    int other, const double *w, int S, int L, int l, struct mk_eplb_stat *st)
{
	struct mk_eplb_plan op;
	struct mk_eplb_stat *x;
	int64_t *buf;
	int s;

	if (other < 0) {
		for (s = 0; s < S; s++) {
			x = &st[(size_t)s * L + l];
			x->has_other = 1;
			x->other_max = mk_eplb_noeplb_max(c, row_of(c, w, L, s,
			    l));
			x->other_balancedness = x->other_max > 0 ? x->mean /
			    x->other_max : 1;
		}
		return 0;
	}
	if (!other)
		return 0;
	buf = malloc(sizeof(int64_t) * (size_t)(2 * c->R + c->E));
	if (buf == NULL)
		return -1;
	op.phy2log = buf;
	op.rank = buf + c->R;
	op.cnt = buf + 2 * c->R;
	if (mk_eplb_plan_layer(oc, w, S, L, l, &op) < 0) {
		free(buf);
		return -1;
	}
	for (s = 0; s < S; s++) {
		x = &st[(size_t)s * L + l];
		x->has_other = 1;
		x->other_max = mk_eplb_max_load(oc, row_of(c, w, L, s, l),
		    op.phy2log, op.cnt, NULL);
		x->other_balancedness = x->other_max > 0 ? x->mean /
		    x->other_max : 1;
	}
	free(buf);
	return 0;
}

int
mk_eplb_stats(const struct mk_eplb_problem *pb, const struct mk_eplb_out *plan,
    int noeplb, struct mk_eplb_stat *st, struct mk_err *e)
{
	const struct mk_eplb_cfg *c = pb->c;
	const double *w = pb->w;
	const int S = pb->S, L = pb->L;
	const int64_t *prev = pb->prev;
	struct mk_eplb_cfg oc = *c;
	struct mk_err ignore;
	int l, bad = 0, other;

	/* The other policy: global for hierarchical plans, and back. */
	other = noeplb ? -1 : mk_eplb_config(&oc, c->hier ? MK_EPLB_GLOBAL :
	    MK_EPLB_HIER, &ignore) == 0 && oc.hier != c->hier;
	/* a layer's bound and other plan take about 0.25 ms on one thread */
#pragma omp parallel for schedule(dynamic) reduction(|:bad) \
    num_threads(mk_threads_for(L * S * 0.25))
	for (l = 0; l < L; l++) {
		const int64_t *pl = plan->phy2log + (size_t)l * (size_t)c->R;
		const int64_t *cnt = plan->cnt + (size_t)l * (size_t)c->E;
		struct mk_eplb_stat *x;
		int s;

		for (s = 0; s < S; s++) {
			x = &st[(size_t)s * L + l];
			figures(c, row_of(c, w, L, s, l), pl, cnt, x);
			if (prev != NULL) {
				struct mk_eplb_moves m;

				mk_eplb_migration(c, prev + (size_t)l *
				    (size_t)c->R, pl, &m);
				x->changed = m.changed;
				x->copies = m.copies;
			}
		}
		if (baseline(c, &oc, other, w, S, L, l, st) < 0)
			bad |= 1;
	}
	return bad ? mk_err_data(e, "out of memory computing statistics") : 0;
}

/* One row: a layer's figures, or the totals. */
static void
stat_row(FILE *fp, const struct mk_eplb_table *t, const char *scen,
    const char *label, const char *row, const struct mk_eplb_stat *s,
    int other)
{
	if (t->scenario_col)
		fprintf(fp, "%s,", scen);
	fprintf(fp, "%s,%s,%.10g,%.10g,%.6f,%.10g,%.6f,", label, row, s->max,
	    s->mean, s->balancedness, s->lower_bound, s->gap);
	if (t->noeplb)
		fprintf(fp, "%.10g,%.6f", s->other_max, s->other_balancedness);
	else if (other)
		fprintf(fp, "%s,%.10g,%.6f", mk_eplb_policy_name(!t->c->hier),
		    s->other_max, s->other_balancedness);
	else
		fprintf(fp, ",,");
	if (t->prev)
		fprintf(fp, ",%lld,%lld", (long long)s->changed,
		    (long long)s->copies);
	if (t->prev && t->expert_bytes > 0)
		fprintf(fp, ",%.17g", (double)s->copies * t->expert_bytes);
	if (t->traffic != NULL)
		fprintf(fp, ",%.6f", s->traffic[1] > 0 ? (double)s->traffic[0] /
		    (double)s->traffic[1] : 0);
	/* last: the columns before it kept their places */
	fprintf(fp, ",%s\n", mk_eplb_policy_name(t->c->hier));
}

/* The rows of scenario k and its total. */
static void
scenario_rows(FILE *fp, const struct mk_eplb_table *t, int k)
{
	const struct mk_eplb_stat *st = t->st + (size_t)k * t->L;
	struct mk_eplb_stat tot, one;
	char scen[32], label[32], row[32];
	int l, other = t->L > 0 && st[0].has_other;
	double sgap = 0;

	memset(&tot, 0, sizeof(tot));
	snprintf(scen, sizeof(scen), "%d", k);
	for (l = 0; l < t->L; l++) {
		snprintf(label, sizeof(label), "%d", t->layer[l]);
		snprintf(row, sizeof(row), "%d", t->row_is_index ? l :
		    t->layer[l]);
		one = st[l];
		if (t->traffic != NULL) {
			one.traffic[0] = t->traffic[2 * l];
			one.traffic[1] = t->traffic[2 * l + 1];
		}
		stat_row(fp, t, scen, label, row, &one, st[l].has_other);
		tot.max += st[l].max;
		tot.mean += st[l].mean;
		tot.lower_bound += st[l].lower_bound;
		sgap += st[l].gap;
		tot.other_max += st[l].other_max;
		tot.changed += st[l].changed;
		tot.copies += st[l].copies;
		tot.traffic[0] += one.traffic[0];
		tot.traffic[1] += one.traffic[1];
	}
	/* totals: sums, vLLM's balancedness, and the mean gap of layers */
	tot.balancedness = tot.max > 0 ? tot.mean / tot.max : 1;
	tot.gap = t->L ? sgap / t->L : 1;
	tot.other_balancedness = tot.other_max > 0 ? tot.mean / tot.other_max :
	    1;
	stat_row(fp, t, scen, "total", "", &tot, other);
}

void
mk_eplb_stats_write(FILE *fp, const struct mk_eplb_table *t)
{
	int k;

	fprintf(fp, "%slayer,row,max_load,mean_load,balancedness,lower_bound,"
	    "gap,%s%s%s%s,policy\n", t->scenario_col ? "scenario," : "",
	    t->noeplb ? "noeplb_max_load,noeplb_balancedness" :
	    "other_policy,other_max_load,other_balancedness", t->prev ?
	    ",slots_changed,experts_copied" : "", t->prev && t->expert_bytes >
	    0 ? ",bytes_moved" : "", t->traffic ? ",inter_node_share" : "");
	for (k = 0; k < t->S; k++)
		scenario_rows(fp, t, k);
}

void
mk_eplb_gpu_loads(const struct mk_eplb_cfg *c, const double *w, int S, int L,
    const struct mk_eplb_out *plan, double *out)
{
	int s, l, g;

	for (s = 0; s < S; s++)
		for (l = 0; l < L; l++)
			for (g = 0; g < c->G; g++)
				*out++ = mk_eplb_gpu_load(c, row_of(c, w, L, s,
				    l), plan->phy2log + (size_t)l * c->R,
				    plan->cnt + (size_t)l * c->E, g);
}

int
mk_eplb_report(FILE *fp, const struct mk_eplb_problem *pb,
    const struct mk_eplb_out *plan, const struct mk_eplb_table *want,
    struct mk_err *e)
{
	struct mk_eplb_table t = *want;
	struct mk_eplb_stat *st;

	t.c = pb->c;
	t.S = pb->S;
	t.L = pb->L;
	t.scenario_col = pb->S > 1 || want->noeplb;
	t.prev = pb->prev != NULL;
	if ((st = calloc((size_t)pb->S * (size_t)pb->L, sizeof(*st))) == NULL)
		return mk_err_data(e, "out of memory for statistics");
	if (mk_eplb_stats(pb, plan, want->noeplb, st, e) < 0) {
		free(st);
		return -1;
	}
	t.st = st;
	mk_eplb_stats_write(fp, &t);
	free(st);
	return 0;
}
