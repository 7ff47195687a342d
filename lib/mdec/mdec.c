/*
 * mdec.c - splitting a decode-attention problem over threads, merging the
 * pieces, the float64 reference and the read-bandwidth probe; see mdec.h.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/dtype.h"
#include "base/half.h"
#include "simd/kern.h"
#include "mdec/mdec.h"

#define LOG2E	1.4426950408889634
#define LN2	0.6931471805599453

/* A stretch of one row handled by one thread. */
struct piece {
	int64_t	row, start, len;
};

struct plan {
	struct piece	*pieces;
	int		*first;		/* [nchunks + 1]: chunk c has pieces
					 * first[c] .. first[c+1]-1 */
	int		 nchunks, npieces;
	int		 heads;		/* pieces of one stretch in a row: 1, or
					 * KH (one per kv head) */
};

void
mk_slice(size_t n, size_t align, int t, int T, size_t *lo, size_t *hi)
{
	size_t a = align ? align : 1;

	*lo = (size_t)((unsigned __int128)n * (unsigned)t / (unsigned)T) /
	    a * a;
	*hi = t == T - 1 ? n :
	    (size_t)((unsigned __int128)n * (unsigned)(t + 1) / (unsigned)T) /
	    a * a;
}

/*
 * Chunks: NC equal shares of all the units' positions, each a contiguous
 * range, cut where units end.  A unit is a row (batch, kv head) of a
 * [B, KH, M, D] cache, whose positions are contiguous; in the layouts
 * that keep a position's kv heads side by side ([B, M, KH, D], paged) it
 * is a sequence, and each stretch of it becomes a piece per kv head, in
 * a row, for one kernel call to walk together.  Masks are random in
 * practice, so equal positions are close to equal work, and contiguous
 * ranges keep the hardware prefetchers on one stream per thread.
 */
static int
make_plan(const struct mk_mdec *p, int NC, struct plan *pl)
{
	const int heads = p->layout == MK_MDEC_BHMD ? 1 : p->KH;
	const int64_t units = (int64_t)p->B * p->KH / heads;
	int64_t N = 0, lo, hi, u, at = 0, len, end;
	size_t a, b, cap;
	int c, h, n = 0;

	for (u = 0; u < units; u++)
		N += mk_mdec_len(p, u * heads / p->KH);
	cap = ((size_t)units + (size_t)NC) * (size_t)heads;
	pl->pieces = malloc(cap * sizeof(*pl->pieces));
	pl->first = malloc(((size_t)NC + 1) * sizeof(*pl->first));
	if (pl->pieces == NULL || pl->first == NULL)
		return -1;
	pl->heads = heads;
	/* at: where unit u starts in the concatenation of all units */
	for (u = 0, c = 0; c < NC; c++) {
		pl->first[c] = n;
		mk_slice((size_t)N, 1, c, NC, &a, &b);
		for (lo = (int64_t)a, hi = (int64_t)b; lo < hi; lo = end) {
			while (lo >= at + (len = mk_mdec_len(p,
			    u * heads / p->KH))) {
				at += len;
				u++;
			}
			end = at + len < hi ? at + len : hi;
			for (h = 0; h < heads; h++, n++) {
				pl->pieces[n].row = u * heads + h;
				pl->pieces[n].start = lo - at;
				pl->pieces[n].len = end - lo;
			}
		}
	}
	pl->first[NC] = n;
	pl->nchunks = NC;
	pl->npieces = n;
	return 0;
}

const char *const mk_mdec_layout_names[MK_MDEC_NLAYOUT] = { "bhmd", "bmhd",
    "paged" };

const char *
mk_mdec_layout_name(int layout)
{
	return layout >= 0 && layout < MK_MDEC_NLAYOUT ?
	    mk_mdec_layout_names[layout] : "?";
}

const char *
mk_mdec_kvt_name(int dt, int fp8)
{
	if (dt == MK_U8)
		return fp8 == MK_FP8_E5M2 ? "fp8_e5m2" : "fp8_e4m3";
	return mk_dtype_name((enum mk_dtype)dt);
}

