/*
 * mdec_bench.c - what mdecode --bench needs besides the kernels: random
 * inputs made in parallel (each page first touched by the thread range
 * that reads it, as the kernels do), timings interleaved with the read
 * probe, and the agreement check between paths.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "base/clock.h"
#include "base/dtype.h"
#include "base/half.h"
#include "base/stamp.h"
#include "simd/kern.h"
#include "mdec/mdec.h"
#include "mdec/mdec_bench.h"

#define CHUNK	65536	/* elements per random stream: results do not
			 * depend on the thread count */

static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Roughly standard normal: the sum of four 16-bit uniforms, rescaled. */
static float
normal(uint64_t *s)
{
	uint64_t x = mix(*s += 0x632be59bd9b4e019ULL);

	return (float)(((double)(x & 0xffff) + (double)(x >> 16 & 0xffff) +
	    (double)(x >> 32 & 0xffff) + (double)(x >> 48) - 131070.0) *
	    (1.7320508075688772 / 65536.0));
}

void
mk_mdec_fill(void *p, size_t n, int dtype, int fp8, uint64_t seed,
    int threads)
{
	size_t nchunk = (n + CHUNK - 1) / CHUNK;
	int64_t c;

	(void)threads;		/* without OpenMP */
#pragma omp parallel for num_threads(threads) schedule(static)
	for (c = 0; c < (int64_t)nchunk; c++) {
		uint64_t s = mix(seed ^ mix((uint64_t)c));
		size_t i = (size_t)c * CHUNK, end = i + CHUNK < n ? i + CHUNK : n;

		for (; i < end; i++) {
			float x = normal(&s);

			if (dtype == MK_U8)
				((uint8_t *)p)[i] = mk_fp8_from_double(x,
				    (enum mk_fp8)fp8);
			else if (dtype == MK_F16)
				((uint16_t *)p)[i] = mk_f32_to_f16(x);
			else if (dtype == MK_BF16)
				((uint16_t *)p)[i] = mk_f32_to_bf16(x);
			else
				((float *)p)[i] = x;
		}
	}
}

