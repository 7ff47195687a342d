/*
 * a2a_rank.c - what one rank sees per token: DeepEP's is_token_in_rank,
 * send heads, receive rows (recv_src_idx, recv_topk_idx, SourceMeta) and
 * forwarder heads; Triton-distributed's scatter indices and send
 * requests.  See a2a.h.
 */
#include <stdlib.h>
#include <string.h>

#include "a2a/a2a.h"

void
mk_a2a_rank_free(struct mk_a2a_rank *o)
{
	free(o->in_rank);
	free(o->send_head);
	free(o->recv_src_idx);
	free(o->recv_topk);
	free(o->recv_chan_prefix);
	free(o->recv_rdma_chan_prefix);
	free(o->recv_src_meta);
	free(o->send_nvl_head);
	free(o->scatter_idx);
	free(o->send_reqs);
	free(o->recv_scatter);
	free(o->recv_reqs);
	free(o->recv_topk_ids);
	free(o->skip_map);
	free(o->skip_topk);
	memset(o, 0, sizeof(*o));
}

/* The destination ranks of token t of src as a bitset. */
static void
token_mask(const struct mk_a2a_cfg *c, const struct mk_moe_step *s, int src,
    int64_t t, uint64_t *mask)
{
	int64_t x, epr = c->E / c->R;
	int j, d;

	memset(mask, 0, sizeof(uint64_t) * MK_MOE_MASK_WORDS);
	for (j = 0; j < c->K; j++) {
		x = mk_moe_id(s, src, t, j);
		if (x >= 0 && x < c->E) {
			d = (int)(x / epr);
			mask[d >> 6] |= (uint64_t)1 << (d & 63);
		}
	}
}

static inline int
bit(const uint64_t *m, int d)
{
	return (int)(m[d >> 6] >> (d & 63) & 1);
}

/* The 8 NVL bits of node D in a rank mask. */
static inline int
node_bits(const uint64_t *m, int D)
{
	int d0 = D * MK_A2A_NVL;

	return (int)(m[d0 >> 6] >> (d0 & 63) & 0xff);
}

static int64_t
chan_per(int64_t T, int C)
{
	return T > 0 ? (T + C - 1) / C : 1;
}

/* is_token_in_rank of rank r. */
static void
in_rank(const struct mk_a2a_cfg *c, const struct mk_moe_step *s, int r,
    struct mk_a2a_rank *o)
{
	uint64_t m[MK_MOE_MASK_WORDS];
	int64_t t;
	int d;

	for (t = 0; t < s->T[r]; t++) {
		token_mask(c, s, r, t, m);
		for (d = 0; d < c->R; d++)
			o->in_rank[(size_t)t * (size_t)c->R + (size_t)d] =
			    (uint8_t)bit(m, d);
	}
}

/* Sender side: the send heads of rank r. */
static void
sender(const struct mk_a2a_cfg *c, const struct mk_moe_step *s, int r,
    struct mk_a2a_rank *o)
{
	int R = c->R, inter = mk_a2a_internode(c);
	int RR = inter ? R / MK_A2A_NVL : 1;
	int64_t T = s->T[r], per = chan_per(T, c->C), t, k[MK_MOE_MAX_RANKS];
	uint64_t m[MK_MOE_MASK_WORDS];
	int D, w = inter ? RR : R;

	for (t = 0; t < T; t++) {
		if (t % per == 0)	/* a new channel: queues restart */
			memset(k, 0, sizeof(k));
		token_mask(c, s, r, t, m);
		for (D = 0; D < w; D++) {
			int in = inter ? node_bits(m, D) != 0 : bit(m, D);
			o->send_head[t * w + D] = in ? (int32_t)k[D]++ : -1;
		}
	}
}

/*
 * Receiver side of rank r: rows in (source rank, source token) order,
 * with their source token, local topk ids and (internode) SourceMeta.
 */
static void
receiver(const struct mk_a2a_cfg *c, const struct mk_moe_step *s,
    const struct mk_a2a_group *g, int r, struct mk_a2a_rank *o)
{
	int R = c->R, C = c->C, K = c->K, inter = mk_a2a_internode(c), src, j, ch;
	int64_t epr = c->E / R, row = 0, t, x;
	int32_t *cp;
	uint64_t m[MK_MOE_MASK_WORDS];

	for (src = 0; src < R; src++) {
		for (t = 0; t < s->T[src]; t++) {
			token_mask(c, s, src, t, m);
			if (!bit(m, r))
				continue;
			o->recv_src_idx[row] = (int32_t)t;
			for (j = 0; j < K; j++) {
				x = mk_moe_id(s, src, t, j);
				o->recv_topk[row * K + j] = x >= r * epr &&
				    x < (r + 1) * epr && x < c->E ? x - r * epr :
				    -1;
			}
			if (inter) {
				o->recv_src_meta[row * 2] = src / MK_A2A_NVL;
				o->recv_src_meta[row * 2 + 1] =
				    node_bits(m, r / MK_A2A_NVL);
			}
			row++;
		}
		/* where each channel of src starts among r's rows */
		cp = g->chan_prefix + ((size_t)src * R + (size_t)r) * C;
		for (ch = 0; ch < C; ch++) {
			int32_t start = ch ? cp[ch - 1] : 0;
			if (inter && src > 0)
				start += g->recv_rank_prefix[(size_t)r * R +
				    src - 1];
			o->recv_chan_prefix[(size_t)src * C + ch] = start;
		}
	}
}

