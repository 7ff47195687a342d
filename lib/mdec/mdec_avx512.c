/*
 * mdec_avx512.c - the arithmetic floor of mdec_kernel.h and the read probe
 * for AVX-512; the kernels themselves are in mdec_<dtype>_avx512.c, a
 * file each so that they compile side by side.
 */
#include "mdec/mdec_avx512.h"
#include "mdec/mdec_kernel.h"

MK_MDEC_ARITH

/*
 * Read probe: four independent 512-bit accumulators, so the loads, not the
 * adds, set the pace.  Whole 64-byte lines are summed as u64 words, the
 * rest as bytes (the same sum on every path).
 */
uint64_t
mk_read_sum_avx512(const void *p, size_t n)
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