size_t
mk_mdec_elem(const struct mk_mdec *p, int64_t b, int kh, int64_t pos)
{
	size_t D = (size_t)p->D, KH = (size_t)p->KH;

	switch (p->layout) {
	case MK_MDEC_BMHD:
		return (((size_t)b * (size_t)p->M + (size_t)pos) * KH +
		    (size_t)kh) * D;
	case MK_MDEC_PAGED:
		return (((size_t)p->table[(size_t)b * (size_t)p->tw +
		    (size_t)(pos / p->bs)] * (size_t)p->bs +
		    (size_t)(pos % p->bs)) * KH + (size_t)kh) * D;
	default:
		return (((size_t)b * KH + (size_t)kh) * (size_t)p->M +
		    (size_t)pos) * D;
	}
}

/* The kernel's view of piece c: where its K and V rows are. */
static void
task_rows(const struct mk_mdec *p, const struct piece *c,
    struct mk_mdec_task *t)
{
	const size_t esz = mk_dtype_size((enum mk_dtype)p->dtype);
	const int64_t b = c->row / p->KH;
	const int kh = (int)(c->row % p->KH);
	size_t o;

	memset(t, 0, sizeof(*t));
	t->ps = (p->layout == MK_MDEC_BHMD ? 1 : (size_t)p->KH) *
	    (size_t)p->D * esz;
	if (p->layout == MK_MDEC_PAGED) {
		o = (size_t)kh * (size_t)p->D * esz;
		t->blk = p->table + (size_t)b * (size_t)p->tw;
		t->bs = p->bs;
		t->bshift = (p->bs & (p->bs - 1)) ? -1 : __builtin_ctz(
		    (unsigned)p->bs);
		t->bbytes = (size_t)p->bs * t->ps;
		t->p0 = (size_t)c->start;
	} else {
		o = mk_mdec_elem(p, b, kh, c->start) * esz;
	}
	t->k = (const char *)p->k + o;
	t->v = (const char *)p->v + o;
	t->n = (size_t)c->len;
	t->fp8 = p->dtype == MK_U8 ? p->fp8 : MK_FP8_NONE;
}

/* How much larger than the kernels' values K and V are (FP8 E4M3's). */
static double
read_factor(const struct mk_mdec *p)
{
	return p->dtype == MK_U8 ? 1 / MK_MDEC_FP8_READ(p->fp8) : 1;
}

mk_mdec_kernel_fn *
mk_mdec_kernel(const struct mk_mdec_kern *k, int dtype)
{
	switch (dtype) {
	case MK_F16:	return k->mdec_f16;
	case MK_BF16:	return k->mdec_bf16;
	case MK_U8:	return k->mdec_fp8;
	default:	return k->mdec_f32;
	}
}

int
mk_mdec_tile_rows(struct mk_err *e)
{
	const char *v = getenv("MOEKIT_TILE_ROWS");
	char *end;
	long n;

	if (v == NULL || *v == '\0')
		return 0;
	errno = 0;
	n = strtol(v, &end, 10);
	if (*end != '\0' || errno != 0 || n < 1 || n > 4096)
		return mk_err_usage(e, "MOEKIT_TILE_ROWS=%s: a whole number of "
		    "query rows from 1 to 4096", v);
	return (int)n;
}

/* nfloat floats, 64-byte aligned, zeroed unless every one is written
 * before it is read. */
static void *
alloc64(size_t nfloat, int zero)
{
	void *p;

	if (posix_memalign(&p, 64, (nfloat ? nfloat : 1) * sizeof(float)) != 0)
		return NULL;
	if (zero)
		memset(p, 0, (nfloat ? nfloat : 1) * sizeof(float));
	return p;
}

/*
 * q [B][QH][D] to [B*KH][G][ld], times scale * log2(e) (and the factor
 * by which the kernels read K smaller), padding zero.
 */
static float *
scaled_q(const struct mk_mdec *p, int ld)
{
	size_t bh = (size_t)p->B * (size_t)p->QH, i;
	float *qs = alloc64(bh * (size_t)ld, 1);
	const float c = (float)(p->scale * LOG2E * read_factor(p));
	int d;

	if (qs == NULL)
		return NULL;
	for (i = 0; i < bh; i++)
		for (d = 0; d < p->D; d++)
			qs[i * (size_t)ld + (size_t)d] =
			    p->q[i * (size_t)p->D + (size_t)d] * c;
	return qs;
}

/* Where the state of piece i lives: m [G], l [G], then acc [G][ld]. */
struct layout {
	size_t	stride, acc;
};

