/*
 * mdec_avx512.h - the 16-lane primitives of mdec_kernel.h for AVX-512
 * F/BW/VL/DQ, included by the mdec_*_avx512.c files only (compiled with
 * those flags; called after mk_kern_init saw them).
 *
 * The AVX512-BF16 and -FP16 arithmetic instructions are not used on
 * purpose: they would round q or the products to 16 bits, which costs the
 * accuracy mdecode promises.  K and V are widened to f32 on load
 * (VCVTPH2PS, or a shift for bf16) and everything is summed in f32.
 */
#ifndef MK_MDEC_AVX512_H
#define MK_MDEC_AVX512_H

#include <immintrin.h>
#include <math.h>

#include "base/dtype.h"
#include "mdec/mdec.h"

typedef __m512 VEC;
#define W	16

static inline VEC vzero(void)			{ return _mm512_setzero_ps(); }
static inline VEC vset1(float x)		{ return _mm512_set1_ps(x); }
static inline VEC vload(const float *p)		{ return _mm512_load_ps(p); }
static inline void vstore(float *p, VEC v)	{ _mm512_store_ps(p, v); }
static inline VEC vmul(VEC a, VEC b)		{ return _mm512_mul_ps(a, b); }
static inline VEC vfma(VEC a, VEC b, VEC c)	{ return _mm512_fmadd_ps(a, b, c); }
static inline float vhsum(VEC v)		{ return _mm512_reduce_add_ps(v); }
static inline VEC vxor(VEC a, VEC b)		{ return _mm512_xor_ps(a, b); }

/* whether a lane of a is greater than b's */
static inline int
vany_gt(VEC a, VEC b)
{
	return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ) != 0;
}

/* a macro: GCC 12 drops _mm_prefetch inside a static inline wrapper */
#define prefetch(p)	_mm_prefetch((const char *)(p), _MM_HINT_T0)
#define prefetch_l2(p)	_mm_prefetch((const char *)(p), _MM_HINT_T1)

/*
 * FP8 bytes widen through f16 bits (mdec.h, MK_MDEC_FP8_SHIFT); E4M3's NaN
 * bytes are found a block at a time (fp8_nans in mdec_kernel.h).  (Widening
 * straight to f32 takes fewer operations but leaves E4M3's subnormals f32
 * subnormals, which cost a Xeon a microcode assist each; looking the f32
 * bits up in tables with VBMI's two-register byte permutes, fewer
 * instructions, ran slower on the Xeon, whose permutes take several
 * micro-operations on the port the widening already crowds.)
 */
typedef struct {
	__m128i	 sh;
	__m512i	 keep;
} CVT;

static inline CVT
vcvt(int fmt)
{
	return (CVT){ _mm_cvtsi32_si128(MK_MDEC_FP8_SHIFT(fmt)),
	    _mm512_set1_epi16((short)MK_MDEC_FP8_KEEP(fmt)) };
}

static inline __attribute__((always_inline)) __m256i
fp8_f16(__m128i b, CVT cv)
{
	return _mm256_and_si256(_mm256_sll_epi16(_mm256_cvtepi8_epi16(b),
	    cv.sh), _mm512_castsi512_si256(cv.keep));
}

/*
 * Half h of the 2W FP8 bytes at b as f32: the three integer operations
 * of fp8_f16 done once for both halves, on 512 bits (the compiler shares
 * them between the two halves' calls).  On the Xeon 256-bit integer
 * operations take the same ports as 512-bit ones: a pair of vectors
 * widens in 8 operations rather than 10 (RESULTS.md).
 */
#define FP8_PAIRS	1
static inline __attribute__((always_inline)) VEC
vfp8_half(const void *b, int h, CVT cv)
{
	__m512i x = _mm512_and_si512(_mm512_sll_epi16(_mm512_cvtepi8_epi16(
	    _mm256_loadu_si256(b)), cv.sh), cv.keep);

	return _mm512_cvtph_ps(h ? _mm512_extracti64x4_epi64(x, 1) :
	    _mm512_castsi512_si256(x));
}

