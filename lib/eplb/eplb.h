/*
 * eplb.h - expert-parallel load balancing (SPEC §4): from per-layer
 * expert loads, where replicas of each expert live.
 *
 * Model: R physical slots, G GPUs of S = R/G slots (GPU g owns slots
 * g*S .. g*S+S-1), N nodes of G/N GPUs, K expert groups of E/K contiguous
 * experts.  A replica of expert e carries w[e]/cnt[e]; a GPU's load is the
 * sum over its slots.  Hierarchical plans keep every replica of a group's
 * experts on the node that group is assigned to.
 *
 * Algorithms:
 *   deepseek   deepseek-ai/EPLB; ties broken by (load desc, index asc) when
 *              sorting, (load asc, index asc) when choosing a pack and
 *              (load/count desc, index asc) when replicating.
 *   waterfill  the seed's round-robin waterfilling packer, Hamilton
 *              replica allocation and one-swap refinement.
 *   best       ours: never worse than either on any layer, and close to
 *              the lower bound.
 * Both references compute element-wise in float32, as torch does after
 * .float(); sums are taken in double and rounded once.  best and every
 * metric use double.
 */
#ifndef MK_EPLB_H
#define MK_EPLB_H

#include <stdint.h>
#include <stdio.h>

#include "base/errmsg.h"

enum mk_eplb_algo { MK_EPLB_DEEPSEEK, MK_EPLB_WATERFILL, MK_EPLB_BEST };

/*
 * Default search effort of best: swap steps per node and layer.  64 brings
 * the real DeepSeek-V3 dumps to a mean gap of about 1.0002 to the bound;
 * more buys little (tests/bench/RESULTS.md).
 */
#define MK_EPLB_EFFORT	64
enum mk_eplb_policy { MK_EPLB_AUTO, MK_EPLB_HIER, MK_EPLB_GLOBAL };

struct mk_eplb_cfg {
	int	E, R, G, N, K;	/* experts, slots, GPUs, nodes, groups */
	int	hier;		/* 1: hierarchical, 0: global (resolved) */
	int	algo;		/* enum mk_eplb_algo */
	int	effort;		/* best: search steps per node and layer */
};

/* One layer's plan. */
struct mk_eplb_plan {
	int64_t	*phy2log;	/* [R] logical expert of each slot */
	int64_t	*rank;		/* [R] replica rank of each slot */
	int64_t	*cnt;		/* [E] replicas of each expert */
};

/*
 * Check E, R, G, N, K against each other and resolve the policy (auto:
 * hierarchical when K % N == 0).  Returns 0, or -1 with a usage error that
 * states the broken rule with the numbers.
 */
int	mk_eplb_config(struct mk_eplb_cfg *c, int policy, struct mk_err *e);

/*
 * Plan one layer with c->algo.  w has E loads (finite, >= 0).  Fills p.
 * Returns 0, or -1 if memory ran out.
 */
int	mk_eplb_layer(const struct mk_eplb_cfg *c, const double *w,
	    struct mk_eplb_plan *p);

/* The two references and ours, for one layer (same contract). */
int	mk_eplb_deepseek(const struct mk_eplb_cfg *c, const double *w,
	    struct mk_eplb_plan *p);
int	mk_eplb_waterfill(const struct mk_eplb_cfg *c, const double *w,
	    struct mk_eplb_plan *p);
int	mk_eplb_best(const struct mk_eplb_cfg *c, const double *w,
	    struct mk_eplb_plan *p);

/*
 * Largest GPU load of a layer's plan (uniform split of w[e] over its
 * replicas); *mean gets the mean GPU load (W/G).
 */
double	mk_eplb_max_load(const struct mk_eplb_cfg *c, const double *w,
	    const int64_t *phy2log, const int64_t *cnt, double *mean);

/*
 * T*: the least achievable largest replica load of n experts with `slots`
 * slots, every expert keeping one (greedy replication reaches it).
 */
double	mk_eplb_tstar(const double *w, int n, int slots);

/*
 * Lower bound on the largest GPU load of any plan for c (SPEC §4):
 * max(W/G, T*) and, for hierarchical plans, the least over assignments of
 * whole groups to nodes of the largest max(node load/(G/N), T* of the
 * node's experts with R/N slots) (enumerated when there are at most a few
 * thousand assignments, else bounded by the largest group).
 */
