/*
 * mixfloor.c - how close to mdecode's read probe one core can stream K
 * and V rows while it does a decode position's arithmetic, with no
 * softmax, mask or bookkeeping: the bound on issue 11's "0.90 of the
 * probe" for a kernel of a given arithmetic weight (RESULTS.md).
 *
 *   mixfloor THREADS [MIB [ROUNDS]]
 *
 * (after make: cc -O3 -pthread -mavx512f -mavx512bw -mavx512vl -mf16c
 *  -mfma -Ilib -o mixfloor tests/bench/mixfloor.c build/libmoekit.a -lm
 *  -fopenmp)
 *
 * K and V are MIB MiB each (default 1024) of 256-byte rows (128 dims of
 * 16 bits, a common head size), in 2 MiB pages; THREADS threads take
 * equal runs of positions.  The least arithmetic of a position of a kv
 * head with 4 query heads: 16 row vectors widened to f32 and 64 FMAs (32
 * for the scores, 32 for the values), what --bench-kernel calls the
 * floor.  Each round runs every pass once, in turn; printed are each
 * pass's median GB/s over ROUNDS rounds (default 7), its ratio to the
 * same round's probe, median [min, max], and for the arithmetic passes
 * the ns a position of their arithmetic alone, rows in L1, one thread:
 *   probe   each thread's K bytes front to back, then its V bytes, by
 *           mdecode --bench's read probe (the AVX-512 read_sum);
 *   rows    K row i and V row i side by side, a load a line, no arithmetic;
 *   the shapes of shapes[] below, named by
 *     f16 | bf16    widened by VCVTPH2PS, or two vectors at a time (shift,
 *                   mask) as mdecode's bf16 pairs;
 *     b32           K rows of 32 positions, then their V rows (the
 *                   kernel's order: a block's scores before its values);
 *                   without it, K row i and V row i side by side;
 *     L1+16, L2+64  each row read prefetched 16 rows ahead into L1, 64
 *                   into L2 (in its own stream);
 *     x1.5, x2      the FMAs done 1.5 or 2 times over on the same rows:
 *                   the arithmetic's weight raised toward the kernel's
 *                   (its softmax, reductions and row addresses);
 *     kernel's      b32 with mdecode's prefetch distances, not a stream's
 *                   (L2 one block ahead, or 2);
 *   the paged walks of pshapes[] below (blocks shuffled or in address
 *   order: what a shuffled block table costs this arithmetic);
 *   mdecode's kernel, and its rows probe: mdecode's own f16 AVX-512
 *           kernel over the same rows as one kv head of 4 query heads,
 *           timed in the same rounds as the loops.
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/clock.h"
#include "mdec/mdec.h"

#define RB	256			/* a row: 128 dims of 16 bits */
#define PFD	(16 * RB)		/* prefetch distance */

static unsigned char	*kc, *vc;
static size_t		 nrows;
static int		 nthreads, mode;
static float		 q[4][128] __attribute__((aligned(64)));
static pthread_barrier_t go, done;
static volatile float	 fsink;
static volatile uint64_t isink;
static struct mk_kern	 probe;		/* the AVX-512 read_sum */

/* Loads only: one word of every line. */
static uint64_t
rows(const unsigned char *k, const unsigned char *v, size_t n)
{
	uint64_t x = 0;
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < RB; j += 64)
			x ^= *(const volatile uint64_t *)(k + i * RB + j) ^
			    *(const volatile uint64_t *)(v + i * RB + j);
	return x;
}

/* The 8 f32 vectors of a row: f16 by conversion, bf16 by pairs. */
#define WIDEN(bf, p, f) do {						\
	int c_;								\
	if (bf) {							\
		for (c_ = 0; c_ < 4; c_++) {				\
			__m512i x_ = _mm512_loadu_si512((p) + 64 * c_);	\
			f[2 * c_] = _mm512_castsi512_ps(		\
			    _mm512_slli_epi32(x_, 16));			\
			f[2 * c_ + 1] = _mm512_castsi512_ps(		\
			    _mm512_and_si512(x_, hi16));		\
		}							\
	} else								\
		for (c_ = 0; c_ < 8; c_++)				\
			f[c_] = _mm512_cvtph_ps(_mm256_loadu_si256(	\
			    (const __m256i *)((p) + 32 * c_)));		\
} while (0)

