/*
 * mdec_avx2.h - the 8-lane primitives of mdec_kernel.h for AVX2 + FMA +
 * F16C, included by the mdec_*_avx2.c files only (compiled with those
 * flags; called after mk_kern_init saw them).
 */
#ifndef MK_MDEC_AVX2_H
#define MK_MDEC_AVX2_H

#include <immintrin.h>
#include <math.h>
#include <string.h>

#include "base/dtype.h"
#include "mdec/mdec.h"

typedef __m256 VEC;
#define W	8

static inline VEC vzero(void)			{ return _mm256_setzero_ps(); }
static inline VEC vset1(float x)		{ return _mm256_set1_ps(x); }
static inline VEC vload(const float *p)		{ return _mm256_load_ps(p); }
static inline void vstore(float *p, VEC v)	{ _mm256_store_ps(p, v); }
static inline VEC vmul(VEC a, VEC b)		{ return _mm256_mul_ps(a, b); }
static inline VEC vxor(VEC a, VEC b)		{ return _mm256_xor_ps(a, b); }
static inline VEC vfma(VEC a, VEC b, VEC c)	{ return _mm256_fmadd_ps(a, b, c); }
/* a macro: GCC 12 drops _mm_prefetch inside a static inline wrapper */
#define prefetch(p)	_mm_prefetch((const char *)(p), _MM_HINT_T0)
#define prefetch_l2(p)	_mm_prefetch((const char *)(p), _MM_HINT_T1)

static inline float
vhsum(VEC v)
{
	__m128 x = _mm_add_ps(_mm256_castps256_ps128(v),
	    _mm256_extractf128_ps(v, 1));

	x = _mm_add_ps(x, _mm_movehl_ps(x, x));
	x = _mm_add_ss(x, _mm_movehdup_ps(x));
	return _mm_cvtss_f32(x);
}

/* whether a lane of a is greater than b's */
static inline int
vany_gt(VEC a, VEC b)
{
	return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_GT_OQ)) != 0;
}

/*
 * FP8 bytes widen through f16 bits (mdec.h, MK_MDEC_FP8_SHIFT).  E4M3's
 * NaN bytes widen to a finite value here: the kernel finds them a block
 * at a time (fp8_nans), which costs less than three more operations a
 * vector did.
 */
typedef struct {
	__m128i	 sh, keep;
} CVT;

static inline CVT
vcvt(int fmt)
{
	return (CVT){ _mm_cvtsi32_si128(MK_MDEC_FP8_SHIFT(fmt)),
	    _mm_set1_epi16((short)MK_MDEC_FP8_KEEP(fmt)) };
}

static inline __attribute__((always_inline)) __m128i
fp8_f16(__m128i b, CVT cv)
{
	return _mm_and_si128(_mm_sll_epi16(_mm_cvtepi8_epi16(b), cv.sh),
	    cv.keep);
}

/*
 * AVX2 has no 8- or 16-bit masked loads: a tail of nv < 8 elements is
 * copied into a zeroed buffer first, so nothing past the row is read.
 */
static inline __attribute__((always_inline)) VEC
vrow(const void *row, int off, int dt, int nv, CVT cv)
{
	const uint16_t *h = (const uint16_t *)row + off;
	const float *f = (const float *)row + off;
	const uint8_t *b = (const uint8_t *)row + off;
	uint16_t th[8];
	uint8_t tb[8];
	float tf[8];

	if (nv < W) {
		if (dt == MK_F32) {
			memset(tf, 0, sizeof(tf));
			memcpy(tf, f, (size_t)nv * 4);
			f = tf;
		} else if (dt == MK_U8) {
			memset(tb, 0, sizeof(tb));
			memcpy(tb, b, (size_t)nv);
			b = tb;
		} else {
			memset(th, 0, sizeof(th));
			memcpy(th, h, (size_t)nv * 2);
			h = th;
		}
	}
	switch (dt) {
	case MK_F16:
		return _mm256_cvtph_ps(_mm_loadu_si128((const void *)h));
	case MK_BF16:
		return _mm256_castsi256_ps(_mm256_slli_epi32(
		    _mm256_cvtepu16_epi32(_mm_loadu_si128((const void *)h)),
		    16));
	case MK_U8:
		return _mm256_cvtph_ps(fp8_f16(_mm_loadl_epi64(
		    (const void *)b), cv));
	default:
		return _mm256_loadu_ps(f);
	}
}

