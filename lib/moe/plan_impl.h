/*
 * plan_impl.h - inside moe/plan.c: the engines' placement files, keyed by
 * layer (plan_keyed.c).
 */
#ifndef MK_MOE_PLAN_IMPL_H
#define MK_MOE_PLAN_IMPL_H

#include <stddef.h>

#include "moe/plan.h"
#include "tensor/json.h"

/*
 * vLLM's "initial_global_assignments" object, the cursor at its value,
 * into pl.  Returns 0, or -1 with e filled.
 */
int	mk_phy2log_keyed_json(struct mk_json *j, const char *what,
	    struct mk_phy2log *pl, struct mk_err *e);

/*
 * The n numbers at x as expert ids into out (-1 kept: an empty slot);
 * else -1 with e naming what, the slot and the layer.
 */
int	mk_phy2log_ids(const double *x, size_t n, int64_t *out, const char *what,
	    long layer, struct mk_err *e);

/* TensorRT-LLM's load-balancer YAML of n bytes at p into pl. 0 or -1. */
int	mk_phy2log_yaml(const unsigned char *p, size_t n, const char *what,
	    struct mk_phy2log *pl, struct mk_err *e);

/* Whether the n bytes at p open with a YAML key ("name:"). */
int	mk_phy2log_is_yaml(const unsigned char *p, size_t n);

#endif
