/*
 * step.h - one step of a routing trace: the topk expert ids every rank of
 * an expert-parallel group routes, as a2a-layout lays them out and
 * eplb-replay counts their traffic.
 */
#ifndef MK_MOE_STEP_H
#define MK_MOE_STEP_H

#include <stddef.h>
#include <stdint.h>

#include "base/errmsg.h"

#define MK_MOE_MAX_RANKS	512	/* DeepEP's low-latency groups */
#define MK_MOE_MAX_TOPK		32
#define MK_MOE_MASK_WORDS	((MK_MOE_MAX_RANKS + 63) / 64)

/*
 * One step of a routing trace: rank r's topk ids are T[r] rows of K
 * integers (i32 or i64, row-major) at ids[r].
 *
 * When load is set, tokens [t0, t1) of rank r are at ids[r] only after
 * load(ctx, r, t0, t1, e) returned 0 (it may run in any thread, on
 * disjoint ranges at once).  mk_a2a_layout loads each piece of a rank in
 * the thread that then counts it, so that the ids arrive in that core's
 * cache just before they are used; after it returns 0, every rank is
 * loaded.  Anything else reading the ids first calls mk_moe_step_load.
 */
struct mk_moe_step {
	int		 R, K;
	int		 elem;		/* 4 or 8 bytes per id */
	const void	*ids[MK_MOE_MAX_RANKS];
	int64_t		 T[MK_MOE_MAX_RANKS];
	int		(*load)(void *ctx, int r, int64_t t0, int64_t t1,
			    struct mk_err *e);
	void		*ctx;
};

/*
 * Load every rank (on `threads` threads) and clear s->load.  Returns 0 or
 * -1 with e filled.
 */
int	mk_moe_step_load(struct mk_moe_step *s, int threads, struct mk_err *e);

/*
 * Load tokens [t0, t1) of rank r of s if it has a loader (from any
 * thread).  On failure keep in *e the error of the lowest key (*first
 * holds it; the caller numbers its loads), so that the message does not
 * depend on thread timing.  Returns 0 or -1.
 */
int	mk_moe_step_load_rank(const struct mk_moe_step *s, int r, int64_t t0,
	    int64_t t1, int key, int *first, struct mk_err *e);

/* Slot j of token t of rank r (a loaded step). */
static inline int64_t
mk_moe_id(const struct mk_moe_step *s, int r, int64_t t, int j)
{
	if (s->elem == 4)
		return ((const int32_t *)s->ids[r])[t * s->K + j];
	return ((const int64_t *)s->ids[r])[t * s->K + j];
}

/*
 * Dispatches of step s (loaded; ids in [0, P), P/R a rank, ids outside
 * go nowhere) counted as DeepEP's num_tokens_per_rdma_rank counts them,
 * for nodes of `per` consecutive ranks: a token once per destination
 * node.  out[0]: those to a node not the token's own (its rank's), out[1]
 * all.  With per 8 the sums of mk_a2a_layout's tokens_per_node.
 */
void	mk_moe_node_dispatch(const struct mk_moe_step *s, int P, int per,
	    int64_t out[2]);

#endif