/* Masked loads never touch memory outside the mask: tails read nothing
 * past the row. */
static inline __attribute__((always_inline)) VEC
vrow(const void *row, int off, int dt, int nv, CVT cv)
{
	__mmask16 m = (__mmask16)((1u << nv) - 1);
	const uint16_t *h = (const uint16_t *)row + off;
	const float *f = (const float *)row + off;
	const uint8_t *b = (const uint8_t *)row + off;

	switch (dt) {
	case MK_F16:
		return _mm512_cvtph_ps(nv == W ?
		    _mm256_loadu_si256((const void *)h) :
		    _mm256_maskz_loadu_epi16(m, h));
	case MK_BF16:
		return _mm512_castsi512_ps(_mm512_slli_epi32(
		    _mm512_cvtepu16_epi32(nv == W ?
		    _mm256_loadu_si256((const void *)h) :
		    _mm256_maskz_loadu_epi16(m, h)), 16));
	case MK_U8:
		return _mm512_cvtph_ps(fp8_f16(nv == W ?
		    _mm_loadu_si128((const void *)b) :
		    _mm_maskz_loadu_epi8(m, b), cv));
	default:
		return nv == W ? _mm512_loadu_ps(f) : _mm512_maskz_loadu_ps(m, f);
	}
}

/* Of the 2W bf16 at p: the even elements (low halves of each 32 bits,
 * shifted up) and the odd ones (high halves, the low ones cleared). */
static inline __attribute__((always_inline)) VEC
vbf16_even(const void *p)
{
	return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_loadu_si512(p), 16));
}

static inline __attribute__((always_inline)) VEC
vbf16_odd(const void *p)
{
	return _mm512_castsi512_ps(_mm512_and_si512(_mm512_loadu_si512(p),
	    _mm512_set1_epi32((int)0xffff0000)));
}

/*
 * Four vectors to one: within each 128-bit lane, element e of the result
 * is the sum of that lane's 4 elements of x[e] (6 shuffles, 3 adds).
 */
static inline __attribute__((always_inline)) VEC
vsum4(const VEC *x)
{
	VEC y0 = _mm512_add_ps(_mm512_unpacklo_ps(x[0], x[1]),
	    _mm512_unpackhi_ps(x[0], x[1]));
	VEC y1 = _mm512_add_ps(_mm512_unpacklo_ps(x[2], x[3]),
	    _mm512_unpackhi_ps(x[2], x[3]));

	return _mm512_add_ps(
	    _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(y0),
	    _mm512_castps_pd(y1))),
	    _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(y0),
	    _mm512_castps_pd(y1))));
}

/*
 * Sixteen vectors to one vector of their sums in 30 shuffles and 15 adds:
 * halves of pairs are added (256-bit halves, then 128-bit quarters, then
 * within 128-bit lanes twice).  Lane 4b + e ends up with the sum of
 * v[4e + b]: RIN below.
 */
static inline __attribute__((always_inline)) VEC
vreduce(const VEC *v)
{
	VEC w[8], x[4];
	int i;

#pragma GCC unroll 8
	for (i = 0; i < 8; i++)
		w[i] = _mm512_add_ps(
		    _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0x44),
		    _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0xee));
#pragma GCC unroll 4
	for (i = 0; i < 4; i++)
		x[i] = _mm512_add_ps(
		    _mm512_shuffle_f32x4(w[2 * i], w[2 * i + 1], 0x88),
		    _mm512_shuffle_f32x4(w[2 * i], w[2 * i + 1], 0xdd));
	return vsum4(x);
}

