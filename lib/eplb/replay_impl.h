/*
 * replay_impl.h - what eplb_replay.c (the ideal loop) and eplb_engine.c
 * (the engines' loops) share: a configuration's placement as it serves,
 * a step's loads and its score.  Not part of the library's interface.
 */
#ifndef MK_REPLAY_IMPL_H
#define MK_REPLAY_IMPL_H

#include <stdint.h>

#include "eplb/eplb_replay.h"
#include "eplb/eplb_xfer.h"

/* One configuration's replay. */
struct replay_state {
	const struct mk_replay_cfg *rc;
	const struct mk_replay_log *log;
	int64_t	*p2l;		/* [L][R] the placement serving now */
	int32_t	*ex;		/* [L][R] the same, for the scoring loop */
	double	*inv;		/* [L][R] 1 / replicas of each slot's expert */
	double	*ww;		/* [K][L][E] the windows a re-plan sees */
	int	 ww_t, ww_K;	/* the step and count they were summed for */
	int64_t	*cnt;		/* [E] scratch */
	double	*bal;		/* [T] each scored step's balancedness */
	double	*row;		/* [L][E] a step, where the log has no w */
	struct mk_eplb_xfer_work *xw;	/* the transfers' scratch */
	int64_t	*hostg;		/* [G] slots each GPU copies from host this
				 * step (TensorRT-LLM) */
	int64_t	*lost;		/* [L][R] the placement serving when GPUs
				 * are lost (--lose-gpu), or NULL */
};

/* What each step came to: its loads, moves and traffic. */
struct replay_steps {
	double	*max, *mean;
	int64_t	*moved, *tr;	/* tr: [T][2] */
};

/* Step t's loads [L][E] (row: room for them, where the log has no w). */
const double *replay_step(const struct replay_state *s, int t, double *row);

/*
 * Layer l of the placement serving now changes to p, from step u on:
 * what it moves, copies and sends, into res where u is scored (host: the
 * copies come from host memory, as TensorRT-LLM's, nothing is sent; each
 * GPU's into hostg).
 * Does not install p.  Returns the slots changed.
 */
int64_t	replay_charge(struct replay_state *s, int l, const int64_t *p, int u,
	    int host, struct mk_replay_res *res);

/*
 * TensorRT-LLM's step's host copies are done: into res->move_s, what the
 * GPU copying most takes on link_gbps beyond a step's MoE at perfect
 * balance (moe_ms), which its background copies overlap.
 */
void	replay_host_done(struct replay_state *s, struct mk_replay_res *res);

/* --lose-gpu: keep the placement serving step t if GPUs are lost then. */
void	replay_lose_snap(struct replay_state *s, int t);

/*
 * --lose-gpu: from the placement kept, the survivors' balancedness until
 * the next re-plan (moved[T]: the replay's moves a step) into res.
 * Returns 0 or -1 with e.
 */
int	replay_lost(struct replay_state *s, const int64_t *moved,
	    struct mk_replay_res *res, struct mk_err *e);

/* ex and inv of layer l from p2l. */
void	replay_shares(struct replay_state *s, int l);

/*
 * Step t's summed largest and mean GPU loads over the layers, from its
 * loads row[L][E] under the placement serving now; slot, if not NULL,
 * gets each slot's load [L][R] (an expert's load split evenly over its
 * replicas, as the engines' routers split it by position).
 */
void	replay_score(const struct replay_state *s, const double *row,
	    double *max, double *mean, double *slot);

/*
 * The engines' loops (eplb_engine.c): vLLM, SGLang or TensorRT-LLM, as
 * s->rc->engine names, on one thread, each step's figures into x.
 * Returns 0 or -1 with e.
 */
int	replay_engine(struct replay_state *s, struct replay_steps *x,
	    struct mk_replay_res *res, struct mk_err *e);

#endif
