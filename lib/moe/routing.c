/*
 * routing.c - routing records as a load log with its traffic; see
 * routing.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "moe/step.h"
#include "moe/phys.h"
#include "moe/routing.h"
#include "moe/trace.h"
#include "tensor/npy.h"
#include "tensor/stream.h"

void
mk_moe_routing_free(struct mk_moe_routing *rt)
{
	free(rt->first);
	free(rt->ids);
	free(rt->layer);
	memset(rt, 0, sizeof(*rt));
}

/* Steps of n tokens each (the last may have fewer) over rt->ntok. */
static int
make_steps(struct mk_moe_routing *rt, int64_t n, const char *name,
    struct mk_err *e)
{
	int64_t T = (rt->ntok + n - 1) / n, t;

	if (rt->ntok == 0)
		return mk_err_data(e, "%s: no routed tokens", name);
	if (T > INT32_MAX - 1)
		return mk_err_data(e, "%s: more than %d steps", name,
		    INT32_MAX - 1);
	if ((rt->first = malloc(sizeof(int64_t) * (size_t)(T + 1))) == NULL)
		return mk_err_data(e, "%s: out of memory", name);
	for (t = 0; t <= T; t++)
		rt->first[t] = t * n < rt->ntok ? t * n : rt->ntok;
	rt->T = (int)T;
	return 0;
}

/* The (seq, tok) pairs, as two i64 each. */
static int
cmp_pair(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) :
	    (x[1] > y[1]) - (x[1] < y[1]);
}

/* Sort and drop repeats of n items of size sz; returns how many remain. */
static size_t
uniq(void *v, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
	size_t i, m = 0;

	qsort(v, n, sz, cmp);
	for (i = 0; i < n; i++)
		if (m == 0 || cmp((char *)v + (m - 1) * sz, (char *)v + i * sz)
		    != 0)
			memmove((char *)v + m++ * sz, (char *)v + i * sz, sz);
	return m;
}

/* JSON lines: records by (layer, seq, token). */
static int
from_jsonl(struct mk_src *s, const struct mk_moe_jsonl *o, int tps,
    struct mk_moe_routing *rt, struct mk_err *e)
{
	const char *name = mk_src_name(s);
	struct mk_moe_rec *r = NULL;
	int64_t *lay = NULL, *tok = NULL, key[2], *at, l;
	int32_t *ids;
	size_t n, i, nl, nt;
	int k, rc = -1;

	if (mk_moe_jsonl_read(s, o, &r, &n, e) < 0)
		return -1;
	lay = malloc(sizeof(int64_t) * n);
	tok = malloc(2 * sizeof(int64_t) * n);
	if (lay == NULL || tok == NULL)
		goto oom;
	for (i = 0, rt->K = 1; i < n; i++) {
		lay[i] = r[i].step;
		tok[2 * i] = r[i].seq;
		tok[2 * i + 1] = r[i].tok;
		rt->K = r[i].k > rt->K ? r[i].k : rt->K;
	}
	nl = uniq(lay, n, sizeof(int64_t), mk_cmp_i64);
	nt = uniq(tok, n, 2 * sizeof(int64_t), cmp_pair);
	rt->L = (int)nl;
	rt->ntok = (int64_t)nt;
	rt->layer = malloc(sizeof(int) * nl);
	rt->ids = malloc(sizeof(int32_t) * nl * nt * (size_t)rt->K);
	if (rt->layer == NULL || rt->ids == NULL)
		goto oom;
	for (i = 0; i < nl; i++)
		rt->layer[i] = (int)lay[i];
	memset(rt->ids, 0xff, sizeof(int32_t) * nl * nt * (size_t)rt->K);
	for (i = 0; i < n; i++) {
		l = (int64_t *)bsearch(&r[i].step, lay, nl, sizeof(int64_t),
		    mk_cmp_i64) - lay;
		key[0] = r[i].seq;
		key[1] = r[i].tok;
		at = bsearch(key, tok, nt, 2 * sizeof(int64_t), cmp_pair);
		ids = rt->ids + ((size_t)l * nt + (size_t)(at - tok) / 2) *
		    (size_t)rt->K;
		if (ids[0] != -1 || ids[rt->K - 1] != -1) {
			mk_err_data(e, "%s:%zu: a second record of %s %lld for "
			    "this token (%s %lld, %s %lld)", name, r[i].line,
			    o->step, (long long)r[i].step, o->seq ? o->seq :
			    "sequence", (long long)r[i].seq, o->token ?
			    o->token : "token", (long long)r[i].tok);
			goto out;
		}
		for (k = 0; k < r[i].k; k++) {
			if (r[i].ids[k] >= rt->E) {
				mk_err_data(e, "%s:%zu: %s: expert %d is not in "
				    "[0, %d) (-E gives the experts)", name,
				    r[i].line, o->experts, r[i].ids[k], rt->E);
				goto out;
			}
			ids[k] = r[i].ids[k];
		}
	}
	rc = make_steps(rt, tps, name, e);
	goto out;
oom:
	mk_err_data(e, "%s: out of memory for %zu routing records", name, n);
out:
	free(r);
	free(lay);
	free(tok);
	return rc;
}