/*
 * FP8 rows are widened a vector at a time: widening 2W bytes at once
 * (FP8_PAIRS) ran no faster on the EPYC VM, whose Zen 1 splits 256-bit
 * integer operations in two (RESULTS.md).
 */
#define FP8_PAIRS	0
static inline __attribute__((always_inline)) VEC
vfp8_half(const void *b, int h, CVT cv)
{
	return vrow(b, h * W, MK_U8, W, cv);
}

/* Of the 2W bf16 at p: the even elements (low halves of each 32 bits,
 * shifted up) and the odd ones (high halves, the low ones cleared). */
static inline __attribute__((always_inline)) VEC
vbf16_even(const void *p)
{
	return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_loadu_si256(p), 16));
}

static inline __attribute__((always_inline)) VEC
vbf16_odd(const void *p)
{
	return _mm256_castsi256_ps(_mm256_and_si256(_mm256_loadu_si256(p),
	    _mm256_set1_epi32((int)0xffff0000)));
}

/*
 * Eight vectors to one vector of their sums: 128-bit halves of pairs, then
 * twice within 128-bit lanes.  Lane 4h + e ends up with the sum of
 * v[2e + h]: RIN below.
 */
static inline __attribute__((always_inline)) VEC
vreduce(const VEC *v)
{
	VEC w[4], y0, y1;
	int i;

#pragma GCC unroll 4
	for (i = 0; i < 4; i++)
		w[i] = _mm256_add_ps(
		    _mm256_permute2f128_ps(v[2 * i], v[2 * i + 1], 0x20),
		    _mm256_permute2f128_ps(v[2 * i], v[2 * i + 1], 0x31));
	y0 = _mm256_add_ps(_mm256_unpacklo_ps(w[0], w[1]),
	    _mm256_unpackhi_ps(w[0], w[1]));
	y1 = _mm256_add_ps(_mm256_unpacklo_ps(w[2], w[3]),
	    _mm256_unpackhi_ps(w[2], w[3]));
	return _mm256_add_ps(
	    _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(y0),
	    _mm256_castps_pd(y1))),
	    _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(y0),
	    _mm256_castps_pd(y1))));
}

/*
 * 2^x for x <= 0: x = n + f with |f| <= 1/2, 2^f by its Taylor polynomial
 * of degree 7, then n added to the exponent.  Below -125 the result is 0
 * (no subnormals); a NaN stays NaN.
 */
static inline VEC
vexp2(VEC x)
{
	VEC keep = _mm256_cmp_ps(x, _mm256_set1_ps(-125.0f), _CMP_NLT_UQ);
	VEC n = _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT |
	    _MM_FROUND_NO_EXC);
	VEC f = _mm256_sub_ps(x, n), p;
	__m256i e;

	p = _mm256_set1_ps(1.5252733804e-5f);
	p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.5403530393e-4f));
	p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.3333558146e-3f));
	p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(9.6181291076e-3f));
	p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(5.5504108665e-2f));
	p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(2.4022650696e-1f));
	p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(6.9314718056e-1f));
	p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f));
	e = _mm256_slli_epi32(_mm256_cvtps_epi32(n), 23);
	p = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), e));
	return _mm256_and_ps(keep, p);
}

/* Bit i: position pos + i exists and is not masked. */
static inline uint64_t
unmasked64(const uint8_t *mask, size_t pos, size_t n)
{
	const __m256i zero = _mm256_setzero_si256();
	uint64_t valid = n - pos >= 64 ? ~(uint64_t)0 :
	    ((uint64_t)1 << (n - pos)) - 1;
	uint64_t lo, hi;
	uint8_t tmp[64];

	if (mask == NULL)
		return valid;
	mask += pos;
	if (n - pos < 64) {	/* never read past the mask */
		memset(tmp, 1, sizeof(tmp));
		memcpy(tmp, mask, n - pos);
		mask = tmp;
	}
	lo = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
	    _mm256_loadu_si256((const void *)mask), zero));
	hi = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
	    _mm256_loadu_si256((const void *)(mask + 32)), zero));
	return (lo | hi << 32) & valid;
}

/* lane L of vreduce holds the sum of v[RIN(L)] */
#define RIN(L)	(2 * ((L) % 4) + (L) / 4)
#define ACCS	8
#define SPREAD	0
#define MK_MDEC_NAME(dt)	mk_mdec_##dt##_avx2

#endif
