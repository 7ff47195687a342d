/*
 * amxpeak.c - what one core's AMX tiles do at most: TDPBF16PS (16 x 32
 * by 32 x 16 bf16, f32 sums) back to back, four independent sums, and
 * the same with their operands loaded before each (the amx row's steps:
 * 2 A and 2 B loads for four products), from L1 and from L2 (a walk
 * through 512 KiB, as the walk's buffers are), ns a product; whether the
 * vector units work beside the tiles: each group of four followed by VEC
 * AVX-512 integer operations (four independent chains, no memory),
 * against the vector operations alone, ns a group; and what a VDPBF16PS
 * costs beside a VFMADD231PS (24 independent sums each), ns an
 * instruction: the avx512bf16 row's floor; and groups of four products
 * beside 16 or 32 vector stores, to L1 (8 KiB) or L2 (512 KiB), against
 * each alone.  The floors RESULTS.md holds the amx walk to (mdecode, AMX
 * tiles).
 *
 *   amxpeak [ROUNDS [VEC]]
 *
 * (cc -O2 -mavx512f -mavx512bf16 -mamx-tile -mamx-bf16 -Ilib -o amxpeak
 *  tests/bench/amxpeak.c; on Linux, which must grant the tile data,
 *  x86-64 with AMX-BF16)
 *
 * Each round times 10^6 groups of four products; printed are the median
 * and the range over ROUNDS rounds (default 7); VEC defaults to 128,
 * about what the walk's widening and softmax issue a group for MLA.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <immintrin.h>
#include <sys/syscall.h>

#include "base/clock.h"

#define N	1000000
#define L2SPAN	(512 * 1024)	/* bytes the L2 walk goes through */
#define SUMS	24		/* independent sums of the vector rounds */

/* the operands in L1: two A tiles, then two B tiles (load4) */
static uint16_t ab[4][16 * 32] __attribute__((aligned(64)));
static char *l2;	/* L2SPAN bytes of the same bf16 */

/* Tiles 4-7 (2 A, 2 B) loaded from o, 1 KiB each at o, o + 1 KiB.. */
static inline __attribute__((always_inline)) void
load4(const char *o)
{
	_tile_loadd(4, o, 64);
	_tile_loadd(5, o + 1024, 64);
	_tile_loadd(6, o + 2048, 64);
	_tile_loadd(7, o + 3072, 64);
}

/* Four products into the four sums, tiles 0-3: the amx row's step. */
static inline __attribute__((always_inline)) void
four(void)
{
	_tile_dpbf16ps(0, 4, 6);
	_tile_dpbf16ps(1, 5, 6);
	_tile_dpbf16ps(2, 4, 7);
	_tile_dpbf16ps(3, 5, 7);
}

static int
cmp(const void *x, const void *y)
{
	double u = *(const double *)x, v = *(const double *)y;

	return (u > v) - (u < v);
}

/*
 * ns a group of one round: vec vector operations (a multiple of 4), after
 * four products (tiles 1) or alone (0).
 */
static double
round_vec(int tiles, int vec)
{
	const __m512i k = _mm512_set1_epi32(0x2545f491);
	__m512i x0 = k, x1 = _mm512_add_epi32(k, k), x2 = _mm512_sub_epi32(k,
	    x1), x3 = _mm512_xor_si512(x1, x2);
	double t = mk_seconds();
	long i;
	int j;

	for (i = 0; i < N; i++) {
		if (tiles) {
			four();
		}
		for (j = 0; j < vec; j += 4) {
			x0 = _mm512_ternarylogic_epi32(x0, k, x1, 0x96);
			x1 = _mm512_ternarylogic_epi32(x1, k, x2, 0x96);
			x2 = _mm512_ternarylogic_epi32(x2, k, x3, 0x96);
			x3 = _mm512_ternarylogic_epi32(x3, k, x0, 0x96);
		}
	}
	t = (mk_seconds() - t) * 1e9 / N;
	/* the sums kept: a use the compiler cannot drop */
	if (_mm512_reduce_add_epi32(_mm512_add_epi32(_mm512_add_epi32(x0, x1),
	    _mm512_add_epi32(x2, x3))) == 42)
		t += 1e-9;
	return t;
}

static char *sb;	/* where round_st stores: L2SPAN bytes */
static size_t sbspan;	/* the bytes of it a round walks through */

/*
 * ns a group of one round: nst vector stores (64 bytes each, the next
 * of sbspan bytes), after four products whose operands load from L1
 * (tiles 1), or alone (0).  A tile load waits for older stores; the
 * walk widens about 32 stores' worth a group of four.
 */
static double
round_st(int tiles, int nst)
{
	const __m512i x = _mm512_set1_epi32(0x3b803b80);
	double t = mk_seconds();
	size_t off = 0;
	long i;
	int j;

	for (i = 0; i < N; i++) {
		if (tiles) {
			load4((const char *)ab);
			four();
		}
		for (j = 0; j < nst; j++) {
			_mm512_store_si512(sb + off, x);
			off = off + 64 < sbspan ? off + 64 : 0;
		}
	}
	return (mk_seconds() - t) * 1e9 / N;
}

/* The median of rounds calls of f(x, vec), and its range in lo, hi. */
static double
median(double (*f)(int, int), int x, int vec, double *t, int rounds,
    double *lo, double *hi)
{
	int r;

	for (r = 0; r < rounds; r++)
		t[r] = f(x, vec);
	qsort(t, (size_t)rounds, sizeof(double), cmp);
	*lo = t[0];
	*hi = t[rounds - 1];
	return t[rounds / 2];
}

