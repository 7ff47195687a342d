/*
 * eplb.h - expert-parallel load balancing: from per-layer
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
 *   waterfill  round-robin waterfilling packer, Hamilton
 *              replica allocation and one-swap refinement.
 *   best       moekit's: never worse than either on any layer, and close to
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

struct mk_eplb_out;

enum mk_eplb_algo { MK_EPLB_DEEPSEEK, MK_EPLB_WATERFILL, MK_EPLB_BEST,
	MK_EPLB_NALGO };

/* Their names, as -a takes them. */
extern const char *const mk_eplb_algo_names[MK_EPLB_NALGO];

/* The most memory best's search may take per node, bytes (mk_eplb_config) */
#define MK_EPLB_SEARCH_MAX	4e9

/*
 * Default search effort of best: swap steps per node and layer.  64 brings
 * the real DeepSeek-V3 dumps to a mean gap of about 1.0002 to the bound;
 * more buys little (tests/bench/RESULTS.md).
 */
#define MK_EPLB_EFFORT	64
enum mk_eplb_policy { MK_EPLB_AUTO, MK_EPLB_HIER, MK_EPLB_GLOBAL,
	MK_EPLB_NPOLICY };

/* Their names, as --policy takes them. */
extern const char *const mk_eplb_policy_names[MK_EPLB_NPOLICY];

/* "hierarchical" where hier, else "global": a resolved policy's name. */
const char	*mk_eplb_policy_name(int hier);

/* What best minimises over scenarios: the mean or the largest maximum. */
enum mk_eplb_objective { MK_EPLB_MEAN, MK_EPLB_WORST };

/* Scenarios (load inputs, or windows of a log) planned for at once. */
#define MK_EPLB_MAX_SCENARIOS	64

