/* a2a_capacity.c - receive capacity from a trace; see a2a_capacity.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "a2a/a2a_capacity.h"

void
mk_a2a_demands_free(struct mk_a2a_demands *dm)
{
	int k;

	for (k = 0; k < MK_A2A_ND; k++)
		free(dm->d[k]);
	memset(dm, 0, sizeof(*dm));
}

int
mk_a2a_demands_add(struct mk_a2a_demands *dm, const struct mk_a2a_cfg *c,
    const struct mk_a2a_group *g, int64_t T, struct mk_err *e)
{
	int64_t v[MK_A2A_ND] = { 0 }, rows;
	int R = c->R, epr = c->E / c->R, r, s, k, cap;
	int64_t *p;

	if (dm->S == dm->cap) {
		cap = dm->cap ? 2 * dm->cap : 256;
		for (k = 0; k < MK_A2A_ND; k++) {
			if ((p = realloc(dm->d[k], sizeof(int64_t) *
			    (size_t)cap)) == NULL)
				return mk_err_data(e, "out of memory for the "
				    "demands of %d steps", cap);
			dm->d[k] = p;
		}
		dm->cap = cap;
	}
	for (r = 0; r < R; r++) {
		if (g->recv_tokens[r] > v[MK_A2A_D_TOKENS])
			v[MK_A2A_D_TOKENS] = g->recv_tokens[r];
		if (mk_a2a_internode(c) && g->rdma_recv_tokens[r] >
		    v[MK_A2A_D_WORST])
			v[MK_A2A_D_WORST] = g->rdma_recv_tokens[r];
		for (k = 0, rows = 0; k < epr; k++)
			rows += g->ll_count[(size_t)r * epr + k];
		if (rows > v[MK_A2A_D_ROWS])
			v[MK_A2A_D_ROWS] = rows;
		for (s = 0; s < R; s++)
			if (g->tokens_per_rank[(size_t)s * R + r] >
			    v[MK_A2A_D_PAIR])
				v[MK_A2A_D_PAIR] = g->tokens_per_rank[(size_t)s *
				    R + r];
	}
	if (v[MK_A2A_D_TOKENS] > v[MK_A2A_D_WORST])
		v[MK_A2A_D_WORST] = v[MK_A2A_D_TOKENS];
	for (k = 0; k < MK_A2A_ND; k++)
		dm->d[k][dm->S] = v[k];
	if (T > dm->T)
		dm->T = T;
	dm->S++;
	return 0;
}

static int
descending(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x < y) - (x > y);
}

int64_t
mk_a2a_capacity_at(const int64_t *d, int S, double p, int64_t *tmp)
{
	int64_t k;

	if (S == 0)
		return 0;
	/* the (k+1)-th largest: k steps above it at most, and any smaller
	 * value has k + 1 */
	k = (int64_t)floor(p * S);
	if (k >= S)
		return 0;
	memcpy(tmp, d, sizeof(int64_t) * (size_t)S);
	qsort(tmp, (size_t)S, sizeof(int64_t), descending);
	return tmp[k];
}

int
mk_a2a_steps_over(const int64_t *d, int S, int64_t c)
{
	int s, n = 0;

	for (s = 0; s < S; s++)
		n += d[s] > c;
	return n;
}

/*
 * What a library needs to know of the group: ranks, local experts, top-k,
 * and the tokens a rank sends (T, the trace's most).
 */
struct grp {
	int64_t	 R, Le, K, T;
};

/*
 * A library's knob: the value for a capacity c in its demand's units,
 * the capacity a value allocates on ranks of T tokens, and the value it
 * has by default.  A count scales to a trace of other T with the tokens
 * (ceil(v T'/T)); a fraction or factor is read again at T'.
 */
