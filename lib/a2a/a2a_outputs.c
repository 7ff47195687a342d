/* a2a_outputs.c - the output table of a2a-layout; see a2a_outputs.h. */
#include <string.h>

#include "a2a/a2a_outputs.h"

/* Where an output's data lives: a group array or a rank array. */
enum mk_a2a_data {
	G_TPR, G_TPN, G_TPE, G_CP, G_RCP, G_RP, G_RRP, G_RDRP, G_RT, G_RDRT,
	G_RPE, G_LLC, G_LLR, G_FS, G_IT, G_RO, G_RR, G_ROWS,
	P_INR, P_SH, P_RSI, P_RTK, P_RCP, P_RRCP, P_META, P_NVL, P_SCAT,
	P_REQ, P_RSCAT, P_RREQ, P_RIDS, P_SKIP, P_SKIPK
};

/* Appends outputs to a list. */
struct list {
	struct mk_a2a_output	*out;
	int			 n;
};

static void
add(struct list *l, const char *name, int data, int ndim, int64_t a,
    int64_t b, int64_t c, enum mk_dtype dt)
{
	struct mk_a2a_output *x = &l->out[l->n++];

	x->name = name;
	x->data = data;
	x->per_token = data >= P_INR;
	x->ndim = ndim;
	x->shape[0] = a;
	x->shape[1] = b;
	x->shape[2] = c;
	x->dtype = dt;
}

static int
triton(struct list *l, const struct mk_a2a_cfg *c,
    const struct mk_a2a_rank *pr)
{
	int64_t R = c->R, E = c->E, K = c->K, epr = E / R;

	add(l, "full_splits", G_FS, 2, R, E + 1, 0, MK_I32);
	add(l, "num_input_tokens_per_rank", G_IT, 1, R, 0, 0, MK_I32);
	add(l, "recv_buf_offset_per_expert", G_RO, 3, R, epr, R, MK_I32);
	add(l, "num_recv_tokens_per_rank", G_RR, 1, R, 0, 0, MK_I32);
	add(l, "dispatch_output_rows", G_ROWS, 1, R, 0, 0, MK_I64);
	add(l, "packed_recv_count", G_LLC, 2, R, epr, 0, MK_I32);
	add(l, "layout_range", G_LLR, 3, R, epr, R, MK_I64);
	int64_t nodes = R / c->local;

	if (pr == NULL)
		return l->n;
	add(l, "token_dst_scatter_idx", P_SCAT, 2, pr->T, K, 0, MK_I32);
	add(l, "send_reqs", P_REQ, 3, nodes, 2, pr->T, MK_I32);
	add(l, "token_dst_scatter_idx_buf", P_RSCAT, 3, nodes, pr->M, K,
	    MK_I32);
	add(l, "send_reqs_recv_tensor", P_RREQ, 3, nodes, 2, pr->M, MK_I32);
	add(l, "topk_indices_tensor", P_RIDS, 3, nodes, pr->M, K, MK_I32);
	if (nodes == 1) {
		add(l, "skipped_token_mapping_indices", P_SKIP, 1, pr->Nrows, 0,
		    0, MK_I64);
		add(l, "skipped_token_topk_mapping_indices", P_SKIPK, 2,
		    pr->Nrows, K, 0, MK_I64);
	}
	return l->n;
}

static void
deepep_per_token(struct list *l, const struct mk_a2a_cfg *c,
    const struct mk_a2a_rank *pr)
{
	int64_t R = c->R, C = c->C, K = c->K, RR = R / MK_A2A_NVL;

	add(l, "is_token_in_rank", P_INR, 2, pr->T, R, 0, MK_BOOL);
	if (R > MK_A2A_NVL)
		add(l, "send_rdma_head", P_SH, 2, pr->T, RR, 0, MK_I32);
	else
		add(l, "send_head", P_SH, 2, pr->T, R, 0, MK_I32);
	add(l, "recv_src_idx", P_RSI, 1, pr->N, 0, 0, MK_I32);
	add(l, "recv_topk_idx", P_RTK, 2, pr->N, K, 0, MK_I64);
	if (R > MK_A2A_NVL) {
		add(l, "recv_gbl_channel_prefix_matrix", P_RCP, 2, R, C, 0,
		    MK_I32);
		add(l, "recv_rdma_channel_prefix_matrix", P_RRCP, 2, RR, C, 0,
		    MK_I32);
		add(l, "recv_src_meta", P_META, 2, pr->N, 2, 0, MK_I32);
		add(l, "send_nvl_head", P_NVL, 2, pr->Nrdma, MK_A2A_NVL, 0,
		    MK_I32);
	} else {
		add(l, "recv_channel_prefix_matrix", P_RCP, 2, R, C, 0, MK_I32);
	}
}

