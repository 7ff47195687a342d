/*
 * kern_avx2.c - kernels for AVX2 + FMA + F16C.  This whole file is compiled
 * with -mavx2 -mfma -mf16c and is only called after mk_kern_init() saw
 * those features.  Helpers stay static so no AVX code leaks to callers.
 */
#include <immintrin.h>
#include <string.h>

#include "simd/kern.h"
#include "simd/crc32.h"

static void
f16_to_f32_avx2(float *dst, const uint16_t *src, size_t n)
{
	uint16_t tin[8] = { 0 };
	float tout[8];
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		_mm256_storeu_ps(dst + i,
		    _mm256_cvtph_ps(_mm_loadu_si128((const void *)(src + i))));
	/* The tail goes through the same instruction, via a small buffer. */
	if (i < n) {
		memcpy(tin, src + i, (n - i) * 2);
		_mm256_storeu_ps(tout,
		    _mm256_cvtph_ps(_mm_loadu_si128((const void *)tin)));
		memcpy(dst + i, tout, (n - i) * 4);
	}
}

static void
f32_to_f16_avx2(uint16_t *dst, const float *src, size_t n)
{
	float tin[8] = { 0 };
	uint16_t tout[8];
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		_mm_storeu_si128((void *)(dst + i), _mm256_cvtps_ph(
		    _mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
	if (i < n) {
		memcpy(tin, src + i, (n - i) * 4);
		_mm_storeu_si128((void *)tout, _mm256_cvtps_ph(
		    _mm256_loadu_ps(tin), _MM_FROUND_TO_NEAREST_INT));
		memcpy(dst + i, tout, (n - i) * 2);
	}
}

static inline __m256
bf16x8_to_f32(__m128i h)
{
	return _mm256_castsi256_ps(_mm256_slli_epi32(
	    _mm256_cvtepu16_epi32(h), 16));
}

static void
bf16_to_f32_avx2(float *dst, const uint16_t *src, size_t n)
{
	uint16_t tin[8] = { 0 };
	float tout[8];
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		_mm256_storeu_ps(dst + i,
		    bf16x8_to_f32(_mm_loadu_si128((const void *)(src + i))));
	if (i < n) {
		memcpy(tin, src + i, (n - i) * 2);
		_mm256_storeu_ps(tout,
		    bf16x8_to_f32(_mm_loadu_si128((const void *)tin)));
		memcpy(dst + i, tout, (n - i) * 4);
	}
}

/*
 * Round to nearest even with integer arithmetic (x + 0x7fff + lsb), NaNs
 * quietened: the same bits as mk_f32_to_bf16().
 */
static inline __m128i
f32x8_to_bf16(__m256i x)
{
	const __m256i absmask = _mm256_set1_epi32(0x7fffffff);
	const __m256i inf = _mm256_set1_epi32(0x7f800000);
	__m256i lsb, r, nan, q, p;

	nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, absmask), inf);
	lsb = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
	r = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(x,
	    _mm256_set1_epi32(0x7fff)), lsb), 16);
	q = _mm256_or_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(0x40));
	r = _mm256_blendv_epi8(r, q, nan);
	/* Values are <= 0xffff, so the unsigned-saturating pack is exact. */
	p = _mm256_packus_epi32(r, r);
	p = _mm256_permute4x64_epi64(p, 0x08);
	return _mm256_castsi256_si128(p);
}

static void
f32_to_bf16_avx2(uint16_t *dst, const float *src, size_t n)
{
	float tin[8] = { 0 };
	uint16_t tout[8];
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		_mm_storeu_si128((void *)(dst + i), f32x8_to_bf16(
		    _mm256_loadu_si256((const void *)(src + i))));
	if (i < n) {
		memcpy(tin, src + i, (n - i) * 4);
		_mm_storeu_si128((void *)tout, f32x8_to_bf16(
		    _mm256_loadu_si256((const void *)tin)));
		memcpy(dst + i, tout, (n - i) * 2);
	}
}

/*
 * Read probe: four independent 256-bit accumulators.  Whole 64-byte lines
 * are summed as u64 words, the rest as bytes (the same sum on every path).
 */
static uint64_t
read_sum_avx2(const void *p, size_t n)
{
	const char *c = p;
	__m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
	__m128i lo, hi;
	uint64_t s = 0;
	size_t i;

	for (i = 0; i + 128 <= n; i += 128) {
		a0 = _mm256_add_epi64(a0, _mm256_loadu_si256((const void *)(c + i)));
		a1 = _mm256_add_epi64(a1, _mm256_loadu_si256((const void *)(c + i + 32)));
		a2 = _mm256_add_epi64(a2, _mm256_loadu_si256((const void *)(c + i + 64)));
		a3 = _mm256_add_epi64(a3, _mm256_loadu_si256((const void *)(c + i + 96)));
	}
	if (i + 64 <= n) {
		a0 = _mm256_add_epi64(a0, _mm256_loadu_si256((const void *)(c + i)));
		a1 = _mm256_add_epi64(a1, _mm256_loadu_si256((const void *)(c + i + 32)));
		i += 64;
	}
	a0 = _mm256_add_epi64(_mm256_add_epi64(a0, a1),
	    _mm256_add_epi64(a2, a3));
	for (; i < n; i++)
		s += (unsigned char)c[i];
	/* lanes out of registers, not through the stack (see the AVX-512 one) */
	lo = _mm256_castsi256_si128(a0);
	hi = _mm256_extracti128_si256(a0, 1);
	return s + (uint64_t)_mm_cvtsi128_si64(lo) +
	    (uint64_t)_mm_extract_epi64(lo, 1) +
	    (uint64_t)_mm_cvtsi128_si64(hi) + (uint64_t)_mm_extract_epi64(hi, 1);
}

const struct mk_kern mk_kern_avx2 = {
	.name = "avx2",
	.f16_to_f32 = f16_to_f32_avx2,
	.f32_to_f16 = f32_to_f16_avx2,
	.bf16_to_f32 = bf16_to_f32_avx2,
	.f32_to_bf16 = f32_to_bf16_avx2,
	.read_sum = read_sum_avx2,
	.crc32 = mk_crc32_avx2,
};