double	mk_eplb_lower_bound(const struct mk_eplb_cfg *c, const double *w);

/*
 * Relabel one layer's plan p so that as many slots as possible keep the
 * expert they held in prev (a phy2log row of R slots): GPUs are permuted
 * (within nodes, and whole nodes permuted, for hierarchical plans) by an
 * optimal assignment of GPU contents, then each GPU's slots are reordered
 * to put kept experts back where they were.  Loads only move between GPU
 * labels, so the balance is the same.  Returns 0 or -1 (memory).
 */
int	mk_eplb_relabel(const struct mk_eplb_cfg *c, const int64_t *prev,
	    struct mk_eplb_plan *p);

/*
 * Migration from prev to phy2log (one layer): *changed = slots whose
 * expert differs; *copies = experts that some GPU must receive (distinct
 * experts new to that GPU), as vLLM moves weights.
 */
void	mk_eplb_migration(const struct mk_eplb_cfg *c, const int64_t *prev,
	    const int64_t *phy2log, int64_t *changed, int64_t *copies);

/*
 * Check a plan: every slot holds an expert in [0, E), counts match the
 * slots and are >= 1, ranks are 0..cnt-1 per expert, and hierarchical plans
 * keep each group on one node.  Returns 0 or -1 with e filled.  For tests.
 */
int	mk_eplb_verify(const struct mk_eplb_cfg *c, const struct mk_eplb_plan *p,
	    struct mk_err *e);

/* A whole plan: L layers. */
struct mk_eplb_out {
	int	 L, X;		/* layers, log2phy width */
	int64_t	*phy2log;	/* [L, R] */
	int64_t	*rank;		/* [L, R] */
	int64_t	*cnt;		/* [L, E] */
};

/*
 * Plan every layer of w ([L, E]) with c, layers spread over OpenMP
 * threads; then, if prev ([L, R]) is given, relabel each layer towards it.
 * X is the log2phy width: R-E+1 (width_max 0, the seed's) or the largest
 * count (width_max 1, DeepSeek's).  Returns 0 with out filled (free with
 * mk_eplb_out_free), or -1 with e filled.
 */
int	mk_eplb_plan_all(const struct mk_eplb_cfg *c, const double *w, int L,
	    const int64_t *prev, int width_max, struct mk_eplb_out *out,
	    struct mk_err *e);

void	mk_eplb_out_free(struct mk_eplb_out *out);

/*
 * log2phy of layer l: dst[E * X] gets the slot of replica r of expert e at
 * [e * X + r], replicas in rank order, -1 padded.  (Built a layer at a
 * time so the whole [L, E, X] tensor never needs to exist.)
 */
void	mk_eplb_log2phy(const struct mk_eplb_cfg *c,
	    const struct mk_eplb_out *out, int l, int64_t *dst);

/* What --stats reports for one layer. */
struct mk_eplb_stat {
	double	max, mean, balancedness, lower_bound, gap;
	int	has_other;	/* the other policy is possible */
	double	other_max, other_balancedness;
	int64_t	changed, copies;	/* with prev */
};

/*
 * Statistics of each layer of a plan (balancedness = mean/max, 1 for a
 * layer without load; gap = max/lower bound), and what the other policy
 * (global for hierarchical plans and vice versa) gives with the same
 * algorithm.  prev may be NULL.  Returns 0 or -1 with e filled.
 */
int	mk_eplb_stats(const struct mk_eplb_cfg *c, const double *w,
	    const struct mk_eplb_out *plan, const int64_t *prev,
	    struct mk_eplb_stat *st, struct mk_err *e);

/*
 * Write the statistics of L layers as the CSV table of --stats to fp: a
 * header, one row per layer (labelled with layer[l], the input's index)
 * and a total row (sums, balancedness as vLLM logs it: sum of means over
 * sum of maxima, and the mean gap).  prev: add the migration columns.
 * Write errors are fp's to report (ferror).
 */
void	mk_eplb_stats_write(FILE *fp, const struct mk_eplb_cfg *c, int L,
	    const int *layer, const struct mk_eplb_stat *st, int prev);

#endif