/* Prefetch row r's lines: into L1 (T0) or L2 (T1). */
#define PF_ROW(r, hint) do {						\
	int l_;								\
	for (l_ = 0; l_ < RB; l_ += 64)					\
		_mm_prefetch((const char *)(r) + l_, hint);		\
} while (0)

/* The values' FMAs of a V row: 4 heads' terms of each of its 8
 * vectors, half/2 times over. */
#define VALUES(f, a, half) do {						\
	int r_, c2_;							\
	for (r_ = 0; r_ < (half); r_ += 2)				\
		for (c2_ = 0; c2_ < 8; c2_++) {				\
			a[c2_] = _mm512_fmadd_ps(f[c2_], p0, a[c2_]);	\
			a[c2_] = _mm512_fmadd_ps(f[c2_], p1, a[c2_]);	\
			if (r_ + 1 == (half))				\
				continue;				\
			a[c2_] = _mm512_fmadd_ps(f[c2_], p2, a[c2_]);	\
			a[c2_] = _mm512_fmadd_ps(f[c2_], p3, a[c2_]);	\
		}							\
} while (0)

/* The scores' FMAs of a K row: 4 heads' products with its 8 vectors, in
 * 8 accumulators, half/2 times over. */
#define SCORES(f, s, half) do {						\
	int r_, c_, h_;							\
	for (r_ = 0; r_ < (half); r_ += 2)				\
		for (c_ = 0; c_ < (r_ + 1 == (half) ? 4 : 8); c_++)	\
			for (h_ = 0; h_ < 4; h_++)			\
				s[2 * h_ + (c_ & 1)] = _mm512_fmadd_ps(	\
				    f[c_], _mm512_load_ps(q[h_] + 16 * c_), \
				    s[2 * h_ + (c_ & 1)]);		\
} while (0)

/* A load of every line of row p, xored into x. */
#define LOADS(p, x) do {						\
	int l_;								\
	for (l_ = 0; l_ < RB; l_ += 64)					\
		x ^= *(const volatile uint64_t *)((p) + l_);		\
} while (0)

/* A pass's shape: dtype, positions a block (1: K and V rows side by
 * side), rows ahead prefetched into L1 and into L2 (0: none). */
struct shape {
	const char	*name;
	int		 bf, blk, d1, d2;
	int		 half;	/* halves of the least arithmetic: 2 is it */
	int		 kpf;	/* b32 with the kernel's prefetches: into L1
				 * the block's V rows while its K rows are
				 * read, the next block's K rows while its V
				 * rows are; into L2 the K and V rows kpf
				 * blocks ahead over the whole block */
};

static const struct shape shapes[] = {
	{ "f16", 0, 1, 0, 0, 2, 0 },
	{ "f16 L1+16", 0, 1, 16, 0, 2, 0 },
	{ "f16 L1+16 L2+64", 0, 1, 16, 64, 2, 0 },
	{ "f16 b32", 0, 32, 0, 0, 2, 0 },
	{ "f16 b32 L1+16", 0, 32, 16, 0, 2, 0 },
	{ "f16 b32 L1+16 L2+64", 0, 32, 16, 64, 2, 0 },
	{ "bf16 b32 L1+16 L2+64", 1, 32, 16, 64, 2, 0 },
	{ "f16 b32 L1+16 L2+64 x1.5", 0, 32, 16, 64, 3, 0 },
	{ "f16 b32 L1+16 L2+64 x2", 0, 32, 16, 64, 4, 0 },
	{ "f16 b32 L1+16 x1.5", 0, 32, 16, 0, 3, 0 },
	{ "f16 b32 L1+16 x2", 0, 32, 16, 0, 4, 0 },
	{ "f16 b32 kernel's prefetches", 0, 32, 0, 0, 2, 1 },
	{ "f16 b32 kernel's prefetches x1.5", 0, 32, 0, 0, 3, 1 },
	{ "f16 b32 kernel's, L2 2 blocks ahead x1.5", 0, 32, 0, 0, 3, 2 },
};
#define NSHAPE	14
_Static_assert(sizeof(shapes) / sizeof(shapes[0]) == NSHAPE, "shaped");
/*
 * Paged walks: K and V cut into blocks of 16 positions x 8 kv heads (32
 * KiB, vLLM's [num_blocks, 16, KH, D]), read as mdecode walks a paged
 * cache: 32 positions (two blocks) at a time, kv head by kv head, each
 * head's 32 K rows then its 32 V rows, with the kernel's prefetches
 * (into L1 the walk's own V rows while its K rows are read and the next
 * walk's K rows while its V rows are; into L2 the next walk's K and V
 * rows over the whole walk).  Blocks in address order or shuffled;
 * "far": also the same kv head's rows of the next two blocks into L2
 * (a whole step of 8 walks ahead); "rows": loads only.
 */
