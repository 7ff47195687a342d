/*
 * loads_tensor.c - expert loads from one tensor (NPY or CSV): a dense
 * [E], [L, E] or [T, L, E], or the long layer,expert,load table.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "moe/loads.h"
#include "moe/loads_impl.h"
#include "tensor/stream.h"
#include "tensor/tensor.h"

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

/*
 * A dimension past INT32_MAX (a sparse file can claim one) would wrap
 * when counted in int: refused before it is.
 */
static int
too_large(const struct mk_tensor *t, const char *name, struct mk_err *e)
{
	char sb[128];
	int i;

	for (i = 0; i < t->ndim; i++)
		if (t->shape[i] > INT32_MAX)
			return mk_err_data(e, "%s: loads of shape (%s): a "
			    "dimension of %lld is past %d", name,
			    mk_shape_str(sb, sizeof(sb), t->ndim, t->shape),
			    (long long)t->shape[i], INT32_MAX);
	return 0;
}

int
loads_dense(const struct mk_tensor *t, const char *name, int window,
    int history, struct mk_loads *l, struct mk_err *e)
{
	char sb[128];
	int T = 1, L, E, st, i, k;
	struct wins w = LOADS_NO_STEPS;
	int64_t bad;
	size_t at;

	if (mk_dtype_kind(t->dtype) == 0)
		return mk_err_data(e, "%s: unsupported dtype", name);
	if (too_large(t, name, e) < 0)
		return -1;
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
		if (loads_no_steps(window, history, name, what, e) < 0)
			return -1;
	}
	if (t->ndim == 3 && loads_windows(T, window, history, name, &w, l, e) < 0)
		return -1;
	if (loads_alloc(l, &w, L, E, name, e) < 0)
		return -1;
	for (st = 0; st < T; st++) {
		if ((k = loads_scenario(&w, st)) < 0)
			continue;
		for (i = 0; i < L; i++) {
			at = ((size_t)st * (size_t)L + (size_t)i) * (size_t)E;
			if ((bad = add_row(t, at, (size_t)E, loads_cell(l, k, i, 0)))
			    >= 0)
				return loads_check(mk_tensor_get_f64(t, at +
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
	qsort(steps, rows, sizeof(int64_t), mk_cmp_i64);
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
	const int64_t *p = bsearch(&v, steps, n, sizeof(int64_t), mk_cmp_i64);

	return p ? (int)(p - steps) : -1;
}

static int
from_long(const struct mk_tensor *t, const char *name, int window,
    int history, struct mk_loads *l, struct mk_err *e)
{
	size_t rows = (size_t)t->shape[0], r, nsteps = 0;
	int c0 = t->ncols - 3, has_step = t->ncols == 4, k = 0;
	int64_t L = 0, E = 0, id, lay, exp, *steps = NULL, st = 0;
	struct wins w = LOADS_NO_STEPS;
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
	    loads_windows(nsteps < INT32_MAX ? (int)nsteps : INT32_MAX, window,
	    history, name, &w, l, e) < 0))
		goto bad;
	if (!has_step && loads_no_steps(window, history, name, "no step column",
	    e) < 0)
		return -1;
	if (loads_alloc(l, &w, (int)L, (int)E, name, e) < 0)
		goto bad;
	l->layers = MK_LAYERS_MODEL;	/* a layer column names them */
	for (r = 0; r < rows; r++) {
		id_value(t, r, c0, "layer", L, name, &lay, e);
		id_value(t, r, c0 + 1, "expert", E, name, &exp, e);
		if (has_step) {
			id_value(t, r, 0, "step", INT64_MAX / 2, name, &st, e);
			k = loads_scenario(&w, step_index(steps, nsteps, st));
		}
		v = mk_tensor_get_f64(t, r * (size_t)t->shape[1] +
		    (size_t)c0 + 2);
		if (loads_check(v, name, has_step ? (int)st : -1, (int)lay,
		    (int)exp, e) < 0)
			goto bad;
		if (k >= 0)
			*loads_cell(l, k, (int)lay, (int)exp) += v;
	}
	free(steps);
	return 0;
bad:
	free(steps);
	return -1;
}

int
loads_tensor(const struct mk_tensor *t, const char *name, int window,
    int history, struct mk_loads *l, struct mk_err *e)
{
	return is_long_form(t) ? from_long(t, name, window, history, l, e) :
	    loads_dense(t, name, window, history, l, e);
}

/* The log t checked where it lies (loads_impl.h). */
int
loads_in_place(const struct mk_tensor *t, const char *name, int skip,
    struct mk_loads *l, struct mk_err *e)
{
	double *acc, sum;
	int64_t bad;
	int T, L, E, st, i, x, k;

	memset(l, 0, sizeof(*l));
	if (t->ndim != 3 || mk_dtype_kind(t->dtype) == 0 || is_long_form(t))
		return mk_err_data(e, "%s: not a [T, L, E] load log", name);
	if (too_large(t, name, e) < 0)
		return -1;
	T = (int)t->shape[0];
	L = (int)t->shape[1];
	E = (int)t->shape[2];
	if (T < 1 || L < 1 || E < 1)
		return mk_err_data(e, "%s: no loads ([%d, %d, %d])", name, T, L,
		    E);
	/* every value checked once; the layers' totals find the zero ones */
	if ((acc = calloc((size_t)L * (size_t)E, sizeof(double))) == NULL ||
	    (l->layer = malloc(sizeof(int) * (size_t)L)) == NULL ||
	    (l->zero = malloc(sizeof(int) * (size_t)L)) == NULL ||
	    (l->name = calloc(1, sizeof(char *))) == NULL ||
	    (l->name[0] = strdup(name)) == NULL) {
		free(acc);
		mk_loads_free(l);
		return mk_err_data(e, "%s: out of memory", name);
	}
	l->S = 1;	/* the name's count, for mk_loads_free */
	for (st = 0; st < T; st++)
		for (i = 0; i < L; i++)
			if ((bad = add_row(t, ((size_t)st * L + i) * (size_t)E,
			    (size_t)E, acc + (size_t)i * E)) >= 0) {
				free(acc);
				mk_loads_free(l);
				return loads_check(mk_tensor_get_f64(t, ((size_t)st *
				    L + i) * (size_t)E + (size_t)bad), name, st,
				    i, (int)bad, e);
			}
	for (i = 0, k = 0; i < L; i++) {
		for (sum = 0, x = 0; x < E; x++)
			sum += acc[(size_t)i * E + x];
		if (!(sum <= DBL_MAX)) {
			free(acc);
			mk_loads_free(l);
			return mk_err_data(e, "%s: layer %d: the loads sum to more "
			    "than %g", name, i, DBL_MAX);
		}
		if (sum == 0)
			l->zero[l->nzero++] = i;
		if (sum > 0 || !skip)
			l->layer[k++] = i;
	}
	free(acc);
	if (k == 0) {
		mk_loads_free(l);
		return mk_err_data(e, "%s: every one of the %d layers has zero "
		    "load; nothing left to replay", name, L);
	}
	l->T = T;
	l->used = 1;
	l->L0 = L;
	l->L = k;
	l->E = E;
	l->skipped = skip && l->nzero > 0;
	return 0;
}

void
mk_loads_step(const struct mk_loads *l, int st, double *dst)
{
	int i;

	if (l->log == NULL) {
		memcpy(dst, l->w + (size_t)st * l->L * l->E, sizeof(double) *
		    (size_t)l->L * (size_t)l->E);
		return;
	}
	memset(dst, 0, sizeof(double) * (size_t)l->L * (size_t)l->E);
	for (i = 0; i < l->L; i++)
		add_row(l->log, ((size_t)st * l->L0 + (size_t)l->layer[i]) *
		    (size_t)l->E, (size_t)l->E, dst + (size_t)i * l->E);
}
