/*
 * eplb_run.c - whole plans: every layer, log2phy, statistics; see
 * mk_eplb_plan_all and mk_eplb_stats in eplb.h.
 */
#include <stdlib.h>
#include <string.h>

#include "base/threads.h"
#include "eplb/eplb.h"

void
mk_eplb_out_free(struct mk_eplb_out *o)
{
	free(o->phy2log);
	free(o->rank);
	free(o->cnt);
	memset(o, 0, sizeof(*o));
}

/*
 * Milliseconds one thread takes per layer (DeepSeek-V3's 256 experts on
 * 288 slots, this VM): best searches, the references only sort, so they
 * run on one thread unless there are hundreds of layers.
 */
#define BEST_MS		0.1
#define REF_MS		0.02

/* Plan layers [0, L) in parallel; each layer is independent. */
static int
plan_layers(const struct mk_eplb_cfg *c, const double *w, int L,
    const int64_t *prev, struct mk_eplb_out *o)
{
	int l, bad = 0;

#pragma omp parallel for schedule(dynamic) reduction(|:bad) \
    num_threads(mk_threads_for(L * (c->algo == MK_EPLB_BEST ? BEST_MS : \
    REF_MS)))
	for (l = 0; l < L; l++) {
		struct mk_eplb_plan p;

		p.phy2log = o->phy2log + (size_t)l * (size_t)c->R;
		p.rank = o->rank + (size_t)l * (size_t)c->R;
		p.cnt = o->cnt + (size_t)l * (size_t)c->E;
		if (mk_eplb_layer(c, w + (size_t)l * (size_t)c->E, &p) < 0 ||
		    (prev != NULL && mk_eplb_relabel(c, prev + (size_t)l *
		    (size_t)c->R, &p) < 0))
			bad |= 1;
	}
	return bad ? -1 : 0;
}

int
mk_eplb_plan_all(const struct mk_eplb_cfg *c, const double *w, int L,
    const int64_t *prev, int width_max, struct mk_eplb_out *o,
    struct mk_err *e)
{
	size_t R = (size_t)c->R, E = (size_t)c->E, i;
	int X;

	memset(o, 0, sizeof(*o));
	o->L = L;
	o->phy2log = malloc(sizeof(int64_t) * (size_t)L * R);
	o->rank = malloc(sizeof(int64_t) * (size_t)L * R);
	o->cnt = malloc(sizeof(int64_t) * (size_t)L * E);
	if (o->phy2log == NULL || o->rank == NULL || o->cnt == NULL ||
	    plan_layers(c, w, L, prev, o) < 0) {
		mk_eplb_out_free(o);
		return mk_err_data(e, "out of memory planning %d layers", L);
	}
	X = c->R - c->E + 1;
	if (width_max)
		for (i = 0, X = 1; i < (size_t)L * E; i++)
			if (o->cnt[i] > X)
				X = (int)o->cnt[i];
	o->X = X;
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

