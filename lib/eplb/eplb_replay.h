/*
 * eplb_replay.h - a per-step load log replayed through a rebalancing
 * policy (eplb-replay): what balance a configuration keeps, over time,
 * and what it costs in moved experts.
 *
 * Semantics: the placement starts trivial (slot p holds expert p mod E,
 * SGLang's "trivial"); at step W (the window) and every I steps (the
 * interval) after, the layers are planned with the configuration's
 * algorithm on the last W steps (or, with history K, on the last K
 * windows of W steps as K scenarios, as many as the log holds), the new
 * plan relabelled to keep the most experts in place (mk_eplb_relabel),
 * kept only if it lowers the window's objective by min_gain (optional)
 * and limited to max_moves changed slots (optional,
 * mk_eplb_limit_moves); it serves the next I steps.  Steps from W on are
 * scored: a step's GPU loads spread each expert's load evenly over its
 * replicas, as vLLM's router does.
 */
#ifndef MK_EPLB_REPLAY_H
#define MK_EPLB_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/errmsg.h"
#include "eplb/eplb.h"

/*
 * Whose online loop replays the log (eplb-replay(1), ENGINES):
 *   ideal   the loop above: the bound no engine reaches;
 *   vllm    vLLM's EplbState: a window of per-slot loads credited to the
 *           current map at each re-plan, the first re-plan after I/4
 *           steps, DeepSeek's algorithm, preserve_intragpu_slots, and
 *           with async one layer committed a step;
 *   sglang  SGLang's EPLBManager: the recorder's buffer (per-slot loads,
 *           cleared at each re-plan) as window, a re-plan every I passes,
 *           layers committed a chunk a pass;
 *   trtllm  TensorRT-LLM's online MoeLoadBalancer: a decayed load per
 *           layer, greedy replication and placement, a few layers
 *           re-planned each iteration.
 */
enum mk_replay_engine { MK_ENGINE_IDEAL, MK_ENGINE_VLLM, MK_ENGINE_SGLANG,
	MK_ENGINE_TRTLLM, MK_NENGINE };

/* The engines' names, as --engine takes them. */
extern const char *const mk_eplb_engine_names[MK_NENGINE];

/* "ideal", "vllm", "sglang" or "trtllm". */
const char	*mk_eplb_engine_name(int engine);

/* One configuration. */
struct mk_replay_cfg {
	struct mk_eplb_cfg c;	/* E, R, G, N, K, algo...: mk_eplb_config'd */
	int	 engine;	/* enum mk_replay_engine */
	int	 policy;	/* enum mk_eplb_policy, as given (a column) */
	int	 window;	/* W >= 1 (trtllm: none) */
	int	 interval;	/* I >= 1 (trtllm: none) */
	int	 history;	/* K >= 1 */
	int64_t	 max_moves;	/* per re-plan, or -1: no limit */
	double	 min_gain;	/* or -1: every re-plan taken */
	double	 expert_bytes;	/* bytes an expert copy moves (0: unknown) */
	int	 async;		/* vllm: layers committed one a step */
	int	 chunk;		/* sglang: layers a chunk (0: all at once) */
	int	 updates;	/* trtllm: layers re-planned an iteration */
	int	 score_from;	/* the first step scored */
	double	 link_gbps;	/* a GPU's link, Gbit/s (0: move_s not asked) */
	double	 moe_ms;	/* a step's MoE at perfect balance (0: moe_s,
				 * speedup not asked) */
	int	 lose_step;	/* --lose-gpu: the step GPUs lose[0..nlose)
				 * are gone from (nlose 0: none) */
	const int *lose;
	int	 nlose;
};

/*
 * The log: T steps of L layers of E experts, w[T][L][E], or where the log
 * is not in memory as doubles, step(sctx, t, dst) fills step t's [L][E]
 * (it is called from several threads at once).  With routing
 * records, traffic(ctx, t, phy2log, out) counts step t's dispatches under
 * a placement phy2log [L][R]: out[0] those that leave their token's node,
 * out[1] all, a token counted once per destination node (DeepEP's
 * num_tokens_per_rdma_rank); it is called from several threads at once,
 * and returns 0 or -1 with e filled.
 */
