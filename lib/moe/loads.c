/*
 * loads.c - expert load logs once read: inputs joined, all-zero layers
 * found and dropped, the note about them; see loads.h.  loads_read.c
 * sends each input to its form's reader.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "moe/loads.h"
#include "moe/loads_impl.h"
#include "tensor/stream.h"
#include "tensor/tensor.h"

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
			if (*loads_cell(l, k, i, x) != 0)
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
				sum += *loads_cell(l, k, i, x);
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
			memmove(l->w + to * cells, loads_cell(l, k, i, 0), cells *
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
mk_loads_steps_note(const struct mk_loads *l, char *buf, size_t size)
{
	const struct mk_loads_steps *s = &l->steps;

	if (s->gap == 0 || s->gap == 1 || l->name == NULL ||
	    l->name[0] == NULL)
		return 0;
	if (s->gap > 1)
		snprintf(buf, size, "%s: a record every %.17g steps (steps "
		    "%.17g to %.17g): each stands for the %.17g steps up to the "
		    "next, so windows and intervals are the engine's steps",
		    l->name[0], s->gap, s->first, s->last, s->gap);
	else
		snprintf(buf, size, "%s: records at uneven steps (%.17g to "
		    "%.17g): each is taken as one step, so windows and "
		    "intervals count records", l->name[0], s->first, s->last);
	return 1;
}

int
mk_loads_note(const struct mk_loads *l, char *buf, size_t size)
{
	size_t off;
	int i;

	if (l->nzero == 0 || size == 0)
		return 0;
	off = (size_t)snprintf(buf, size, l->skipped ? "--skip-zero-layers: "
	    "%d all-zero layer%s (" : "%d layer%s with no load in any "
	    "input (", l->nzero, l->nzero > 1 ? "s" : "");
	for (i = 0; i < l->nzero && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%s%d", i ? " " :
		    "", l->zero[i]);
	if (off < size && l->skipped)
		snprintf(buf + off, size - off, ") not planned; planning %d", l->L);
	else if (off < size)
		snprintf(buf + off, size - off, ") planned as well: dense "
		    "layers? --skip-zero-layers leaves them unplanned");
	return 1;
}