struct knob {
	const char	*library, *knob;
	enum mk_a2a_demand demand;
	int		 is_count;
	double		(*value)(const struct grp *g, int64_t c, char *note,
			    size_t n);
	int64_t		(*alloc)(const struct grp *g, double v, int64_t T);
	double		(*dflt)(const struct grp *g);
	/* rows of the buffer at capacity a (in demand units) */
	int64_t		(*rows)(const struct grp *g, int64_t a);
	/* bytes of a received row: 0 the token's, 1 DeepEP's (with its
	 * top-k ids and weights), 2 NCCL EP's (rounded to 16) */
	int		 row_kind;
};

/*
 * The fraction of the worst case full that capacity c is, in millionths
 * (at least one, at most all): c / full rounded down, or up as far as the
 * ceil (up) or floor of f full needs to reach c.  The share itself where
 * it has six decimals (0.7 of 240 is 168).
 */
static double
fraction(int64_t c, double full, int up)
{
	int64_t m = (int64_t)floor((double)c / full * 1e6);
	double a;

	for (m = m < 1 ? 1 : m; m < 1000000; m++) {
		a = (double)m / 1e6 * full;
		if ((up ? ceil(a) : floor(a)) >= (double)c)
			break;
	}
	return (double)m / 1e6;
}

static double
count_value(const struct grp *g, int64_t c, char *note, size_t n)
{
	(void)g;
	(void)note;
	(void)n;
	return (double)c;
}

static int64_t
count_alloc(const struct grp *g, double v, int64_t T)
{
	(void)g;
	(void)T;
	return (int64_t)v;
}

static int64_t
same_rows(const struct grp *g, int64_t a)
{
	(void)g;
	return a;
}

/* Every rank's tokens to one rank: R T (DeepEP's tests' num_worst_tokens,
 * NCCL EP's nRanks * max_dispatch_tokens_per_rank). */
static double
all_tokens(const struct grp *g)
{
	return (double)(g->R * g->T);
}

/* vLLM: ceil(fraction * dp_size * round_up(max_num_batched_tokens, sp)),
 * a DP rank per EP rank, no sequence parallelism. */
static int64_t
vllm_alloc(const struct grp *g, double f, int64_t T)
{
	return (int64_t)ceil(f * (double)(g->R * T));
}

static double
vllm_value(const struct grp *g, int64_t c, char *note, size_t n)
{
	(void)note;
	(void)n;
	return fraction(c, (double)(g->R * g->T), 1);
}

static double
one(const struct grp *g)
{
	(void)g;
	return 1;
}

/* NCCL EP HT: max_recv_tokens_per_rank >= max_dispatch_tokens_per_rank. */
static double
nccl_value(const struct grp *g, int64_t c, char *note, size_t n)
{
	if (c >= g->T)
		return (double)c;
	snprintf(note, n, "raised to max_dispatch_tokens_per_rank %lld: HT "
	    "requires max_recv_tokens_per_rank >= it", (long long)g->T);
	return (double)g->T;
}

/* Megatron-LM (#7578): tokens a rank sends, a multiple of 64; the receive
 * capacity it derives is R of them. */
static double
megatron_value(const struct grp *g, int64_t c, char *note, size_t n)
{
	(void)c;
	snprintf(note, n, "sizes what a rank sends (a multiple of 64); the "
	    "receive derived from it is %lld x it: no p lowers it",
	    (long long)g->R);
	return (double)((g->T + 63) / 64 * 64);
}

static double
megatron_dflt(const struct grp *g)
{
	return (double)((g->T + 63) / 64 * 64);
}

static int64_t
megatron_alloc(const struct grp *g, double v, int64_t T)
{
	(void)T;
	return g->R * (int64_t)v;
}

/* torchtitan HybridEP: int(T * ep_size * min(local experts, top_k) *
 * capacity_factor) permuted rows. */
static double
hybridep_full(const struct grp *g, int64_t T)
{
	return (double)T * (double)g->R * (double)(g->Le < g->K ? g->Le :
	    g->K);
}

