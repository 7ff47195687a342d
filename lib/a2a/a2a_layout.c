/*
 * a2a_layout.c - the group-wide dispatch layout of one step (DeepEP's
 * get_dispatch_layout and notify_dispatch, Triton-distributed's
 * preprocess), in one pass over the routing ids.  See a2a.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2a/a2a.h"
#include "a2a/a2a_scan.h"
#include "simd/kern.h"

/*
 * Triton-distributed asserts only E % W == 0; nodes are local_world_size
 * ranks (nnodes = W // L, so L must divide W for every rank to have one).
 */
static int
triton_config(struct mk_a2a_cfg *c, struct mk_err *e)
{
	if (c->nodes > 0 && c->local > 0 && c->local * c->nodes != c->R)
		return mk_err_usage(e, "--num-nodes %d and --local-world-size "
		    "%d: %d ranks are not %d nodes of %d", c->nodes, c->local,
		    c->R, c->nodes, c->local);
	if (c->local < 1)
		c->local = c->nodes > 0 ? c->R / c->nodes :
		    mk_a2a_node_ranks(c->R);
	if (c->R % c->local != 0)
		return mk_err_usage(e, "%d ranks: --local-world-size %d does "
		    "not divide them (Triton-distributed: nnodes = world_size "
		    "// local_world_size)", c->R, c->local);
	return 0;
}

/*
 * DeepEP's low-latency mode alone: the Buffer asserts num_ranks <
 * NUM_MAX_NVL_PEERS or num_ranks % NUM_MAX_NVL_PEERS == 0 (the 160-rank
 * limit is for normal mode only), and its dispatch kNumMaxTopK = 11.
 */
static int
ll_config(struct mk_a2a_cfg *c, struct mk_err *e)
{
	if (c->R > MK_A2A_NVL && c->R % MK_A2A_NVL != 0)
		return mk_err_usage(e, "%d ranks: DeepEP's Buffer asserts "
		    "num_ranks < 8 or num_ranks %% 8 == 0", c->R);
	if (c->K > 11)
		return mk_err_usage(e, "top-%d: DeepEP's low-latency kernels "
		    "need K <= 11 (kNumMaxTopK)", c->K);
	c->local = mk_a2a_node_ranks(c->R);
	c->C = 1;
	return 0;
}