/* Room for n more tokens of K ids (one layer). */
static int
grow(struct mk_moe_routing *rt, int64_t n, int64_t *cap)
{
	int32_t *p;

	if (rt->ntok + n <= *cap)
		return 0;
	*cap = 2 * (rt->ntok + n);
	if ((p = realloc(rt->ids, sizeof(int32_t) * (size_t)*cap *
	    (size_t)rt->K)) == NULL)
		return -1;
	rt->ids = p;
	return 0;
}

/* An NPY trace: each step its ranks' tokens, in rank order. */
static int
from_trace(struct mk_src *s, struct mk_moe_routing *rt, struct mk_err *e)
{
	const char *name = mk_src_name(s);
	struct mk_moe_trace *tr;
	struct mk_moe_step st;
	int64_t cap = 0, t, id, *first = NULL;
	int r, j, got, steps = 0, any, rc = -1;
	void *p;

	if ((tr = mk_moe_trace_open(s, 0, e)) == NULL)
		return -1;
	rt->L = 1;
	rt->K = mk_moe_trace_shape(tr).K;
	if ((rt->layer = calloc(1, sizeof(int))) == NULL)
		goto oom;
	while ((got = mk_moe_trace_next_steps(tr, &st, 1, e)) > 0) {
		if (mk_moe_step_load(&st, 1, e) < 0)
			goto out;
		if ((p = realloc(first, sizeof(int64_t) * (size_t)(steps +
		    2))) == NULL)
			goto oom;
		first = p;
		first[steps++] = rt->ntok;
		for (r = 0; r < st.R; r++) {
			if (grow(rt, st.T[r], &cap) < 0)
				goto oom;
			for (t = 0; t < st.T[r]; t++) {
				int32_t *at = rt->ids + rt->ntok * rt->K;

				for (any = 0, j = 0; j < rt->K; j++) {
					id = mk_moe_id(&st, r, t, j);
					if (id >= rt->E || id < -1) {
						mk_err_data(e, "%s: step %d, "
						    "rank %d, token %lld, slot "
						    "%d: expert %lld is not in "
						    "[0, %d) (-E gives the "
						    "experts)", name, steps - 1,
						    r, (long long)t, j,
						    (long long)id, rt->E);
						goto out;
					}
					at[j] = (int32_t)id;
					any |= id >= 0;
				}
				rt->ntok += any;
			}
		}
		if (steps == INT32_MAX - 1) {
			mk_err_data(e, "%s: more than %d steps", name, steps);
			goto out;
		}
	}
	if (got < 0)
		goto out;
	if (steps == 0 || rt->ntok == 0) {
		mk_err_data(e, "%s: no routed tokens", name);
		goto out;
	}
	first[steps] = rt->ntok;
	rt->first = first;
	first = NULL;
	rt->T = steps;
	rc = 0;
	goto out;
oom:
	mk_err_data(e, "%s: out of memory for the routing", name);
out:
	free(first);
	mk_moe_trace_close(tr);
	return rc;
}

int
mk_moe_routing_read(struct mk_src *s, const struct mk_moe_jsonl *o, int E,
    int tokens_per_step, struct mk_moe_routing *rt, struct mk_err *e)
{
	int fmt;

	memset(rt, 0, sizeof(*rt));
	rt->E = E;
	if ((fmt = mk_src_format(s, e)) < 0)
		return -1;
	if (fmt == MK_FMT_JSON)
		return from_jsonl(s, o, tokens_per_step < 1 ? 1 :
		    tokens_per_step, rt, e);
	return from_trace(s, rt, e);
}

void
mk_moe_routing_loads(const struct mk_moe_routing *rt, double *w)
{
	const size_t LE = (size_t)rt->L * (size_t)rt->E;
	int64_t i;
	int t, l, k;

	memset(w, 0, sizeof(double) * (size_t)rt->T * LE);
	for (t = 0; t < rt->T; t++)
		for (l = 0; l < rt->L; l++)
			for (i = rt->first[t]; i < rt->first[t + 1]; i++)
				for (k = 0; k < rt->K; k++) {
					int32_t x = rt->ids[((size_t)l *
					    (size_t)rt->ntok + (size_t)i) *
					    (size_t)rt->K + (size_t)k];

					if (x >= 0)
						w[(size_t)t * LE + (size_t)l *
						    (size_t)rt->E + (size_t)x]++;
				}
}

int
mk_moe_routing_traffic(const struct mk_moe_routing *rt, int t,
    const struct mk_moe_placement *pl, int64_t out[2], int64_t *per_layer,
    struct mk_err *e)
{
	const int64_t *phy2log = pl->phy2log;
	const int P = pl->P, G = pl->G, per_node = pl->per_node;
	const int64_t t0 = rt->first[t], n = rt->first[t + 1] - t0;
	const int64_t blk = (n + G - 1) / G;
	struct mk_moe_step in, ph;
	struct mk_moe_phys m;
	int32_t *buf, *bufs[MK_MOE_MAX_RANKS];
	int64_t got[2];
	int l, r;

