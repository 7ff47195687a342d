/*
 * eplb_whole.c - whole plans: every layer, log2phy, statistics; see
 * mk_eplb_plan_all and mk_eplb_stats in eplb.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/threads.h"
#include "eplb/eplb.h"

void
mk_eplb_out_free(struct mk_eplb_out *o)
{
	mk_mem_free(o->phy2log);
	mk_mem_free(o->rank);
	mk_mem_free(o->cnt);
	memset(o, 0, sizeof(*o));
}

/*
 * Milliseconds one thread takes per layer (DeepSeek-V3's 256 experts on
 * 288 slots, this VM): best searches, the references only sort, so they
 * run on one thread unless there are hundreds of layers.
 */
#define BEST_MS		0.1
#define REF_MS		0.02

void
mk_eplb_scenarios(const double *w, int S, int L, int E, int l, double *ws)
{
	double sum;
	int s, e;

	for (s = 0; s < S; s++) {
		const double *r = w + ((size_t)s * L + l) * (size_t)E;

		for (sum = 0, e = 0; e < E; e++)
			sum += r[e];
		for (e = 0; e < E; e++)
			ws[(size_t)s * E + e] = sum > 0 ? r[e] / sum : 0;
	}
}

/*
 * Layer l planned for S > 1 scenarios: best for them all, a reference
 * for their normalised sum.
 */
static int
plan_scenarios(const struct mk_eplb_cfg *c, const double *w, int S, int L,
    int l, struct mk_eplb_plan *p)
{
	double *ws = malloc(sizeof(double) * ((size_t)S + 1) * (size_t)c->E);
	double *sum;
	int s, e, r;

	if (ws == NULL)
		return -1;
	mk_eplb_scenarios(w, S, L, c->E, l, ws);
	if (c->algo == MK_EPLB_BEST) {
		r = mk_eplb_best_sc(c, ws, S, p);
	} else {
		sum = ws + (size_t)S * c->E;
		for (e = 0; e < c->E; e++)
			for (sum[e] = 0, s = 0; s < S; s++)
				sum[e] += ws[(size_t)s * c->E + e];
		r = mk_eplb_layer(c, sum, p);
	}
	free(ws);
	return r;
}

int
mk_eplb_plan_layer(const struct mk_eplb_cfg *c, const double *w, int S,
    int L, int l, struct mk_eplb_plan *p)
{
	if (S > 1)
		return plan_scenarios(c, w, S, L, l, p);
	return mk_eplb_layer(c, w + (size_t)l * (size_t)c->E, p);
}

/* Plan layers [0, L) in parallel; each layer is independent. */
static int
plan_layers(const struct mk_eplb_cfg *c, const double *w, int S, int L,
    const int64_t *prev, struct mk_eplb_out *o)
{
	int l, bad = 0, t = mk_threads_for(L * (c->algo == MK_EPLB_BEST ?
	    BEST_MS * (S > 1 ? 5 * S : 1) : REF_MS));

	(void)t;		/* without OpenMP */
	/* one thread: no team at all (starting libgomp's costs a millisecond) */
#pragma omp parallel for schedule(dynamic) reduction(|:bad) num_threads(t) \
    if (t > 1)
	for (l = 0; l < L; l++) {
		struct mk_eplb_plan p;

		p.phy2log = o->phy2log + (size_t)l * (size_t)c->R;
		p.rank = o->rank + (size_t)l * (size_t)c->R;
		p.cnt = o->cnt + (size_t)l * (size_t)c->E;
		if (mk_eplb_plan_layer(c, w, S, L, l, &p) < 0 ||
		    (prev != NULL && mk_eplb_relabel(c, prev + (size_t)l *
		    (size_t)c->R, &p) < 0))
			bad |= 1;
	}
	return bad ? -1 : 0;
}

/* X: R-E+1 (room for any count), or the largest count (DeepSeek's). */
static int
width(const struct mk_eplb_cfg *c, const struct mk_eplb_out *o, int max)
{
	size_t i;
	int X = c->R - c->E + 1;

	if (max)
		for (i = 0, X = 1; i < (size_t)o->L * (size_t)c->E; i++)
			if (o->cnt[i] > X)
				X = (int)o->cnt[i];
	return X;
}

int
mk_eplb_out_from(const struct mk_eplb_cfg *c, const int64_t *phy2log, int L,
    int width_max, struct mk_eplb_out *o, struct mk_err *e)
{
	size_t R = (size_t)c->R, E = (size_t)c->E, i;
	int l, x;

	memset(o, 0, sizeof(*o));
	o->L = L;
	o->phy2log = mk_mem_alloc(sizeof(int64_t) * (size_t)L * R);
	o->rank = mk_mem_alloc(sizeof(int64_t) * (size_t)L * R);
	o->cnt = mk_mem_alloc(sizeof(int64_t) * (size_t)L * E);
	if (o->phy2log == NULL || o->rank == NULL || o->cnt == NULL) {
		mk_eplb_out_free(o);
		return mk_err_data(e, "out of memory for a plan of %d layers",
		    L);
	}
	memcpy(o->phy2log, phy2log, sizeof(int64_t) * (size_t)L * R);
	for (l = 0; l < L; l++) {
		int64_t *cnt = o->cnt + (size_t)l * E;
		for (i = 0; i < R; i++)
			o->rank[l * R + i] = cnt[phy2log[l * R + i]]++;
		for (x = 0; x < c->E; x++)
			if (cnt[x] == 0) {
				mk_eplb_out_free(o);
				return mk_err_data(e, "layer %d: expert %d has no "
				    "replica", l, x);
			}
	}
	o->X = width(c, o, width_max);
	return 0;
}