static double
hybridep_value(const struct grp *g, int64_t c, char *note, size_t n)
{
	(void)note;
	(void)n;
	return fraction(c, hybridep_full(g, g->T), 0);
}

static int64_t
hybridep_alloc(const struct grp *g, double f, int64_t T)
{
	return (int64_t)floor(hybridep_full(g, T) * f);
}

/* pplx-garden: rows of (token, local expert), its worst case
 * max(min(N K, N Le), Le) with N the tokens of every DP group (expert
 * padding 1). */
static double
pplx_dflt(const struct grp *g)
{
	double N = (double)(g->R * g->T), w = N * (double)g->K;

	if (N * (double)g->Le < w)
		w = N * (double)g->Le;
	return w > (double)g->Le ? w : (double)g->Le;
}

static double
pplx_value(const struct grp *g, int64_t c, char *note, size_t n)
{
	if (g->R * g->Le > 1024)
		snprintf(note, n, "%lld experts: pplx-garden's kernels take "
		    "1024 at most (#9)", (long long)(g->R * g->Le));
	return (double)c;
}

/* MORI: max_total_recv_tokens / world_size tokens a source rank, at most
 * max_num_inp_token_per_rank; 0 (its default) is that maximum. */
static double
mori_value(const struct grp *g, int64_t c, char *note, size_t n)
{
	(void)note;
	(void)n;
	return (double)(g->R * c);
}

static int64_t
mori_alloc(const struct grp *g, double v, int64_t T)
{
	int64_t per = ((int64_t)v + g->R - 1) / g->R;

	return v <= 0 || per > T ? T : per;
}

static double
zero(const struct grp *g)
{
	(void)g;
	return 0;
}

static int64_t
mori_rows(const struct grp *g, int64_t a)
{
	return g->R * a;
}

static const struct knob knobs[MK_A2A_NKNOBS] = {
	{ "moekit", "recv_tokens", MK_A2A_D_TOKENS, 1, count_value,
	    count_alloc, all_tokens, same_rows, 0 },
	{ "deepep", "num_worst_tokens", MK_A2A_D_WORST, 1, count_value,
	    count_alloc, all_tokens, same_rows, 1 },
	{ "vllm", "ep_max_recv_tokens_fraction", MK_A2A_D_TOKENS, 0,
	    vllm_value, vllm_alloc, one, same_rows, 0 },
	{ "nccl_ep", "max_recv_tokens_per_rank", MK_A2A_D_TOKENS, 1,
	    nccl_value, count_alloc, all_tokens, same_rows, 2 },
	{ "megatron", "moe_ncclep_max_tokens_per_rank", MK_A2A_D_TOKENS, 1,
	    megatron_value, megatron_alloc, megatron_dflt, same_rows, 0 },
	{ "torchtitan", "non_blocking_capacity_factor", MK_A2A_D_ROWS, 0,
	    hybridep_value, hybridep_alloc, one, same_rows, 0 },
	{ "pplx", "max_recv_tokens_override", MK_A2A_D_ROWS, 1, pplx_value,
	    count_alloc, pplx_dflt, same_rows, 0 },
	{ "mori", "max_total_recv_tokens", MK_A2A_D_PAIR, 1, mori_value,
	    mori_alloc, zero, mori_rows, 0 },
};

int64_t
mk_a2a_knob_alloc(int k, int64_t R, int64_t Le, int64_t K, int64_t T,
    double v)
{
	const struct grp g = { R, Le, K, T };

	return knobs[k].alloc(&g, v < 0 ? knobs[k].dflt(&g) : v, T);
}

/* Bytes of a received row as knob k's library lays it out. */
static uint64_t
row_bytes(const struct mk_a2a_capacity_in *in, const struct knob *k)
{
	uint64_t b = mk_a2a_token_bytes(in->sz);

	if (in->sz->fp8)
		b += (uint64_t)(in->sz->hidden / 128) * 4;	/* f32 scales */
	if (k->row_kind == 1)	/* recv_topk_idx and recv_topk_weights */
		b += (uint64_t)in->c->K * (uint64_t)(in->sz->idx_bytes + 4);
	if (k->row_kind == 2)	/* max_token_bytes: a multiple of 16 */
		b = (b + 15) / 16 * 16;
	return b;
}

