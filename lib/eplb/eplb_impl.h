/*
 * eplb_impl.h - helpers shared by the EPLB files (private to lib/).
 */
#ifndef MK_EPLB_IMPL_H
#define MK_EPLB_IMPL_H

#include <stdint.h>

struct mk_eplb_cfg;
struct mk_eplb_plan;

/*
 * Greedy replication (D'Hondt with a floor of one): cnt[j] replicas of
 * n experts with `slots` in all, each extra to the largest w[j]/cnt[j],
 * ties to the lowest index.  Optimal for the largest replica load.
 * Returns that largest load.  heap is scratch of n ints.
 */
double	eplb_greedy_counts(const double *w, int n, int slots, int *cnt,
	    int *heap);

/*
 * Enumerate the ways to split K groups into N unordered sets of K/N
 * groups, as N bitmasks per way, in a fixed order.  Returns the number of
 * ways, or -1 if there are more than max (nothing is written then).
 * Needs K <= 62.
 */
int	eplb_group_splits(int K, int N, uint64_t *ways, int max);

/*
 * Sort idx[0..n) (initially anything) so that key[idx[i]] is descending,
 * equal keys by ascending index: a stable merge sort, tmp has n ints.
 * Indices must be 0..n-1.
 */
void	eplb_order_desc(const double *key, int n, int *idx, int *tmp);
void	eplb_order_desc_f(const float *key, int n, int *idx, int *tmp);

/*
 * The m largest values of {w[j]/k : k >= 1} over j, descending, into top
 * (m of them, or fewer if n*... never: every j gives infinitely many).
 * The (x+1)-th largest is T* for x extra slots (greedy replication takes
 * the largest ones in order).  heap is scratch of n ints, cnt of n ints.
 */
void	eplb_top_pieces(const double *w, int n, int m, double *top,
	    int *heap, int *cnt);

/*
 * Node bounds of a hierarchical layer, from per-group tables: a node that
 * holds a set of groups carries at least max(its load / (G/N), T* of its
 * experts with R/N slots).  T* is merged from each group's largest pieces.
 */
struct eplb_groups {
	int	 K, x;		/* groups, extra slots per node */
	double	 per;		/* GPUs per node */
	double	*load;		/* [K] group loads */
	double	*top;		/* [K][x+1] each group's largest pieces */
};

/* Build the tables for c and w. Returns 0 or -1 (memory). */
int	eplb_groups_init(struct eplb_groups *g, const struct mk_eplb_cfg *c,
	    const double *w);
void	eplb_groups_free(struct eplb_groups *g);

/* The bound of a node holding the groups in mask. */
double	eplb_node_term(const struct eplb_groups *g, uint64_t mask);

/*
 * The split (of n, N masks each) whose worst node bound is smallest, the
 * first on ties: returns that bound and sets *which (-1 on no memory).
 */
double	eplb_best_split(const struct eplb_groups *g, int N,
	    const uint64_t *ways, int n, int *which);

/*
 * Choose the groups of each node of a hierarchical plan for S scenarios
 * of loads w[S][E]: nodes[k] is a bitmask of groups (every split is tried
 * when there are few, by the scenarios' mean (or largest) of their
 * worst node bound, else a greedy split of their sum improved by swaps).
 * Returns 0 or -1 (memory).
 */
int	eplb_split_groups(const struct mk_eplb_cfg *c, const double *w, int S,
	    uint64_t *nodes);

/*
 * A node's solver: place the node's experts ids[0..n) onto `gpus` GPUs
 * of S slots; slot_exp[g*S+k] gets an index into ids, cnt[j] the count of
 * ids[j].  Returns 0 or -1 (memory).
 */
typedef int	eplb_node_fn(void *ctx, const int *ids, int n, int gpus, int S,
		    int *slot_exp, int *cnt);

/*
 * A layer's plan node by node: groups split onto nodes by the S
 * scenarios of loads w[S][E] (hierarchical plans), each node solved by
 * solve, replica ranks in ascending slot order.  Returns 0 or -1
 * (memory).
 */
int	eplb_by_nodes(const struct mk_eplb_cfg *c, const double *w, int S,
	    eplb_node_fn *solve, void *ctx, struct mk_eplb_plan *p);

#endif
