/* plan.c - reading a plan's phy2log back; see plan.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moe/plan_impl.h"
#include "tensor/json.h"
#include "tensor/stream.h"

void
mk_phy2log_free(struct mk_phy2log *pl)
{
	free(pl->p);
	free(pl->has);
	memset(pl, 0, sizeof(*pl));
}

/* Take t's values into pl; t is [L, R] or [R] of integers. */
static int
take(struct mk_phy2log *pl, const struct mk_tensor *t, const char *what,
    struct mk_err *e)
{
	char sb[128];
	size_t i;

	if (mk_dtype_kind(t->dtype) == MK_KIND_FLOAT ||
	    (t->ndim != 1 && t->ndim != 2) ||
	    t->shape[0] > INT32_MAX || t->shape[t->ndim - 1] > INT32_MAX)
		return mk_err_data(e, "%s: shape (%s) of %s is not a phy2log "
		    "[L, R] of integers", what, mk_shape_str(sb, sizeof(sb),
		    t->ndim, t->shape), mk_dtype_name(t->dtype));
	pl->ndim = t->ndim;
	pl->shape[0] = t->shape[0];
	pl->shape[1] = t->ndim == 2 ? t->shape[1] : 0;
	pl->dtype = t->dtype;
	pl->L = t->ndim == 2 ? (int)t->shape[0] : 1;
	pl->R = (int)t->shape[t->ndim - 1];
	pl->max = -1;
	if ((pl->p = malloc(sizeof(int64_t) * (t->nelem + 1))) == NULL)
		return mk_err_data(e, "%s: out of memory", what);
	for (i = 0; i < t->nelem; i++) {
		pl->p[i] = mk_tensor_get_i64(t, i);
		if (pl->p[i] > pl->max)
			pl->max = pl->p[i];
	}
	return 0;
}

int
mk_phy2log_ids(const double *x, size_t n, int64_t *out, const char *what,
    long layer, struct mk_err *e)
{
	size_t i;

	for (i = 0; i < n; i++) {
		/* in range before the cast: a cast out of range is undefined */
		if (!(x[i] >= -1 && x[i] <= 1e9) ||
		    x[i] != (double)(int64_t)x[i])
			return mk_err_data(e, "%s: slot %zu of layer %ld holds "
			    "%g, not an expert id", what, i, layer, x[i]);
		out[i] = (int64_t)x[i];
	}
	return 0;
}

/*
 * SGLang's {"physical_to_logical_map": [[...]]}, or vLLM's line with
 * "initial_global_assignments", into pl.
 */
static int
from_json(struct mk_src *s, const char *what, struct mk_phy2log *pl,
    struct mk_err *e)
{
	const unsigned char *p;
	struct mk_json j;
	char key[64];
	size_t n, dims[2], i;
	double *v = NULL;
	int r, nd = 0, seen = 0;

	if (mk_src_slurp(s, &p, &n, e) < 0)
		return -1;
	mk_json_init(&j, (const char *)p, n, mk_src_name(s), e);
	while ((r = mk_json_key(&j, key, sizeof(key))) > 0) {
		if (strcmp(key, "initial_global_assignments") == 0) {
			if (seen++ || mk_phy2log_keyed_json(&j, what, pl, e) <
			    0) {
				free(v);
				return seen > 1 ? mk_json_fail(&j, "a second "
				    "map") : -1;
			}
			continue;
		}
		if (strcmp(key, "physical_to_logical_map") != 0) {
			if (mk_json_skip(&j) < 0)
				return -1;
			continue;
		}
		if (seen++) {
			free(v);
			return mk_json_fail(&j, "a second map");
		}
		if (mk_json_numbers(&j, "physical_to_logical_map", 2,
		    (size_t)1 << 28, &nd, dims, &v) < 0)
			return -1;
	}
	if (r < 0 || mk_json_end(&j) < 0) {
		free(v);
		return -1;
	}
	if (seen && pl->p != NULL)	/* vLLM's, read */
		return 0;
	if (!seen || nd != 2 || dims[0] > INT32_MAX || dims[1] > INT32_MAX) {
		free(v);
		return mk_err_data(e, "%s: not SGLang's "
		    "{\"physical_to_logical_map\": [[...]]} (a [layers, slots] "
		    "map) or vLLM's {\"initial_global_assignments\": {...}}",
		    what);
	}
	pl->ndim = 2;
	pl->L = (int)(pl->shape[0] = (int64_t)dims[0]);
	pl->R = (int)(pl->shape[1] = (int64_t)dims[1]);
	pl->dtype = MK_I64;
	pl->max = -1;
	if ((pl->p = malloc(sizeof(int64_t) * (dims[0] * dims[1] + 1))) ==
	    NULL) {
		free(v);
		return mk_err_data(e, "%s: out of memory", what);
	}
	for (i = 0; i < dims[0]; i++)
		if (mk_phy2log_ids(v + i * dims[1], dims[1], pl->p + i *
		    dims[1], what, (long)i, e) < 0) {
			free(v);
			return -1;
		}
	for (i = 0; i < dims[0] * dims[1]; i++)
		pl->max = pl->p[i] > pl->max ? pl->p[i] : pl->max;
	free(v);
	return 0;
}

