/*
 * kern_avx512.c - kernels for AVX-512 F/BW/VL/DQ.  This whole file is
 * compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl and is only
 * called after mk_kern_init() saw those features.  Tails use masked loads
 * and stores, which never touch memory outside the mask.
 */
#include <immintrin.h>

#include "a2a/a2a_scan.h"
#include "simd/kern.h"
#include "mdec/mdec.h"

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

const struct mk_kern mk_kern_avx512 = {
	.name = "avx512",
	.f16_to_f32 = f16_to_f32_avx512,
	.f32_to_f16 = f32_to_f16_avx512,
	.bf16_to_f32 = bf16_to_f32_avx512,
	.f32_to_bf16 = f32_to_bf16_avx512,
	.mdec_f16 = mk_mdec_f16_avx512,
	.mdec_bf16 = mk_mdec_bf16_avx512,
	.mdec_f32 = mk_mdec_f32_avx512,
	.mdec_fp8 = mk_mdec_fp8_avx512,
	.mdec_arith = mk_mdec_arith_avx512,
	.read_sum = mk_read_sum_avx512,
	.a2a_scan = mk_a2a_scan_avx512,
};