static struct layout
state_layout(int G, int ld)
{
	struct layout y;

	y.acc = ((size_t)2 * (size_t)G + 15) & ~(size_t)15;
	y.stride = y.acc + (size_t)G * (size_t)ld;
	return y;
}

/*
 * Combine the pieces pc[0..n) of a row, for head g: with M the largest maximum,
 * L = sum l_i 2^(m_i - M), out = sum acc_i 2^(m_i - M) / L and
 * lse = (M + log2 L) ln 2, in double.  Pieces that saw no position
 * (l = 0) are left out; a row where all are is fully masked.
 */
static void
merge_one(const float *st, struct layout y, const int *pc, int n, int G,
    int g, int D, int ld, double vf, double *acc, float *lse, float *out)
{
	const float *s;
	double M = -INFINITY, L = 0, w;
	int i, d;

	for (i = 0; i < n; i++) {
		s = st + (size_t)pc[i] * y.stride;
		if (s[G + g] != 0 && s[g] > M)
			M = s[g];
	}
	if (M == -INFINITY) {
		*lse = -INFINITY;
		for (d = 0; d < D; d++)
			out[d] = 0;
		return;
	}
	for (d = 0; d < D; d++)
		acc[d] = 0;
	for (i = 0; i < n; i++) {
		s = st + (size_t)pc[i] * y.stride;
		if (s[G + g] == 0)
			continue;
		w = exp2((double)s[g] - M);
		L += w * s[G + g];
		s += y.acc + (size_t)g * (size_t)ld;
		for (d = 0; d < D; d++)
			acc[d] += w * s[d];
	}
	for (d = 0; d < D; d++)	/* vf: V's read factor */
		out[d] = (float)(acc[d] * vf / L);
	*lse = (float)((M + log2(L)) * LN2);
}

/*
 * A query head holding NaN or an infinity scores NaN against every position
 * (inf * 0, inf - inf), so softmax(q k) v is NaN: say so rather than let
 * the comparisons drop every score and report the row fully masked.
 */
static int
q_finite(const float *q, int D)
{
	int d;

	for (d = 0; d < D; d++)
		if (!isfinite(q[d]))
			return 0;
	return 1;
}

static void
nan_head(float *lse, float *out, int D)
{
	int d;

	*lse = NAN;
	for (d = 0; d < D; d++)
		out[d] = NAN;
}

/*
 * The largest magnitude K's dtype holds, where that bounds the scores
 * usefully (f16's 65504; FP8's 448 or 57344, the range a per-tensor scale
 * is chosen to fill); 0 for bf16 and f32, whose range is f32's own.
 */
static double
k_bound(const struct mk_mdec *p)
{
	if (p->dtype == MK_F16)
		return 65504;
	return p->dtype == MK_U8 ? MK_FP8_MAX(p->fp8) : 0;
}

/* The options p's scale comes from. */
static const char *
scale_opts(const struct mk_mdec *p)
{
	return p->dtype == MK_U8 ? "--scale x --k-scale" : "--scale";
}

int
mk_mdec_scores_fit(const struct mk_mdec *p, const char *qname,
    struct mk_err *e)
{
	const size_t rows = (size_t)p->B * (size_t)p->QH * (size_t)(p->Q > 1 ?
	    p->Q : 1);
	/* a negative scale reaches as far: its magnitude is what counts */
	const double c = fabs(p->scale) * LOG2E, kb = k_bound(p);
	double big = 0, sum = 0, a;
	size_t i;
	int d;

	for (i = 0; i < rows; i++) {
		const float *q = p->q + i * (size_t)p->D;

		if (!q_finite(q, p->D))		/* its head is NaN */
			continue;
		for (a = 0, d = 0; d < p->D; d++) {
			a += fabs(q[d]);
			big = fabs(q[d]) > big ? fabs(q[d]) : big;
		}
		sum = a > sum ? a : sum;
	}
	if (big * c * read_factor(p) > FLT_MAX)
		return mk_err_usage(e, "%s: the scale %g (%s) takes q's value "
		    "%g past f32's range (3.4e38), in which the kernels "
		    "compute", qname, p->scale, scale_opts(p), big);
	if (sum * c * kb > FLT_MAX)
		return mk_err_usage(e, "%s: the scale %g (%s) lets a score of "
		    "q (a row's magnitudes sum to %g) on %s values up to %g "
		    "reach %.3g, past f32's range (3.4e38), in which the "
		    "kernels compute", qname, p->scale, scale_opts(p), sum,
		    p->dtype == MK_U8 ? "FP8" : "f16", kb, sum * c * kb);
	return 0;
}

