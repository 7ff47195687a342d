/* eplb_plan.c - reading a plan's phy2log back; see eplb_plan.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eplb/eplb_plan.h"
#include "tensor/stream.h"

void
mk_phy2log_free(struct mk_phy2log *pl)
{
	free(pl->p);
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
mk_phy2log_read(const char *path, const char *opt, struct mk_phy2log *pl,
    struct mk_err *e)
{
	struct mk_tensor t;
	struct mk_src *s;
	char what[sizeof(e->msg) + 64];
	int r;

	memset(pl, 0, sizeof(*pl));
	if ((s = mk_src_open(path, e)) == NULL)
		return -1;
	snprintf(what, sizeof(what), "%s %s", opt, mk_src_name(s));
	mk_tensor_init(&t);
	if ((r = mk_src_next(s, &t, e)) < 0) {
		/* the reader's message already names the file */
		snprintf(what, sizeof(what), "%s %s", opt, e->msg);
		mk_err_data(e, "%.*s", (int)sizeof(e->msg) - 1, what);
	} else {
		r = take(pl, &t, what, e);
	}
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
	int from = l < 0 ? 0 : l, to = l < 0 ? pl->L : l + 1, i, j;
	int64_t v;

	for (i = from; i < to; i++)
		for (j = 0; j < pl->R; j++) {
			v = pl->p[(size_t)i * (size_t)pl->R + (size_t)j];
			if (v < 0 || v >= E)
				return mk_err_data(e, "%s: layer %d, slot %d: "
				    "expert %lld is not in [0, %d)", what, i, j,
				    (long long)v, E);
		}
	return 0;
}
