/*
 * loads.c - reading expert load logs; see loads.h.  Dense tensors come
 * through the tensor stream readers, JSON through libjansson.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "eplb/loads.h"
#include "tensor/stream.h"
#include "tensor/tensor.h"

void
mk_loads_free(struct mk_loads *l)
{
	free(l->w);
	free(l->layer);
	free(l->zero);
	memset(l, 0, sizeof(*l));
}

static int
alloc_loads(struct mk_loads *l, int L, int E, const char *name,
    struct mk_err *e)
{
	if (L < 1 || E < 1)
		return mk_err_data(e, "%s: no loads (%d layers of %d experts)",
		    name, L, E);
	if ((int64_t)L * E > MK_LOADS_MAX_CELLS)
		return mk_err_data(e, "%s: %d layers x %d experts exceeds the "
		    "limit of %d loads", name, L, E, MK_LOADS_MAX_CELLS);
	l->L = L;
	l->E = E;
	l->w = calloc((size_t)L * (size_t)E, sizeof(double));
	l->layer = malloc(sizeof(int) * (size_t)L);
	if (l->w == NULL || l->layer == NULL)
		return mk_err_data(e, "%s: out of memory", name);
	return 0;
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

/* First step summed when the last `window` of T steps are used. */
static int
first_step(int T, int window, struct mk_loads *l)
{
	int first = window > 0 && window < T ? T - window : 0;

	l->T = T;
	l->used = T - first;
	return first;
}

