/*
 * a2a_capacity.h - receive buffers sized from a trace (a2a-layout
 * --capacity): each step's demand on the busiest rank, the capacity that
 * at most a share p of the steps overflows, and the value each library's
 * knob needs for it (a2a-layout(1), "RECEIVE CAPACITY", cites each
 * formula's source).
 *
 * A step's demands, each the largest over the receiving ranks:
 *   tokens  DeepEP's num_recv_tokens: tokens with a slot on the rank
 *   worst   what num_worst_tokens must hold: tokens, and internode also
 *           num_rdma_recv_tokens (DeepEP sizes both with it)
 *   rows    (token, local expert) pairs: the grouped GEMM's rows, how
 *           expert-major buffers (pplx-garden, HybridEP) count
 *   pair    tokens one source rank sends the rank: MORI splits its
 *           receive buffer into equal slices a source
 * The capacity at p of a series of S steps is the smallest c with at most
 * floor(p S) steps over c.
 */
#ifndef MK_A2A_CAPACITY_H
#define MK_A2A_CAPACITY_H

#include <stdint.h>
#include <stdio.h>

#include "a2a/a2a.h"
#include "a2a/a2a_report.h"
#include "base/errmsg.h"

enum mk_a2a_demand {
	MK_A2A_D_TOKENS, MK_A2A_D_WORST, MK_A2A_D_ROWS, MK_A2A_D_PAIR,
	MK_A2A_ND
};

/* A trace's demands, step by step, and the tokens a rank held at most. */
struct mk_a2a_demands {
	int64_t	*d[MK_A2A_ND];	/* [S] each */
	int	 S, cap;
	int64_t	 T;
};

/*
 * Append one step (group result g of configuration c, whose ranks held at
 * most T tokens).  Returns 0, or -1 with e filled (out of memory).
 */
int	mk_a2a_demands_add(struct mk_a2a_demands *dm,
	    const struct mk_a2a_cfg *c, const struct mk_a2a_group *g,
	    int64_t T, struct mk_err *e);
void	mk_a2a_demands_free(struct mk_a2a_demands *dm);

/*
 * The capacity at p of series d[0..S): the smallest c such that at most
 * floor(p S) of the d[s] exceed c (0 for S 0).  d is not changed; tmp
 * holds S values.
 */
int64_t	mk_a2a_capacity_at(const int64_t *d, int S, double p, int64_t *tmp);

/* How many of d[0..S) exceed c. */
int	mk_a2a_steps_over(const int64_t *d, int S, int64_t c);

/* The table's input: the fitted trace, the held-out one (or NULL). */
struct mk_a2a_capacity_in {
	const struct mk_a2a_cfg		*c;	/* R, E, K of both */
	const struct mk_a2a_sizing	*sz;	/* token bytes */
	const struct mk_a2a_demands	*fit, *eval;
	const double			*p;
	int				 np;
};

/* One row of the table (exported for the tests and the picture). */
struct mk_a2a_knob_row {
	const char	*library, *knob;
	enum mk_a2a_demand demand;
	double		 value;		/* what the knob is set to */
	int		 is_count;	/* value is a token count (else a
					 * fraction or factor) */
	int64_t		 capacity;	/* in demand units, at value */
	int64_t		 recv_tokens;	/* rows the buffer holds */
	uint64_t	 bytes;		/* its bytes on a rank */
	int64_t		 worst_tokens;	/* at the library's default */
	uint64_t	 worst_bytes;
	int		 steps_over, eval_over;	/* eval_over -1: none */
	char		 note[160];
};

/* The libraries, in the table's order. */
#define MK_A2A_NKNOBS	8
enum { MK_A2A_K_MOEKIT, MK_A2A_K_DEEPEP, MK_A2A_K_VLLM, MK_A2A_K_NCCL,
	MK_A2A_K_MEGATRON, MK_A2A_K_TORCHTITAN, MK_A2A_K_PPLX, MK_A2A_K_MORI };

/*
 * What knob k set to v allocates for R ranks of Le local experts, top-K,
 * T tokens a rank: the capacity in its demand's units (for the tests,
 * which hold each formula to its library's own numbers); v < 0 asks for
 * the library's default.
 */
int64_t	mk_a2a_knob_alloc(int k, int64_t R, int64_t Le, int64_t K, int64_t T,
	    double v);

/*
 * Row k (0 <= k < MK_A2A_NKNOBS) for p into *r.  Returns 0, or -1 with e
 * filled (out of memory).
 */
int	mk_a2a_knob_row(const struct mk_a2a_capacity_in *in, int k, double p,
	    struct mk_a2a_knob_row *r, struct mk_err *e);

/*
 * The table: its header, then a row per (p, library).  Returns 0, or -1
 * with e filled.  Write errors are fp's (ferror).
 */
int	mk_a2a_capacity_write(FILE *fp, const struct mk_a2a_capacity_in *in,
	    struct mk_err *e);

#endif
