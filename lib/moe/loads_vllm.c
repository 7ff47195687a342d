/*
 * loads_vllm.c - expert loads from vLLM's EPLB statistics: JSON lines of
 *	{"record_type": "eplb_load_stats", "version": 1, "step": S,
 *	 "num_ranks": G, "expert_load": [[P loads] x L],
 *	 "p2l_map": [[P experts] x L]}
 * one record a recorded step (expert_load_stats_path, written every
 * expert_load_stats_interval steps).  Loads are by physical slot; each
 * record's own map credits them to experts, so a record written under any
 * placement gives its step's expert loads.  Steps are the records in file
 * order, their step numbers strictly increasing; E is one more than the
 * largest expert of the maps.  Blank lines and records of another type
 * (eplb_load_meta) are skipped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moe/loads.h"
#include "moe/loads_impl.h"
#include "tensor/json.h"

/* One record: its step, loads and map (malloc'd, [L][P] each). */
struct stats {
	double	 step;
	double	*load, *map;
	size_t	 L, P;
	int	 has_type, has_step;
};

static void
stats_free(struct stats *r)
{
	free(r->load);
	free(r->map);
	memset(r, 0, sizeof(*r));
}

/* An [L][P] matrix of the record, named what. */
static int
matrix(struct mk_json *j, const char *what, double **v, size_t *L, size_t *P)
{
	size_t dims[2];
	int nd;

	if (*v != NULL)
		return mk_json_fail(j, "a second \"%s\"", what);
	if (mk_json_numbers(j, what, 2, MK_LOADS_MAX_CELLS, &nd, dims, v) < 0)
		return -1;
	if (nd != 2 || dims[0] == 0 || dims[1] == 0)
		return mk_json_fail(j, "%s must be [layers, slots] numbers",
		    what);
	if (*L != 0 && (dims[0] != *L || dims[1] != *P))
		return mk_json_fail(j, "%s is [%zu, %zu], the other [%zu, %zu]",
		    what, dims[0], dims[1], *L, *P);
	*L = dims[0];
	*P = dims[1];
	return 0;
}

/*
 * The record at j's cursor (one line's object) into r.  Returns 1, 0 for
 * a record of another type (skipped), or -1.
 */
static int
record(struct mk_json *j, struct stats *r)
{
	char key[64], type[64];
	int k, other = 0;

	memset(r, 0, sizeof(*r));
	if (mk_json_peek(j) != MK_JSON_OBJECT)
		return mk_json_fail(j, "expected a record object");
	while ((k = mk_json_key(j, key, sizeof(key))) > 0) {
		if (strcmp(key, "record_type") == 0) {
			if (mk_json_string(j, type, sizeof(type)) < 0)
				return -1;
			other = strcmp(type, "eplb_load_stats") != 0;
			r->has_type = 1;
		} else if (strcmp(key, "step") == 0) {
			if (mk_json_number(j, &r->step) < 0)
				return -1;
			r->has_step = 1;
		} else if (strcmp(key, "expert_load") == 0) {
			k = matrix(j, "expert_load", &r->load, &r->L, &r->P);
		} else if (strcmp(key, "p2l_map") == 0) {
			k = matrix(j, "p2l_map", &r->map, &r->L, &r->P);
		} else {
			k = mk_json_skip(j);
		}
		if (k < 0)
			return -1;
	}
	if (k < 0)
		return -1;
	if (r->has_type && other)
		return 0;
	if (!r->has_type || !r->has_step || r->load == NULL || r->map == NULL)
		return mk_json_fail(j, "a record without %s",
		    !r->has_type ? "\"record_type\"" : !r->has_step ?
		    "\"step\"" : r->load == NULL ? "\"expert_load\"" :
		    "\"p2l_map\"");
	return 1;
}

/* Only blanks up to the end of the line: one record a line. */
static int
line_end(struct mk_json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
	    *j->p == '\r'))
		j->p++;
	return j->p == j->end ? 0 : mk_json_fail(j, "more after the record "
	    "(one record a line)");
}

/*
 * Every record of text through fn: pass 0 learns the shape (and E), pass
 * 1 adds each step's expert loads.  Returns the steps, or -1.
 */