/*
 * The pieces in row order, for the merge: order[from[r] .. from[r+1]) are
 * row r's (*fromp).  Returns order, or NULL if memory ran out.
 */
static int *
by_row(const struct plan *pl, int64_t rows, int **fromp)
{
	int *from = calloc((size_t)rows + 1, sizeof(*from));
	int *order = malloc(((size_t)pl->npieces + 1) * sizeof(*order));
	int64_t r;
	int i;

	if (from == NULL || order == NULL) {
		free(from);
		free(order);
		return NULL;
	}
	for (i = 0; i < pl->npieces; i++)
		from[pl->pieces[i].row + 1]++;
	for (r = 0; r < rows; r++)
		from[r + 1] += from[r];
	for (i = 0; i < pl->npieces; i++)
		order[from[pl->pieces[i].row]++] = i;
	for (r = rows; r > 0; r--)	/* back to the starts */
		from[r] = from[r - 1];
	from[0] = 0;
	*fromp = from;
	return order;
}

/* What the chunks of a run share. */
struct runctx {
	const struct mk_mdec	*p;
	const struct plan	*pl;
	const float		*qs;
	float			*st;
	struct layout		 y;
	size_t			 wn;	/* floats of work a walk of a call */
	int			 ld, G, rd, l2, tr;
	void			(*fn)(const struct mk_mdec_task *, int);
};

/* Chunk ch of the plan, with the calling thread's scratch work. */
static void
run_chunk(const struct runctx *x, int ch, float *work)
{
	const struct plan *pl = x->pl;
	struct mk_mdec_task t[MK_MDEC_GROUP];
	const struct piece *c;
	float *s;
	int i, h, n;

	for (i = pl->first[ch]; i < pl->first[ch + 1]; i += n) {
		/* a stretch's kv heads, MK_MDEC_GROUP at a time */
		n = pl->heads - (i - pl->first[ch]) % pl->heads;
		n = n < MK_MDEC_GROUP ? n : MK_MDEC_GROUP;
		for (h = 0; h < n; h++) {
			c = &pl->pieces[i + h];
			s = x->st + (size_t)(i + h) * x->y.stride;
			task_rows(x->p, c, &t[h]);
			t[h].mask = x->p->mask == NULL ? NULL : x->p->mask +
			    (size_t)c->row * (size_t)x->p->mrow +
			    (size_t)c->start;
			t[h].D = x->p->D;
			t[h].G = x->G;
			t[h].ld = x->ld;
			t[h].q = x->qs + (size_t)c->row * (size_t)x->G *
			    (size_t)x->ld;
			t[h].m = s;
			t[h].l = s + x->G;
			t[h].acc = s + x->y.acc;
			t[h].work = work + (size_t)h * x->wn;
			t[h].rd = x->rd;
			t[h].l2 = x->l2;
			t[h].tile_rows = x->tr;
			t[h].dv = x->p->dv;
		}
		x->fn(t, n);
	}
}

/*
 * Every chunk of the plan, each taken by the next thread free, with the
 * thread's scratch of per floats: allocated and first touched by that
 * thread (the tiles' scratch is megabytes a thread: zeroed by one thread
 * it took a fifth of a 16-thread MLA run).  Returns -1 if memory ran
 * out.
 */
static int
run_pieces(const struct runctx *x, size_t per, int T)
{
	int ch, bad = 0;

	(void)T;		/* without OpenMP */
#pragma omp parallel num_threads(T) reduction(|:bad)
	{
		float *work = alloc64(per, 1);

		bad = work == NULL;
#pragma omp for schedule(dynamic, 1)
		for (ch = 0; ch < x->pl->nchunks; ch++)
			if (work != NULL)
				run_chunk(x, ch, work);
		free(work);
	}
	return bad ? -1 : 0;
}

/* Threads for a run: fewer positions than threads would only add pieces. */
static int
run_threads(const struct mk_mdec *p, int threads)
{
	const int64_t pos = (int64_t)p->B * p->KH * p->V;
	int T = threads < 1 ? 1 : threads;

	return pos < T ? (pos > 0 ? (int)pos : 1) : T;
}