int
mk_a2a_outputs(const struct mk_a2a_cfg *c, const struct mk_a2a_rank *pr,
    struct mk_a2a_output *out)
{
	int64_t R = c->R, E = c->E, C = c->C, epr = E / R;
	int64_t RR = R > MK_A2A_NVL ? R / MK_A2A_NVL : 1;
	struct list l = { out, 0 };

	if (c->style == MK_A2A_TRITON)
		return triton(&l, c, pr);
	add(&l, "num_tokens_per_rank", G_TPR, 2, R, R, 0, MK_I32);
	if (R > MK_A2A_NVL)
		add(&l, "num_tokens_per_rdma_rank", G_TPN, 2, R, RR, 0, MK_I32);
	add(&l, "num_tokens_per_expert", G_TPE, 2, R, E, 0, MK_I32);
	if (c->ll_only) {
		/* get_dispatch_layout's counts, then low_latency_dispatch's */
		add(&l, "packed_recv_count", G_LLC, 2, R, epr, 0, MK_I32);
		add(&l, "layout_range", G_LLR, 3, R, epr, R, MK_I64);
		if (pr != NULL)
			add(&l, "is_token_in_rank", P_INR, 2, pr->T, R, 0,
			    MK_BOOL);
		return l.n;
	}
	if (R > MK_A2A_NVL) {
		add(&l, "gbl_channel_prefix_matrix", G_CP, 3, R, R, C, MK_I32);
		add(&l, "rdma_channel_prefix_matrix", G_RCP, 3, R, RR, C,
		    MK_I32);
		add(&l, "recv_gbl_rank_prefix_sum", G_RRP, 2, R, R, 0, MK_I32);
		add(&l, "recv_rdma_rank_prefix_sum", G_RDRP, 2, R, RR, 0,
		    MK_I32);
		add(&l, "num_recv_tokens", G_RT, 1, R, 0, 0, MK_I32);
		add(&l, "num_rdma_recv_tokens", G_RDRT, 1, R, 0, 0, MK_I32);
	} else {
		add(&l, "channel_prefix_matrix", G_CP, 3, R, R, C, MK_I32);
		add(&l, "rank_prefix_matrix", G_RP, 2, R, R, 0, MK_I32);
		add(&l, "num_recv_tokens", G_RT, 1, R, 0, 0, MK_I32);
	}
	add(&l, "num_recv_tokens_per_expert", G_RPE, 2, R, epr, 0, MK_I32);
	add(&l, "packed_recv_count", G_LLC, 2, R, epr, 0, MK_I32);
	add(&l, "layout_range", G_LLR, 3, R, epr, R, MK_I64);
	if (pr != NULL)
		deepep_per_token(&l, c, pr);
	return l.n;
}

size_t
mk_a2a_output_nelem(const struct mk_a2a_output *x)
{
	size_t n = 1;
	int i;

	for (i = 0; i < x->ndim; i++)
		n *= (size_t)x->shape[i];
	return n;
}

const void *
mk_a2a_output_data(const struct mk_a2a_output *x,
    const struct mk_a2a_group *g, const struct mk_a2a_rank *pr,
    const int64_t *rows)
{
	switch (x->data) {
	case G_TPR:	return g->tokens_per_rank;
	case G_TPN:	return g->tokens_per_node;
	case G_TPE:	return g->tokens_per_expert;
	case G_CP:	return g->chan_prefix;
	case G_RCP:	return g->rdma_chan_prefix;
	case G_RP:	return g->rank_prefix;
	case G_RRP:	return g->recv_rank_prefix;
	case G_RDRP:	return g->rdma_rank_prefix;
	case G_RT:	return g->recv_tokens;
	case G_RDRT:	return g->rdma_recv_tokens;
	case G_RPE:	return g->recv_per_expert;
	case G_LLC:	return g->ll_count;
	case G_LLR:	return g->ll_range;
	case G_FS:	return g->full_splits;
	case G_IT:	return g->input_tokens;
	case G_RO:	return g->recv_offset;
	case G_RR:	return g->recv_rows;
	case G_ROWS:	return rows;
	case P_INR:	return pr->in_rank;
	case P_SH:	return pr->send_head;
	case P_RSI:	return pr->recv_src_idx;
	case P_RTK:	return pr->recv_topk;
	case P_RCP:	return pr->recv_chan_prefix;
	case P_RRCP:	return pr->recv_rdma_chan_prefix;
	case P_META:	return pr->recv_src_meta;
	case P_NVL:	return pr->send_nvl_head;
	case P_SCAT:	return pr->scatter_idx;
	case P_RSCAT:	return pr->recv_scatter;
	case P_RREQ:	return pr->recv_reqs;
	case P_RIDS:	return pr->recv_topk_ids;
	case P_SKIP:	return pr->skip_map;
	case P_SKIPK:	return pr->skip_topk;
	default:	return pr->send_reqs;
	}
}