int
mk_a2a_config(struct mk_a2a_cfg *c, struct mk_err *e)
{
	static const int nodes_ok[] = { 2, 3, 4, 6, 8, 12, 16, 18, 20 };
	const char *who = c->style == MK_A2A_TRITON ? "Triton-distributed" :
	    "DeepEP";
	size_t i;
	int ok;

	if (c->R < 1 || c->R > MK_MOE_MAX_RANKS)
		return mk_err_usage(e, "%d ranks: a2a-layout supports 1 to %d",
		    c->R, MK_MOE_MAX_RANKS);
	if (c->E < 1 || c->E % c->R != 0)
		return mk_err_usage(e, "%d experts on %d ranks: %s requires "
		    "E %% R == 0 (%s)", c->E, c->R, who, c->style ==
		    MK_A2A_TRITON ? "num_tot_experts % world_size" :
		    "num_tokens_per_expert.size(0) % num_ranks");
	if (c->K < 1 || c->K > MK_MOE_MAX_TOPK)
		return mk_err_usage(e, "top-%d: DeepEP's dispatch kernels "
		    "require 1 <= K <= %d", c->K, MK_MOE_MAX_TOPK);
	if (c->C < 1)
		return mk_err_usage(e, "no channels: --num-sms must be at "
		    "least 2");
	if (c->align < 1)
		c->align = 1;
	if (c->nodes > 0 && c->R % c->nodes != 0)
		return mk_err_usage(e, "--num-nodes %d: does not divide the %d "
		    "ranks", c->nodes, c->R);
	if (c->style == MK_A2A_TRITON)
		return triton_config(c, e);
	/*
	 * DeepEP's normal mode puts rank r on node r / 8 (NUM_MAX_NVL_PEERS,
	 * a build constant): other nodes it cannot run, so cannot size
	 */
	if (c->nodes > 0 && !c->ll_only && c->nodes != (c->R <= MK_A2A_NVL ?
	    1 : c->R / MK_A2A_NVL))
		return mk_err_usage(e, "--num-nodes %d: %d ranks a node, but "
		    "DeepEP's normal mode puts %d on a node (NUM_MAX_NVL_PEERS "
		    "%d); --low-latency or --style triton-dist size other "
		    "nodes, and without --num-nodes, --scaleup-ranks %d sizes "
		    "EPv2's ElasticBuffer for them", c->nodes, c->R / c->nodes,
		    c->R <= MK_A2A_NVL ? c->R : MK_A2A_NVL, MK_A2A_NVL,
		    c->R / c->nodes);
	if (c->local > 0 && c->local != mk_a2a_node_ranks(c->R))
		return mk_err_usage(e, "--local-world-size %d: DeepEP's nodes "
		    "are 8 ranks (NUM_MAX_NVL_PEERS); the option is "
		    "Triton-distributed's", c->local);
	if (c->ll_only)
		return ll_config(c, e);
	if (c->R > MK_A2A_NORMAL_RANKS)
		return mk_err_usage(e, "%d ranks: DeepEP's normal mode takes at "
		    "most %d (NUM_MAX_NVL_PEERS * NUM_MAX_RDMA_PEERS); a "
		    "low-latency-only group: --low-latency", c->R,
		    MK_A2A_NORMAL_RANKS);
	if (c->R <= MK_A2A_NVL) {
		if (c->R != 2 && c->R != 4 && c->R != 8)
			return mk_err_usage(e, "%d ranks: DeepEP intranode "
			    "supports 2, 4 or 8 ranks (SWITCH_RANKS); a "
			    "low-latency-only group: --low-latency", c->R);
		c->local = c->R;
	} else {
		for (i = 0, ok = 0; i < sizeof(nodes_ok) / sizeof(nodes_ok[0]);
		    i++)
			ok |= c->R == MK_A2A_NVL * nodes_ok[i];
		if (!ok)
			return mk_err_usage(e, "%d ranks: DeepEP internode needs "
			    "R = 8 * n with n in {2,3,4,6,8,12,16,18,20} "
			    "(SWITCH_RDMA_RANKS); a low-latency-only group: "
			    "--low-latency", c->R);
		c->local = MK_A2A_NVL;
	}
	return 0;
}

void
mk_a2a_group_free(struct mk_a2a_group *g)
{
	free(g->tokens_per_rank);
	free(g->tokens_per_node);
	free(g->tokens_per_expert);
	free(g->chan_prefix);
	free(g->rdma_chan_prefix);
	free(g->rank_prefix);
	free(g->recv_rank_prefix);
	free(g->rdma_rank_prefix);
	free(g->recv_tokens);
	free(g->rdma_recv_tokens);
	free(g->recv_per_expert);
	free(g->ll_count);
	free(g->ll_range);
	free(g->full_splits);
	free(g->input_tokens);
	free(g->recv_offset);
	free(g->recv_rows);
	free(g->scan_hist);
	free(g->pieces_done);
	memset(g, 0, sizeof(*g));
}

/*
 * Zeroed memory starting on a cache line.  The counting pass writes rows
 * of these arrays from several threads at once; rows that shared a line
 * would make the threads fight over it.
 */
static void *
zalloc_lines(size_t n)
{
	void *p;

	n = (n + 63) & ~(size_t)63;
	if ((p = aligned_alloc(64, n ? n : 64)) != NULL)
		memset(p, 0, n);
	return p;
}

/* Ints per piece in scan_hist: E + 3, whole cache lines. */
static size_t
hist_stride(const struct mk_a2a_cfg *c)
{
	return ((size_t)c->E + 3 + 15) & ~(size_t)15;
}

/* The threads of the layout's team. */
static int
team(const struct mk_a2a_cfg *c)
{
	return c->threads > 1 ? c->threads : 1;
}

