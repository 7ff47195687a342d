/*
 * loads.c - reading expert load logs; see loads.h.  Dense tensors come
 * through the tensor stream readers, JSON through libjansson.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "base/mem.h"
#include "eplb/loads.h"
#include "tensor/json.h"
#include "tensor/pt.h"
#include "tensor/zip.h"
#include "tensor/stream.h"
#include "tensor/tensor.h"

void
mk_loads_free(struct mk_loads *l)
{
	int i;

	mk_mem_free(l->w);
	free(l->layer);
	free(l->zero);
	for (i = 0; l->name != NULL && i < l->S; i++)
		free(l->name[i]);
	free(l->name);
	memset(l, 0, sizeof(*l));
}

/* Room for S scenarios of L x E loads, named name. */
static int
alloc_loads(struct mk_loads *l, int S, int L, int E, const char *name,
    struct mk_err *e)
{
	int i;

	if (L < 1 || E < 1)
		return mk_err_data(e, "%s: no loads (%d layers of %d experts)",
		    name, L, E);
	if ((int64_t)S * L * E > MK_LOADS_MAX_CELLS)
		return mk_err_data(e, "%s: %d scenarios of %d layers x %d "
		    "experts exceed the limit of %d loads", name, S, L, E,
		    MK_LOADS_MAX_CELLS);
	l->S = S;
	l->L = l->L0 = L;
	l->E = E;
	l->w = mk_mem_alloc(sizeof(double) * (size_t)S * (size_t)L *
	    (size_t)E);
	l->layer = malloc(sizeof(int) * (size_t)L);
	l->name = calloc((size_t)S, sizeof(char *));
	if (l->w == NULL || l->layer == NULL || l->name == NULL)
		return mk_err_data(e, "%s: out of memory", name);
	for (i = 0; i < S; i++)
		if ((l->name[i] = strdup(name)) == NULL)
			return mk_err_data(e, "%s: out of memory", name);
	for (i = 0; i < L; i++)
		l->layer[i] = i;
	return 0;
}

/* The load of scenario k, layer i, expert j. */
static double *
cell(struct mk_loads *l, int k, int i, int j)
{
	return l->w + ((size_t)k * (size_t)l->L + (size_t)i) * (size_t)l->E +
	    (size_t)j;
}

/* One load value: finite and >= 0, or an error naming where it was. */
static int
check_value(double v, const char *name, int step, int layer, int expert,
    struct mk_err *e)
{
	char where[96];

	if (isfinite(v) && v >= 0)
		return 0;
	if (step >= 0)
		snprintf(where, sizeof(where), "step %d, layer %d, expert %d",
		    step, layer, expert);
	else
		snprintf(where, sizeof(where), "layer %d, expert %d", layer,
		    expert);
	return mk_err_data(e, "%s: %s: load %g is %s (loads must be finite "
	    "and >= 0)", name, where, v, isnan(v) ? "not a number" :
	    isinf(v) ? "infinite" : "negative");
}

/*
 * Which steps of a log of T make which scenario: the last `history`
 * windows of `window` steps (window 0: all steps; one window longer than
 * the log: all steps).
 */
struct wins {
	int	 first;		/* the first step used */
	int	 n;		/* steps per scenario */
};

static int
windows(int T, int window, int history, const char *name, struct wins *w,
    struct mk_loads *l, struct mk_err *e)
{
	if (T < 1)
		return mk_err_data(e, "%s: the load log has no steps", name);
	if (history > 1 && (int64_t)window * history > T)
		return mk_err_data(e, "%s: --window %d --history %d needs %lld "
		    "steps; the log has %d", name, window, history,
		    (long long)window * history, T);
	if (history > 1) {
		w->n = window;
		w->first = T - window * history;
	} else {
		w->first = window > 0 && window < T ? T - window : 0;
		w->n = T - w->first;
	}
	l->T = T;
	l->used = w->n;
	return 0;
}

/* The scenario of step t, or -1 if it is not used. */
static int
scenario_of(const struct wins *w, int t)
{
	return t < w->first ? -1 : (t - w->first) / w->n;
}

/* Options that need a step dimension, on input without one. */
static int
no_steps(int window, int history, const char *name, const char *what,
    struct mk_err *e)
{
	if (history > 1)
		return mk_err_usage(e, "--history %d: %s has no step dimension "
		    "(%s)", history, name, what);
	if (window > 0)
		return mk_err_usage(e, "--window %d: %s has no step dimension "
		    "(%s)", window, name, what);
	return 0;
}