struct pshape {
	const char	*name;
	int		 shuf, far, l2, half;	/* half 0: loads only */
};

static const struct pshape pshapes[] = {
	{ "paged rows in order", 0, 0, 1, 0 },
	{ "paged rows shuffled", 1, 0, 1, 0 },
	{ "paged in order x1.5", 0, 0, 1, 3 },
	{ "paged shuffled x1.5", 1, 0, 1, 3 },
	{ "paged shuffled far x1.5", 1, 1, 1, 3 },
	{ "paged in order x1.5 no L2", 0, 0, 0, 3 },
	{ "paged shuffled x1.5 no L2", 1, 0, 0, 3 },
	{ "paged in order x1", 0, 0, 1, 2 },
	{ "paged shuffled x1", 1, 0, 1, 2 },
};
#define NPSHAPE	9
_Static_assert(sizeof(pshapes) / sizeof(pshapes[0]) == NPSHAPE, "pshaped");
#define PBB	(16 * 8 * RB)		/* a block: 16 positions, 8 kv heads */
/* and the probe, rows, mdecode's kernel and its rows probe */
#define NPASS	(NSHAPE + NPSHAPE + 4)
#define KPASS	(NSHAPE + NPSHAPE + 2)

/*
 * Scores (4 heads x 8 vectors into 8 accumulators) of a K row, values
 * (8 vectors, each the sum of 4 heads' terms) of a V row; each row
 * prefetched as it steps d1 rows ahead into L1, d2 into L2.
 */
static inline __attribute__((always_inline)) float
arith(const unsigned char *k, const unsigned char *v, size_t n,
    const struct shape *sh)
{
	const __m512i hi16 = _mm512_set1_epi32((int)0xffff0000);
	const __m512 p0 = _mm512_set1_ps(1e-3f), p1 = _mm512_set1_ps(2e-3f),
	    p2 = _mm512_set1_ps(-1e-3f), p3 = _mm512_set1_ps(5e-4f);
	const size_t blk = (size_t)sh->blk, d1 = (size_t)sh->d1 * RB,
	    d2 = (size_t)sh->d2 * RB;
	__m512 s[8], a[8], f[8];
	size_t i, i0, e;
	int c;

/* row r's stream, d1 rows ahead into L1 and d2 into L2 (0: not) */
#define PF_AHEAD(r) do {						\
	if (d1)								\
		PF_ROW((r) + d1, _MM_HINT_T0);				\
	if (d2)								\
		PF_ROW((r) + d2, _MM_HINT_T1);				\
} while (0)

	for (c = 0; c < 8; c++)
		s[c] = a[c] = _mm512_setzero_ps();
	for (i0 = 0; i0 < n; i0 += blk) {
		e = i0 + blk < n ? i0 + blk : n;
		for (i = i0; i < e; i++) {
			const unsigned char *kr = k + i * RB;

			PF_AHEAD(kr);
			if (sh->kpf) {
				PF_ROW(v + i * RB, _MM_HINT_T0);
				PF_ROW(kr + (size_t)sh->kpf * 32 * RB,
				    _MM_HINT_T1);
			}
			if (blk == 1)
				PF_AHEAD(v + i * RB);
			WIDEN(sh->bf, kr, f);
			SCORES(f, s, sh->half);
			if (blk > 1)
				continue;
			WIDEN(sh->bf, v + i * RB, f);
			VALUES(f, a, sh->half);
		}
		for (i = i0; blk > 1 && i < e; i++) {
			const unsigned char *vr = v + i * RB;

			PF_AHEAD(vr);
			if (sh->kpf) {
				PF_ROW(k + (i + 32) * RB, _MM_HINT_T0);
				PF_ROW(vr + (size_t)sh->kpf * 32 * RB,
				    _MM_HINT_T1);
			}
			WIDEN(sh->bf, vr, f);
			VALUES(f, a, sh->half);
		}
	}
	for (c = 1; c < 8; c++)
		s[0] = _mm512_add_ps(s[0], _mm512_add_ps(s[c], a[c]));
	return _mm512_reduce_add_ps(_mm512_add_ps(s[0], a[0]));
}
#undef PF_AHEAD