static int
from_dense(const struct mk_tensor *t, const char *name, int window,
    struct mk_loads *l, struct mk_err *e)
{
	char sb[128];
	int T = 1, L, E, s, i, j, first = 0;
	size_t k;
	double v;

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
	if (t->ndim < 3 && window > 0)
		return mk_err_usage(e, "--window %d: %s has no step dimension "
		    "(shape (%s); a load log is [T, L, E])", window, name,
		    mk_shape_str(sb, sizeof(sb), t->ndim, t->shape));
	if (t->ndim == 3) {
		if (T < 1)
			return mk_err_data(e, "%s: the load log has no steps",
			    name);
		first = first_step(T, window, l);
	}
	if (alloc_loads(l, L, E, name, e) < 0)
		return -1;
	for (s = first; s < T; s++)
		for (i = 0; i < L; i++)
			for (j = 0; j < E; j++) {
				k = ((size_t)s * (size_t)L + (size_t)i) *
				    (size_t)E + (size_t)j;
				v = mk_tensor_get_f64(t, k);
				if (check_value(v, name, t->ndim == 3 ? s : -1,
				    i, j, e) < 0)
					return -1;
				l->w[(size_t)i * (size_t)E + (size_t)j] += v;
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

static int
from_long(const struct mk_tensor *t, const char *name, int window,
    struct mk_loads *l, struct mk_err *e)
{
	size_t rows = (size_t)t->shape[0], r, nsteps = 0;
	int c0 = t->ncols - 3, has_step = t->ncols == 4, first;
	int64_t L = 0, E = 0, id, lay, exp, *steps = NULL, minstep = 0;
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
	if (has_step) {
		/* The window counts distinct step values, latest last. */
		if ((steps = malloc(sizeof(int64_t) * rows)) == NULL)
			return mk_err_data(e, "%s: out of memory", name);
		for (r = 0; r < rows; r++)
			if (id_value(t, r, 0, "step", INT64_MAX / 2, name,
			    &steps[r], e) < 0) {
				free(steps);
				return -1;
			}
		qsort(steps, rows, sizeof(int64_t), cmp_i64);
		for (r = 0; r < rows; r++)
			if (r == 0 || steps[r] != steps[r - 1])
				steps[nsteps++] = steps[r];
		first = first_step((int)(nsteps < INT32_MAX ? nsteps :
		    INT32_MAX), window, l);
		minstep = steps[first];
		free(steps);
	} else if (window > 0) {
		return mk_err_usage(e, "--window %d: %s has no step column",
		    window, name);
	}
	if (alloc_loads(l, (int)L, (int)E, name, e) < 0)
		return -1;
	for (r = 0; r < rows; r++) {
		int64_t st = 0;
		id_value(t, r, c0, "layer", L, name, &lay, e);
		id_value(t, r, c0 + 1, "expert", E, name, &exp, e);
		if (has_step)
			id_value(t, r, 0, "step", INT64_MAX / 2, name, &st, e);
		v = mk_tensor_get_f64(t, r * (size_t)t->shape[1] +
		    (size_t)c0 + 2);
		if (check_value(v, name, has_step ? (int)st : -1, (int)lay,
		    (int)exp, e) < 0)
			return -1;
		if (!has_step || st >= minstep)
			l->w[lay * E + exp] += v;
	}
	return 0;
}

/* JSON: the shape of a nested array of numbers, checked to be regular. */
static int
json_dims(json_t *a, size_t *dims, int maxd)
{
	int d = 0;

	while (json_is_array(a) && d < maxd) {
		dims[d++] = json_array_size(a);
		if (json_array_size(a) == 0)
			break;
		a = json_array_get(a, 0);
	}
	return d;
}

/*
 * Add the [L][E] array a into w (checking every row's length and every
 * value); path names it in messages.
 */
static int
json_add_matrix(json_t *a, size_t L, size_t E, int step, const char *path,
    const char *name, double *w, struct mk_err *e)
{
	json_t *row, *v;
	size_t i, j;

	if (!json_is_array(a) || json_array_size(a) != L)
		return mk_err_data(e, "%s: %s has %zu layers, expected %zu",
		    name, path, json_is_array(a) ? json_array_size(a) : 0, L);
	for (i = 0; i < L; i++) {
		row = json_array_get(a, i);
		if (!json_is_array(row) || json_array_size(row) != E)
			return mk_err_data(e, "%s: %s[%zu] has %zu experts, "
			    "expected %zu", name, path, i, json_is_array(row) ?
			    json_array_size(row) : 0, E);
		for (j = 0; j < E; j++) {
			v = json_array_get(row, j);
			if (!json_is_number(v))
				return mk_err_data(e, "%s: %s[%zu][%zu] is not "
				    "a number", name, path, i, j);
			if (check_value(json_number_value(v), name, step,
			    (int)i, (int)j, e) < 0)
				return -1;
			w[i * E + j] += json_number_value(v);
		}
	}
	return 0;
}

static int
from_logical_count(json_t *lc, const char *name, int window,
    struct mk_loads *l, struct mk_err *e)
{
	size_t dims[4] = { 0 }, s;
	char path[64];
	int d = json_dims(lc, dims, 4), first;

	if (d == 2) {
		if (window > 0)
			return mk_err_usage(e, "--window %d: %s holds one "
			    "[L, E] count, no steps", window, name);
		if (alloc_loads(l, (int)dims[0], (int)dims[1], name, e) < 0)
			return -1;
		return json_add_matrix(lc, dims[0], dims[1], -1,
		    "logical_count", name, l->w, e);
	}
	if (d != 3 || dims[0] == 0)
		return mk_err_data(e, "%s: logical_count must be [L, E] or "
		    "[T, L, E] numbers", name);
	if (dims[0] > INT32_MAX || alloc_loads(l, (int)dims[1], (int)dims[2],
	    name, e) < 0)
		return -1;
	first = first_step((int)dims[0], window, l);
	for (s = (size_t)first; s < dims[0]; s++) {
		snprintf(path, sizeof(path), "logical_count[%zu]", s);
		if (json_add_matrix(json_array_get(lc, s), dims[1], dims[2],
		    (int)s, path, name, l->w, e) < 0)
			return -1;
	}
	return 0;
}

static int
from_load_history(json_t *lh, const char *name, int window,
    struct mk_loads *l, struct mk_err *e)
{
	size_t n = json_array_size(lh), s, dims[3];
	json_t *m;
	char path[80];
	int first;

	if (!json_is_array(lh) || n == 0)
		return mk_err_data(e, "%s: load_history must be a non-empty "
		    "array", name);
	m = json_object_get(json_array_get(lh, 0), "logical_expert_load");
	if (json_dims(m, dims, 3) != 2)
		return mk_err_data(e, "%s: load_history[0].logical_expert_load "
		    "must be [L, E] numbers", name);
	if (n > INT32_MAX || alloc_loads(l, (int)dims[0], (int)dims[1], name,
	    e) < 0)
		return -1;
	first = first_step((int)n, window, l);
	for (s = (size_t)first; s < n; s++) {
		m = json_object_get(json_array_get(lh, s),
		    "logical_expert_load");
		snprintf(path, sizeof(path),
		    "load_history[%zu].logical_expert_load", s);
		if (m == NULL)
			return mk_err_data(e, "%s: %s is missing", name, path);
		if (json_add_matrix(m, dims[0], dims[1], (int)s, path, name,
		    l->w, e) < 0)
			return -1;
	}
	return 0;
}

static int
from_json(struct mk_src *s, int window, struct mk_loads *l, struct mk_err *e)
{
	const unsigned char *p;
	json_error_t je;
	json_t *root, *v;
	size_t n;
	int r;

	if (mk_src_slurp(s, &p, &n, e) < 0)
		return -1;
	root = json_loadb((const char *)p, n, JSON_REJECT_DUPLICATES |
	    JSON_DECODE_ANY, &je);
	if (root == NULL)
		return mk_err_data(e, "%s:%d:%d: JSON: %s", mk_src_name(s),
		    je.line, je.column, je.text);
	if ((v = json_object_get(root, "logical_count")) != NULL)
		r = from_logical_count(v, mk_src_name(s), window, l, e);
	else if ((v = json_object_get(root, "load_history")) != NULL)
		r = from_load_history(v, mk_src_name(s), window, l, e);
	else
		r = mk_err_data(e, "%s: JSON without \"logical_count\" (SGLang) "
		    "or \"load_history\" (vLLM/ADRS) loads", mk_src_name(s));
	json_decref(root);
	return r;
}

/* Find all-zero layers; drop them if asked. */
static int
zero_layers(struct mk_loads *l, int skip, const char *name, struct mk_err *e)
{
	int i, j, k = 0, nz;

	if ((l->zero = malloc(sizeof(int) * (size_t)l->L)) == NULL)
		return mk_err_data(e, "%s: out of memory", name);
	for (i = 0; i < l->L; i++) {
		l->layer[i] = i;
		for (j = 0, nz = 1; j < l->E && nz; j++)
			nz = l->w[(size_t)i * (size_t)l->E + (size_t)j] == 0;
		if (nz)
			l->zero[l->nzero++] = i;
	}
	if (!skip || l->nzero == 0)
		return 0;
	if (l->nzero == l->L)
		return mk_err_data(e, "%s: every one of the %d layers has zero "
		    "load; nothing left to plan", name, l->L);
	for (i = 0, j = 0; i < l->L; i++) {
		if (j < l->nzero && l->zero[j] == i) {
			j++;
			continue;
		}
		memmove(l->w + (size_t)k * (size_t)l->E,
		    l->w + (size_t)i * (size_t)l->E, sizeof(double) *
		    (size_t)l->E);
		l->layer[k++] = i;
	}
	l->L = k;
	l->skipped = 1;
	return 0;
}

int
mk_loads_read(struct mk_src *s, int window, int skip_zero,
    struct mk_loads *l, struct mk_err *e)
{
	struct mk_tensor t, extra;
	int fmt, r;

	memset(l, 0, sizeof(*l));
	if ((fmt = mk_src_format(s, e)) < 0)
		return -1;
	if (fmt == MK_FMT_JSON) {
		r = from_json(s, window, l, e);
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
		    l, e) : from_dense(&t, mk_src_name(s), window, l, e);
		mk_tensor_free(&t);
	}
	if (r == 0)
		r = zero_layers(l, skip_zero, mk_src_name(s), e);
	if (r < 0)
		mk_loads_free(l);
	return r;
}