/* The capacity value v allocates on the held-out trace of T2 tokens. */
static int64_t
alloc_at(const struct knob *k, const struct grp *g, double v, int64_t T2)
{
	if (k->is_count && g->T > 0)
		v = ceil(v * (double)T2 / (double)g->T);
	return k->alloc(g, v, T2);
}

int
mk_a2a_knob_row(const struct mk_a2a_capacity_in *in, int ki, double p,
    struct mk_a2a_knob_row *r, struct mk_err *e)
{
	const struct knob *k = &knobs[ki];
	const struct mk_a2a_demands *f = in->fit, *h = in->eval;
	const struct grp g = { in->c->R, in->c->E / in->c->R, in->c->K, f->T };
	int64_t *tmp, c;
	uint64_t rb = row_bytes(in, k);
	double dv;

	if ((tmp = malloc(sizeof(int64_t) * ((size_t)f->S + 1))) == NULL)
		return mk_err_data(e, "out of memory");
	c = mk_a2a_capacity_at(f->d[k->demand], f->S, p, tmp);
	free(tmp);
	memset(r, 0, sizeof(*r));
	r->library = k->library;
	r->knob = k->knob;
	r->demand = k->demand;
	r->is_count = k->is_count;
	r->value = k->value(&g, c, r->note, sizeof(r->note));
	r->capacity = k->alloc(&g, r->value, g.T);
	r->recv_tokens = k->rows(&g, r->capacity);
	r->bytes = (uint64_t)r->recv_tokens * rb;
	dv = k->dflt(&g);
	r->worst_tokens = k->rows(&g, k->alloc(&g, dv, g.T));
	r->worst_bytes = (uint64_t)r->worst_tokens * rb;
	r->steps_over = mk_a2a_steps_over(f->d[k->demand], f->S, r->capacity);
	r->eval_over = h == NULL ? -1 : mk_a2a_steps_over(h->d[k->demand],
	    h->S, alloc_at(k, &g, r->value, h->T));
	return 0;
}

int
mk_a2a_capacity_write(FILE *fp, const struct mk_a2a_capacity_in *in,
    struct mk_err *e)
{
	static const char *const unit[MK_A2A_ND] = { "tokens", "tokens",
	    "rows", "tokens_a_source" };
	struct mk_a2a_knob_row r;
	int i, k;

	fprintf(fp, "library,knob,p,value,recv_tokens,bytes_per_rank,"
	    "worst_tokens,worst_bytes_per_rank,steps_over,eval_steps_over,"
	    "demand,capacity,note\n");
	for (i = 0; i < in->np; i++)
		for (k = 0; k < MK_A2A_NKNOBS; k++) {
			if (mk_a2a_knob_row(in, k, in->p[i], &r, e) < 0)
				return -1;
			fprintf(fp, "%s,%s,%.15g,", r.library, r.knob, in->p[i]);
			fprintf(fp, r.is_count ? "%.0f," : "%.6f,", r.value);
			fprintf(fp, "%lld,%llu,%lld,%llu,%d,", (long long)
			    r.recv_tokens, (unsigned long long)r.bytes,
			    (long long)r.worst_tokens, (unsigned long long)
			    r.worst_bytes, r.steps_over);
			if (r.eval_over >= 0)
				fprintf(fp, "%d", r.eval_over);
			fprintf(fp, ",%s,%lld,", unit[r.demand],
			    (long long)r.capacity);
			/* a note is quoted where it holds a comma */
			fprintf(fp, strchr(r.note, ',') ? "\"%s\"\n" : "%s\n",
			    r.note);
		}
	return 0;
}