/* arith compiled for each shape, its constants folded in (not inlined
 * into a caller whose shape is a variable: in_l1 in main then timed a
 * generic loop, 2.7x slower). */
static __attribute__((noinline)) float
shaped(const unsigned char *k, const unsigned char *v, size_t n, int i)
{
#define S(j)	case j: return arith(k, v, n, &shapes[j])
	switch (i) {
	S(0); S(1); S(2); S(3); S(4); S(5); S(6); S(7); S(8); S(9); S(10);
	S(11); S(12); S(13);
	}
#undef S
	return 0;
}

static int32_t		*ptab[2];	/* block tables: in order, shuffled */
static size_t		 npb;		/* blocks of K (and of V) */

/* The 32 rows of kv head h in blocks b[0] and b[1]. */
static inline __attribute__((always_inline)) void
walk_rows(const unsigned char *base, const int32_t *b, int h,
    const unsigned char **r)
{
	int j;

	for (j = 0; j < 32; j++)
		r[j] = base + (size_t)b[j / 16] * PBB + (size_t)(j % 16) * 8 *
		    RB + (size_t)h * RB;
}

/* The paged walk of blocks tab[0..nb) (nb even) in shape sh. */
static inline __attribute__((always_inline)) float
pwalk(const int32_t *tab, size_t nb, const struct pshape *sh)
{
	const __m512i hi16 = _mm512_set1_epi32((int)0xffff0000);
	const __m512 p0 = _mm512_set1_ps(1e-3f), p1 = _mm512_set1_ps(2e-3f),
	    p2 = _mm512_set1_ps(-1e-3f), p3 = _mm512_set1_ps(5e-4f);
	const unsigned char *kr[32], *vr[32], *nk[32], *nv[32], *fk[32],
	    *fv[32];
	__m512 s[8], a[8], f[8];
	uint64_t x = 0;
	size_t i;
	int c, h, j, ph, nn, far;

	(void)hi16;
	for (c = 0; c < 8; c++)
		s[c] = a[c] = _mm512_setzero_ps();
	for (i = 0; i + 2 <= nb; i += 2)
		for (h = 0; h < 8; h++) {
			walk_rows(kc, tab + i, h, kr);
			walk_rows(vc, tab + i, h, vr);
			nn = h < 7 || i + 4 <= nb;
			if (nn) {
				walk_rows(kc, tab + i + (h < 7 ? 0 : 2),
				    (h + 1) % 8, nk);
				walk_rows(vc, tab + i + (h < 7 ? 0 : 2),
				    (h + 1) % 8, nv);
			}
			far = sh->far && i + 4 <= nb;
			if (far) {
				walk_rows(kc, tab + i + 2, h, fk);
				walk_rows(vc, tab + i + 2, h, fv);
			}
			/* ph 0: the K rows (scores), 1: the V rows (values) */
			for (ph = 0; ph < 2; ph++)
				for (j = 0; j < 32; j++) {
					const unsigned char *row = ph ? vr[j] :
					    kr[j];

					if (ph == 0)
						PF_ROW(vr[j], _MM_HINT_T0);
					else if (nn)
						PF_ROW(nk[j], _MM_HINT_T0);
					if (nn && sh->l2)
						PF_ROW((ph ? nv : nk)[j],
						    _MM_HINT_T1);
					if (far)
						PF_ROW((ph ? fv : fk)[j],
						    _MM_HINT_T1);
					if (sh->half == 0) {
						LOADS(row, x);
						continue;
					}
					WIDEN(0, row, f);
					if (ph)
						VALUES(f, a, sh->half);
					else
						SCORES(f, s, sh->half);
				}
		}
	for (c = 1; c < 8; c++)
		s[0] = _mm512_add_ps(s[0], _mm512_add_ps(s[c], a[c]));
	return _mm512_reduce_add_ps(_mm512_add_ps(s[0], a[0])) + (float)(x & 1);
}