/*
 * Chunks of a run: CHUNKS a thread, taken in turn by whichever thread is
 * free, so that a thread slowed by its CPU (a busy or slower vCPU) or by
 * its share of the mask leaves its work to the others; none under
 * CHUNK_MIN positions of a kv head (512 KiB of f16 K and V at D 128), where
 * the walk's first rows, not yet prefetched, would start to count.
 */
#define CHUNKS		8
#define CHUNK_MIN	1024

/* Chunks for T threads: CHUNKS each, at most most, at least T. */
static int
chunks_for(int T, int64_t most)
{
	int64_t nc = (int64_t)T * CHUNKS;

	if (T <= 1)
		return 1;
	if (nc > most)
		nc = most;
	return nc > T ? (int)nc : T;
}

/*
 * Where a position's kv heads are walked side by side, a chunk of a
 * sequence's positions gives each head a piece of that length: the floor
 * counts positions of a sequence, not of all its heads.  (Counted over
 * all heads, 16 threads at bsz 1 cut pieces so short that their states
 * and merge made [B, M, KH, D] measurably slower than [B, KH, M, D].)
 */
static int
run_chunks(const struct mk_mdec *p, int T)
{
	const int heads = p->layout == MK_MDEC_BHMD ? p->KH : 1;

	return chunks_for(T, (int64_t)p->B * heads * p->V / CHUNK_MIN);
}

/* The rows probe's result: the xor of each piece's acc[0..16) words. */
static uint32_t
fold_pieces(const float *st, struct layout y, int npieces)
{
	uint32_t x = 0, w;
	int i, j;

	for (i = 0; i < npieces; i++)
		for (j = 0; j < 16; j++) {
			memcpy(&w, st + (size_t)i * y.stride + y.acc + j, 4);
			x ^= w;
		}
	return x;
}

/*
 * mk_mdec_run, or with fold the rows probe (no merge, lse and out unused,
 * *fold set).
 */
static int
run(const struct mk_mdec *p, const struct mk_mdec_kern *k, int threads,
    uint32_t *fold, float *lse, float *out, struct mk_err *e)
{
	const int G = p->QH / p->KH, ld = (p->D + 15) & ~15;
	const int64_t rows = (int64_t)p->B * p->KH;
	struct layout y = state_layout(G, ld);
	struct plan pl = { NULL, NULL, 0, 0, 1 };
	struct runctx x;
	float *qs = NULL, *st = NULL;
	double *macc = NULL;
	int *from = NULL, *order = NULL, T = run_threads(p, threads);
	int rc = -1, l2, tr;
	size_t wn;
	int64_t h;

	if (k == NULL)
		k = mk_mdec_kern();
	if ((l2 = mk_mdec_paged_l2(e)) < 0 || (tr = mk_mdec_tile_rows(e)) < 0)
		return -1;
	/* a walk's work, in floats: a multiple of 64 bytes */
	wn = (k->mdec_work(G, p->D, p->dtype, tr) + 15) & ~(size_t)15;
	if (make_plan(p, run_chunks(p, T), &pl) != 0 ||
	    (qs = scaled_q(p, ld)) == NULL ||
	    /* not zeroed: each piece's walk writes its state whole (one
	     * thread zeroing 2 MiB of states took a tenth of a bsz-1 run) */
	    (st = alloc64((size_t)pl.npieces * y.stride, 0)) == NULL ||
	    (order = by_row(&pl, rows, &from)) == NULL)
		goto done;
	if ((macc = malloc((size_t)T * (size_t)p->D * sizeof(double))) ==
	    NULL)
		goto done;
	x = (struct runctx){ .p = p, .pl = &pl, .qs = qs, .st = st, .y = y,
	    .wn = wn, .ld = ld, .G = G, .rd = fold != NULL,
	    .l2 = l2, .tr = tr, .fn = mk_mdec_kernel(k, p->dtype) };
	if (run_pieces(&x, wn * (size_t)(pl.heads < MK_MDEC_GROUP ? pl.heads :
	    MK_MDEC_GROUP), T) < 0)
		goto done;
	if (fold != NULL)
		*fold = fold_pieces(st, y, pl.npieces);
	/* a query head each: at bsz 1 there are fewer rows than threads */
#pragma omp parallel for num_threads(T) schedule(static)
	for (h = 0; h < (fold != NULL ? 0 : rows * G); h++) {
		const int64_t r = h / G;
		double *acc = macc;

#ifdef _OPENMP
		acc += (size_t)omp_get_thread_num() * (size_t)p->D;
#endif
		if (!q_finite(p->q + (size_t)h * (size_t)p->D, p->D))
			nan_head(lse + h, out + (size_t)h * (size_t)p->D,
			    p->D);
		else
			merge_one(st, y, order + from[r], from[r + 1] -
			    from[r], G, (int)(h % G), p->D, ld,
			    read_factor(p), acc, lse + h,
			    out + (size_t)h * (size_t)p->D);
	}
	rc = 0;
done:
	if (rc != 0)
		rc = mk_err_data(e, "out of memory for the attention state "
		    "(%lld rows, %d threads)", (long long)rows, T);
	free(macc);
	free(from);
	free(order);
	free(st);
	free(qs);
	free(pl.pieces);
	free(pl.first);
	return rc;
}