/*
 * dst[j] += element at + j of t, for j < n, in one typed loop (a switch
 * per element cost more than the rest of a deepseek plan).  Returns -1,
 * or the first j whose value is not finite and >= 0 (dst is then
 * incomplete).
 */
static int64_t
add_row(const struct mk_tensor *t, size_t at, size_t n, double *dst)
{
	size_t j;
	double v;
	int bad = 0;

#define ADD(T)	for (j = 0; j < n; j++) {				\
		v = (double)((const T *)t->data)[at + j];		\
		bad |= !(v >= 0 && v <= DBL_MAX);			\
		dst[j] += v;						\
	}								\
	break
	switch (t->dtype) {
	case MK_F64:	ADD(double);
	case MK_F32:	ADD(float);
	case MK_I64:	ADD(int64_t);
	case MK_I32:	ADD(int32_t);
	case MK_U32:	ADD(uint32_t);
	case MK_U64:	ADD(uint64_t);
	default:
		for (j = 0; j < n; j++) {
			v = mk_tensor_get_f64(t, at + j);
			bad |= !(v >= 0 && v <= DBL_MAX);
			dst[j] += v;
		}
		break;
	}
#undef ADD
	if (!bad)
		return -1;
	for (j = 0; j < n; j++) {
		v = mk_tensor_get_f64(t, at + j);
		if (!(v >= 0 && v <= DBL_MAX))
			return (int64_t)j;
	}
	return -1;
}

static int
from_dense(const struct mk_tensor *t, const char *name, int window,
    int history, struct mk_loads *l, struct mk_err *e)
{
	char sb[128];
	int T = 1, L, E, st, i, k;
	struct wins w = { 0, 1 };
	int64_t bad;
	size_t at;

	if (mk_dtype_kind(t->dtype) == 0)
		return mk_err_data(e, "%s: unsupported dtype", name);
	switch (t->ndim) {
	case 1: L = 1; E = (int)t->shape[0]; break;
	case 2: L = (int)t->shape[0]; E = (int)t->shape[1]; break;
	case 3: T = (int)t->shape[0]; L = (int)t->shape[1];
		E = (int)t->shape[2]; break;
	default:
		return mk_err_data(e, "%s: loads of shape (%s): expected [E], "
		    "[L, E] or [T, L, E]", name, mk_shape_str(sb, sizeof(sb),
		    t->ndim, t->shape));
	}
	if (t->ndim < 3) {
		char what[200];

		snprintf(what, sizeof(what), "shape (%s); a load log is "
		    "[T, L, E]", mk_shape_str(sb, sizeof(sb), t->ndim,
		    t->shape));
		if (no_steps(window, history, name, what, e) < 0)
			return -1;
	}
	if (t->ndim == 3 && windows(T, window, history, name, &w, l, e) < 0)
		return -1;
	if (alloc_loads(l, history, L, E, name, e) < 0)
		return -1;
	for (st = 0; st < T; st++) {
		if ((k = scenario_of(&w, st)) < 0)
			continue;
		for (i = 0; i < L; i++) {
			at = ((size_t)st * (size_t)L + (size_t)i) * (size_t)E;
			if ((bad = add_row(t, at, (size_t)E, cell(l, k, i, 0)))
			    >= 0)
				return check_value(mk_tensor_get_f64(t, at +
				    (size_t)bad), name, t->ndim == 3 ? st : -1, i,
				    (int)bad, e);
		}
	}
	return 0;
}

/* Column index of name in the header, or -1. */
static int
col(const struct mk_tensor *t, const char *name)
{
	int i;

	for (i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i], name) == 0)
			return i;
	return -1;
}

static int
is_long_form(const struct mk_tensor *t)
{
	return t->ndim == 2 && (t->ncols == 3 || t->ncols == 4) &&
	    col(t, "layer") == t->ncols - 3 && col(t, "expert") == t->ncols - 2
	    && col(t, "load") == t->ncols - 1 &&
	    (t->ncols == 3 || col(t, "step") == 0);
}