int
mk_eplb_plan_all(const struct mk_eplb_problem *pb, struct mk_eplb_out *o,
    struct mk_err *e)
{
	const struct mk_eplb_cfg *c = pb->c;
	const int L = pb->L;
	size_t R = (size_t)c->R, E = (size_t)c->E;

	memset(o, 0, sizeof(*o));
	o->L = L;
	o->phy2log = mk_mem_alloc(sizeof(int64_t) * (size_t)L * R);
	o->rank = mk_mem_alloc(sizeof(int64_t) * (size_t)L * R);
	o->cnt = mk_mem_alloc(sizeof(int64_t) * (size_t)L * E);
	if (o->phy2log == NULL || o->rank == NULL || o->cnt == NULL ||
	    plan_layers(c, pb->w, pb->S, L, pb->prev, o) < 0) {
		mk_eplb_out_free(o);
		return mk_err_data(e, "out of memory planning %d layers", L);
	}
	o->X = width(c, o, pb->width_max);
	return 0;
}

void
mk_eplb_log2phy(const struct mk_eplb_cfg *c, const struct mk_eplb_out *o,
    int l, int64_t *dst)
{
	size_t R = (size_t)c->R, X = (size_t)o->X, i;
	const int64_t *p = o->phy2log + (size_t)l * R, *r = o->rank +
	    (size_t)l * R;

	for (i = 0; i < (size_t)c->E * X; i++)
		dst[i] = -1;
	for (i = 0; i < R; i++)
		dst[(size_t)p[i] * X + (size_t)r[i]] = (int64_t)i;
}

const char *const mk_eplb_outputs[MK_EPLB_NOUT] = { "phy2log", "log2phy",
    "logcnt" };

int
mk_eplb_output_shape(const struct mk_eplb_cfg *c, const struct mk_eplb_out *o,
    int k, int64_t *shape)
{
	shape[0] = o->L;
	shape[1] = k == 0 ? c->R : c->E;
	shape[2] = o->X;
	return k == 1 ? 3 : 2;
}

const int64_t *
mk_eplb_output_layer(const struct mk_eplb_cfg *c, const struct mk_eplb_out *o,
    int k, int l, int64_t *buf, size_t *n)
{
	if (k == 0) {
		*n = (size_t)c->R;
		return o->phy2log + (size_t)l * (size_t)c->R;
	}
	if (k == 2) {
		*n = (size_t)c->E;
		return o->cnt + (size_t)l * (size_t)c->E;
	}
	mk_eplb_log2phy(c, o, l, buf);
	*n = (size_t)c->E * (size_t)o->X;
	return buf;
}

double
mk_eplb_total_objective(const struct mk_eplb_cfg *c, const double *w, int S,
    int L, const struct mk_eplb_out *plan)
{
	double *ws, v = 0;
	int l;

	if (S == 1) {
		for (l = 0; l < L; l++)
			v += mk_eplb_max_load(c, w + (size_t)l * c->E,
			    plan->phy2log + (size_t)l * c->R, plan->cnt +
			    (size_t)l * c->E, NULL);
		return v;
	}
	if ((ws = malloc(sizeof(double) * (size_t)S * (size_t)c->E)) == NULL)
		return NAN;	/* out of memory: no objective at all */
	for (l = 0; l < L; l++) {
		mk_eplb_scenarios(w, S, L, c->E, l, ws);
		v += mk_eplb_objective(c, ws, S, plan->phy2log + (size_t)l *
		    c->R, plan->cnt + (size_t)l * c->E);
	}
	free(ws);
	return v;
}

int
mk_eplb_keep_prev(const struct mk_eplb_problem *pb, double min_gain,
    struct mk_eplb_out *plan, double *before, double *after, struct mk_err *e)
{
	const struct mk_eplb_cfg *c = pb->c;
	const double *w = pb->w;
	const int S = pb->S, L = pb->L;
	struct mk_eplb_out old;

	if (mk_eplb_out_from(c, pb->prev, L, pb->width_max, &old, e) < 0)
		return -1;
	*before = mk_eplb_total_objective(c, w, S, L, &old);
	*after = mk_eplb_total_objective(c, w, S, L, plan);
	if (isnan(*before) || isnan(*after)) {
		mk_eplb_out_free(&old);
		return mk_err_data(e, "out of memory weighing --min-gain over "
		    "%d layers", L);
	}
	if (*before > 0 && (*before - *after) / *before >= min_gain) {
		mk_eplb_out_free(&old);
		return 0;
	}
	mk_eplb_out_free(plan);
	*plan = old;
	return 1;
}

int
mk_eplb_out_every_layer(const struct mk_eplb_problem *pb,
    const struct mk_eplb_out *plan, const int *layer, int L0,
    struct mk_eplb_out *out, struct mk_err *e)
{
	const struct mk_eplb_cfg *c = pb->c;
	int64_t *p2l;
	int i, l = 0, p, r;

	if ((p2l = malloc(sizeof(*p2l) * (size_t)L0 * (size_t)c->R)) == NULL)
		return mk_err_data(e, "out of memory for a plan of %d layers",
		    L0);
	for (i = 0; i < L0; i++) {
		int64_t *dst = p2l + (size_t)i * (size_t)c->R;
		const int64_t *row = l < plan->L && layer[l] == i ?
		    plan->phy2log + (size_t)l++ * (size_t)c->R : NULL;

		for (p = 0; p < c->R; p++)
			dst[p] = row != NULL ? row[p] : p % c->E;
	}
	r = mk_eplb_out_from(c, p2l, L0, pb->width_max, out, e);
	free(p2l);
	return r;
}
