/*
 * kern_avx512.c - kernels for AVX-512 F/BW/VL/DQ.  This whole file is
 * compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl and is only
 * called after mk_kern_init() saw those features.  Tails use masked loads
 * and stores, which never touch memory outside the mask.
 */
#include <immintrin.h>

#include "simd/kern.h"

static inline __mmask16
tail16(size_t left)
{
	return left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
}

static void
f16_to_f32_avx512(float *dst, const uint16_t *src, size_t n)
{
	__mmask16 m;
	size_t i;

	for (i = 0; i + 16 <= n; i += 16)
		_mm512_storeu_ps(dst + i, _mm512_cvtph_ps(
		    _mm256_loadu_si256((const void *)(src + i))));
	if (i < n) {
		m = tail16(n - i);
		_mm512_mask_storeu_ps(dst + i, m, _mm512_cvtph_ps(
		    _mm256_maskz_loadu_epi16(m, src + i)));
	}
}

static void
f32_to_f16_avx512(uint16_t *dst, const float *src, size_t n)
{
	__mmask16 m;
	size_t i;

	for (i = 0; i + 16 <= n; i += 16)
		_mm256_storeu_si256((void *)(dst + i), _mm512_cvtps_ph(
		    _mm512_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT |
		    _MM_FROUND_NO_EXC));
	if (i < n) {
		m = tail16(n - i);
		_mm256_mask_storeu_epi16(dst + i, m, _mm512_cvtps_ph(
		    _mm512_maskz_loadu_ps(m, src + i),
		    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
	}
}

static inline __m512
bf16x16_to_f32(__m256i h)
{
	return _mm512_castsi512_ps(_mm512_slli_epi32(
	    _mm512_cvtepu16_epi32(h), 16));
}

static void
bf16_to_f32_avx512(float *dst, const uint16_t *src, size_t n)
{
	__mmask16 m;
	size_t i;

	for (i = 0; i + 16 <= n; i += 16)
		_mm512_storeu_ps(dst + i, bf16x16_to_f32(
		    _mm256_loadu_si256((const void *)(src + i))));
	if (i < n) {
		m = tail16(n - i);
		_mm512_mask_storeu_ps(dst + i, m, bf16x16_to_f32(
		    _mm256_maskz_loadu_epi16(m, src + i)));
	}
}

/*
 * Integer round-to-nearest-even rather than VCVTNEPS2BF16, which treats
 * subnormal inputs as zero: this keeps the bits equal to the generic path.
 */
static inline __m256i
f32x16_to_bf16(__m512i x)
{
	__mmask16 nan;
	__m512i lsb, r, q;

	nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(x,
	    _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
	lsb = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
	r = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(x,
	    _mm512_set1_epi32(0x7fff)), lsb), 16);
	q = _mm512_or_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(0x40));
	r = _mm512_mask_blend_epi32(nan, r, q);
	return _mm512_cvtepi32_epi16(r);
}

static void
f32_to_bf16_avx512(uint16_t *dst, const float *src, size_t n)
{
	__mmask16 m;
	size_t i;

	for (i = 0; i + 16 <= n; i += 16)
		_mm256_storeu_si256((void *)(dst + i), f32x16_to_bf16(
		    _mm512_loadu_si512((const void *)(src + i))));
	if (i < n) {
		m = tail16(n - i);
		_mm256_mask_storeu_epi16(dst + i, m, f32x16_to_bf16(
		    _mm512_maskz_loadu_epi32(m, src + i)));
	}
}

/*
 * Read probe: four independent 512-bit accumulators, so the loads, not the
 * adds, set the pace.  Whole 64-byte lines are summed as u64 words, the
 * rest as bytes (the same sum on every path).
 */
static uint64_t
read_sum_avx512(const void *p, size_t n)
{
	const char *c = p;
	__m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
	__m128i lo, hi;
	uint64_t s = 0;
	size_t i;

	for (i = 0; i + 256 <= n; i += 256) {
		a0 = _mm512_add_epi64(a0, _mm512_loadu_si512(c + i));
		a1 = _mm512_add_epi64(a1, _mm512_loadu_si512(c + i + 64));
		a2 = _mm512_add_epi64(a2, _mm512_loadu_si512(c + i + 128));
		a3 = _mm512_add_epi64(a3, _mm512_loadu_si512(c + i + 192));
	}
	for (; i + 64 <= n; i += 64)
		a0 = _mm512_add_epi64(a0, _mm512_loadu_si512(c + i));
	a0 = _mm512_add_epi64(_mm512_add_epi64(a0, a1),
	    _mm512_add_epi64(a2, a3));
	for (; i < n; i++)
		s += (unsigned char)c[i];
	/*
	 * By hand: _mm512_reduce_add_epi64 adds as signed, which may
	 * overflow.  Lanes taken out of registers, not stored to the stack
	 * (ASan's fake stack frames are not 64-byte aligned, and GCC 13 made
	 * the store an aligned one).
	 */
	a2 = _mm512_castsi256_si512(_mm512_extracti64x4_epi64(a0, 1));
	a0 = _mm512_add_epi64(a0, a2);	/* lanes 0-3 hold the sums */
	lo = _mm512_castsi512_si128(a0);
	hi = _mm512_extracti64x2_epi64(a0, 1);
	s += (uint64_t)_mm_cvtsi128_si64(lo) +
	    (uint64_t)_mm_extract_epi64(lo, 1) +
	    (uint64_t)_mm_cvtsi128_si64(hi) + (uint64_t)_mm_extract_epi64(hi, 1);
	return s;
}

const struct mk_kern mk_kern_avx512 = {
	.name = "avx512",
	.f16_to_f32 = f16_to_f32_avx512,
	.f32_to_f16 = f32_to_f16_avx512,
	.bf16_to_f32 = bf16_to_f32_avx512,
	.f32_to_bf16 = f32_to_bf16_avx512,
	.read_sum = read_sum_avx512,
};