/* Element i of K or V (buf) of p, exactly. */
static double
elem(const struct mk_mdec *p, const void *buf, size_t i)
{
	switch (p->dtype) {
	case MK_U8:
		return mk_fp8_value(((const uint8_t *)buf)[i],
		    (enum mk_fp8)p->fp8);
	case MK_F16:
		return mk_f16_to_f32(((const uint16_t *)buf)[i]);
	case MK_BF16:
		return mk_bf16_to_f32(((const uint16_t *)buf)[i]);
	default:
		return ((const float *)buf)[i];
	}
}

static int
masked(const struct mk_mdec *p, int64_t j, int64_t pos)
{
	return p->mask != NULL && p->mask[(size_t)j * (size_t)p->mrow +
	    (size_t)pos];
}

/* Where position pos of K/V row j starts, in elements. */
static size_t
row_at(const struct mk_mdec *p, int64_t j, int64_t pos)
{
	return mk_mdec_elem(p, j / p->KH, (int)(j % p->KH), pos);
}

/* The scaled score of query qo against the key at element kr. */
static double
score(const struct mk_mdec *p, size_t qo, size_t kr)
{
	double s = 0;
	int d;

	for (d = 0; d < p->D; d++)
		s += (double)p->q[qo + (size_t)d] * elem(p, p->k,
		    kr + (size_t)d);
	return s * p->scale;
}

void
mk_mdec_reference(const struct mk_mdec *p, double *lse, double *out)
{
	const int G = p->QH / p->KH, D = p->D;
	int64_t b, h, j, pos;
	size_t kr, qo, oo;
	double s, mx, sum, w;
	int d;

	for (b = 0; b < p->B; b++)
		for (h = 0; h < p->QH; h++) {
			j = b * p->KH + h / G;
			qo = ((size_t)b * (size_t)p->QH + (size_t)h) *
			    (size_t)D;
			oo = qo;
			if (!q_finite(p->q + qo, D)) {
				lse[(size_t)b * (size_t)p->QH + (size_t)h] =
				    NAN;
				for (d = 0; d < D; d++)
					out[oo + (size_t)d] = NAN;
				continue;
			}
			mx = -INFINITY;
			for (pos = 0; pos < mk_mdec_len(p, b); pos++) {
				if (masked(p, j, pos))
					continue;
				s = score(p, qo, row_at(p, j, pos));
				mx = s > mx ? s : mx;
			}
			for (d = 0; d < D; d++)
				out[oo + (size_t)d] = 0;
			if (mx == -INFINITY) {
				lse[(size_t)b * (size_t)p->QH + (size_t)h] =
				    -INFINITY;
				continue;
			}
			sum = 0;
			for (pos = 0; pos < mk_mdec_len(p, b); pos++) {
				if (masked(p, j, pos))
					continue;
				kr = row_at(p, j, pos);
				w = exp(score(p, qo, kr) - mx);
				sum += w;
				for (d = 0; d < D; d++)
					out[oo + (size_t)d] += w *
					    elem(p, p->v, kr + (size_t)d);
			}
			for (d = 0; d < D; d++)
				out[oo + (size_t)d] /= sum;
			lse[(size_t)b * (size_t)p->QH + (size_t)h] =
			    mx + log(sum);
		}
}