/*
 * Internode: rank r = (D, n) as forwarder.  Its RDMA rows come from the
 * same-index rank (S, n) of every node S, channel by channel; for each row
 * and each NVL peer j', the index of the token among that (S, channel)
 * stream's tokens bound for (D, j'), else -1.
 */
static void
forwarder(const struct mk_a2a_cfg *c, const struct mk_moe_step *s,
    const struct mk_a2a_group *g, int r, struct mk_a2a_rank *o)
{
	int R = c->R, C = c->C, RR = R / MK_A2A_NVL, D = r / MK_A2A_NVL;
	int n = r % MK_A2A_NVL, S, src, j, bits, ch;
	int64_t row = 0, t, per, k[MK_A2A_NVL];
	uint64_t m[MK_MOE_MASK_WORDS];

	for (S = 0; S < RR; S++) {
		src = S * MK_A2A_NVL + n;
		per = chan_per(s->T[src], C);
		for (t = 0; t < s->T[src]; t++) {
			if (t % per == 0)
				memset(k, 0, sizeof(k));
			token_mask(c, s, src, t, m);
			if ((bits = node_bits(m, D)) == 0)
				continue;
			for (j = 0; j < MK_A2A_NVL; j++)
				o->send_nvl_head[row * MK_A2A_NVL + j] =
				    bits >> j & 1 ? (int32_t)k[j]++ : -1;
			row++;
		}
		/* the source node's channels, inclusive and relative */
		for (ch = 0; ch < C; ch++)
			o->recv_rdma_chan_prefix[(size_t)S * C + ch] =
			    g->rdma_chan_prefix[((size_t)src * RR + D) * C + ch];
	}
}

int
mk_a2a_rank(const struct mk_a2a_cfg *c, const struct mk_moe_step *s,
    const struct mk_a2a_group *g, int r, struct mk_a2a_rank *o,
    struct mk_err *e)
{
	int R = c->R, inter = mk_a2a_internode(c);
	int RR = inter ? R / MK_A2A_NVL : 1;
	size_t T = (size_t)s->T[r], N, Nr, w = inter ? (size_t)RR : (size_t)R;

	memset(o, 0, sizeof(*o));
	o->r = r;
	o->T = s->T[r];
	if (c->style == MK_A2A_TRITON) {
		if (mk_a2a_triton_rank(c, s, g, r, o, e) == 0)
			return 0;
		mk_a2a_rank_free(o);
		return -1;
	}
	if ((o->in_rank = calloc(T * (size_t)R + 1, 1)) == NULL)
		return mk_err_data(e, "out of memory for rank %d", r);
	in_rank(c, s, r, o);
	/* the low-latency mode: get_dispatch_layout's is its one output */
	if (c->ll_only)
		return 0;
	o->N = N = (size_t)g->recv_tokens[r];
	o->Nrdma = Nr = inter ? (size_t)g->rdma_recv_tokens[r] : 0;
	o->send_head = calloc(T * w + 1, 4);
	o->recv_src_idx = calloc(N + 1, 4);
	o->recv_topk = calloc(N * (size_t)c->K + 1, 8);
	o->recv_chan_prefix = calloc((size_t)R * (size_t)c->C, 4);
	o->recv_rdma_chan_prefix = calloc((size_t)RR * (size_t)c->C, 4);
	o->recv_src_meta = calloc(N * 2 + 1, 4);
	o->send_nvl_head = calloc(Nr * MK_A2A_NVL + 1, 4);
	if (!o->send_head || !o->recv_src_idx ||
	    !o->recv_topk || !o->recv_chan_prefix || !o->recv_rdma_chan_prefix
	    || !o->recv_src_meta || !o->send_nvl_head) {
		mk_a2a_rank_free(o);
		return mk_err_data(e, "out of memory for rank %d", r);
	}
	sender(c, s, r, o);
	receiver(c, s, g, r, o);
	if (inter)
		forwarder(c, s, g, r, o);
	return 0;
}
