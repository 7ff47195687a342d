/*
 * crc32_avx2.c - zip's CRC-32 by carry-less multiplication (PCLMULQDQ,
 * which every AVX2 CPU has): four 128-bit lanes are folded forward over
 * 64-byte blocks, each fold two multiplications by x^n mod P, then the
 * lanes into one and its 16 bytes through the table row: several times
 * the table's speed, and zlib's (RESULTS.md, "Shared machines").
 *
 * Bit order: zip's CRC is reflected, so a 64-bit lane loaded little-
 * endian holds polynomial coefficients from x^63 (bit 0) down to x^0
 * (bit 63), and a carry-less product of two such lanes comes out as the
 * product times x.  A fold by F bits of a lane H*x^64 + L (H the lane's
 * first 8 bytes) is H*(x^(64+F) mod P) + L*(x^F mod P); each constant
 * is taken as x^(n-1) mod P to absorb that factor x.
 */
#include <immintrin.h>
#include <pthread.h>
#include <string.h>

#include "simd/crc32.h"

#define TARGET	__attribute__((target("pclmul,sse4.1")))

/* x^n mod P (P = 0x104c11db7), reflected into the top of 64 bits */
static uint64_t
xpow_mod(unsigned n)
{
	uint64_t r = 1;		/* x^0, normal order, degree < 32 */
	uint64_t out = 0;
	unsigned i;

	while (n--) {
		r <<= 1;
		if (r & 0x100000000ull)
			r ^= 0x104c11db7ull;
	}
	for (i = 0; i < 32; i++)
		if (r >> i & 1)
			out |= 1ull << (63 - i);
	return out;
}

static uint64_t k512[2], k128[2];	/* {first half, second half} */

static void
constants(void)
{
	k512[0] = xpow_mod(64 + 512 - 1);
	k512[1] = xpow_mod(512 - 1);
	k128[0] = xpow_mod(64 + 128 - 1);
	k128[1] = xpow_mod(128 - 1);
}

/* lane folded forward by the distance k is for */
TARGET static inline __m128i
fold(__m128i x, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
	    _mm_clmulepi64_si128(x, k, 0x11));
}

#define LOAD(p)	_mm_loadu_si128((const __m128i *)(const void *)(p))

TARGET uint32_t
mk_crc32_avx2(uint32_t crc, const void *p, size_t n)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const unsigned char *b = p;
	unsigned char last[16];
	__m128i x0, x1, x2, x3, k;
	size_t blocks;

	if (n < 128)
		return mk_crc32_generic(crc, p, n);
	(void)pthread_once(&once, constants);
	/*
	 * The register's start value ~crc, xored into the first 32 bits,
	 * makes the rest a plain remainder: x^32 * M mod P, which the table
	 * row gives for the final 16 bytes when started from ~0 ("crc" 0
	 * there means a register of ~0) and not inverted at the end.
	 */
	x0 = _mm_xor_si128(LOAD(b), _mm_cvtsi32_si128((int)~crc));
	x1 = LOAD(b + 16);
	x2 = LOAD(b + 32);
	x3 = LOAD(b + 48);
	k = _mm_set_epi64x((long long)k512[1], (long long)k512[0]);
	blocks = n / 64;
	for (b += 64; --blocks > 0; b += 64) {
		x0 = _mm_xor_si128(fold(x0, k), LOAD(b));
		x1 = _mm_xor_si128(fold(x1, k), LOAD(b + 16));
		x2 = _mm_xor_si128(fold(x2, k), LOAD(b + 32));
		x3 = _mm_xor_si128(fold(x3, k), LOAD(b + 48));
	}
	k = _mm_set_epi64x((long long)k128[1], (long long)k128[0]);
	x1 = _mm_xor_si128(fold(x0, k), x1);
	x2 = _mm_xor_si128(fold(x1, k), x2);
	x3 = _mm_xor_si128(fold(x2, k), x3);
	_mm_storeu_si128((__m128i *)(void *)last, x3);
	/* their remainder: the 16 bytes as a message whose register starts
	 * at 0, i.e. "crc" ~0 */
	crc = mk_crc32_generic(~0u, last, 16);
	return mk_crc32_generic(crc, b, n % 64);
}
