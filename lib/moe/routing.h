/*
 * routing.h - routing records as a load log with its traffic: the
 * tokens of each step, every token's expert ids at every layer, as
 * eplb-replay replays them.
 *
 * Forms: JSON lines (jsonl.h; the record's step field is its layer,
 * its sequence and token fields order the tokens; a step is
 * tokens_per_step consecutive tokens, in (sequence, token) order); an
 * [S, R, T, K] trace (trace.h): S steps of one layer, a step's
 * tokens its ranks' in rank order, rows of -1 alone dropped.
 */
#ifndef MK_MOE_ROUTING_H
#define MK_MOE_ROUTING_H

#include <stddef.h>
#include <stdint.h>

#include "moe/jsonl.h"
#include "base/errmsg.h"
#include "tensor/src.h"

struct mk_moe_routing {
	int	 T, L, K, E;	/* steps, layers, ids a token, experts */
	int64_t	 ntok;		/* tokens */
	int64_t	*first;		/* [T + 1] step t: tokens first[t] .. */
	int32_t	*ids;		/* [L][ntok][K], -1 where none */
	int	*layer;		/* [L] the layer value of each row */
};

/*
 * Read s (JSON lines with fields o, or an NPY trace) for E experts; ids
 * outside [0, E) other than -1 are an error naming where.  Returns 0, or
 * -1 with e filled; free rt with mk_moe_routing_free either way.
 */
int	mk_moe_routing_read(struct mk_src *s, const struct mk_moe_jsonl *o,
	    int E, int tokens_per_step, struct mk_moe_routing *rt,
	    struct mk_err *e);

/* The log's loads: w[T][L][E], slots routed to each expert. */
void	mk_moe_routing_loads(const struct mk_moe_routing *rt, double *w);

/* A placement: phy2log [L][P] of P slots on G GPUs in nodes of per_node. */
struct mk_moe_placement {
	const int64_t	*phy2log;
	int		 P, G, per_node;
};

/*
 * Step t's dispatches under placement pl: the step's tokens dealt over
 * the G GPUs in contiguous blocks, each (token, id) sent to a replica by
 * vLLM's rule (phys.h), counted by mk_moe_node_dispatch, summed over
 * layers into out[0] (leaving the token's node) and out[1] (all), and, if
 * per_layer is not NULL, added to per_layer[l][2].  Returns 0, or -1 with
 * e filled (memory).
 */
int	mk_moe_routing_traffic(const struct mk_moe_routing *rt, int t,
	    const struct mk_moe_placement *pl, int64_t out[2],
	    int64_t *per_layer, struct mk_err *e);

/*
 * The records of path (JSON lines, the default fields) for E experts,
 * counted under a plan for L layers (pl->phy2log [L][P], row l the
 * model's layer layer[l]): per_layer[l][2], the dispatches of every step
 * leaving their node and all.  A record's layer the plan lacks is a
 * usage error naming what ("--routing FILE").  Returns 0, or -1 with e.
 */
int	mk_moe_routing_plan_traffic(const char *path, const char *what, int E,
	    const struct mk_moe_placement *pl, const int *layer, int L,
	    int64_t *per_layer, struct mk_err *e);

void	mk_moe_routing_free(struct mk_moe_routing *rt);

/*
 * Whether the n bytes at p, of format fmt (stream.h), are routing
 * records: JSON lines whose first line holds o's experts field, or a 4-D
 * NPY (a trace).  Anything else is a load log.
 */
int	mk_moe_routing_is(const unsigned char *p, size_t n, int fmt,
	    const struct mk_moe_jsonl *o);

#endif
