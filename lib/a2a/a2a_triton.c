/*
 * a2a_triton.c - what one rank of Triton-distributed's EPAll2AllLayer
 * holds after its preprocess (triton_distributed's ep_a2a layout): the scatter indices and send
 * requests of its own tokens, the same as the receiving rank stores them
 * (slot m: rank (m, l)'s, l its local rank), and intranode the mappings
 * its local dispatch and combine use for a token sent to a rank twice.
 */
#include <stdlib.h>
#include <string.h>

#include "a2a/a2a.h"

#define TILE	256	/* Triton-distributed's send-request BLOCK_SIZE */

/* Whether id x is an expert (not a drop or, with --lenient, noise). */
static inline int
expert(const struct mk_a2a_cfg *c, int64_t x)
{
	return x >= 0 && x < c->E;
}

/*
 * Rows in the destination's output of src's slots, the deterministic
 * layout (full_scatter_indices): the segment of (dest, local expert, src)
 * plus src's earlier slots of that expert; -1 for drops.  seen: [E].
 */
static void
scatter_of(const struct mk_a2a_cfg *c, const struct mk_moe_step *s,
    const struct mk_a2a_group *g, int src, int32_t *out, int32_t *seen)
{
	int64_t t, x, epr = c->E / c->R;
	int j, K = c->K;

	memset(seen, 0, sizeof(int32_t) * (size_t)c->E);
	for (t = 0; t < s->T[src]; t++)
		for (j = 0; j < K; j++) {
			x = mk_moe_id(s, src, t, j);
			out[t * K + j] = !expert(c, x) ? -1 : g->recv_offset[
			    ((size_t)(x / epr) * (size_t)epr + (size_t)(x %
			    epr)) * (size_t)c->R + (size_t)src] + seen[x]++;
		}
}

/* Whether token t of src has a slot on node n. */
static int
sends_to(const struct mk_a2a_cfg *c, const struct mk_moe_step *s, int src,
    int64_t t, int n)
{
	int64_t x, per_node = (int64_t)(c->E / c->R) * c->local;
	int j;

	for (j = 0; j < c->K; j++) {
		x = mk_moe_id(s, src, t, j);
		if (expert(c, x) && x / per_node == n)
			return 1;
	}
	return 0;
}

/*
 * src's send requests for node n into out[0][..], out[1][..] (rows of
 * `stride`, -1 where unused): the runs of tokens bound for n, cut at
 * tiles of 256, the c-th run of a tile at column tile + c.
 */
static void
reqs_of(const struct mk_a2a_cfg *c, const struct mk_moe_step *s, int src,
    int n, int32_t *out, int64_t stride)
{
	int64_t T = s->T[src], t, tile, start, col;
	int sent;

	for (t = 0; t < 2 * stride; t++)
		out[t] = -1;
	if (n == src / c->local)
		return;
	for (tile = 0; tile < T; tile += TILE) {
		col = tile;
		start = -1;
		for (t = tile; t <= tile + TILE && t <= T; t++) {
			sent = t < tile + TILE && t < T && sends_to(c, s, src,
			    t, n);
			if (sent && start < 0)
				start = t;
			if (!sent && start >= 0) {
				out[col] = (int32_t)start;
				out[stride + col] = (int32_t)t;
				col++;
				start = -1;
			}
		}
	}
}

/*
 * What rank r = (n, l) receives from each node m: rank (m, l)'s scatter
 * indices, its ids (drops as they are), its requests for node n (its own
 * node's slot is never written: -1).  Rows past a source's tokens are -1
 * (topk_indices_buf is reset to -1 after each dispatch; the others are
 * shown as fresh buffers).
 */
