/*
 * a2a.h - expert-parallel all-to-all dispatch layouts, as DeepEP (V1,
 * 567632d) and Triton-distributed's EPAll2AllLayer compute them before
 * moving a byte (a2a-layout(1)).
 *
 * Terms: R ranks in the EP group, E experts (epr = E/R per rank, expert e
 * on rank e/epr), K routing slots per token, T_r tokens on rank r, C = N/2
 * channels for N SMs.  Ranks form nodes of 8 (R > 8: internode, R/8 "RDMA
 * ranks"); rank r is (node r/8, NVL index r%8).  Channel c of a rank with
 * T tokens owns tokens [min(ceil(T/C)*c, T), min(ceil(T/C)*(c+1), T)).
 * A slot holding -1 (or E in the Triton-distributed style) goes nowhere.
 * Counts are of tokens per rank or node (a token counted once however many
 * of its slots go there) and of slots per expert.
 */
#ifndef MK_A2A_H
#define MK_A2A_H

#include <stddef.h>
#include <stdint.h>

#include "base/errmsg.h"
#include "moe/step.h"

#define MK_A2A_NVL		8	/* DeepEP's NUM_MAX_NVL_PEERS */
#define MK_A2A_NORMAL_RANKS	160	/* DeepEP's normal mode: 8 x 20 */

enum mk_a2a_style { MK_A2A_DEEPEP, MK_A2A_TRITON };

struct mk_a2a_cfg {
	int	R, E, K;	/* ranks, experts, slots per token */
	int	C;		/* channels = num_sms / 2 */
	int	style;		/* enum mk_a2a_style */
	int	align;		/* expert_alignment (DeepEP) */
	int	lenient;	/* ignore ids out of range, as DeepEP does */
	int	local;		/* ranks per node (DeepEP: 8, or R when
				 * R < 8; Triton-distributed: its
				 * local_world_size, 0 for that default) */
	int	threads;	/* the layout runs on this many (<= 1: one) */
	int64_t	max_tokens;	/* Triton-distributed's max_tokens (0: the
				 * step's most tokens on a rank) */
	int	ll_only;	/* DeepEP's low-latency mode alone: any R
				 * below 8 or a multiple of 8 (up to
				 * MK_MOE_MAX_RANKS), top-11 at most, no
				 * normal-mode outputs, no node limit */
	int	nodes;		/* --num-nodes: the nodes the ranks span (0:
				 * each style's own default) */
};


/* Group-wide results of one step; arrays are row-major, sized by cfg. */
struct mk_a2a_group {
	int32_t	*tokens_per_rank;	/* [R][R]   source row, dest col */
	int32_t	*tokens_per_node;	/* [R][R/8] internode */
	int32_t	*tokens_per_expert;	/* [R][E]   slots */
	int32_t	*chan_prefix;		/* [R][R][C] inclusive over channels */
	int32_t	*rdma_chan_prefix;	/* [R][R/8][C] internode */
	int32_t	*rank_prefix;		/* [R][R] source row, dest col,
					 * inclusive over sources (intranode) */
	int32_t	*recv_rank_prefix;	/* [R][R] receiver row, source col,
					 * inclusive over sources (internode) */
	int32_t	*rdma_rank_prefix;	/* [R][R/8] internode, row = receiver */
	int32_t	*recv_tokens;		/* [R] */
	int32_t	*rdma_recv_tokens;	/* [R] internode */
	int32_t	*recv_per_expert;	/* [R][E/R] aligned */
	int32_t	*ll_count;		/* [R][E/R] low-latency counts */
	int64_t	*ll_range;		/* [R][E/R][R] (begin << 32) | count */
	/* Triton-distributed */
	int32_t	*full_splits;		/* [R][E+1] */
	int32_t	*input_tokens;		/* [R] */
	int32_t	*recv_offset;		/* [R][E/R][R] exclusive */
	int32_t	*recv_rows;		/* [R] token-slot rows per receiver */
	int32_t	*scan_hist;		/* [R][pieces][E+3, padded to a
					 * cache line] scratch of the
					 * counting pass */
	int	 pieces;		/* a rank's tokens are counted in
					 * this many pieces at once */
	int	*pieces_done;		/* [R] of them, this step */
};

