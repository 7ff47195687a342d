/*
 * loads_json.c - expert loads from JSON (SGLang's {"logical_count"}, the
 * vLLM/ADRS evaluator's {"load_history"}) and from SGLang's torch .pt
 * dumps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moe/loads.h"
#include "moe/loads_impl.h"
#include "tensor/json.h"
#include "tensor/stream.h"
#include "tensor/pt.h"
#include "tensor/src.h"
#include "tensor/npz.h"
#include "tensor/zip.h"

/*
 * JSON: one [L, E] matrix of numbers at the cursor into scenario k (k < 0:
 * skipped, but read and checked all the same); path names it ("step 3").
 */
static int
json_matrix(struct mk_json *j, struct mk_loads *l, int k, int step,
    const char *what, const char *name, struct mk_err *e)
{
	size_t dims[2];
	double *v = NULL;
	int nd, i, x;

	if (mk_json_numbers(j, what, 2, MK_LOADS_MAX_CELLS, &nd, dims, &v) < 0)
		return -1;
	if (nd != 2 || dims[0] != (size_t)l->L || dims[1] != (size_t)l->E) {
		free(v);
		return mk_json_fail(j, "%s is %s[%zu, %zu], expected [%d, %d]",
		    what, nd == 2 ? "" : "not a matrix: ", nd > 0 ? dims[0] : 0,
		    nd > 1 ? dims[1] : 0, l->L, l->E);
	}
	for (i = 0; i < l->L && k >= 0; i++)
		for (x = 0; x < l->E; x++) {
			if (loads_check(v[(size_t)i * l->E + x], name, step, i,
			    x, e) < 0) {
				free(v);
				return -1;
			}
			*loads_cell(l, k, i, x) += v[(size_t)i * l->E + x];
		}
	free(v);
	return 0;
}

/* SGLang's "logical_count": [L, E], or [T, L, E] steps. */
static int
from_logical_count(struct mk_json *j, const char *name, int window,
    int history, struct mk_loads *l, struct mk_err *e)
{
	struct wins w = LOADS_NO_STEPS;
	size_t dims[3];
	double *v = NULL;
	int nd, T, L, E, st, k, i, x, r = -1;

	if (mk_json_numbers(j, "logical_count", 3, MK_LOADS_MAX_CELLS, &nd,
	    dims, &v) < 0)
		return -1;
	if (nd < 2 || dims[nd - 1] == 0 || dims[nd - 2] == 0 ||
	    (nd == 3 && dims[0] == 0) || dims[0] > INT32_MAX) {
		mk_json_fail(j, "logical_count must be [L, E] or [T, L, E] "
		    "numbers");
		goto out;
	}
	T = nd == 3 ? (int)dims[0] : 1;
	L = (int)dims[nd - 2];
	E = (int)dims[nd - 1];
	if ((nd == 2 && loads_no_steps(window, history, name, "one [L, E] count",
	    e) < 0) || (nd == 3 && loads_windows(T, window, history, name, &w, l,
	    e) < 0) || loads_alloc(l, &w, L, E, name, e) < 0)
		goto out;
	l->layers = MK_LAYERS_MODEL;	/* SGLang's: every model layer */
	for (st = 0; st < T; st++) {
		if ((k = loads_scenario(&w, st)) < 0)
			continue;
		for (i = 0; i < L; i++)
			for (x = 0; x < E; x++) {
				double y = v[((size_t)st * L + i) * E + x];
				if (loads_check(y, name, nd == 3 ? st : -1, i,
				    x, e) < 0)
					goto out;
				*loads_cell(l, k, i, x) += y;
			}
	}
	r = 0;
out:
	free(v);
	return r;
}

/*
 * The vLLM/ADRS evaluator's "load_history": [{"logical_expert_load":
 * [L, E]}, ...], one entry per step.  The entries are read twice: once
 * to count the steps and learn L and E, once to sum the windows.
 */
static int
from_load_history(struct mk_json *j, const char *name, int window,
    int history, struct mk_loads *l, struct mk_err *e)
{
	struct mk_json again = *j;
	struct wins w = LOADS_NO_STEPS;
	char key[64], what[64];
	size_t dims[2];
	double *v = NULL;
	int r, T = 0, nd, pass, st, found;

	for (pass = 0; pass < 2; pass++) {
		*j = again;
		st = 0;
		while ((r = mk_json_item(j)) > 0) {
			found = 0;
			snprintf(what, sizeof(what), "load_history[%d]", st);
			while ((r = mk_json_key(j, key, sizeof(key))) > 0) {
				if (strcmp(key, "logical_expert_load") != 0) {
					if (mk_json_skip(j) < 0)
						return -1;
					continue;
				}
				if (found++)
					return mk_json_fail(j, "%s has two "
					    "logical_expert_load", what);
				if (pass == 1) {
					if (json_matrix(j, l, loads_scenario(&w,
					    st), st, what, name, e) < 0)
						return -1;
				} else if (st == 0) {
					if (mk_json_numbers(j, what, 2,
					    MK_LOADS_MAX_CELLS, &nd, dims, &v)
					    < 0)
						return -1;
					free(v);
					if (nd != 2 || dims[0] == 0 ||
					    dims[1] == 0)
						return mk_json_fail(j, "%s: "
						    "logical_expert_load must "
						    "be [L, E] numbers", what);
					l->L = (int)dims[0];
					l->E = (int)dims[1];
				} else if (mk_json_skip(j) < 0) {
					return -1;
				}
			}
			if (r < 0)
				return -1;
			if (!found)
				return mk_json_fail(j, "%s has no "
				    "logical_expert_load", what);
			if (++st == INT32_MAX)
				return mk_json_fail(j, "more than %d steps",
				    INT32_MAX);
		}
		if (r < 0)
			return -1;
		if (pass == 0) {
			if ((T = st) == 0)
				return mk_json_fail(j, "load_history must be a "
				    "non-empty array");
			nd = l->L;
			st = l->E;
			if (loads_windows(T, window, history, name, &w, l, e) < 0 ||
			    loads_alloc(l, &w, nd, st, name, e) < 0)
				return -1;
			/* vLLM's EPLB state: its MoE layers */
			l->layers = MK_LAYERS_MOE;
		}
	}
	return 0;
}