struct mk_replay_log {
	int		 T, L, E;
	const double	*w;		/* or NULL: step() gives each step */
	void		(*step)(const void *ctx, int t, double *dst);
	const void	*sctx;
	int		(*traffic)(void *ctx, int t, const struct mk_eplb_cfg *c,
			    const int64_t *phy2log, int64_t out[2],
			    struct mk_err *e);
	void		*ctx;
	int		 integer;	/* every load an integer below 2^40:
					 * window sums slide exactly */
};

/* What a configuration did over the scored steps. */
struct mk_replay_res {
	double	 balancedness;	/* sum of mean GPU loads / sum of maxima */
	double	 p5;		/* 5th percentile of the steps' balancedness */
	double	 par;		/* sum of maxima / sum of means */
	int64_t	 rebalances;	/* re-plans that moved a slot */
	int64_t	 moves;		/* (layer, slot) pairs whose expert changed */
	int64_t	 copies;	/* experts a GPU received that it lacked
				 * (trtllm: slots copied from host memory) */
	int64_t	 copies_inter;	/* of them, experts no GPU of the
				 * receiver's node held before */
	double	 bytes;		/* copies x expert_bytes */
	double	 inter_share;	/* dispatches leaving their node (NaN: no
				 * routing) */
	int	 scored;	/* steps scored */
	int64_t	 transfers;	/* expert copies sent GPU to GPU (eplb_xfer.h) */
	int64_t	 batches;	/* their rounds, re-plan after re-plan */
	double	 move_s;	/* the batches' time on link_gbps */
	double	 moe_s;		/* the scored steps' MoE: moe_ms / their
				 * balancedness */
	double	 base_s;	/* the same without EPLB */
	double	 lost_balancedness;	/* --lose-gpu: the survivors', from
					 * the loss to the next re-plan */
	int	 lost_steps;	/* those steps */
	int64_t	 lost_experts;	/* experts that lost every copy, over
				 * layers */
};

/* Per-step series of one configuration, [T] each (allocated by the
 * caller; steps before W hold NaN balancedness). */
struct mk_replay_steps {
	double	*bal, *max, *mean;	/* summed over layers */
	int64_t	*moves;			/* moved at this step's re-plan */
	double	*inter;			/* share leaving the node, or NaN */
};

/*
 * Replay log under rc into res (and the series into st, if not NULL).
 * Returns 0, or -1 with e filled.
 */
int	mk_eplb_replay(const struct mk_replay_cfg *rc,
	    const struct mk_replay_log *log, struct mk_replay_res *res,
	    struct mk_replay_steps *st, struct mk_err *e);

/* How a sweep runs: on `threads` threads, done(ctx, k, n) after each
 * configuration finishes (from the thread that ran it; done may be NULL). */
struct mk_replay_team {
	int	 threads;
	void	(*done)(void *ctx, int k, int n);
	void	*ctx;
};

/*
 * n configurations rc[0..n), each as mk_eplb_replay, into res[0..n), as
 * team says.  Returns 0, or -1 with the error of the first configuration
 * that failed.
 */
int	mk_eplb_replay_sweep(const struct mk_replay_cfg *rc, int n,
	    const struct mk_replay_log *log, const struct mk_replay_team *team,
	    struct mk_replay_res *res, struct mk_err *e);

/*
 * The table eplb-replay prints: a CSV header and a row per configuration
 * (man eplb-replay), inter_node_share with routing.  Write errors are
 * fp's (ferror).
 */
void	mk_eplb_replay_write(FILE *fp, const struct mk_replay_cfg *rc,
	    const struct mk_replay_res *res, int n, int routing);

/*
 * --steps: replay one configuration and write its per-step series as
 * CSV to fp.  Returns 0, or -1 with e filled.
 */
int	mk_eplb_replay_series(FILE *fp, const struct mk_replay_cfg *rc,
	    const struct mk_replay_log *log, struct mk_err *e);

/* A configuration in words, for messages and the picture; returns buf. */
const char *mk_eplb_replay_label(const struct mk_replay_cfg *rc, char *buf,
	    size_t size);

/*
 * --plot: an SVG of the n configurations' balancedness against their
 * moves (and their inter-node share, where known), the Pareto fronts
 * marked, to fp.  Returns 0, or -1 (memory) with e filled.
 */
int	mk_eplb_replay_plot(FILE *fp, const struct mk_replay_cfg *rc,
	    const struct mk_replay_res *res, int n, const char *title,
	    struct mk_err *e);

#endif
