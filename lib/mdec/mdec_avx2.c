/*
 * mdec_avx2.c - the arithmetic floor of mdec_kernel.h and the read probe
 * for AVX2; the kernels themselves are in mdec_<dtype>_avx2.c, a
 * file each so that they compile side by side.
 */
#include "mdec/mdec_avx2.h"
#include "mdec/mdec_kernel.h"

MK_MDEC_ARITH

/*
 * Read probe: four independent 256-bit accumulators.  Whole 64-byte lines
 * are summed as u64 words, the rest as bytes (the same sum on every path).
 */
uint64_t
mk_read_sum_avx2(const void *p, size_t n)
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