struct mk_eplb_cfg {
	int	E, R, G, N, K;	/* experts, slots, GPUs, nodes, groups */
	int	hier;		/* 1: hierarchical, 0: global (resolved) */
	int	algo;		/* enum mk_eplb_algo */
	int	effort;		/* best: search steps per node and layer */
	int	objective;	/* enum mk_eplb_objective (scenarios) */
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

/* The two references and best, for one layer (same contract). */
int	mk_eplb_deepseek(const struct mk_eplb_cfg *c, const double *w,
	    struct mk_eplb_plan *p);
int	mk_eplb_waterfill(const struct mk_eplb_cfg *c, const double *w,
	    struct mk_eplb_plan *p);
int	mk_eplb_best(const struct mk_eplb_cfg *c, const double *w,
	    struct mk_eplb_plan *p);

/*
 * best for S > 1 scenarios of a layer, w[S][E] (each scenario's loads
 * normalised: they weigh the same): minimises the mean (c->objective
 * MK_EPLB_WORST: the largest) over scenarios of the largest GPU load,
 * replicas of one expert on distinct GPUs whenever the node has GPUs
 * enough, never above deepseek's or waterfill's plan for the scenarios'
 * sum on that objective.  Returns 0, or -1 if memory ran out.
 */
int	mk_eplb_best_sc(const struct mk_eplb_cfg *c, const double *w, int S,
	    struct mk_eplb_plan *p);

/*
 * The objective of a layer's plan over S scenarios w[S][E]: the mean (or,
 * MK_EPLB_WORST, the largest) over scenarios of the largest GPU load.
 */
double	mk_eplb_objective(const struct mk_eplb_cfg *c, const double *w, int S,
	    const int64_t *phy2log, const int64_t *cnt);

/* The load of GPU g in a layer's plan (w[e] split evenly over replicas). */
double	mk_eplb_gpu_load(const struct mk_eplb_cfg *c, const double *w,
	    const int64_t *phy2log, const int64_t *cnt, int g);

/*
 * The objective of a whole plan for S scenarios w[S][L][E], summed over
 * layers: with one scenario the largest GPU load of each layer (in the
 * loads' units); with more, mk_eplb_objective on the normalised
 * scenarios.  NaN if memory ran out.
 */
double	mk_eplb_total_objective(const struct mk_eplb_cfg *c, const double *w,
	    int S, int L, const struct mk_eplb_out *plan);

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
 * Lower bound on the largest GPU load of any plan for c:
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

/* What a layer's new placement moves, as vLLM and SGLang move weights. */
struct mk_eplb_moves {
	int64_t	 changed;	/* slots whose expert differs */
	int64_t	 copies;	/* experts some GPU must receive: distinct
				 * experts new to that GPU */
	int64_t	 inter;		/* of them, experts no GPU of the
				 * receiver's node held before */
};

/* Migration from prev to phy2log (one layer) into *m. */
void	mk_eplb_migration(const struct mk_eplb_cfg *c, const int64_t *prev,
	    const int64_t *phy2log, struct mk_eplb_moves *m);

/*
 * What a whole plan is made from: the configuration, loads w[S][L][E] (S
 * scenarios of L layers), the previous plan prev [L, R] (NULL: none) and
 * the log2phy width (width_max 0: R-E+1, room for any count; 1: the
 * largest count, DeepSeek's).
 */
struct mk_eplb_problem {
	const struct mk_eplb_cfg *c;
	const double	*w;
	int		 S, L;
	const int64_t	*prev;
	int		 width_max;
};

/*
 * --max-moves: plan ([L] layers, relabelled towards prev [L, R]) becomes
 * the plan between prev and it that changes at most M (layer, slot)
 * pairs in all, with the least summed layer objective (as
 * mk_eplb_total_objective counts it on w[S][L][E]): each layer walks from
 * prev towards plan a slot at a time, the change that lowers its
 * objective most first, and the budget goes where it buys the most (an
 * exact allocation over each layer's walk).  M 0 gives prev; the
 * objective never rises as M grows.  A layer taken whole keeps plan's
 * replica ranks, others get ranks in ascending slot order.  Intermediate
 * plans keep every expert a replica, but not always a hierarchical
 * plan's groups on one node.  Returns 0, or -1 with e filled.
 */
int	mk_eplb_limit_moves(const struct mk_eplb_problem *pb, int64_t M,
	    struct mk_eplb_out *plan, struct mk_err *e);

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
 * Layer l of S scenarios of loads w[S][L][E] into ws[S][E], each
 * scenario's row divided by its sum (an all-zero row stays zero): the
 * scenarios weigh the same.
 */
void	mk_eplb_scenarios(const double *w, int S, int L, int E, int l,
	    double *ws);

/*
 * Plan every layer of pb's S scenarios with its configuration, layers
 * spread over threads: with one scenario each layer as it is; with more,
 * best plans for them all (mk_eplb_best_sc) and the references for their
 * normalised sum.  Then, if prev is given, relabel each layer towards it.
 * Returns 0 with out filled (free with mk_eplb_out_free), or -1 with e
 * filled.
 */
int	mk_eplb_plan_all(const struct mk_eplb_problem *pb,
	    struct mk_eplb_out *out, struct mk_err *e);

void	mk_eplb_out_free(struct mk_eplb_out *out);

/*
 * A whole plan from its phy2log alone ([L, R], values in [0, E), every
 * expert present in every layer): counts from the slots, replica ranks in
 * ascending slot order, log2phy width as mk_eplb_plan_all's.  Returns 0,
 * or -1 with e naming the first layer and expert without a replica.
 */
int	mk_eplb_out_from(const struct mk_eplb_cfg *c, const int64_t *phy2log,
	    int L, int width_max, struct mk_eplb_out *out, struct mk_err *e);

/*
 * The plan as a row for every input layer, as SGLang's file lays them
 * out (moe/plan.h), into out (free it): plan row l is input layer layer[l], the
 * layers not planned get the trivial map.  A plan's row then always is
 * the model's layer.  pb gives the configuration and the width.  Returns
 * 0, or -1 with e.
 */
int	mk_eplb_out_every_layer(const struct mk_eplb_problem *pb,
	    const struct mk_eplb_out *plan, const int *layer, int L0,
	    struct mk_eplb_out *out, struct mk_err *e);

/*
 * log2phy of layer l: dst[E * X] gets the slot of replica r of expert e at
 * [e * X + r], replicas in rank order, -1 padded.  (Built a layer at a
 * time so the whole [L, E, X] tensor never needs to exist.)
 */
void	mk_eplb_log2phy(const struct mk_eplb_cfg *c,
	    const struct mk_eplb_out *out, int l, int64_t *dst);

/* A plan's outputs, in order: phy2log, log2phy, logcnt. */
#define MK_EPLB_NOUT	3
extern const char *const mk_eplb_outputs[MK_EPLB_NOUT];

/* The shape of output k ([L, R], [L, E, X], [L, E]) into shape[3];
 * returns its ndim. */
int	mk_eplb_output_shape(const struct mk_eplb_cfg *c,
	    const struct mk_eplb_out *out, int k, int64_t *shape);

/*
 * Output k's values for layer l (i64), *n of them: a pointer into out, or
 * buf (room for E * X) filled with log2phy's.
 */
const int64_t *mk_eplb_output_layer(const struct mk_eplb_cfg *c,
	    const struct mk_eplb_out *out, int k, int l, int64_t *buf,
	    size_t *n);

/*
 * One layer of S scenarios planned as mk_eplb_plan_all plans it (one
 * scenario: mk_eplb_layer; more: best for them all, a reference for their
 * normalised sum).  w is [S][L][E].  Returns 0 or -1 (memory).
 */
int	mk_eplb_plan_layer(const struct mk_eplb_cfg *c, const double *w, int S,
	    int L, int l, struct mk_eplb_plan *p);

/*
 * The largest GPU load of a layer without EPLB: one replica of each
 * expert, in order, E/G consecutive experts a GPU (expert e on GPU
 * floor(e G / E)).
 */
double	mk_eplb_noeplb_max(const struct mk_eplb_cfg *c, const double *w);

/* Without EPLB, the GPU of expert e: floor(e G / E). */
int	mk_eplb_noeplb_gpu(const struct mk_eplb_cfg *c, int e);

/* What --stats and --eval report for one layer in one scenario. */
struct mk_eplb_stat {
	double	max, mean, balancedness, lower_bound, gap;
	int	has_other;	/* the baseline exists */
	double	other_max, other_balancedness;	/* the baseline's */
	int64_t	changed, copies;	/* with prev */
	int64_t	traffic[2];	/* with routing: mk_eplb_table.traffic's */
};

/*
 * Statistics st[S][L] of each layer of a plan in each scenario of pb's
 * loads (balancedness = mean/max, 1 for a layer without load; gap =
 * max/lower bound), beside a baseline: no EPLB at all (noeplb), else what
 * the other policy (global for hierarchical plans and back) gives with
 * the same algorithm; the migration from pb's prev, if any.  Returns 0 or
 * -1 with e filled.
 */
int	mk_eplb_stats(const struct mk_eplb_problem *pb,
	    const struct mk_eplb_out *plan, int noeplb, struct mk_eplb_stat *st,
	    struct mk_err *e);

/* The table of mk_eplb_stats_write. */
struct mk_eplb_table {
	const struct mk_eplb_cfg *c;
	int		 S, L;
	const int	*layer;		/* [L] the input's index of each row */
	const struct mk_eplb_stat *st;	/* [S][L] */
	int		 scenario_col;	/* a leading scenario column */
	int		 noeplb;	/* the baseline is no EPLB */
	int		 prev;		/* the migration columns */
	double		 expert_bytes;	/* > 0: bytes_moved too (with prev) */
	const int64_t	*traffic;	/* [L][2] dispatches leaving their
					 * node and all (routing), or NULL */
	int		 row_is_index;	/* the plan has a row per planned
					 * layer: row l is not layer[l] */
};

/*
 * Write the statistics table as CSV to fp: a header, then for each
 * scenario a row per layer (labelled with its input index and its row in
 * the plan's file) and a total row (sums,
 * balancedness as vLLM logs it: sum of means over sum of maxima, the
 * mean gap).  Write errors are fp's to report (ferror).
 */
void	mk_eplb_stats_write(FILE *fp, const struct mk_eplb_table *t);

/*
 * mk_eplb_stats and mk_eplb_stats_write in one: the table of plan on pb's
 * loads to fp, as want asks (its layer, noeplb, expert_bytes, traffic and
 * row_is_index; the rest is filled in): a scenario column when S > 1 or
 * noeplb, bytes_moved with prev when expert_bytes > 0, inter_node_share
 * when traffic [L][2] is given.  Returns 0, or -1 with e filled.
 */
int	mk_eplb_report(FILE *fp, const struct mk_eplb_problem *pb,
	    const struct mk_eplb_out *plan, const struct mk_eplb_table *want,
	    struct mk_err *e);

/* Every GPU's load in every scenario: out[S][L][G]. */
void	mk_eplb_gpu_loads(const struct mk_eplb_cfg *c, const double *w, int S,
	    int L, const struct mk_eplb_out *plan, double *out);

/*
 * --min-gain: compare plan with pb's previous one on the total objective
 * (*before: prev's, *after: plan's).  Unless plan lowers it by at least
 * the fraction min_gain, plan becomes prev's (counts and ranks from its
 * slots).  Returns 1 if prev was kept, 0 if not, -1 with e filled.
 */
int	mk_eplb_keep_prev(const struct mk_eplb_problem *pb, double min_gain,
	    struct mk_eplb_out *plan, double *before, double *after,
	    struct mk_err *e);

/* What --plot draws. */
struct mk_eplb_picture {
	const struct mk_eplb_cfg *c;
	const double		*w;	/* loads [S][L][E] */
	int			 S, L;
	const int		*layer;	/* [L] input layer of each row, or NULL */
	const struct mk_eplb_out *after;	/* the plan */
	const struct mk_eplb_out *before;	/* --prev, or NULL: no EPLB */
	const char		*before_name;	/* "no EPLB" or "--prev" */
	const char		*after_name;	/* "after", or "--eval plan" */
	const struct mk_eplb_out *other;	/* the plan by the other
						 * policy, or NULL */
	const char		*title;
};

/*
 * An SVG picture to fp: per layer x GPU heatmaps of each GPU's load over
 * its layer's mean, before and after, and each layer's balancedness
 * beside them; the numbers on hover.  Returns 0, or -1 (memory) with e
 * filled; write errors are fp's.
 */
int	mk_eplb_plot(FILE *fp, const struct mk_eplb_picture *pp, struct mk_err *e);

#endif