/* Pieces of a rank counted at once, at most this many. */
#define MAX_PIECES	4

/*
 * Enough pieces for every thread to take one in a step of fewer ranks
 * than threads (whole channels each, none for large E: each piece has its
 * own histogram).  No more: traces are laid out several steps at once
 * (mk_a2a_layout_steps), and smaller pieces were slower there than whole
 * ranks (more calls to unmap, more rows shared between threads).
 */
static int
pieces_for(const struct mk_a2a_cfg *c)
{
	int p = (team(c) + c->R - 1) / c->R;

	if (p > MAX_PIECES)
		p = MAX_PIECES;
	if (p > c->C)
		p = c->C;
	return c->E > 4096 || p < 1 ? 1 : p;
}

int
mk_a2a_group_alloc(struct mk_a2a_group *g, const struct mk_a2a_cfg *c)
{
	size_t R = (size_t)c->R, E = (size_t)c->E, C = (size_t)c->C;
	size_t RR = c->R > MK_A2A_NVL ? R / MK_A2A_NVL : 1, epr = E / R;

	memset(g, 0, sizeof(*g));
	g->tokens_per_rank = calloc(R * R, 4);
	g->tokens_per_node = calloc(R * RR, 4);
	g->tokens_per_expert = calloc(R * E, 4);
	g->chan_prefix = zalloc_lines(R * R * C * 4);
	g->rdma_chan_prefix = zalloc_lines(R * RR * C * 4);
	g->rank_prefix = calloc(R * R, 4);
	g->recv_rank_prefix = calloc(R * R, 4);
	g->rdma_rank_prefix = calloc(R * RR, 4);
	g->recv_tokens = calloc(R, 4);
	g->rdma_recv_tokens = calloc(R, 4);
	g->recv_per_expert = calloc(R * epr, 4);
	g->ll_count = calloc(R * epr, 4);
	g->ll_range = calloc(R * epr * R, 8);
	g->full_splits = calloc(R * (E + 1), 4);
	g->input_tokens = calloc(R, 4);
	g->recv_offset = calloc(R * epr * R, 4);
	g->recv_rows = calloc(R, 4);
	g->pieces = pieces_for(c);
	g->scan_hist = zalloc_lines(R * (size_t)g->pieces * hist_stride(c) *
	    4);
	g->pieces_done = calloc(R, sizeof(int));
	if (!g->tokens_per_rank || !g->tokens_per_node ||
	    !g->tokens_per_expert || !g->chan_prefix || !g->rdma_chan_prefix ||
	    !g->rank_prefix || !g->recv_rank_prefix || !g->rdma_rank_prefix ||
	    !g->recv_tokens || !g->rdma_recv_tokens || !g->recv_per_expert ||
	    !g->ll_count || !g->ll_range || !g->full_splits ||
	    !g->input_tokens || !g->recv_offset || !g->recv_rows ||
	    !g->scan_hist || !g->pieces_done) {
		mk_a2a_group_free(g);
		return -1;
	}
	return 0;
}

/*
 * Why token t of rank src stopped the counting pass: an id out of range
 * or too many nodes.  Returns -1 with e filled.
 */
static int
explain(const struct mk_a2a_cfg *c, const struct mk_moe_step *s, int src,
    int64_t t, const char *where, struct mk_err *e)
{
	int64_t x, E = c->E;
	uint64_t nodes = 0;
	int j, triton = c->style == MK_A2A_TRITON;

	for (j = 0; j < c->K; j++) {
		x = mk_moe_id(s, src, t, j);
		if (x >= 0 && x < E)
			nodes |= (uint64_t)1 << (x / (E / c->R) / MK_A2A_NVL);
		else if (x != -1 && !(triton && x == E) && !c->lenient)
			return mk_err_data(e, "%srank %d, token %lld, slot %d: "
			    "expert %lld is not in [0, %lld) (-1%s means no "
			    "expert; --lenient ignores it)", where, src,
			    (long long)t, j,
			    (long long)x, (long long)E, triton ? " or E" : "");
	}
	return mk_err_data(e, "%srank %d, token %lld: reaches %d nodes; "
	    "DeepEP allows at most 8 (kNumTopkRDMARanks)", where, src,
	    (long long)t, __builtin_popcountll(nodes));
}