/* An id column value: a non-negative integer below limit. */
static int
id_value(const struct mk_tensor *t, size_t row, int c, const char *what,
    int64_t limit, const char *name, int64_t *out, struct mk_err *e)
{
	double v = mk_tensor_get_f64(t, row * (size_t)t->shape[1] + (size_t)c);

	if (!(v >= 0) || v != floor(v) || v >= (double)limit)
		return mk_err_data(e, "%s: data row %zu: %s %g is not an "
		    "integer in [0, %lld)", name, row + 1, what, v,
		    (long long)limit);
	*out = (int64_t)v;
	return 0;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The distinct step values of a long table, ascending, into *out. */
static int
distinct_steps(const struct mk_tensor *t, const char *name, int64_t **out,
    size_t *n, struct mk_err *e)
{
	size_t rows = (size_t)t->shape[0], r;
	int64_t *steps;

	if ((steps = malloc(sizeof(int64_t) * rows)) == NULL)
		return mk_err_data(e, "%s: out of memory", name);
	for (r = 0; r < rows; r++)
		if (id_value(t, r, 0, "step", INT64_MAX / 2, name, &steps[r],
		    e) < 0) {
			free(steps);
			return -1;
		}
	qsort(steps, rows, sizeof(int64_t), cmp_i64);
	for (*n = 0, r = 0; r < rows; r++)
		if (r == 0 || steps[r] != steps[r - 1])
			steps[(*n)++] = steps[r];
	*out = steps;
	return 0;
}

/* The index of step value v among the distinct steps. */
static int
step_index(const int64_t *steps, size_t n, int64_t v)
{
	const int64_t *p = bsearch(&v, steps, n, sizeof(int64_t), cmp_i64);

	return p ? (int)(p - steps) : -1;
}

static int
from_long(const struct mk_tensor *t, const char *name, int window,
    int history, struct mk_loads *l, struct mk_err *e)
{
	size_t rows = (size_t)t->shape[0], r, nsteps = 0;
	int c0 = t->ncols - 3, has_step = t->ncols == 4, k = 0;
	int64_t L = 0, E = 0, id, lay, exp, *steps = NULL, st = 0;
	struct wins w = { 0, 1 };
	double v;

	if (rows == 0)
		return mk_err_data(e, "%s: no load rows", name);
	for (r = 0; r < rows; r++) {
		if (id_value(t, r, c0, "layer", 1 << 20, name, &id, e) < 0)
			return -1;
		L = id + 1 > L ? id + 1 : L;
		if (id_value(t, r, c0 + 1, "expert", 1 << 20, name, &id, e) < 0)
			return -1;
		E = id + 1 > E ? id + 1 : E;
	}
	/* the windows count distinct step values, latest last */
	if (has_step && (distinct_steps(t, name, &steps, &nsteps, e) < 0 ||
	    windows(nsteps < INT32_MAX ? (int)nsteps : INT32_MAX, window,
	    history, name, &w, l, e) < 0))
		goto bad;
	if (!has_step && no_steps(window, history, name, "no step column",
	    e) < 0)
		return -1;
	if (alloc_loads(l, history, (int)L, (int)E, name, e) < 0)
		goto bad;
	for (r = 0; r < rows; r++) {
		id_value(t, r, c0, "layer", L, name, &lay, e);
		id_value(t, r, c0 + 1, "expert", E, name, &exp, e);
		if (has_step) {
			id_value(t, r, 0, "step", INT64_MAX / 2, name, &st, e);
			k = scenario_of(&w, step_index(steps, nsteps, st));
		}
		v = mk_tensor_get_f64(t, r * (size_t)t->shape[1] +
		    (size_t)c0 + 2);
		if (check_value(v, name, has_step ? (int)st : -1, (int)lay,
		    (int)exp, e) < 0)
			goto bad;
		if (k >= 0)
			*cell(l, k, (int)lay, (int)exp) += v;
	}
	free(steps);
	return 0;
bad:
	free(steps);
	return -1;
}

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
			if (check_value(v[(size_t)i * l->E + x], name, step, i,
			    x, e) < 0) {
				free(v);
				return -1;
			}
			*cell(l, k, i, x) += v[(size_t)i * l->E + x];
		}
	free(v);
	return 0;
}