/*
 * ns a product of one round: operands in tiles (load 0), loaded from L1
 * (1) or from L2 (2: the next 4 KiB of l2 each group).
 */
static double
round_ns(int load, int unused)
{
	double t = mk_seconds();
	long i;

	for (i = 0; i < N; i++) {
		if (load == 1)
			load4((const char *)ab);
		else if (load == 2)
			load4(l2 + ((size_t)i * 4096 & (L2SPAN - 1)));
		four();
	}
	(void)unused;
	return (mk_seconds() - t) * 1e9 / N / 4;
}

/*
 * ns an instruction of one round: SUMS independent VDPBF16PS (fma 0) or
 * VFMADD231PS (1), enough to cover either's latency.
 */
static double
round_dp(int fma, int unused)
{
	const __m512 x = _mm512_set1_ps(1.0001f), y = _mm512_set1_ps(0.9999f);
	const __m512i u = _mm512_set1_epi32(0x3f803f80),
	    v = _mm512_set1_epi32(0x3f813f81);
	__m512 s[SUMS], r;
	double t;
	long i;
	int j;

	for (j = 0; j < SUMS; j++)
		s[j] = _mm512_setzero_ps();
	t = mk_seconds();
	if (fma)
		for (i = 0; i < N / 8; i++)
#pragma GCC unroll 24
			for (j = 0; j < SUMS; j++)
				s[j] = _mm512_fmadd_ps(x, y, s[j]);
	else
		for (i = 0; i < N / 8; i++)
#pragma GCC unroll 24
			for (j = 0; j < SUMS; j++)
				s[j] = _mm512_dpbf16_ps(s[j], (__m512bh)u,
				    (__m512bh)v);
	t = (mk_seconds() - t) * 1e9 / (N / 8) / SUMS;
	for (r = s[0], j = 1; j < SUMS; j++)
		r = _mm512_add_ps(r, s[j]);
	if (_mm512_reduce_add_ps(r) == 42.0f)	/* a use kept */
		t += 1e-9;
	(void)unused;
	return t;
}

int
main(int argc, char **argv)
{
	const int rounds = argc > 1 ? atoi(argv[1]) : 7;
	const int vec = argc > 2 ? atoi(argv[2]) / 4 * 4 : 128;
	uint8_t cfg[64] = { 1 };	/* palette 1, 8 tiles of 16 x 64 B */
	static const char *const how[3] = { "operands in tiles",
	    "operands loaded from L1 (2 A, 2 B a four)",
	    "operands loaded from L2 (2 A, 2 B a four, 512 KiB)" };
	double *t, m, lo, hi, both, alone, dp, fm;
	int i, load;

	if (rounds < 1 || vec < 0 ||
	    (t = malloc(sizeof(double) * (size_t)rounds)) == NULL ||
	    (l2 = aligned_alloc(64, L2SPAN)) == NULL ||
	    (sb = aligned_alloc(64, L2SPAN)) == NULL)
		return 2;
	memset(sb, 0, L2SPAN);
	if (syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18) !=
	    0) {
		fprintf(stderr, "amxpeak: Linux refused the tile data\n");
		return 1;
	}
	for (i = 0; i < 16 * 32; i++) {	/* small values: no overflow */
		ab[0][i] = ab[1][i] = 0x3c00 + (uint16_t)(i & 7);
		ab[2][i] = ab[3][i] = 0x3b80 + (uint16_t)(i & 3);
	}
	for (i = 0; i < L2SPAN / 2; i++)
		((uint16_t *)(void *)l2)[i] = 0x3b80 + (uint16_t)(i & 3);
	for (i = 0; i < 8; i++) {
		cfg[16 + 2 * i] = 64;
		cfg[48 + i] = 16;
	}
	_tile_loadconfig(cfg);
	_tile_zero(0);		/* a tile is named by a constant */
	_tile_zero(1);
	_tile_zero(2);
	_tile_zero(3);
	load4((const char *)ab);
	for (load = 0; load < 3; load++) {
		m = median(round_ns, load, 0, t, rounds, &lo, &hi);
		printf("%s: %.2f ns a TDPBF16PS [%.2f, %.2f]\n", how[load], m,
		    lo, hi);
	}
	m = 4 * median(round_ns, 0, 0, t, rounds, &lo, &hi);
	both = median(round_vec, 1, vec, t, rounds, &lo, &hi);
	alone = median(round_vec, 0, vec, t, rounds, &lo, &hi);
	printf("beside %d vector operations: %.2f ns a group of four "
	    "(tiles alone %.2f, vectors alone %.2f, the sum %.2f)\n", vec,
	    both, m, alone, m + alone);
	m = median(round_ns, 1, 0, t, rounds, &lo, &hi) * 4;
	for (i = 0; i < 3; i++) {
		const int nst = i == 0 ? 16 : 32;

		sbspan = i < 2 ? 8192 : L2SPAN;
		both = median(round_st, 1, nst, t, rounds, &lo, &hi);
		alone = median(round_st, 0, nst, t, rounds, &lo, &hi);
		printf("beside %d vector stores (%s): %.2f ns a group of four "
		    "loaded from L1 (tiles alone %.2f, stores alone %.2f)\n",
		    nst, i < 2 ? "L1, 8 KiB" : "L2, 512 KiB", both, m, alone);
	}
	dp = median(round_dp, 0, 0, t, rounds, &lo, &hi);
	fm = median(round_dp, 1, 0, t, rounds, &lo, &hi);
	printf("vector products: %.3f ns a VDPBF16PS, %.3f ns a VFMADD231PS "
	    "(%d independent sums)\n", dp, fm, SUMS);
	_tile_release();
	free(l2);
	free(sb);
	free(t);
	return 0;
}