/* Piece p of a source rank of T tokens: whole channels. */
struct piece {
	int64_t	 t0, t1;	/* its tokens */
	int64_t	 per;		/* tokens per channel of the rank */
	int	 ch0, nch;	/* its channels */
};

static struct piece
piece_of(const struct mk_a2a_cfg *c, const struct mk_a2a_group *g,
    int64_t T, int p)
{
	struct piece pc;
	int64_t a, b;

	pc.per = T > 0 ? (T + c->C - 1) / c->C : 1;
	pc.ch0 = c->C * p / g->pieces;
	pc.nch = c->C * (p + 1) / g->pieces - pc.ch0;
	a = pc.per * pc.ch0;
	b = pc.per * (pc.ch0 + pc.nch);
	pc.t0 = a < T ? a : T;
	pc.t1 = b < T ? b : T;
	return pc;
}

/*
 * The counting pass over piece p (pc) of source rank src (the kernel
 * a2a_scan): slots per expert into the piece's histogram, tokens per
 * destination rank and node into its channels' columns.  Returns -1, or
 * the token the kernel stopped at.
 */
static int64_t
count_piece(const struct mk_a2a_cfg *c, const struct mk_moe_step *s,
    int src, int p, const struct piece *pc, struct mk_a2a_group *g)
{
	int R = c->R, C = c->C, inter = mk_a2a_internode(c);
	int RR = inter ? R / MK_A2A_NVL : 1;
	struct mk_a2a_scan sc;
	int64_t bad;

	memset(&sc, 0, sizeof(sc));
	sc.ids = (const unsigned char *)s->ids[src] + (size_t)pc->t0 *
	    (size_t)c->K * (size_t)s->elem;
	sc.elem = s->elem;
	sc.K = c->K;
	sc.R = R;
	sc.E = c->E;
	sc.C = C;
	sc.nch = pc->nch;
	sc.T = pc->t1 - pc->t0;
	sc.per = pc->per;
	sc.triton = c->style == MK_A2A_TRITON;
	sc.lenient = c->lenient;
	sc.any_nodes = c->ll_only;
	mk_a2a_scan_rank_of(&sc, c->E, R);
	sc.hist = g->scan_hist + ((size_t)src * (size_t)g->pieces +
	    (size_t)p) * hist_stride(c);
	sc.chan = g->chan_prefix + (size_t)src * R * C + pc->ch0;
	sc.nchan = inter ? g->rdma_chan_prefix + (size_t)src * RR * C +
	    pc->ch0 : NULL;
	bad = mk_a2a_kern()->a2a_scan(&sc);
	return bad < 0 ? -1 : pc->t0 + bad;
}

/*
 * Source rank src once all its pieces are counted: slots per expert (the
 * pieces' histograms summed), then the totals and the inclusive prefixes
 * over channels.
 */