/* pwalk compiled for each paged shape. */
static __attribute__((noinline)) float
pshaped(const int32_t *tab, size_t nb, int i)
{
#define S(j)	case j: return pwalk(tab, nb, &pshapes[j])
	switch (i) {
	S(0); S(1); S(2); S(3); S(4); S(5); S(6); S(7); S(8);
	}
#undef S
	return 0;
}

/*
 * mdecode's own AVX-512 f16 kernel over this thread's rows, as one kv
 * head's positions of 4 query heads (bhmd, no mask), or (rd) its rows
 * probe: the kernel measured in the same rounds as the loops.
 */
static float
kernel(const unsigned char *k, const unsigned char *v, size_t n, int rd)
{
	static __thread float *work, *acc;
	float m[4], l[4];
	struct mk_mdec_task t;

	if (work == NULL && (posix_memalign((void **)&work, 64,
	    MK_MDEC_WORK(4, 128) * sizeof(float)) != 0 ||
	    posix_memalign((void **)&acc, 64, 4 * 128 * sizeof(float)) != 0))
		return 0;
	memset(&t, 0, sizeof(t));
	t.k = k, t.v = v, t.ps = RB, t.n = n, t.D = 128, t.G = 4, t.ld = 128;
	t.q = &q[0][0], t.m = m, t.l = l, t.acc = acc, t.work = work;
	t.rd = rd, t.bshift = -1;
	mk_mdec_f16_avx512(&t, 1);
	return acc[0] + (rd ? 0 : m[0] + l[0]);
}

static void *
worker(void *arg)
{
	const size_t t = (size_t)(uintptr_t)arg;
	const size_t lo = nrows * t / (size_t)nthreads,
	    hi = nrows * (t + 1) / (size_t)nthreads, n = hi - lo;
	const unsigned char *k, *v;
	uint64_t x;
	float y;

	for (;;) {
		pthread_barrier_wait(&go);
		if (mode < 0)
			return NULL;
		k = kc + lo * RB, v = vc + lo * RB;
		x = 0, y = 0;
		if (mode == 0)
			x = probe.read_sum(k, n * RB) +
			    probe.read_sum(v, n * RB);
		else if (mode == 1)
			x = rows(k, v, n);
		else if (mode < NSHAPE + 2)
			y = shaped(k, v, n, mode - 2);
		else if (mode >= KPASS)
			y = kernel(k, v, n, mode - KPASS);
		else	/* this thread's blocks: an even run of them */
			y = pshaped(ptab[pshapes[mode - NSHAPE - 2].shuf] +
			    npb * t / (size_t)nthreads / 2 * 2,
			    npb * (t + 1) / (size_t)nthreads / 2 * 2 -
			    npb * t / (size_t)nthreads / 2 * 2,
			    mode - NSHAPE - 2);
		isink ^= x;
		fsink += y;
		pthread_barrier_wait(&done);
	}
}

static double
pass(int m)
{
	double t0;

	mode = m;
	t0 = mk_seconds();
	pthread_barrier_wait(&go);
	pthread_barrier_wait(&done);
	return 2.0 * (double)(nrows * RB) / (mk_seconds() - t0) / 1e9;
}

static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmpd);
	return v[n / 2];
}

/* ns a position of shape i's arithmetic alone, rows in L1 (best of 15). */
static double
in_l1(int i)
{
	static unsigned char buf[2][64 * RB] __attribute__((aligned(64)));
	double best = 1e9, t;
	int r, j;

	memcpy(buf[0], kc, sizeof(buf[0]));
	memcpy(buf[1], vc, sizeof(buf[1]));
	for (r = 0; r < 15; r++) {
		t = mk_seconds();
		for (j = 0; j < 2000; j++)
			fsink += shaped(buf[0], buf[1], 64, i);
		t = (mk_seconds() - t) / (2000.0 * 64) * 1e9;
		if (t < best)
			best = t;
	}
	return best;
}