static int
pass(const char *text, size_t len, const char *name, int p,
    const struct wins *w, struct mk_loads *l, size_t *L, size_t *P,
    int64_t *maxe, struct mk_loads_steps *sp, struct mk_err *e)
{
	size_t at, end, i, x;
	double last = -1;
	struct mk_json j;
	struct stats r;
	int T = 0, k;

	for (at = 0; at < len; at = end + 1) {
		const char *nl = memchr(text + at, '\n', len - at);

		end = nl ? (size_t)(nl - text) : len;
		if (mk_json_blank_line(text + at, end - at))
			continue;
		mk_json_init(&j, text, end, name, e);
		j.p = text + at;
		if ((k = record(&j, &r)) < 0 || line_end(&j) < 0)
			goto fail;
		if (k == 0) {
			stats_free(&r);
			continue;
		}
		if (T > 0 && !(r.step > last)) {
			mk_json_fail(&j, "step %.17g after step %.17g: the "
			    "records' steps must increase", r.step, last);
			goto fail;
		}
		/* the records' spacing: expert_load_stats_interval (whole
		 * steps below 2^30, else uneven) */
		if (T == 0)
			sp->first = r.step;
		else if (T == 1)
			sp->gap = r.step - last;
		if (T > 1 && r.step - last != sp->gap)
			sp->gap = -1;
		if (T == 1 && !(sp->gap == floor(sp->gap) && sp->gap < 1 << 30))
			sp->gap = -1;
		sp->last = last = r.step;
		if (T == INT32_MAX || (*L != 0 && (r.L != *L || r.P != *P))) {
			mk_json_fail(&j, T == INT32_MAX ? "too many records" :
			    "a record of [%zu, %zu], the first [%zu, %zu]",
			    r.L, r.P, *L, *P);
			goto fail;
		}
		*L = r.L;
		*P = r.P;
		for (i = 0; i < r.L * r.P; i++) {
			double m = r.map[i];

			if (!(m >= 0 && m < 1 << 24 && m == (int64_t)m)) {
				mk_json_fail(&j, "p2l_map[%zu][%zu]: %.17g is "
				    "not an expert id", i / r.P, i % r.P, m);
				goto fail;
			}
			if (p == 0 && (int64_t)m > *maxe)
				*maxe = (int64_t)m;
			if (p == 0 || (k = loads_scenario(w, T)) < 0)
				continue;
			if (loads_check(r.load[i], name, T, (int)(i / r.P),
			    (int)m, e) < 0)
				goto fail;
			x = (size_t)m;
			*loads_cell(l, k, (int)(i / r.P), (int)x) +=
			    r.load[i];
		}
		stats_free(&r);
		T++;
	}
	if (T == 0)
		return mk_err_data(e, "%s: no eplb_load_stats record", name);
	return T;
fail:
	stats_free(&r);
	return -1;
}

int
loads_vllm(const char *p, size_t n, const char *name, int window,
    int history, struct mk_loads *l, struct mk_err *e)
{
	struct wins w = LOADS_NO_STEPS;
	struct mk_loads_steps sp = { 0, 0, 0 };
	size_t L = 0, P = 0;
	int64_t maxe = -1;
	int T;

	if ((T = pass(p, n, name, 0, &w, l, &L, &P, &maxe, &sp, e)) < 0)
		return -1;
	if (maxe + 1 > (int64_t)P)
		return mk_err_data(e, "%s: expert %lld in maps of %zu slots: "
		    "every expert needs a slot", name, (long long)maxe, P);
	/* a window is of engine steps: records every g steps hold g each */
	if (window > 0 && sp.gap > 1) {
		if (window % (int64_t)sp.gap != 0)
			return mk_err_usage(e, "--window %d: %s has a record "
			    "every %.17g steps (expert_load_stats_interval): "
			    "give a multiple of %.17g", window, name, sp.gap,
			    sp.gap);
		window /= (int)sp.gap;
	}
	if (loads_windows(T, window, history, name, &w, l, e) < 0 ||
	    loads_alloc(l, &w, (int)L, (int)(maxe + 1), name, e) < 0 ||
	    pass(p, n, name, 1, &w, l, &L, &P, &maxe, &sp, e) < 0)
		return -1;
	l->steps = sp;
	l->layers = MK_LAYERS_MOE;
	return 0;
}