static void
finish_rank(const struct mk_a2a_cfg *c, int src, struct mk_a2a_group *g)
{
	int R = c->R, E = c->E, C = c->C, d, ch, p, x;
	int inter = mk_a2a_internode(c), RR = inter ? R / MK_A2A_NVL : 1;
	int32_t *cp = g->chan_prefix + (size_t)src * R * C;
	int32_t *rcp = g->rdma_chan_prefix + (size_t)src * RR * C;
	int32_t *hist = g->scan_hist + (size_t)src * (size_t)g->pieces *
	    hist_stride(c);
	int32_t *fs = g->full_splits + (size_t)src * (E + 1);

	for (p = 1; p < g->pieces; p++)
		for (x = 0; x < E + 3; x++)
			hist[x] += hist[(size_t)p * hist_stride(c) + (size_t)x];
	memcpy(g->tokens_per_expert + (size_t)src * E, hist + 1,
	    (size_t)E * sizeof(int32_t));
	memcpy(fs, hist + 1, (size_t)E * sizeof(int32_t));
	fs[E] = hist[0] + (c->style == MK_A2A_TRITON ? hist[E + 1] : 0);
	for (d = 0; d < R; d++) {
		for (ch = 1; ch < C; ch++)
			cp[(size_t)d * C + ch] += cp[(size_t)d * C + ch - 1];
		g->tokens_per_rank[(size_t)src * R + d] =
		    cp[(size_t)d * C + C - 1];
	}
	for (d = 0; d < RR && inter; d++) {
		for (ch = 1; ch < C; ch++)
			rcp[(size_t)d * C + ch] += rcp[(size_t)d * C + ch - 1];
		g->tokens_per_node[(size_t)src * RR + d] =
		    rcp[(size_t)d * C + C - 1];
	}
}

void
mk_a2a_scan_rank_of(struct mk_a2a_scan *s, int E, int R)
{
	uint64_t epr = (uint64_t)(E / R);

	s->mul = 1;
	for (s->shift = 0; ((uint64_t)1 << s->shift) < epr; s->shift++)
		;
	if (((uint64_t)1 << s->shift) == epr)
		return;
	/* x * ceil(2^32/epr) >> 32 = x / epr while x * epr <= 2^32 */
	s->shift = 32;
	s->mul = (((uint64_t)1 << 32) + epr - 1) / epr;
	if ((uint64_t)E * epr > ((uint64_t)1 << 32))
		s->mul = 0;
}

static int64_t
align_up(int64_t a, int64_t b)
{
	return (a + b - 1) / b * b;
}

/*
 * What receiver r derives from the senders' counts (and what column r
 * of the group's prefix matrices holds); no other rank's outputs.
 */
static void
receive_rank(const struct mk_a2a_cfg *c, struct mk_a2a_group *g, int r)
{
	int R = c->R, E = c->E, K = c->K, epr = E / R, s, S, j, k;
	int inter = mk_a2a_internode(c), RR = inter ? R / MK_A2A_NVL : 1;
	int64_t sum, begin, cnt, off;

	for (s = 0, sum = 0; s < R; s++) {
		sum += g->tokens_per_rank[(size_t)s * R + r];
		g->rank_prefix[(size_t)s * R + r] = (int32_t)sum;
		g->recv_rank_prefix[(size_t)r * R + s] = (int32_t)sum;
	}
	g->recv_tokens[r] = (int32_t)sum;
	if (inter) {
		/* forwarded by the same-index peer of every node */
		for (S = 0, sum = 0; S < RR; S++) {
			sum += g->tokens_per_node[(size_t)(S * MK_A2A_NVL +
			    r % MK_A2A_NVL) * RR + r / MK_A2A_NVL];
			g->rdma_rank_prefix[(size_t)r * RR + S] = (int32_t)sum;
		}
		g->rdma_recv_tokens[r] = (int32_t)sum;
	}
	for (j = 0; j < epr; j++) {
		begin = 0;
		for (s = 0; s < R; s++) {
			cnt = g->tokens_per_expert[(size_t)s * E +
			    (size_t)r * epr + j];
			g->ll_range[((size_t)r * epr + j) * R + s] =
			    begin << 32 | cnt;
			begin += cnt;
		}
		g->ll_count[(size_t)r * epr + j] = (int32_t)begin;
		g->recv_per_expert[(size_t)r * epr + j] =
		    (int32_t)align_up(begin, c->align);
	}
	/* Triton-distributed: input tokens of r and its receive offsets */
	for (j = 0, sum = 0; j <= E; j++)
		sum += g->full_splits[(size_t)r * (E + 1) + j];
	g->input_tokens[r] = (int32_t)(sum / K);
	off = 0;
	for (j = 0; j < epr; j++)
		for (k = 0; k < R; k++) {
			g->recv_offset[((size_t)r * epr + j) * R + k] =
			    (int32_t)off;
			off += g->full_splits[(size_t)k * (E + 1) +
			    (size_t)r * epr + j];
		}
	g->recv_rows[r] = (int32_t)off;
}