/* The first tensor of s into pl (t: room for it). */
static int
from_tensor(struct mk_src *s, const char *opt, const char *what,
    struct mk_tensor *t, struct mk_phy2log *pl, struct mk_err *e)
{
	char msg[sizeof(e->msg) + 64];

	if (mk_src_next(s, t, e) < 0) {
		/* the reader's message already names the file */
		snprintf(msg, sizeof(msg), "%s %s", opt, e->msg);
		return mk_err_data(e, "%.*s", (int)sizeof(e->msg) - 1, msg);
	}
	return take(pl, t, what, e);
}

/* Text: TensorRT-LLM's YAML, or CSV read from the bytes taken. */
static int
from_text(struct mk_src *s, const char *opt, const char *what,
    struct mk_tensor *t, struct mk_phy2log *pl, struct mk_err *e)
{
	const unsigned char *p;
	struct mk_src *m;
	size_t n;
	int r;

	if (mk_src_slurp(s, &p, &n, e) < 0)
		return -1;
	if (mk_phy2log_is_yaml(p, n))
		return mk_phy2log_yaml(p, n, what, pl, e);
	if ((m = mk_src_mem(p, n, mk_src_name(s), 0)) == NULL)
		return mk_err_data(e, "%s: out of memory", what);
	r = from_tensor(m, opt, what, t, pl, e);
	mk_src_close(m);
	return r;
}

int
mk_phy2log_read(const char *path, const char *opt, struct mk_phy2log *pl,
    struct mk_err *e)
{
	struct mk_tensor t;
	struct mk_src *s;
	char what[sizeof(e->msg) + 64];
	int r;

	memset(pl, 0, sizeof(*pl));
	if ((s = mk_src_open(path, e)) == NULL) {
		/* the option it was given to, before the reader's message */
		snprintf(what, sizeof(what), "%s %s", opt, e->msg);
		return mk_err_data(e, "%.*s", (int)sizeof(e->msg) - 1, what);
	}
	snprintf(what, sizeof(what), "%s %s", opt, mk_src_name(s));
	snprintf(pl->what, sizeof(pl->what), "%.*s", (int)sizeof(pl->what) -
	    1, what);
	mk_tensor_init(&t);
	if ((r = mk_src_format(s, e)) == MK_FMT_JSON)
		r = from_json(s, what, pl, e);
	else if (r == MK_FMT_CSV)
		r = from_text(s, opt, what, &t, pl, e);
	else
		r = from_tensor(s, opt, what, &t, pl, e);
	mk_tensor_free(&t);
	mk_src_close(s);
	if (r < 0)
		mk_phy2log_free(pl);
	return r < 0 ? -1 : 0;
}

int
mk_phy2log_check(const struct mk_phy2log *pl, int l, int E,
    const char *what, struct mk_err *e)
{
	int from = l < 0 ? 0 : l, to = l < 0 ? pl->L : l + 1, i, j, x;
	unsigned char *held;
	int64_t v;

	if ((held = malloc((size_t)E + 1)) == NULL)
		return mk_err_data(e, "%s: out of memory", what);
	for (i = from; i < to; i++) {
		memset(held, 0, (size_t)E);
		for (j = 0; j < pl->R; j++) {
			v = pl->p[(size_t)i * (size_t)pl->R + (size_t)j];
			if (v < 0 || v >= E) {
				free(held);
				return mk_err_data(e, "%s: row %d, slot %d: "
				    "expert %lld is not in [0, %d)", what, i, j,
				    (long long)v, E);
			}
			held[v] = 1;
		}
		/* an engine could not serve an expert without a slot */
		for (x = 0; x < E && held[x]; x++)
			;
		if (x < E) {
			free(held);
			return mk_err_data(e, "%s: row %d: expert %d has no "
			    "replica", what, i, x);
		}
	}
	free(held);
	return 0;
}

int64_t *
mk_phy2log_rows(struct mk_phy2log *pl, int L, int L0, const int *layer, int R,
    int E, struct mk_err *e)
{
	const char *what = pl->what;
	char sb[64];
	int64_t *p = NULL;
	int l, from = pl->has != NULL || (pl->L == L0 && pl->L != L);

	/* keyed by the model's layer: a row for each input layer */
	for (l = 0; pl->has != NULL && pl->R == R && l < L; l++)
		if (layer[l] >= pl->L || !pl->has[layer[l]]) {
			mk_err_data(e, "%s: no row for layer %d", what,
			    layer[l]);
			goto out;
		}
	if ((pl->L != L && !from) || pl->R != R || (pl->ndim == 1 && L != 1)) {
		mk_err_data(e, "%s: shape (%s) of %s is not a phy2log of %d "
		    "layers x %d slots (integers)", what, mk_shape_str(sb,
		    sizeof(sb), pl->ndim, pl->shape), mk_dtype_name(pl->dtype),
		    L, R);
		goto out;
	}
	/* checked as the file's rows, so that a message names its row */
	for (l = 0; l < L; l++)
		if (mk_phy2log_check(pl, from ? layer[l] : l, E, what, e) < 0)
			goto out;
	for (l = 0; from && l < L; l++)
		memmove(pl->p + (size_t)l * R, pl->p + (size_t)layer[l] * R,
		    sizeof(int64_t) * (size_t)R);
	pl->L = L;
	p = pl->p;
	pl->p = NULL;
out:
	mk_phy2log_free(pl);
	return p;
}