	out[0] = out[1] = 0;
	if (G > MK_MOE_MAX_RANKS)
		return mk_err_usage(e, "%d GPUs: routing is counted for at most "
		    "%d", G, MK_MOE_MAX_RANKS);
	if ((buf = malloc(sizeof(int32_t) * (size_t)(n * rt->K + 1))) == NULL)
		return mk_err_data(e, "out of memory counting step %d", t);
	memset(&in, 0, sizeof(in));
	in.R = G;
	in.K = rt->K;
	in.elem = 4;
	for (r = 0; r < G; r++) {
		int64_t a = r * blk < n ? r * blk : n, b = a + blk < n ? a +
		    blk : n;

		in.T[r] = b - a;
		bufs[r] = buf + a * rt->K;
	}
	for (l = 0; l < rt->L; l++) {
		for (r = 0; r < G; r++)
			in.ids[r] = rt->ids + ((size_t)l * (size_t)rt->ntok +
			    (size_t)(t0 + (bufs[r] - buf) / rt->K)) *
			    (size_t)rt->K;
		if (mk_moe_phys_init(&m, phy2log + (size_t)l * (size_t)P, P,
		    rt->E, "the placement", e) < 0 ||
		    mk_moe_phys_map(&m, &in, &ph, bufs, 0, "", e) < 0) {
			mk_moe_phys_free(&m);
			free(buf);
			return -1;
		}
		mk_moe_phys_free(&m);
		mk_moe_node_dispatch(&ph, P, per_node, got);
		out[0] += got[0];
		out[1] += got[1];
		if (per_layer != NULL) {
			per_layer[2 * l] += got[0];
			per_layer[2 * l + 1] += got[1];
		}
	}
	free(buf);
	return 0;
}

int
mk_moe_routing_plan_traffic(const char *path, const char *what, int E,
    const struct mk_moe_placement *pl, const int *layer, int L,
    int64_t *per_layer, struct mk_err *e)
{
	const size_t P = (size_t)pl->P;
	struct mk_moe_placement rows = *pl;
	struct mk_moe_routing rt = { 0 };
	struct mk_moe_jsonl f;
	struct mk_src *s = NULL;
	int64_t *per = NULL, *p2l = NULL, out[2];
	char buf[256];
	int i, r, t, rc = -1;

	memset(per_layer, 0, sizeof(int64_t) * 2 * (size_t)L);
	if (mk_moe_jsonl_fields(NULL, &f, buf, sizeof(buf), e) < 0 ||
	    (s = mk_src_open(path, e)) == NULL ||
	    mk_moe_routing_read(s, &f, E, 1, &rt, e) < 0)
		goto out;
	per = calloc(2 * (size_t)rt.L + 1, sizeof(int64_t));
	p2l = malloc(sizeof(int64_t) * (P * (size_t)rt.L + 1));
	if (per == NULL || p2l == NULL) {
		mk_err_data(e, "%s: out of memory", what);
		goto out;
	}
	/* the plan's rows in the records' layer order */
	for (i = 0; i < rt.L; i++) {
		for (r = 0; r < L && layer[r] != rt.layer[i]; r++)
			;
		if (r == L) {
			mk_err_usage(e, "%s: layer %d is not a layer of the "
			    "loads", what, rt.layer[i]);
			goto out;
		}
		memcpy(p2l + (size_t)i * P, pl->phy2log + (size_t)r * P,
		    sizeof(int64_t) * P);
	}
	rows.phy2log = p2l;
	for (t = 0; t < rt.T; t++)
		if (mk_moe_routing_traffic(&rt, t, &rows, out, per, e) < 0)
			goto out;
	for (i = 0; i < rt.L; i++)
		for (r = 0; r < L; r++)
			if (layer[r] == rt.layer[i]) {
				per_layer[2 * r] += per[2 * i];
				per_layer[2 * r + 1] += per[2 * i + 1];
			}
	rc = 0;
out:
	mk_moe_routing_free(&rt);
	mk_src_close(s);
	free(per);
	free(p2l);
	return rc;
}

int
mk_moe_routing_is(const unsigned char *p, size_t n, int fmt,
    const struct mk_moe_jsonl *o)
{
	const unsigned char *nl;
	struct mk_npy_hdr h;
	struct mk_err e;
	char key[300];

	if (fmt == MK_FMT_NPY)
		return mk_npy_parse_prefix(p, n, &h, &e) == 1 && h.prefix_len +
		    h.header_len <= n && mk_npy_parse_dict((const char *)p +
		    h.prefix_len, h.header_len, &h, &e) == 0 && h.ndim == 4;
	if (fmt != MK_FMT_JSON)
		return 0;
	/* the first record: past blank lines, as the reader skips them */
	while (n > 0 && (*p == '\n' || *p == '\r' || *p == ' ' ||
	    *p == '\t')) {
		p++;
		n--;
	}
	nl = memchr(p, '\n', n);
	snprintf(key, sizeof(key), "\"%s\"", o->experts);
	return memmem(p, nl ? (size_t)(nl - p) : n, key, strlen(key)) != NULL;
}