/*
 * Count piece i (of n * R * pieces: step, source rank, piece) and finish
 * its rank if it was the rank's last.
 */
static int64_t
piece(const struct mk_a2a_cfg *c, const struct mk_moe_step *s, int i,
    struct mk_a2a_group *g, int *first, struct mk_err *e)
{
	int per_step = c->R * g->pieces, k = i / per_step;
	int src = i % per_step / g->pieces, p = i % g->pieces;
	struct piece pc;
	int64_t bad;

	s += k;
	g += k;
	pc = piece_of(c, g, s->T[src], p);
	if (mk_moe_step_load_rank(s, src, pc.t0, pc.t1, k * c->R + src, first, e) < 0)
		return -1;
	bad = count_piece(c, s, src, p, &pc, g);
	if (__atomic_add_fetch(&g->pieces_done[src], 1, __ATOMIC_ACQ_REL) ==
	    g->pieces && bad < 0)
		finish_rank(c, src, g);
	return bad;
}

/* Whether step k's pieces all counted without a bad token. */
static int
step_ok(const int64_t *bad, int k, int per_step)
{
	int i;

	for (i = 0; i < per_step; i++)
		if (bad[k * per_step + i] >= 0)
			return 0;
	return 1;
}

int
mk_a2a_layout_steps(const struct mk_a2a_cfg *c, const struct mk_moe_step *s,
    struct mk_a2a_group *g, int n, const char *const *where,
    struct mk_err *e)
{
	int per_step = c->R * g->pieces, items = n * per_step, i, k, src;
	int first = n * c->R, rc = 0;
	int64_t *bad, t;

	if ((bad = malloc((size_t)items * sizeof(*bad))) == NULL)
		return mk_err_data(e, "out of memory");

	for (k = 0; k < n; k++)
		memset(g[k].pieces_done, 0, (size_t)c->R * sizeof(int));
	/*
	 * Pieces of source ranks are independent: each writes only its own
	 * columns and histogram, and is loaded (read from its file) by the
	 * thread that counts it; the last piece of a rank to finish sums its
	 * rank.  Then receivers are, in the same team: one fork for n steps,
	 * and one wait for the slowest thread.
	 */
#pragma omp parallel if (items > 1 && team(c) > 1) num_threads(team(c))
	{
		int j;

#pragma omp for schedule(dynamic, 1)
		for (i = 0; i < items; i++)
			bad[i] = piece(c, s, i, g, &first, e);
#pragma omp for schedule(static)
		for (j = 0; j < n * c->R; j++)
			if (first >= (j / c->R + 1) * c->R &&
			    step_ok(bad, j / c->R, per_step))
				receive_rank(c, &g[j / c->R], j % c->R);
	}
	/* the error of the earliest step */
	for (k = 0; k < n && rc == 0; k++) {
		if (first < (k + 1) * c->R) {
			rc = -1;
			break;
		}
		for (src = 0; src < c->R && rc == 0; src++)
			for (i = 0; i < g->pieces && rc == 0; i++)
				if ((t = bad[(k * c->R + src) * g->pieces +
				    i]) >= 0)
					rc = explain(c, &s[k], src, t,
					    where[k], e);
	}
	free(bad);
	return rc;
}

int
mk_a2a_layout(const struct mk_a2a_cfg *c, const struct mk_moe_step *s,
    struct mk_a2a_group *g, const char *where, struct mk_err *e)
{
	return mk_a2a_layout_steps(c, s, g, 1, &where, e);
}

int64_t
mk_a2a_triton_rows(int64_t prev, int64_t max_tokens, int K, int64_t max_rows)
{
	int64_t rows = prev > 0 ? prev : max_tokens * K * 2;

	if (max_rows > rows)
		rows = (max_rows + 1023) / 1024 * 1024 * 2;
	return rows;
}
