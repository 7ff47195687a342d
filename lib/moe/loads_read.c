/*
 * loads_read.c - expert load logs read: which reader a source's format
 * goes to (loads_tensor.c: NPY, CSV; loads_json.c: JSON, torch .pt), all
 * inputs of a run, and a log of steps; see loads.h.
 */
#include <stdlib.h>
#include <string.h>

#include "moe/jsonl.h"
#include "moe/loads.h"
#include "moe/routing.h"
#include "moe/loads_impl.h"
#include "tensor/stream.h"
#include "tensor/tensor.h"

int
mk_loads_read(struct mk_src *s, int window, int history, struct mk_loads *l,
    struct mk_err *e)
{
	struct mk_tensor t, extra;
	int fmt, r;

	memset(l, 0, sizeof(*l));
	if (history == 0)
		history = 1;
	if ((fmt = mk_src_format(s, e)) < 0)
		return -1;
	if (fmt == MK_FMT_JSON) {
		r = loads_json(s, window, history, l, e);
	} else if (fmt == MK_FMT_ZIP) {
		r = loads_pt(s, window, history, l, e);
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
		r = loads_tensor(&t, mk_src_name(s), window, history, l,
		    e);
		mk_tensor_free(&t);
	}
	if (r < 0)
		mk_loads_free(l);
	return r;
}

int
mk_moe_input_kind(const char *path, const unsigned char *p, size_t n,
    int fmt, const struct mk_moe_jsonl *fields)
{
	struct mk_moe_jsonl def;
	char buf[128];
	struct mk_err e;

	if (mk_loads_is_trtllm_dir(path))
		return MK_MOE_TRTLLM;
	if (p == NULL)
		return MK_MOE_LOADS;
	if (fields == NULL && mk_moe_jsonl_fields(NULL, &def, buf, sizeof(buf),
	    &e) == 0)
		fields = &def;
	return fields != NULL && mk_moe_routing_is(p, n, fmt, fields) ?
	    MK_MOE_ROUTING : MK_MOE_LOADS;
}

int
mk_loads_read_all(const char *const *paths, int n,
    const struct mk_loads_want *want, struct mk_loads *l, int *fmt,
    struct mk_err *e)
{
	const int window = want->window, history = want->history;
	struct mk_loads one;
	struct mk_src *s;
	int i = 0, f, r = -1;

	memset(l, 0, sizeof(*l));
	do {
		if (n && mk_moe_input_kind(paths[i], NULL, 0, -1, NULL) ==
		    MK_MOE_TRTLLM) {
			/* TensorRT-LLM's statistics: tensors, NPY out */
			f = MK_FMT_NPY;
			r = mk_loads_read_trtllm(paths[i], window, history,
			    &one, e) < 0 || mk_loads_join(l, &one, e) < 0 ? -1 :
			    0;
			if (r < 0)
				goto out;
			if (i == 0)
				*fmt = f;
			continue;
		}
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
	r = mk_loads_finish(l, want->skip, e);
out:
	if (r < 0)
		mk_loads_free(l);
	return r;
}

int
mk_loads_read_steps(struct mk_src *s, const char *path, int skip,
    struct mk_loads *l, struct mk_err *e)
{
	struct mk_src *f = NULL;
	struct mk_tensor extra, *t;
	int fmt, r;

	memset(l, 0, sizeof(*l));
	if ((fmt = mk_src_format(s, e)) < 0)
		return -1;
	if (fmt != MK_FMT_NPY)
		return mk_loads_read(s, 0, MK_LOADS_STEPS, l, e) < 0 ? -1 :
		    mk_loads_finish(l, skip, e);
	/* a file read again is mapped, and the log used in its mapping; a
	 * pipe's bytes are copied into the tensor */
	if (path != NULL && strcmp(path, "-") != 0 && (f = mk_src_open(path,
	    e)) != NULL && mk_src_format(f, e) == MK_FMT_NPY)
		s = f;
	if ((t = calloc(1, sizeof(*t))) == NULL) {
		mk_src_close(f);
		return mk_err_data(e, "%s: out of memory", mk_src_name(s));
	}
	mk_tensor_init(t);
	mk_tensor_init(&extra);
	if ((r = mk_src_next(s, t, e)) >= 0 && (r = mk_src_next(s, &extra,
	    e)) > 0)
		r = mk_err_data(e, "%s: more than one tensor (expected one "
		    "load log)", mk_src_name(s));
	if (r == 0 && (r = loads_in_place(t, mk_src_name(s), skip, l, e)) == 0)
		l->log = t;
	mk_tensor_free(&extra);
	if (r != 0) {
		mk_tensor_free(t);
		free(t);
	}
	mk_src_close(f);
	return r < 0 ? -1 : 0;
}