/* SGLang's "logical_count": [L, E], or [T, L, E] steps. */
static int
from_logical_count(struct mk_json *j, const char *name, int window,
    int history, struct mk_loads *l, struct mk_err *e)
{
	struct wins w = { 0, 1 };
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
	if ((nd == 2 && no_steps(window, history, name, "one [L, E] count",
	    e) < 0) || (nd == 3 && windows(T, window, history, name, &w, l,
	    e) < 0) || alloc_loads(l, history, L, E, name, e) < 0)
		goto out;
	for (st = 0; st < T; st++) {
		if ((k = scenario_of(&w, st)) < 0)
			continue;
		for (i = 0; i < L; i++)
			for (x = 0; x < E; x++) {
				double y = v[((size_t)st * L + i) * E + x];
				if (check_value(y, name, nd == 3 ? st : -1, i,
				    x, e) < 0)
					goto out;
				*cell(l, k, i, x) += y;
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
	struct wins w = { 0, 1 };
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
					if (json_matrix(j, l, scenario_of(&w,
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
			if (windows(T, window, history, name, &w, l, e) < 0 ||
			    alloc_loads(l, history, nd, st, name, e) < 0)
				return -1;
		}
	}
	return 0;
}

/* A JSON load file: SGLang's dump or the vLLM/ADRS history. */
static int
from_json(struct mk_src *s, int window, int history, struct mk_loads *l,
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
	mk_json_init(&j, (const char *)p, n, name, e);
	if (mk_json_peek(&j) != MK_JSON_OBJECT)
		return e->msg[0] && mk_json_peek(&j) < 0 ? -1 :
		    mk_json_fail(&j, "expected an object with \"logical_count\" "
		    "(SGLang) or \"load_history\" (vLLM/ADRS)");
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
static int
from_pt(struct mk_src *s, int window, int history, struct mk_loads *l,
    struct mk_err *e)
{
	const struct mk_pt_item *it;
	struct mk_zip *z;
	struct mk_pt pt;
	int pkl, r = -1;

	memset(&pt, 0, sizeof(pt));
	if ((z = mk_zip_open(s, e)) == NULL)
		return -1;
	if ((pkl = mk_pt_find(z)) < 0) {
		mk_err_data(e, "%s: a zip archive without data.pkl: not a torch "
		    ".pt file (eplb-plan reads SGLang's expert-distribution "
		    "dumps)", mk_src_name(s));
	} else if (mk_pt_read(z, pkl, &pt, e) == 0) {
		it = mk_pt_get(&pt, "logical_count");
		if (it == NULL || it->kind != MK_PT_TENSOR)
			mk_err_data(e, "%s: a torch .pt without a "
			    "\"logical_count\" tensor (SGLang's expert-"
			    "distribution dump holds one)", mk_src_name(s));
		else
			r = from_dense(&it->t, mk_src_name(s), window, history,
			    l, e);
	}
	mk_pt_free(&pt);
	mk_zip_close(z);
	return r;
}

int
mk_loads_read(struct mk_src *s, int window, int history, struct mk_loads *l,
    struct mk_err *e)
{
	struct mk_tensor t, extra;
	int fmt, r;

	memset(l, 0, sizeof(*l));
	if (history < 1)
		history = 1;
	if ((fmt = mk_src_format(s, e)) < 0)
		return -1;
	if (fmt == MK_FMT_JSON) {
		r = from_json(s, window, history, l, e);
	} else if (fmt == MK_FMT_ZIP) {
		r = from_pt(s, window, history, l, e);
	} else {
		mk_tensor_init(&t);
		mk_tensor_init(&extra);
		if (mk_src_next(s, &t, e) < 0)
			return -1;
		if ((r = mk_src_next(s, &extra, e)) != 0) {
			mk_tensor_free(&t);
			mk_tensor_free(&extra);
			return r < 0 ? -1 : mk_err_data(e, "%s: more than one "
			    "tensor (expected one load tensor)", mk_src_name(s));
		}
		r = is_long_form(&t) ? from_long(&t, mk_src_name(s), window,
		    history, l, e) : from_dense(&t, mk_src_name(s), window,
		    history, l, e);
		mk_tensor_free(&t);
	}
	if (r < 0)
		mk_loads_free(l);
	return r;
}

int
mk_loads_join(struct mk_loads *dst, struct mk_loads *src, struct mk_err *e)
{
	size_t cells = (size_t)dst->L * (size_t)dst->E, S;
	double *w;
	char **nm;
	int i;

	if (dst->S == 0) {
		*dst = *src;
		memset(src, 0, sizeof(*src));
		return 0;
	}
	if (src->L != dst->L || src->E != dst->E)
		return mk_err_data(e, "%s: %d layers x %d experts, but %s has "
		    "%d x %d: scenarios must be of one model", src->name[0],
		    src->L, src->E, dst->name[0], dst->L, dst->E);
	S = (size_t)dst->S + (size_t)src->S;
	if (S * cells > MK_LOADS_MAX_CELLS)
		return mk_err_data(e, "%s: %zu scenarios of %d x %d exceed the "
		    "limit of %d loads", src->name[0], S, dst->L, dst->E,
		    MK_LOADS_MAX_CELLS);
	if ((w = mk_mem_alloc(S * cells * sizeof(double))) == NULL)
		return mk_err_data(e, "%s: out of memory", src->name[0]);
	memcpy(w, dst->w, (size_t)dst->S * cells * sizeof(double));
	mk_mem_free(dst->w);
	dst->w = w;
	if ((nm = realloc(dst->name, S * sizeof(char *))) == NULL)
		return mk_err_data(e, "%s: out of memory", src->name[0]);
	dst->name = nm;
	memcpy(dst->w + (size_t)dst->S * cells, src->w, (size_t)src->S * cells *
	    sizeof(double));
	for (i = 0; i < src->S; i++) {
		dst->name[dst->S + i] = src->name[i];
		src->name[i] = NULL;
	}
	dst->S = (int)S;
	mk_loads_free(src);
	return 0;
}

/* Whether layer i is all zero in every scenario. */
static int
zero_layer(struct mk_loads *l, int i)
{
	int k, x;

	for (k = 0; k < l->S; k++)
		for (x = 0; x < l->E; x++)
			if (*cell(l, k, i, x) != 0)
				return 0;
	return 1;
}

/* Each scenario's layer must sum to a finite number. */
static int
check_sums(struct mk_loads *l, struct mk_err *e)
{
	double sum;
	int k, i, x;

	for (k = 0; k < l->S; k++)
		for (i = 0; i < l->L; i++) {
			for (sum = 0, x = 0; x < l->E; x++)
				sum += *cell(l, k, i, x);
			if (!(sum <= DBL_MAX))
				return mk_err_data(e, "%s: layer %d: the loads "
				    "sum to more than %g, beyond what double "
				    "precision carries", l->name[k], i, DBL_MAX);
		}
	return 0;
}

int
mk_loads_finish(struct mk_loads *l, int skip, struct mk_err *e)
{
	size_t cells = (size_t)l->E, to = 0;
	int i, k, j;

	if (check_sums(l, e) < 0)
		return -1;
	if ((l->zero = malloc(sizeof(int) * (size_t)l->L)) == NULL)
		return mk_err_data(e, "%s: out of memory", l->name[0]);
	for (i = 0; i < l->L; i++)
		if (zero_layer(l, i))
			l->zero[l->nzero++] = i;
	if (!skip || l->nzero == 0)
		return 0;
	if (l->nzero == l->L)
		return mk_err_data(e, "%s: every one of the %d layers has zero "
		    "load; nothing left to plan", l->name[0], l->L);
	/* rows move only towards the front: one pass, in order */
	for (k = 0; k < l->S; k++)
		for (i = 0, j = 0; i < l->L; i++) {
			if (j < l->nzero && l->zero[j] == i) {
				j++;
				continue;
			}
			memmove(l->w + to * cells, cell(l, k, i, 0), cells *
			    sizeof(double));
			to++;
		}
	for (i = 0, j = 0, k = 0; i < l->L; i++) {
		if (j < l->nzero && l->zero[j] == i)
			j++;
		else
			l->layer[k++] = i;
	}
	l->L = k;
	l->skipped = 1;
	return 0;
}

int
mk_loads_read_all(const char *const *paths, int n, int window, int history,
    int skip, struct mk_loads *l, int *fmt, struct mk_err *e)
{
	struct mk_loads one;
	struct mk_src *s;
	int i = 0, f, r = -1;

	memset(l, 0, sizeof(*l));
	do {
		if ((s = mk_src_open(n ? paths[i] : NULL, e)) == NULL)
			goto out;
		f = mk_src_format(s, e);
		r = f < 0 || mk_loads_read(s, window, history, &one, e) < 0 ||
		    mk_loads_join(l, &one, e) < 0 ? -1 : 0;
		mk_src_close(s);
		if (r < 0)
			goto out;
		if (i == 0)
			*fmt = f;
	} while (++i < n);
	r = mk_loads_finish(l, skip, e);
out:
	if (r < 0)
		mk_loads_free(l);
	return r;
}