/*
 * Whether the first object has a key "record_type" (in any place: JSON's
 * keys are unordered, and jq -S sorts them): JSON lines of vLLM's EPLB
 * records.  A load key of the other files ends the search, so an SGLang
 * dump is not read twice.
 */
static int
is_records(const char *p, size_t n, const char *name)
{
	struct mk_json j;
	struct mk_err e;
	char key[64];

	mk_json_init(&j, p, n, name, &e);
	if (mk_json_peek(&j) != MK_JSON_OBJECT)
		return 0;
	while (mk_json_key(&j, key, sizeof(key)) > 0) {
		if (strcmp(key, "record_type") == 0)
			return 1;
		if (strcmp(key, "logical_count") == 0 ||
		    strcmp(key, "load_history") == 0 || mk_json_skip(&j) < 0)
			return 0;
	}
	return 0;
}

/*
 * A JSON load file: SGLang's dump, the vLLM/ADRS history, or vLLM's
 * eplb_load_stats records (loads_vllm.c).
 */
int
loads_json(struct mk_src *s, int window, int history, struct mk_loads *l,
    struct mk_err *e)
{
	const char *name = mk_src_name(s);
	const unsigned char *p;
	struct mk_json j;
	char key[64];
	size_t n;
	int r, seen = 0;

	if (mk_src_slurp(s, &p, &n, e) < 0)
		return -1;
	if (is_records((const char *)p, n, name))
		return loads_vllm((const char *)p, n, name, window, history, l,
		    e);
	if (mk_moe_input_kind(NULL, p, n, MK_FMT_JSON, NULL) == MK_MOE_ROUTING)
		return mk_err_data(e, "%s: routing records (a token's experts a "
		    "line), not loads: eplb-replay replays them (-E); eplb-plan "
		    "scores a plan's traffic on them (--routing)", name);
	mk_json_init(&j, (const char *)p, n, name, e);
	if (mk_json_peek(&j) != MK_JSON_OBJECT)
		return e->msg[0] && mk_json_peek(&j) < 0 ? -1 :
		    mk_json_fail(&j, "expected an object with \"logical_count\" "
		    "(SGLang), \"load_history\" (vLLM/ADRS) or \"record_type\" "
		    "(vLLM's eplb_load_stats lines)");
	while ((r = mk_json_key(&j, key, sizeof(key))) > 0) {
		if (strcmp(key, "logical_count") == 0 ||
		    strcmp(key, "load_history") == 0) {
			if (seen++)
				return mk_json_fail(&j, "a second load key "
				    "\"%s\"", key);
			r = strcmp(key, "logical_count") == 0 ?
			    from_logical_count(&j, name, window, history, l, e) :
			    from_load_history(&j, name, window, history, l, e);
		} else {
			r = mk_json_skip(&j);
		}
		if (r < 0)
			return -1;
	}
	if (r < 0 || mk_json_end(&j) < 0)
		return -1;
	if (!seen)
		return mk_err_data(e, "%s: JSON without \"logical_count\" "
		    "(SGLang) or \"load_history\" (vLLM/ADRS) loads", name);
	return 0;
}

/* A torch .pt: SGLang's dump, dict(rank, logical_count, ...). */
int
loads_pt(struct mk_src *s, int window, int history, struct mk_loads *l,
    struct mk_err *e)
{
	const struct mk_pt_item *it;
	struct mk_tensor npz;
	struct mk_zip *z;
	struct mk_pt pt;
	int pkl, r = -1;

	memset(&pt, 0, sizeof(pt));
	if ((z = mk_zip_open(s, e)) == NULL)
		return -1;
	if ((pkl = mk_pt_find(z)) < 0) {
		/* np.savez's archive of one load tensor */
		mk_tensor_init(&npz);
		if (mk_zip_count(z) != 1)
			mk_err_data(e, "%s: a zip archive without data.pkl and "
			    "with %d members: neither a torch .pt file nor an "
			    ".npz of one load tensor", mk_src_name(s),
			    mk_zip_count(z));
		else if (mk_npz_member(z, 0, &npz, e) == 1)
			r = loads_tensor(&npz, mk_src_name(s), window,
			    history, l, e);
		mk_tensor_free(&npz);
	} else if (mk_pt_read(z, pkl, &pt, e) == 0) {
		it = mk_pt_get(&pt, "logical_count");
		if (it == NULL || it->kind != MK_PT_TENSOR)
			mk_err_data(e, "%s: a torch .pt without a "
			    "\"logical_count\" tensor (SGLang's recorder "
			    "writes one in its stat mode; per_pass dumps are "
			    "not read)", mk_src_name(s));
		else if ((r = loads_dense(&it->t, mk_src_name(s), window,
		    history, l, e)) == 0)
			l->layers = MK_LAYERS_MODEL;
	}
	mk_pt_free(&pt);
	mk_zip_close(z);
	return r;
}