static void
receiver_views(const struct mk_a2a_cfg *c, const struct mk_moe_step *s,
    const struct mk_a2a_group *g, int r, struct mk_a2a_rank *o,
    int32_t *tmp, int32_t *seen)
{
	int64_t M = o->M, K = c->K, t, i;
	int m, src, nodes = c->R / c->local;

	for (m = 0; m < nodes; m++) {
		src = m * c->local + r % c->local;
		int32_t *sc = o->recv_scatter + (size_t)m * M * K;
		int32_t *ids = o->recv_topk_ids + (size_t)m * M * K;

		scatter_of(c, s, g, src, tmp, seen);
		for (i = 0; i < M * K; i++) {
			t = i / K;
			sc[i] = t < s->T[src] ? tmp[i] : -1;
			ids[i] = t < s->T[src] ? (int32_t)mk_moe_id(s, src, t,
			    (int)(i % K)) : -1;
		}
		reqs_of(c, s, src, r / c->local, o->recv_reqs + (size_t)m *
		    2 * M, M);
	}
}

/*
 * Intranode: a token with several slots on rank r is sent once; every
 * row r receives maps to the row of the token's first slot on r
 * (skipped_token_mapping_indices, itself for that first row), and the
 * first row lists, at each slot j going to r, itself
 * (skipped_token_topk_mapping_indices; -1 elsewhere, as fresh).
 */
static void
skipped(const struct mk_a2a_cfg *c, const struct mk_moe_step *s,
    const struct mk_a2a_group *g, int r, struct mk_a2a_rank *o,
    int32_t *tmp, int32_t *seen)
{
	int64_t t, x, epr = c->E / c->R, first, at, i;
	int src, j, k, K = c->K;

	for (i = 0; i < o->Nrows * K; i++)
		o->skip_topk[i] = -1;
	for (src = 0; src < c->R; src++) {
		scatter_of(c, s, g, src, tmp, seen);
		for (t = 0; t < s->T[src]; t++)
			for (j = 0; j < K; j++) {
				x = mk_moe_id(s, src, t, j);
				if (!expert(c, x) || x / epr != r)
					continue;
				at = tmp[t * K + j];
				for (k = 0, first = at; k < j; k++) {
					x = mk_moe_id(s, src, t, k);
					if (expert(c, x) && x / epr == r) {
						first = tmp[t * K + k];
						break;
					}
				}
				o->skip_map[at] = first;
				o->skip_topk[first * K + j] = first;
			}
	}
}

int
mk_a2a_triton_rank(const struct mk_a2a_cfg *c, const struct mk_moe_step *s,
    const struct mk_a2a_group *g, int r, struct mk_a2a_rank *o,
    struct mk_err *e)
{
	size_t T = (size_t)s->T[r], K = (size_t)c->K, n, M, N;
	int32_t *tmp, *seen;
	int64_t most = 0;
	int src, nodes = c->R / c->local;

	for (src = 0; src < c->R; src++)
		if (s->T[src] > most)
			most = s->T[src];
	o->M = M = (size_t)(c->max_tokens > 0 ? c->max_tokens : most);
	o->Nrows = N = (size_t)g->recv_rows[r];
	n = (size_t)nodes;
	o->scatter_idx = malloc(T * K * 4 + 4);
	o->send_reqs = malloc(n * 2 * T * 4 + 4);
	o->recv_scatter = malloc(n * M * K * 4 + 4);
	o->recv_reqs = malloc(n * 2 * M * 4 + 4);
	o->recv_topk_ids = malloc(n * M * K * 4 + 4);
	o->skip_map = calloc(N + 1, 8);
	o->skip_topk = calloc(N * K + 1, 8);
	tmp = malloc((size_t)most * K * 4 + 4);
	seen = malloc((size_t)c->E * 4);
	if (!o->scatter_idx || !o->send_reqs || !o->recv_scatter ||
	    !o->recv_reqs || !o->recv_topk_ids || !o->skip_map ||
	    !o->skip_topk || !tmp || !seen) {
		free(tmp);
		free(seen);
		return mk_err_data(e, "out of memory for rank %d", r);
	}
	scatter_of(c, s, g, r, o->scatter_idx, seen);
	for (src = 0; src < nodes; src++)
		reqs_of(c, s, r, src, o->send_reqs + (size_t)src * 2 * T,
		    (int64_t)T);
	receiver_views(c, s, g, r, o, tmp, seen);
	if (nodes == 1)
		skipped(c, s, g, r, o, tmp, seen);
	free(tmp);
	free(seen);
	return 0;
}