/*
 * Four query heads' q rows mixed by 128-bit quarters: row r's quarter s
 * is head (r + s) % 4's (nch chunks of W floats, rows ld apart, in
 * place).  A row mixed so multiplies each K chunk into partial sums of
 * all four heads at once, and vreduce4 then turns 4 positions' 16
 * accumulators into their scores in 33 shuffles and adds, not 45.
 */
#define MIXQ	1
static inline void
vmix4(float *q, int ld, int nch)
{
	VEC r[4];
	int c, g;

	for (c = 0; c < nch; c++) {
		for (g = 0; g < 4; g++)
			r[g] = _mm512_load_ps(q + (size_t)g * ld + (size_t)c * W);
		for (g = 0; g < 4; g++)
			_mm512_store_ps(q + (size_t)g * ld + (size_t)c * W,
			    _mm512_mask_mov_ps(_mm512_mask_mov_ps(
			    _mm512_mask_mov_ps(r[g], 0x00f0, r[(g + 1) % 4]),
			    0x0f00, r[(g + 2) % 4]), 0xf000, r[(g + 3) % 4]));
	}
}

/*
 * The scores of 4 positions of 4 heads from accumulators a[4 j + r] (row
 * r of vmix4's q times position j): lane 4 g + j holds head g, position
 * j.  Quarter g of a[4 j + r] holds head (r + g) % 4's partial sums, so
 * rotating row r's quarters by (4 - r) % 4 and adding lines head g up in
 * quarter g (3 shuffles, 3 adds a position); vsum4 then sums each
 * position's quarter across its lanes.
 */
static inline __attribute__((always_inline)) VEC
vreduce4(const VEC *a)
{
	VEC p[4];
	int j;

#pragma GCC unroll 4
	for (j = 0; j < 4; j++)
		p[j] = _mm512_add_ps(
		    _mm512_add_ps(a[4 * j],
		    _mm512_shuffle_f32x4(a[4 * j + 3], a[4 * j + 3], 0x39)),
		    _mm512_add_ps(
		    _mm512_shuffle_f32x4(a[4 * j + 2], a[4 * j + 2], 0x4e),
		    _mm512_shuffle_f32x4(a[4 * j + 1], a[4 * j + 1], 0x93)));
	return vsum4(p);
}

/*
 * 2^x for x <= 0: x = n + f with |f| <= 1/2, 2^f by its Taylor polynomial
 * of degree 7 (relative error below 1e-8), then VSCALEFPS.  Below -125
 * the result is 0, so no subnormal ever reaches the accumulators; a NaN
 * stays NaN.
 */
static inline VEC
vexp2(VEC x)
{
	__mmask16 keep = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-125.0f),
	    _CMP_NLT_UQ);
	VEC n = _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT |
	    _MM_FROUND_NO_EXC);
	VEC f = _mm512_sub_ps(x, n), p;

	p = _mm512_set1_ps(1.5252733804e-5f);
	p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.5403530393e-4f));
	p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.3333558146e-3f));
	p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(9.6181291076e-3f));
	p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(5.5504108665e-2f));
	p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(2.4022650696e-1f));
	p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(6.9314718056e-1f));
	p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.0f));
	return _mm512_maskz_mov_ps(keep, _mm512_scalef_ps(p, n));
}

/* Bit i: position pos + i exists and is not masked. */
static inline uint64_t
unmasked64(const uint8_t *mask, size_t pos, size_t n)
{
	uint64_t valid = n - pos >= 64 ? ~(uint64_t)0 :
	    ((uint64_t)1 << (n - pos)) - 1;

	if (mask == NULL)
		return valid;
	return _mm512_cmpeq_epi8_mask(_mm512_maskz_loadu_epi8(valid,
	    mask + pos), _mm512_setzero_si512()) & valid;
}

/* lane L of vreduce holds the sum of v[RIN(L)] */
#define RIN(L)	(4 * ((L) % 4) + (L) / 4)
#define ACCS	16
#define SPREAD	1
#define MK_MDEC_NAME(dt)	mk_mdec_##dt##_avx512

#endif
