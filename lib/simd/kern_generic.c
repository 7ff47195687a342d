/*
 * kern_generic.c - portable C kernels: the reference every SIMD row is
 * tested against.  Built with -ffp-contract=off so results do not depend on
 * whether the compiler fuses multiply-adds.
 */
#if defined(__AVX2__) || defined(__AVX512F__)
#error "compile kern_generic.c without -mavx*"
#endif

#include "a2a/a2a_scan.h"
#include "base/half.h"
#include "simd/kern.h"
#include "mdec/mdec.h"
#include "tensor/crc32.h"

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

const struct mk_kern mk_kern_generic = {
	.name = "generic",
	.f16_to_f32 = f16_to_f32_generic,
	.f32_to_f16 = f32_to_f16_generic,
	.bf16_to_f32 = bf16_to_f32_generic,
	.f32_to_bf16 = f32_to_bf16_generic,
	.mdec_f16 = mk_mdec_f16_generic,
	.mdec_bf16 = mk_mdec_bf16_generic,
	.mdec_f32 = mk_mdec_f32_generic,
	.mdec_fp8 = mk_mdec_fp8_generic,
	.mdec_arith = mk_mdec_arith_generic,
	.read_sum = mk_read_sum_generic,
	.a2a_scan = mk_a2a_scan_generic,
	.crc32 = mk_crc32_generic,
};