static unsigned char *
big(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, n, MADV_HUGEPAGE);
	return p;
}

int
main(int argc, char **argv)
{
	size_t mib = argc > 2 ? strtoull(argv[2], NULL, 10) : 1024, i;
	int rounds = argc > 3 ? atoi(argv[3]) : 7, r, m;
	uint64_t s = 88172645463325252ull;
	double g[NPASS][64], fr[NPASS][64], lo, hi;
	pthread_t th[256];

	mk_kern_build(MK_ISA_AVX512, &probe);
	nthreads = argc > 1 ? atoi(argv[1]) : 1;
	if (nthreads < 1 || nthreads > 256 || mib < 1 || rounds < 1 ||
	    rounds > 64) {
		fprintf(stderr, "usage: mixfloor THREADS [MIB [ROUNDS]]\n");
		return 2;
	}
	nrows = (mib << 20) / RB;
	if ((kc = big(nrows * RB)) == NULL || (vc = big(nrows * RB)) == NULL) {
		perror("mixfloor");
		return 1;
	}
	/* 16-bit values of magnitude 1/4 to 2, as f16 and as bf16: no
	 * denormal anywhere (each would cost a microcode assist) */
	for (i = 0; i < nrows * RB / 2; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		((uint16_t *)kc)[i] = (uint16_t)(s & 0x83ff) | 0x3400 |
		    (uint16_t)((s >> 16 & 3) << 10);
		((uint16_t *)vc)[i] = (uint16_t)((s >> 32 & 0x807f) | 0x3e80 |
		    (s >> 48 & 3) << 7);
	}
	for (i = 0; i < 4 * 128; i++)
		q[i / 128][i % 128] = (float)((int)(i % 7) - 3) * 0.01f;
	npb = nrows * RB / PBB;
	if ((ptab[0] = malloc(npb * sizeof(int32_t))) == NULL ||
	    (ptab[1] = malloc(npb * sizeof(int32_t))) == NULL) {
		perror("mixfloor");
		return 1;
	}
	for (i = 0; i < npb; i++)
		ptab[0][i] = ptab[1][i] = (int32_t)i;
	for (i = npb - 1; i > 0; i--) {	/* Fisher-Yates */
		size_t j;
		int32_t t;

		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		j = (size_t)(s % (i + 1));
		t = ptab[1][i], ptab[1][i] = ptab[1][j], ptab[1][j] = t;
	}
	pthread_barrier_init(&go, NULL, (unsigned)nthreads + 1);
	pthread_barrier_init(&done, NULL, (unsigned)nthreads + 1);
	for (r = 0; r < nthreads; r++)
		pthread_create(&th[r], NULL, worker, (void *)(uintptr_t)r);
	pass(0);			/* untimed: pages, threads warm */
	for (r = 0; r < rounds; r++)
		for (m = 0; m < NPASS; m++)
			g[m][r] = pass(m);
	printf("%d threads, K and V %zu MiB each\n", nthreads, mib);
	for (m = 0; m < NPASS; m++) {
		for (r = 0; r < rounds; r++)
			fr[m][r] = g[m][r] / g[0][r];
		lo = hi = fr[m][0];
		for (r = 1; r < rounds; r++) {
			lo = fr[m][r] < lo ? fr[m][r] : lo;
			hi = fr[m][r] > hi ? fr[m][r] : hi;
		}
		printf("%s,%.2f GB/s,%.3f [%.3f, %.3f] of probe", m == 0 ?
		    "probe" : m == 1 ? "rows" : m < NSHAPE + 2 ?
		    shapes[m - 2].name : m == KPASS ? "mdecode's kernel" :
		    m == KPASS + 1 ? "mdecode's rows probe" :
		    pshapes[m - NSHAPE - 2].name,
		    median(g[m], rounds), median(fr[m], rounds), lo, hi);
		if (m >= 2 && m < NSHAPE + 2)	/* the threads wait */
			printf(",%.2f ns a position in L1", in_l1(m - 2));
		printf("\n");
	}
	mode = -1;
	pthread_barrier_wait(&go);
	for (r = 0; r < nthreads; r++)
		pthread_join(th[r], NULL);
	return isink == 42 && fsink == 42.0f;
}