void
mk_mdec_fill_mask(uint8_t *m, size_t n, double density, uint64_t seed,
    int threads)
{
	const uint64_t cut = density >= 1 ? UINT64_MAX : (uint64_t)(density *
	    18446744073709551616.0);
	size_t nchunk = (n + CHUNK - 1) / CHUNK;
	int64_t c;

	(void)threads;		/* without OpenMP */
#pragma omp parallel for num_threads(threads) schedule(static)
	for (c = 0; c < (int64_t)nchunk; c++) {
		uint64_t s = mix(seed ^ mix((uint64_t)c + 0x5bd1e995));
		size_t i = (size_t)c * CHUNK, end = i + CHUNK < n ? i + CHUNK : n;

		for (; i < end; i++)
			m[i] = density >= 1 || mix(s += 0x632be59bd9b4e019ULL) <
			    cut;
	}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile (0..1) of v[0..n), by the nearest rank (sorts v). */
static double
quantile(double *v, int n, double q)
{
	int i = (int)(q * (n - 1) + 0.5);

	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/* The medians and quartiles of the n kept rounds into tm. */
static void
summarize(double *tk, double *tp, double *fr, double *tr, double *rf, int n,
    double kv, struct mk_mdec_timing *tm)
{
	tm->ms = quantile(tk, n, 0.5);
	tm->probe_gbps = kv / (quantile(tp, n, 0.5) * 1e6);
	tm->frac_q1 = quantile(fr, n, 0.25);
	tm->frac = quantile(fr, n, 0.5);
	tm->frac_q3 = quantile(fr, n, 0.75);
	tm->rows_ms = quantile(tr, n, 0.5);
	tm->rows_frac = quantile(rf, n, 0.5);
}

/* One row's timing: what mk_mdec_time reads. */
struct timed {
	const struct mk_mdec	*p;
	const struct mk_mdec_kern *k;	/* the path timed */
	const struct mk_kern	*read;	/* the probes' tables: the best */
	const struct mk_mdec_kern *rows;	/* level's */
	int			 threads, rounds;
	double			 bytes;	/* what a dense pass reads (GB/s) */
	const void		*cold;	/* if not NULL, ncold bytes read */
	size_t			 ncold;	/* before each pass */
	float			*lse, *out;
};

/* Every level's tables: mdec's, and the shared one's read probe. */
struct tabs {
	struct mk_mdec_kern	 m[MK_NISA];
	struct mk_kern		 k[MK_NISA];
};

static void
tabs_build(struct tabs *t)
{
	int i;

	for (i = 0; i < MK_NISA; i++) {
		mk_mdec_kern_build((enum mk_isa)i, &t->m[i]);
		mk_kern_build((enum mk_isa)i, &t->k[i]);
	}
}

/* Read the cold buffer (if any): what a pass reads next is then out of
 * the last-level cache. */
static uint64_t
chill(const struct timed *t)
{
	return t->cold == NULL ? 0 : mk_read_sum(t->read, t->cold, t->ncold,
	    t->threads);
}

/*
 * Time t->p with kernels t->k on t->threads threads.  After one warm-up,
 * t->rounds rounds, each a read of the same K and V bytes with the read
 * probe, a run of the kernel, and the rows probe (mk_mdec_read_rows: the
 * rows the kernel reads, on its walk), so that all see the same state of
 * a shared machine; a round where a pass was preempted (base/stamp.h) is
 * dropped, and where every round was, the figures are of them all and
 * tm->kept is 0.  A cold buffer read, untimed, before each pass makes
 * every pass read K and V from memory rather than from the last-level
 * cache the pass before filled.  Returns 0, or -1 with e filled.
 */
static int
mk_mdec_time(const struct timed *t, struct mk_mdec_timing *tm,
    struct mk_err *e)
{
	const struct mk_mdec *p = t->p;
	const int threads = t->threads, rounds = t->rounds;
	const size_t kv = (size_t)p->B * (size_t)p->KH * (size_t)p->V *
	    (size_t)p->D * mk_dtype_size((enum mk_dtype)p->dtype);
	/* the probe reads K and V, or K alone where V is K's rows (MLA) */
	const double both = (p->v == p->k ? 1.0 : 2.0) * (double)kv;
	double *tk = calloc(5 * ((size_t)rounds + 1), sizeof(double));
	double *tp = tk + rounds + 1, *fr = tp + rounds + 1;
	double *tr = fr + rounds + 1, *rf = tr + rounds + 1;
	volatile uint64_t sink = 0;
	uint32_t fold;
	struct mk_stamp a, b, b2, c, c2, d;
	int r, i, n = 0, rc = -1;

	if (tk == NULL) {
		mk_err_data(e, "out of memory");
		goto done;
	}
	/* one untimed run of each warms the threads and the page tables */
	sink += mk_read_sum(t->read, p->k, kv, threads);
	if (mk_mdec_run(p, t->k, threads, t->lse, t->out, e) < 0)
		goto done;
	for (r = 0; r < rounds; r++) {
		sink += chill(t);
		a = mk_stamp_now();
		sink += mk_read_sum(t->read, p->k, kv, threads);
		if (p->v != p->k)
			sink += mk_read_sum(t->read, p->v, kv, threads);
		b = mk_stamp_now();
		sink += chill(t);
		b2 = mk_stamp_now();
		if (mk_mdec_run(p, t->k, threads, t->lse, t->out, e) < 0)
			goto done;
		c = mk_stamp_now();
		sink += chill(t);
		c2 = mk_stamp_now();
		/* the rows the kernel reads, read alone on its walk */
		if (mk_mdec_read_rows(p, t->rows, threads, &fold, e) < 0)
			goto done;
		sink += fold;
		d = mk_stamp_now();
		/* kept rounds first; preempted ones fill from the end */
		i = mk_stamp_whole(&a, &b, threads) &&
		    mk_stamp_whole(&b2, &c, threads) &&
		    mk_stamp_whole(&c2, &d, threads) ? n++ :
		    rounds - 1 - (r - n);
		tp[i] = mk_stamp_ms(&a, &b);
		tk[i] = mk_stamp_ms(&b2, &c);
		tr[i] = mk_stamp_ms(&c2, &d);
		fr[i] = (t->bytes / tk[i]) / (both / tp[i]);
		rf[i] = tr[i] / tk[i];
	}
	tm->kept = n;
	tm->rounds = rounds;
	/* every round preempted (or passes too short for CPU time to tell,
	 * as tiny problems are): the medians of all, kept 0 says so */
	summarize(tk, tp, fr, tr, rf, n ? n : rounds, both, tm);
	rc = 0;
done:
	(void)sink;
	free(tk);
	return rc;
}

int
mk_mdec_agree(const struct mk_mdec *p, struct mk_mdec_res got,
    struct mk_mdec_res ref, double tol, struct mk_err *e)
{
	const float *lse = got.lse, *out = got.out, *rlse = ref.lse,
	    *rout = ref.out;
	size_t bh = (size_t)p->B * (size_t)p->QH * (size_t)(p->Q > 1 ? p->Q :
	    1), i;
	double big;
	int d;

	for (i = 0; i < bh; i++) {
		if (!(lse[i] == rlse[i] || fabs(lse[i] - rlse[i]) <= tol *
		    fmax(1.0, fabs(rlse[i]))))
			return mk_err_data(e, "batch %zu head %zu: lse %.9g, "
			    "generic %.9g", i / (size_t)p->QH,
			    i % (size_t)p->QH, lse[i], rlse[i]);
		for (big = 0, d = 0; d < p->D; d++)
			big = fmax(big, fabs(rout[i * (size_t)p->D +
			    (size_t)d]));
		for (d = 0; d < p->D; d++) {
			size_t j = i * (size_t)p->D + (size_t)d;

			if (!(fabs(out[j] - rout[j]) <= tol * (fabs(rout[j]) +
			    big)))
				return mk_err_data(e, "batch %zu head %zu "
				    "dim %d: out %.9g, generic %.9g",
				    i / (size_t)p->QH, i % (size_t)p->QH, d,
				    out[j], rout[j]);
		}
	}
	return 0;
}

/* The bench's buffers: the largest batch's inputs and two outputs. */
struct bufs {
	void		*k[MK_MDEC_BENCH_KVT], *v[MK_MDEC_BENCH_KVT];	/* a
					 * pair for each dtype of the list */
	uint8_t		*mask;
	float		*q, *lse, *out, *glse, *gout;
	int32_t		*table;		/* the paged layout's [maxB][tw] */
	int64_t		 tw;
	size_t		 nkv, per, bh;	/* bh: rows of q, of every token */
	int		 maxq;		/* the most query tokens of the list */
	void		*cold;		/* read before each timed pass where
					 * K and V would stay in the LLC */
	size_t		 ncold, llc;
};

/*
 * The bench's problem at batch size B and one layout: the first B
 * sequences' worth of the buffers, read as that layout (random data, so
 * every reading is as good as another).
 */
static struct mk_mdec
bench_problem(const struct mk_mdec_bench *b, int B, int layout, int kvt,
    const struct bufs *u, const uint8_t *mask)
{
	struct mk_mdec p;

	memset(&p, 0, sizeof(p));
	p.Q = 1;
	p.B = B;
	p.QH = b->QH;
	p.KH = b->KH;
	p.D = b->D;
	p.V = b->V;
	p.dtype = b->dtype[kvt];
	p.fp8 = b->fp8[kvt];
	p.qdtype = b->dtype[kvt] == MK_U8 ? MK_F16 : b->dtype[kvt];
	p.scale = 1.0 / sqrt((double)b->D);
	p.q = u->q;
	p.k = u->k[kvt];
	p.v = b->mla ? u->k[kvt] : u->v[kvt];
	p.dv = b->mla;
	p.mask = mask;
	p.layout = layout;
	p.M = b->V;
	p.mrow = b->V;
	p.table = u->table;
	p.tw = u->tw;
	p.bs = b->bs;
	return p;
}

/*
 * n bytes in 2 MiB pages where the kernel grants them, as mdecode's own
 * tensors read from a pipe get (tensor.c): in 4 KiB pages a paged
 * cache's random blocks cost a page walk every few rows, which the
 * bench would then time as the kernel's.
 */
static void *
page_alloc(size_t n, const char *what, struct mk_err *e)
{
	void *p;

	if (posix_memalign(&p, (size_t)2 << 20, n ? n : 1) != 0)
		return mk_err_data(e, "--bench: out of memory for %s (%.2f GB)",
		    what, (double)n / 1e9), NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, n, MADV_HUGEPAGE);
#endif
	return p;
}

/*
 * The paged layout's block table: the largest batch's blocks of bs
 * positions (all kv heads) in a shuffled order, as a serving engine's
 * pool ends up; a table longer than the pool wraps round (a block read
 * twice, as shared prefixes are).
 */
static int
bufs_table(const struct mk_mdec_bench *b, struct bufs *u, int maxB,
    struct mk_err *e)
{
	int64_t nb = (int64_t)maxB * b->V / b->bs, i, j, t;
	uint64_t s = b->seed * 4 + 5;

	u->tw = (b->V + b->bs - 1) / b->bs;
	if (nb < 1)
		return mk_err_usage(e, "--bench: --block-size %d is larger "
		    "than the cache (%lld positions)", b->bs,
		    (long long)b->V);
	if ((u->table = page_alloc(sizeof(int32_t) * (size_t)(maxB * u->tw),
	    "the block table", e)) == NULL)
		return -1;
	for (i = 0; i < maxB * u->tw; i++)
		u->table[i] = (int32_t)(i % nb);
	for (i = maxB * u->tw - 1; i > 0; i--) {
		s = mix(s);
		j = (int64_t)(s % (uint64_t)(i + 1));
		t = u->table[i], u->table[i] = u->table[j], u->table[j] =
		    (int32_t)t;
	}
	return 0;
}


static void
bufs_free(struct bufs *u)
{
	int i;

	for (i = 0; i < MK_MDEC_BENCH_KVT; i++) {
		free(u->k[i]);
		free(u->v[i]);
	}
	free(u->mask);
	free(u->q);
	free(u->lse);
	free(u->out);
	free(u->glse);
	free(u->gout);
	free(u->table);
	free(u->cold);
}

/* Bytes of the last-level cache (0: unknown). */
static size_t
llc_bytes(void)
{
	long n = sysconf(_SC_LEVEL3_CACHE_SIZE);

	if (n <= 0)
		n = sysconf(_SC_LEVEL2_CACHE_SIZE);
	return n > 0 ? (size_t)n : 0;
}

/*
 * Where K and V of the smallest batch would fit in the last-level cache
 * with room to spare (under 4 times its size), a buffer of twice its
 * size, its pages written (a never written page reads as the one zero
 * page, which evicts nothing): read between passes, it leaves each pass
 * to read K and V from memory, as a decode step finds its cache after a
 * layer's weights went through (a cache that fits the device's 300 MiB
 * L3 would otherwise be read from it, far faster than from memory).
 */
static int
bufs_cold(const struct mk_mdec_bench *b, struct bufs *u, struct mk_err *e)
{
	size_t esz = 4, least;
	int i, minB = b->bsz[0];

	for (i = 0; i < b->ndtype; i++)	/* the smallest dtype's */
		if (mk_dtype_size((enum mk_dtype)b->dtype[i]) < esz)
			esz = mk_dtype_size((enum mk_dtype)b->dtype[i]);
	for (i = 1; i < b->nbsz; i++)
		minB = b->bsz[i] < minB ? b->bsz[i] : minB;
	least = (size_t)(b->mla ? 1 : 2) * (size_t)minB * u->per *
	    (size_t)b->D * esz;
	u->llc = llc_bytes();
	if (u->llc == 0 || least >= 4 * u->llc)
		return 0;
	u->ncold = 2 * u->llc;
	if ((u->cold = page_alloc(u->ncold, "the cache sweep", e)) == NULL)
		return -1;
	memset(u->cold, 1, u->ncold);
	return 0;
}

/* Allocate and fill the inputs (in parallel, first touch by the readers). */
static int
bufs_make(const struct mk_mdec_bench *b, struct bufs *u, struct mk_err *e)
{
	size_t esz;
	int i, maxB = 1, maxT = 1;

	memset(u, 0, sizeof(*u));
	for (i = 0; i < b->nbsz; i++)
		maxB = b->bsz[i] > maxB ? b->bsz[i] : maxB;
	for (i = 0; i < b->nthreads; i++)
		maxT = b->threads[i] > maxT ? b->threads[i] : maxT;
	u->per = (size_t)b->KH * (size_t)b->V;	/* positions per batch */
	u->nkv = (size_t)maxB * u->per * (size_t)b->D;
	/* q, lse and out of every query token of the longest list entry */
	for (i = 0, u->maxq = 1; i < b->nqtok; i++)
		u->maxq = b->qtok[i] > u->maxq ? b->qtok[i] : u->maxq;
	u->bh = (size_t)maxB * (size_t)b->QH * (size_t)u->maxq;
	for (i = 0; i < b->ndtype; i++) {
		esz = mk_dtype_size((enum mk_dtype)b->dtype[i]);
		if ((u->k[i] = page_alloc(u->nkv * esz, "k", e)) == NULL ||
		    (!b->mla && (u->v[i] = page_alloc(u->nkv * esz, "v",
		    e)) == NULL))
			return -1;
	}
	if ((u->mask = page_alloc((size_t)maxB * u->per, "the mask", e)) ==
	    NULL ||
	    (u->q = page_alloc(u->bh * (size_t)b->D * 4, "q", e)) == NULL ||
	    (u->lse = page_alloc(u->bh * 4, "lse", e)) == NULL ||
	    (u->glse = page_alloc(u->bh * 4, "lse", e)) == NULL ||
	    (u->out = page_alloc(u->bh * (size_t)b->D * 4, "out", e)) ==
	    NULL ||
	    (u->gout = page_alloc(u->bh * (size_t)b->D * 4, "out", e)) ==
	    NULL)
		return -1;
	for (i = 0; i < b->nlayout; i++)
		if (b->layout[i] == MK_MDEC_PAGED &&
		    bufs_table(b, u, maxB, e) < 0)
			return -1;
	if (bufs_cold(b, u, e) < 0)
		return -1;
	for (i = 0; i < b->ndtype; i++) {	/* the same values, rounded */
		mk_mdec_fill(u->k[i], u->nkv, b->dtype[i], b->fp8[i],
		    b->seed * 4 + 1, maxT);
		if (!b->mla)
			mk_mdec_fill(u->v[i], u->nkv, b->dtype[i], b->fp8[i],
			    b->seed * 4 + 2, maxT);
	}
	mk_mdec_fill(u->q, u->bh * (size_t)b->D, MK_F32, 0, b->seed * 4,
	    maxT);
	return 0;
}

/* The mask of density d (0: no mask at all, as a dense cache has none). */
static const uint8_t *
bufs_mask(const struct mk_mdec_bench *b, struct bufs *u, double d, int T)
{
	if (d <= 0)
		return NULL;
	mk_mdec_fill_mask(u->mask, u->nkv / (size_t)b->D, d, b->seed * 4 + 3,
	    T);
	return u->mask;
}

/* Each path against generic on every batch size, before any timing. */
static int
bench_check(const struct mk_mdec_bench *b, const struct mk_mdec_kern *tab,
    struct bufs *u, const uint8_t *mask, int threads, struct mk_err *e)
{
	struct mk_mdec p;
	struct mk_err d;
	int i, j, l, t, q;

	for (t = 0; t < b->ndtype; t++)
	for (l = 0; l < b->nlayout; l++)
	for (i = 0; i < b->nbsz; i++)
	for (q = 0; q < b->nqtok; q++) {
		p = bench_problem(b, b->bsz[i], b->layout[l], t, u, mask);
		p.Q = b->qtok[q];
		if (mk_mdec_run(&p, &tab[MK_ISA_GENERIC], threads, u->glse,
		    u->gout, e) < 0)
			return -1;
		for (j = 0; j < b->nisa; j++) {
			if (b->isa[j] == MK_ISA_GENERIC)
				continue;
			if (mk_mdec_run(&p, &tab[b->isa[j]], threads, u->lse,
			    u->out, e) < 0)
				return -1;
			if (mk_mdec_agree(&p, (struct mk_mdec_res){ .lse =
			    u->lse, .out = u->out }, (struct mk_mdec_res){
			    .lse = u->glse, .out = u->gout }, 1e-4, &d) < 0)
				return mk_err_data(e, "--bench: %s disagrees "
				    "with generic at bsz %d, %s, %s, %d query "
				    "tokens: %s",
				    mk_isa_name((enum mk_isa)b->isa[j]),
				    b->bsz[i], mk_mdec_layout_name(
				    b->layout[l]), mk_mdec_kvt_name(
				    b->dtype[t], b->fp8[t]), p.Q, d.msg);
		}
	}
	return 0;
}

/* Keep a timed row (of problem p) for --plot. */
static void
keep_row(const struct mk_mdec_bench *b, const struct mk_mdec *p, int isa,
    int threads, double density, double gbps,
    const struct mk_mdec_timing *tm)
{
	struct mk_mdec_bench_row *r;

	if (b->keep == NULL || b->keep->n >= b->keep->max)
		return;
	r = &b->keep->row[b->keep->n++];
	r->isa = isa;
	r->threads = threads;
	r->bsz = p->B;
	r->layout = p->layout;
	r->qtok = p->Q;
	r->dtype = mk_mdec_kvt_name(p->dtype, p->fp8);
	r->density = density;
	r->gbps = gbps;
	r->probe_gbps = tm->probe_gbps;
	r->frac = tm->frac;
	r->kept = tm->kept;
}

/*
 * The rows of one density: every (path, threads, batch size, layout,
 * dtype).  Returns how many kept no round, or -1.
 */
static int
bench_rows(const struct mk_mdec_bench *b, const struct tabs *tab,
    struct bufs *u, const uint8_t *mask, double d, FILE *fp,
    struct mk_err *e)
{
	const int best = (int)mk_isa_best();
	int unkept = 0;
	struct mk_mdec_timing tm;
	struct mk_mdec p;
	double bytes;
	int i, j, t, l, c, q, cold;

	/* the dtypes innermost: their rows are timed side by side */
	for (i = 0; i < b->nisa; i++)
		for (t = 0; t < b->nthreads; t++)
			for (j = 0; j < b->nbsz; j++)
			for (l = 0; l < b->nlayout; l++)
			for (q = 0; q < b->nqtok; q++)
			for (c = 0; c < b->ndtype; c++) {
				p = bench_problem(b, b->bsz[j], b->layout[l],
				    c, u, mask);
				p.Q = b->qtok[q];
				/* bytes a dense pass reads: K and V rows
				 * (MLA: K's) */
				bytes = (double)b->bsz[j] * (double)u->per *
				    (b->mla ? 1.0 : 2.0) * (double)b->D *
				    (double)mk_dtype_size((enum mk_dtype)p.dtype);
				cold = bytes < 4.0 * (double)u->llc;
				if (mk_mdec_time(&(struct timed){ &p,
				    &tab->m[b->isa[i]], &tab->k[best],
				    &tab->m[best], b->threads[t], b->reps,
				    bytes, cold ? u->cold : NULL, u->ncold,
				    u->lse, u->out }, &tm, e) < 0)
					return -1;
				fprintf(fp, "%s,%d,%d,%s,%g,%.3f,%.2f,%.2f,"
				    "%.3f,%.3f,%.3f,%d/%d,%.3f,%.3f,%s,%d\n",
				    mk_isa_name((enum mk_isa)b->isa[i]),
				    b->threads[t], b->bsz[j],
				    mk_mdec_layout_name(b->layout[l]), d, tm.ms,
				    bytes / (tm.ms * 1e6), tm.probe_gbps,
				    tm.frac, tm.frac_q1, tm.frac_q3, tm.kept,
				    tm.rounds, tm.rows_ms, tm.rows_frac,
				    mk_mdec_kvt_name(p.dtype, p.fp8), p.Q);
				fflush(fp);
				unkept += tm.kept == 0;
				keep_row(b, &p, b->isa[i], b->threads[t], d,
				    bytes / (tm.ms * 1e6), &tm);
				if (b->tick != NULL)
					b->tick(b->tick_ctx);
			}
	return unkept;
}

int
mk_mdec_bench_run(const struct mk_mdec_bench *b, FILE *fp, struct mk_err *e)
{
	struct tabs tab;
	const uint8_t *mask;
	struct bufs u;
	int i, n, maxT = 1, unkept = 0, rc = -1;

	tabs_build(&tab);
	for (i = 0; i < b->nthreads; i++)
		maxT = b->threads[i] > maxT ? b->threads[i] : maxT;
	if (bufs_make(b, &u, e) < 0)
		goto out;
	fprintf(fp, "isa,threads,bsz,layout,density,ms,gbps,probe_gbps,frac,"
	    "frac_q1,frac_q3,kept,rows_ms,rows_frac,dtype,q_tokens\n");
	for (i = 0; i < b->ndens; i++) {
		mask = bufs_mask(b, &u, b->dens[i], maxT);
		if (bench_check(b, tab.m, &u, mask, maxT, e) < 0 ||
		    (n = bench_rows(b, &tab, &u, mask, b->dens[i], fp, e)) < 0)
			goto out;
		unkept += n;
	}
	rc = unkept;
out:
	bufs_free(&u);
	return rc;
}

/*
 * The kernel alone on row 0 of p (one kv head, the whole row one piece):
 * ns per unmasked position, a round each of 8 calls, and in each round
 * also 8 calls of its arithmetic alone (mdec_arith, over every position):
 * ns per position.  Every round's times go to ns[] and fl[], the rounds
 * not preempted first.  Returns how many those are, or -1.
 */
static int
kernel_rounds(const struct mk_mdec *p, const struct mk_mdec_kern *k,
    int rounds, double *ns, double *fl, struct mk_err *e)
{
	mk_mdec_kernel_fn *fn = mk_mdec_kernel(k, p->dtype);
	const int G = p->QH / p->KH, ld = (p->D + 15) & ~15;
	struct mk_mdec_task t;
	struct mk_stamp a, c, z;
	float *f = NULL, m[MK_MDEC_BENCH_LIST * 8], l[MK_MDEC_BENCH_LIST * 8];
	int64_t live = 0, i;
	int r, n = 0, rep, g, d, tr;

	if ((tr = mk_mdec_tile_rows(e)) < 0)
		return -1;
	if (G > MK_MDEC_BENCH_LIST * 8 || posix_memalign((void **)&f, 64,
	    sizeof(float) * (2 * (size_t)G * (size_t)ld +
	    k->mdec_work(G, p->D, p->dtype, tr))) != 0)
		return mk_err_data(e, "--bench-kernel: out of memory");
	memset(&t, 0, sizeof(t));
	t.fp8 = p->dtype == MK_U8 ? p->fp8 : MK_FP8_NONE;
	t.dv = p->dv;	/* MLA: the values of its columns only */
	t.tile_rows = tr;
	t.q = f;
	t.acc = f + (size_t)G * (size_t)ld;
	t.work = f + 2 * (size_t)G * (size_t)ld;
	for (g = 0; g < G; g++)
		for (d = 0; d < ld; d++)
			f[(size_t)g * ld + d] = d < p->D ? p->q[(size_t)g *
			    (size_t)p->D + (size_t)d] * (float)(p->scale *
			    1.4426950408889634 / MK_MDEC_FP8_READ(t.fp8)) : 0;
	t.k = p->k;
	t.v = p->v;
	t.ps = (size_t)p->D * mk_dtype_size((enum mk_dtype)p->dtype);
	t.mask = p->mask;
	t.n = (size_t)p->V;
	t.D = p->D;
	t.G = G;
	t.ld = ld;
	t.m = m;
	t.l = l;
	for (i = 0; i < p->V; i++)
		live += p->mask == NULL || !p->mask[i];
	live = live ? live : 1;
	fn(&t, 1);
	k->mdec_arith(&t, p->dtype);
	for (r = 0; r < rounds; r++) {
		a = mk_stamp_now();
		for (rep = 0; rep < 8; rep++)
			fn(&t, 1);
		c = mk_stamp_now();
		for (rep = 0; rep < 8; rep++)
			k->mdec_arith(&t, p->dtype);
		z = mk_stamp_now();
		/* kept rounds first; preempted ones fill from the end */
		i = mk_stamp_whole(&a, &c, 1) && mk_stamp_whole(&c, &z, 1) ?
		    n++ : rounds - 1 - (r - n);
		ns[i] = mk_stamp_ms(&a, &c) * 1e6 / 8 / (double)live;
		fl[i] = mk_stamp_ms(&c, &z) * 1e6 / 8 / (double)p->V;
	}
	free(f);
	return n;
}

int
mk_mdec_bench_kernel(const struct mk_mdec_bench *b, FILE *fp,
    struct mk_err *e)
{
	struct mk_mdec_bench c = *b;
	size_t esz = 1;
	struct mk_mdec_kern tab[MK_NISA];
	const uint8_t *mask;
	struct mk_mdec p;
	struct bufs u;
	double ns[256], fl[256], of[256], best;
	const int nr = b->reps < 256 ? b->reps : 256;
	int i, j, m, n, r, t, tries, unkept = 0, rc = -1;

	for (i = 0; i < MK_NISA; i++)
		mk_mdec_kern_build((enum mk_isa)i, &tab[i]);
	for (i = 0; i < b->ndtype; i++)
		if (mk_dtype_size((enum mk_dtype)b->dtype[i]) > esz)
			esz = mk_dtype_size((enum mk_dtype)b->dtype[i]);
	/* one row of K and V, 256 KiB each in the widest dtype (the same
	 * positions for every dtype): in L2 on every current core */
	c.KH = 1;
	c.QH = b->QH / b->KH;
	c.V = c.M = (int64_t)(262144 / ((size_t)b->D * esz)) > 16 ?
	    (int64_t)(262144 / ((size_t)b->D * esz)) : 16;
	c.nbsz = 1;
	c.bsz[0] = 1;
	c.nthreads = 1;
	c.threads[0] = 1;
	c.nlayout = 1;		/* one kv head: every layout reads alike */
	c.layout[0] = MK_MDEC_BHMD;
	if (bufs_make(&c, &u, e) < 0)
		goto out;
	fprintf(fp, "isa,G,D,density,ns,ns_min,floor_ns,of_floor,kept,"
	    "dtype\n");
	for (i = 0; i < b->ndens; i++) {
		mask = bufs_mask(&c, &u, b->dens[i], 1);
		if (bench_check(&c, tab, &u, mask, 1, e) < 0)
			goto out;
		for (j = 0; j < b->nisa; j++)
		for (t = 0; t < b->ndtype; t++) {
			p = bench_problem(&c, 1, MK_MDEC_BHMD, t, &u, mask);
			/* a busy machine may preempt every round of a set:
			 * a few more sets; then the row says kept 0 and its
			 * figures are of every round, as --bench's do */
			for (n = 0, tries = 0; n == 0 && tries < 4; tries++)
				if ((n = kernel_rounds(&p, &tab[b->isa[j]],
				    nr, ns, fl, e)) < 0)
					goto out;
			unkept += n == 0;
			m = n ? n : nr;
			for (r = 0; r < m; r++)	/* each round's own ratio */
				of[r] = ns[r] / fl[r];
			best = quantile(ns, m, 0);
			fprintf(fp, "%s,%d,%d,%g,%.2f,%.2f,%.2f,%.3f,%d/%d,%s\n",
			    mk_isa_name((enum mk_isa)b->isa[j]), c.QH, b->D,
			    b->dens[i], quantile(ns, m, 0.5), best,
			    quantile(fl, m, 0.5), quantile(of, m, 0.5), n, nr,
			    mk_mdec_kvt_name(p.dtype, p.fp8));
			fflush(fp);
		}
	}
	rc = unkept;
out:
	bufs_free(&u);
	return rc;
}
