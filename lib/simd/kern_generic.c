/*
 * kern_generic.c - portable C kernels: the reference every SIMD row is
 * tested against.  Built with -ffp-contract=off so results do not depend on
 * whether the compiler fuses multiply-adds.
 */
#if defined(__AVX2__) || defined(__AVX512F__)
#error "compile kern_generic.c without -mavx*"
#endif

#include <string.h>

#include "base/half.h"
#include "simd/kern.h"
#include "simd/crc32.h"

static void
f16_to_f32_generic(float *dst, const uint16_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = mk_f16_to_f32(src[i]);
}

static void
f32_to_f16_generic(uint16_t *dst, const float *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = mk_f32_to_f16(src[i]);
}

static void
bf16_to_f32_generic(float *dst, const uint16_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = mk_bf16_to_f32(src[i]);
}

static void
f32_to_bf16_generic(uint16_t *dst, const float *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = mk_f32_to_bf16(src[i]);
}

/* Read probe: eight 64-bit lanes summed independently. */
static uint64_t
read_sum_generic(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t a[8] = { 0 }, w, s = 0;
	size_t i;
	int j;

	for (i = 0; i + 64 <= n; i += 64)
		for (j = 0; j < 8; j++) {
			memcpy(&w, c + i + 8 * j, 8);
			a[j] += w;
		}
	for (; i < n; i++)
		s += c[i];
	for (j = 0; j < 8; j++)
		s += a[j];
	return s;
}

const struct mk_kern mk_kern_generic = {
	.name = "generic",
	.f16_to_f32 = f16_to_f32_generic,
	.f32_to_f16 = f32_to_f16_generic,
	.bf16_to_f32 = bf16_to_f32_generic,
	.f32_to_bf16 = f32_to_bf16_generic,
	.read_sum = read_sum_generic,
	.crc32 = mk_crc32_generic,
};
