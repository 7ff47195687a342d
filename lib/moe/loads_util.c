/*
 * loads_util.c - what the readers of each load form share: the scenarios'
 * storage, one value's check, the windows of a log (loads_impl.h); the
 * readers (loads_tensor.c, loads_json.c) use these, and loads.c, which
 * dispatches to the readers, uses them both.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "moe/loads.h"
#include "moe/loads_impl.h"
#include "tensor/tensor.h"

void
mk_loads_free(struct mk_loads *l)
{
	int i;

	mk_mem_free(l->w);
	if (l->log != NULL) {
		mk_tensor_free(l->log);
		free(l->log);
	}
	free(l->layer);
	free(l->zero);
	for (i = 0; l->name != NULL && i < l->S; i++)
		free(l->name[i]);
	free(l->name);
	memset(l, 0, sizeof(*l));
}

int
loads_alloc(struct mk_loads *l, const struct wins *w, int L, int E,
    const char *name, struct mk_err *e)
{
	const int64_t most = w->steps ? MK_LOADS_MAX_STEP_CELLS :
	    MK_LOADS_MAX_CELLS;
	int i, S = w->S;

	if (L < 1 || E < 1)
		return mk_err_data(e, "%s: no loads (%d layers of %d experts)",
		    name, L, E);
	if ((int64_t)S * L * E > most)
		return mk_err_data(e, "%s: %d %s of %d layers x %d experts "
		    "exceed the limit of %lld loads", name, S, w->steps ?
		    "steps" : "scenarios", L, E, (long long)most);
	l->S = S;
	l->L = l->L0 = L;
	l->E = E;
	l->layers = MK_LAYERS_UNSAID;
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

/* One load value: finite and >= 0, or an error naming where it was. */
int
loads_check(double v, const char *name, int step, int layer, int expert,
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

int
loads_windows(int T, int window, int history, const char *name, struct wins *w,
    struct mk_loads *l, struct mk_err *e)
{
	if (T < 1)
		return mk_err_data(e, "%s: the load log has no steps", name);
	if (history > 1 && (int64_t)window * history > T)
		return mk_err_usage(e, "%s: --window %d --history %d needs %lld "
		    "steps; the log has %d", name, window, history,
		    (long long)window * history, T);
	w->steps = history == MK_LOADS_STEPS;
	if (w->steps) {
		w->n = 1;
		w->first = 0;
		w->S = T;
	} else if (history > 1) {
		w->n = window;
		w->first = T - window * history;
		w->S = history;
	} else {
		w->S = 1;
		w->first = window > 0 && window < T ? T - window : 0;
		w->n = T - w->first;
	}
	l->T = T;
	l->used = w->n;
	return 0;
}

/* Options that need a step dimension, on input without one. */
int
loads_no_steps(int window, int history, const char *name, const char *what,
    struct mk_err *e)
{
	if (history == MK_LOADS_STEPS)
		return mk_err_data(e, "%s has no step dimension (%s): a replay "
		    "needs a log of steps", name, what);
	if (history > 1)
		return mk_err_usage(e, "--history %d: %s has no step dimension "
		    "(%s)", history, name, what);
	if (window > 0)
		return mk_err_usage(e, "--window %d: %s has no step dimension "
		    "(%s)", window, name, what);
	return 0;
}