/*
 * Check a configuration against DeepEP's rules: E % R == 0, intranode R
 * in {2, 4, 8}, internode R = 8n with n in {2, 3, 4, 6, 8, 12, 16, 18,
 * 20}, K <= 32, C >= 1; in low-latency mode alone (c->ll_only) R < 8 or
 * R % 8 == 0, K <= 11, and C set to 1 (its layout has no channels); or
 * Triton-distributed's: E % R == 0 only (and local dividing R, for the
 * node of each rank).  Sets c->local.  Returns 0, or -1 with a usage
 * error quoting the rule.
 */
int	mk_a2a_config(struct mk_a2a_cfg *c, struct mk_err *e);

/* Ranks on a node by default: 8, or all R of a smaller group. */
static inline int
mk_a2a_node_ranks(int R)
{
	return R < MK_A2A_NVL ? R : MK_A2A_NVL;
}

/* Whether c has DeepEP's internode outputs (RDMA ranks of 8). */
static inline int
mk_a2a_internode(const struct mk_a2a_cfg *c)
{
	return c->style == MK_A2A_DEEPEP && c->R > MK_A2A_NVL;
}

/* Allocate (zeroed) or free the arrays of a group result for c. */
int	mk_a2a_group_alloc(struct mk_a2a_group *g, const struct mk_a2a_cfg *c);
void	mk_a2a_group_free(struct mk_a2a_group *g);

/*
 * Compute every group-wide output of one step.  Ids outside [0, E) other
 * than the drop values are an error naming rank, token, slot and value
 * (ignored with c->lenient), and so is a token reaching more than 8 nodes.
 * where prefixes messages, separator included ("t.npy: step 3, ").  Returns 0 or -1 with e filled.
 */
int	mk_a2a_layout(const struct mk_a2a_cfg *c, const struct mk_moe_step *s,
	    struct mk_a2a_group *g, const char *where, struct mk_err *e);

/*
 * mk_a2a_layout of n steps s[0..n-1] (n <= MK_MOE_MAX_STEPS) into groups
 * g[0..n-1] (allocated for c alike), counted by one team at once: the
 * threads wait for the slowest once for n steps, not n times.  On error,
 * that of the earliest step (where[k] prefixes its messages); the groups
 * are then incomplete.
 */
int	mk_a2a_layout_steps(const struct mk_a2a_cfg *c,
	    const struct mk_moe_step *s, struct mk_a2a_group *g, int n,
	    const char *const *where, struct mk_err *e);


/* Per-token outputs of one rank (DeepEP style), sized by the step. */
struct mk_a2a_rank {
	int		 r;
	int64_t		 T;		/* the rank's tokens */
	int64_t		 N;		/* rows the rank receives */
	int64_t		 Nrdma;		/* rows it receives over RDMA */
	uint8_t		*in_rank;	/* [T][R] is_token_in_rank */
	int32_t		*send_head;	/* [T][R] intranode, [T][R/8] internode */
	int32_t		*recv_src_idx;	/* [N] */
	int64_t		*recv_topk;	/* [N][K] local ids or -1 */
	int32_t		*recv_chan_prefix;	/* [R][C] */
	int32_t		*recv_rdma_chan_prefix;	/* [R/8][C] internode */
	int32_t		*recv_src_meta;		/* [N][2] internode */
	int32_t		*send_nvl_head;		/* [Nrdma][8] internode */
	/* Triton-distributed */
	int64_t		 M;		/* max_tokens of its buffers */
	int64_t		 Nrows;		/* token-slot rows it receives */
	int32_t		*scatter_idx;	/* [T][K] */
	int32_t		*send_reqs;	/* [nodes][2][T] */
	int32_t		*recv_scatter;	/* [nodes][M][K] token_dst_scatter_idx
					 * as this rank stores it */
	int32_t		*recv_reqs;	/* [nodes][2][M] send_reqs_recv_tensor */
	int32_t		*recv_topk_ids;	/* [nodes][M][K] topk_indices_tensor */
	int64_t		*skip_map;	/* [Nrows] intranode */
	int64_t		*skip_topk;	/* [Nrows][K] intranode */
};

/*
 * The per-token outputs of rank r for the step whose group result is g
 * (from mk_a2a_layout).  Fills and allocates out (free with
 * mk_a2a_rank_free).  Returns 0 or -1 with e filled.
 */
int	mk_a2a_rank(const struct mk_a2a_cfg *c, const struct mk_moe_step *s,
	    const struct mk_a2a_group *g, int r, struct mk_a2a_rank *out,
	    struct mk_err *e);
void	mk_a2a_rank_free(struct mk_a2a_rank *out);