void
mk_mdec_team(int threads)
{
	int T = threads < 1 ? 1 : threads;

	(void)T;		/* without OpenMP */
#pragma omp parallel num_threads(T)
	{
		/* nothing: the team is what is wanted */
	}
}

/*
 * The positions only the later query tokens see of kv row (b, kh), the
 * sequence's len - Q + 1 .. len - 1: their K and V rows in double, kt and
 * vt [Q - 1][D], and whether each is masked (ms).  Read once for all the
 * kv head's query heads and tokens.
 */
static void
tail_rows(const struct mk_mdec *p, int64_t b, int kh, double *kt,
    double *vt, uint8_t *ms)
{
	const int64_t j = b * p->KH + kh, first = mk_mdec_len(p, b) - p->Q + 1;
	size_t kr;
	int t, d;

	for (t = 0; t < p->Q - 1; t++) {
		ms[t] = (uint8_t)masked(p, j, first + t);
		kr = row_at(p, j, first + t);
		for (d = 0; d < p->D; d++) {
			kt[(size_t)t * (size_t)p->D + (size_t)d] = ms[t] ? 0 :
			    elem(p, p->k, kr + (size_t)d);
			vt[(size_t)t * (size_t)p->D + (size_t)d] = ms[t] ? 0 :
			    elem(p, p->v, kr + (size_t)d);
		}
	}
}

/* q . k in double, over four partial sums (four chains, not one). */
static double
dot4(const float *q, const double *k, int D)
{
	double a[4] = { 0, 0, 0, 0 };
	int d;

	for (d = 0; d + 4 <= D; d += 4) {
		a[0] += (double)q[d] * k[d];
		a[1] += (double)q[d + 1] * k[d + 1];
		a[2] += (double)q[d + 2] * k[d + 2];
		a[3] += (double)q[d + 3] * k[d + 3];
	}
	for (; d < D; d++)
		a[0] += (double)q[d] * k[d];
	return (a[0] + a[1]) + (a[2] + a[3]);
}

/*
 * Those positions added, for each query token of head h of sequence b,
 * to the answer (lse, out) of the positions all tokens see, by
 * log-sum-exp, in double: token i sees the first i of them, and the
 * answer of the rest counts as one weight exp(lse) of value out.  The
 * values' sums run with the columns innermost (independent sums, not a
 * chain a column); acc: D doubles of scratch.
 */
static void
add_tail(const struct mk_mdec *p, int64_t b, int h, const double *kt,
    const double *vt, const uint8_t *ms, double *acc, float *lse,
    float *out)
{
	const int Q = p->Q, D = p->D;
	double s[MK_MDEC_MAX_Q], e[MK_MDEC_MAX_Q], m, w, sum, inv;
	size_t r;
	int i, t, d;

	for (i = 1; i < Q; i++) {
		r = ((size_t)b * (size_t)p->QH + (size_t)h) * (size_t)Q +
		    (size_t)i;
		if (isnan(lse[r]))
			continue;	/* a NaN query stays NaN */
		for (t = 0; t < i; t++)
			s[t] = dot4(p->q + r * (size_t)D, kt + (size_t)t *
			    (size_t)D, D);
		m = lse[r];
		for (t = 0; t < i; t++) {
			s[t] = ms[t] ? -INFINITY : s[t] * p->scale;
			m = s[t] > m || isnan(s[t]) ? s[t] : m;
		}
		if (m == -INFINITY)
			continue;	/* every position masked */
		w = lse[r] == -INFINITY ? 0 : exp(lse[r] - m);
		sum = w;
		for (t = 0; t < i; t++) {	/* the weights, once */
			e[t] = s[t] == -INFINITY ? 0 : exp(s[t] - m);
			sum += e[t];
		}
		for (d = 0; d < D; d++)
			acc[d] = w * out[r * (size_t)D + (size_t)d];
		for (t = 0; t < i; t++) {
			if (s[t] == -INFINITY)
				continue;
			for (d = 0; d < D; d++)
				acc[d] += e[t] * vt[(size_t)t * (size_t)D +
				    (size_t)d];
		}
		inv = 1.0 / sum;	/* a product a column, not a division */
		for (d = 0; d < D; d++)
			out[r * (size_t)D + (size_t)d] = (float)(acc[d] * inv);
		lse[r] = (float)(m + log(sum));
	}
}