/* mk_a2a_rank's Triton-distributed part (a2a_triton.c). */
int	mk_a2a_triton_rank(const struct mk_a2a_cfg *c,
	    const struct mk_moe_step *s, const struct mk_a2a_group *g, int r,
	    struct mk_a2a_rank *out, struct mk_err *e);

/*
 * DeepEP's Config: chunk sizes in tokens.  mk_a2a_deepep_config fills the
 * default dispatch and combine configs of DeepEP 567632d for R ranks;
 * returns -1 if R has no entry.  mk_a2a_config_check normalises rdma_recv
 * (aligned up to rdma_send, as DeepEP's constructor does) and checks
 * DeepEP's assertions, returning -1 with a usage error quoting the rule.
 */
struct mk_a2a_dcfg {
	int	num_sms, nvl_send, nvl_recv, rdma_send, rdma_recv;
	int	idx_bytes;	/* sizeof(topk_idx_t): 8, or 4 in a build
				 * with TOPK_IDX_BITS=32 (0 reads as 8) */
};

int	mk_a2a_deepep_config(int R, int num_sms, struct mk_a2a_dcfg *dispatch,
	    struct mk_a2a_dcfg *combine);
int	mk_a2a_config_check(struct mk_a2a_dcfg *d, struct mk_err *e);

/* DeepEP's get_nvl_buffer_size_hint / get_rdma_buffer_size_hint. */
uint64_t	mk_a2a_nvl_hint(const struct mk_a2a_dcfg *d, uint64_t hidden_bytes,
		    int R);
uint64_t	mk_a2a_rdma_hint(const struct mk_a2a_dcfg *d,
		    uint64_t hidden_bytes, int R);

/*
 * The bytes DeepEP's kernels assert on.  x_bytes = hidden * element size
 * of x, scales = hidden/128 for fp8 (0 for bf16).
 * Intranode: mk_a2a_intra_dispatch_need, mk_a2a_intra_combine_need.
 * Internode: bytes per token (get_num_bytes_per_token), and the RDMA and
 * NVL bytes needed (clean offset + count) for dispatch (combine: scales 0,
 * no topk ids, bf16 x).
 */
uint64_t	mk_a2a_intra_dispatch_need(const struct mk_a2a_dcfg *d, int R,
		    uint64_t x_bytes, int K, int scales);
uint64_t	mk_a2a_intra_combine_need(const struct mk_a2a_dcfg *d, int R,
		    uint64_t x_bytes, int K);
uint64_t	mk_a2a_bytes_per_token(uint64_t x_bytes, int scales, int topk_idx,
		    int topk_weights);
uint64_t	mk_a2a_inter_rdma_need(const struct mk_a2a_dcfg *d, int R,
		    uint64_t bytes_per_token);
uint64_t	mk_a2a_inter_nvl_need(const struct mk_a2a_dcfg *d, int R,
		    uint64_t bytes_per_token);

/* DeepEP's get_low_latency_rdma_size_hint(M, hidden, R, E), post-08/2025. */
uint64_t	mk_a2a_ll_hint(uint64_t M, uint64_t hidden, int E);

/*
 * EPv2's ElasticBuffer.get_buffer_size_hint (calculate_elastic_buffer_
 * size) for R ranks in NVLink domains of nvl (the physical topology),
 * M tokens a rank, hidden H, top-K (0: 32), fp8 or bf16 dispatch, hybrid
 * mode (scale-out over RDMA, scale-up over NVLink; else one flat domain)
 * and multiple reductions in combine.  Sizes of the dispatch and combine
 * layouts and the buffer: their larger, aligned to 2 MiB.
 */
struct mk_a2a_elastic {
	int	R, nvl, K, fp8, hybrid, multi_reduction;
	int64_t	M, H;
};

struct mk_a2a_elastic_bytes {
	uint64_t	dispatch, combine, total;
};

void	mk_a2a_elastic_size(const struct mk_a2a_elastic *in,
	    struct mk_a2a_elastic_bytes *out);

/*
 * DeepEP's cap: a buffer's size in 16-byte units must be below INT_MAX,
 * so buffers must be smaller than this (just under 32 GiB).
 */
#define MK_A2A_BYTES_CAP	((uint64_t)INT32_MAX * 16)

/*
 * Triton-distributed's output capacity after a dispatch needing max_rows
 * rows: rows start at max_tokens * K * 2 and grow to
 * ceil(max_rows / 1024) * 1024 * 2 when exceeded.  prev is the capacity
 * before the step (0: the initial one).
 */
int64_t	mk_a2a_triton_rows(int64_t prev, int64_t max_tokens, int K,
	    int64_t max_rows);

#endif