/* add_tail for every head of every kv row, on T threads; -1 if memory
 * ran out. */
static int
tails(const struct mk_mdec *p, int T, float *lse, float *out)
{
	const int G = p->QH / p->KH;
	const int64_t rows = (int64_t)p->B * p->KH;
	const size_t n = (size_t)(p->Q - 1) * (size_t)p->D;
	int bad = 0;

	(void)T;		/* without OpenMP */
#pragma omp parallel num_threads(T) reduction(|:bad)
	{
		/* the tail's K and V rows, and add_tail's scratch */
		double *kt = malloc((2 * n + (size_t)p->D) * sizeof(double));
		uint8_t ms[MK_MDEC_MAX_Q];
		int64_t j;
		int g;

		bad = kt == NULL;
#pragma omp for schedule(dynamic, 1)
		for (j = 0; j < rows; j++) {
			if (kt == NULL)
				continue;
			tail_rows(p, j / p->KH, (int)(j % p->KH), kt, kt + n,
			    ms);
			for (g = 0; g < G; g++)
				add_tail(p, j / p->KH, (int)(j % p->KH) * G +
				    g, kt, kt + n, ms, kt + 2 * n, lse, out);
		}
		free(kt);
	}
	return bad ? -1 : 0;
}

/*
 * Q query tokens a sequence: token i is the sequence's position len - Q
 * + i and sees the positions up to it, the mask as for one token.  The
 * positions every token sees (up to len - Q) are one run with the Q
 * tokens as Q times the heads: q [B][QH][Q][D] is [B][QH * Q][D], and
 * head h Q + i falls in kv head h / G as head h does, so K and V are
 * read once for all Q tokens.  The Q - 1 later positions are added per
 * token (tails).
 */
static int
run_tokens(const struct mk_mdec *p, const struct mk_mdec_kern *k,
    int threads, float *lse, float *out, struct mk_err *e)
{
	struct mk_mdec all = *p;
	int64_t *lens;
	int b, rc;

	if ((lens = malloc((size_t)p->B * sizeof(int64_t))) == NULL)
		return mk_err_data(e, "out of memory for %d query tokens",
		    p->Q);
	all.QH = p->QH * p->Q;
	all.Q = 1;
	all.lens = lens;
	all.V = 0;
	for (b = 0; b < p->B; b++) {
		lens[b] = mk_mdec_len(p, b) - (p->Q - 1);
		all.V = lens[b] > all.V ? lens[b] : all.V;
	}
	rc = run(&all, k, threads, NULL, lse, out, e);
	free(lens);
	if (rc < 0)
		return -1;
	if (tails(p, threads > 0 ? threads : 1, lse, out) < 0)
		return mk_err_data(e, "out of memory for %d query tokens",
		    p->Q);
	return 0;
}

int
mk_mdec_run(const struct mk_mdec *p, const struct mk_mdec_kern *k,
    int threads, float *lse, float *out, struct mk_err *e)
{
	if (p->Q > 1)
		return run_tokens(p, k, threads, lse, out, e);
	return run(p, k, threads, NULL, lse, out, e);
}

int
mk_mdec_read_rows(const struct mk_mdec *p, const struct mk_mdec_kern *k,
    int threads, uint32_t *fold, struct mk_err *e)
{
	return run(p, k, threads, fold, NULL, NULL, e);
}

/*
 * The probe's slices: CHUNKS a thread, none under 1 MiB, taken as the
 * attention takes its chunks, so that the probe and the kernel it is the
 * yardstick for meet a slow thread alike.
 */
static long
read_chunks(size_t n, int T)
{
	return chunks_for(T, (int64_t)(n >> 20));
}

uint64_t
mk_read_sum(const struct mk_kern *k, const void *p, size_t n, int threads)
{
	uint64_t total = 0;
	int T = threads < 1 ? 1 : threads;
	long nc = read_chunks(n, T), c;

	(void)T;		/* without OpenMP */
	if (k == NULL)
		k = mk_kern();
#pragma omp parallel for num_threads(T) schedule(dynamic, 1) \
    reduction(+:total)
	for (c = 0; c < nc; c++) {
		size_t lo, hi;

		mk_slice(n, 4096, (int)c, (int)nc, &lo, &hi);
		total += k->read_sum((const char *)p + lo, hi - lo);
	}
	return total;
}
