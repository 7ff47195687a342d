/*
 * half.h - scalar f16 and bf16 conversions (private to lib/ and tests).
 *
 * These are the reference semantics every SIMD kernel must reproduce bit for
 * bit (tests/unit/test_kern.c checks all 65536 inputs of the 16-bit
 * directions):
 *   - f32 -> f16 and f32 -> bf16 round to nearest, ties to even; overflow
 *     gives infinity; f16 subnormals are produced exactly.
 *   - A NaN stays a NaN of the same sign with its quiet bit set; f32 -> f16
 *     keeps the top 10 payload bits.  That is what the F16C and AVX-512
 *     conversion instructions do, so the generic path agrees with them.
 *   - bf16 -> f32 is exact (a shift).
 */
#ifndef MK_HALF_H
#define MK_HALF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/*
 * Branch-free, so that loops over it vectorise: the exponent and mantissa
 * bits are moved into f32 position and the value multiplied by 2^112,
 * which rebiases the exponent and normalises f16 subnormals exactly (they
 * arrive as f32 subnormals).  Anything that ends up >= 2^16 was an
 * infinity or a NaN: its exponent becomes all ones, and a NaN gets its
 * quiet bit, as F16C does.
 */
static inline float
mk_f16_to_f32(uint16_t h)
{
	uint32_t x = (uint32_t)(h & 0x7fff) << 13, big;
	float f;

	memcpy(&f, &x, 4);
	f *= 0x1p112f;
	memcpy(&x, &f, 4);
	big = 0u - (uint32_t)(f >= 65536.0f);
	x |= big & (0x7f800000 | (uint32_t)((h & 0x3ff) != 0) << 22);
	x |= (uint32_t)(h & 0x8000) << 16;
	memcpy(&f, &x, 4);
	return f;
}

static inline uint16_t
mk_f32_to_f16(float f)
{
	uint32_t x, sign, exp, mant, m, rem, half, h;
	int e, shift;

	memcpy(&x, &f, 4);
	sign = (x >> 16) & 0x8000;
	exp = (x >> 23) & 0xff;
	mant = x & 0x7fffff;
	if (exp == 0xff)
		return (uint16_t)(sign | (mant ? 0x7e00 | (mant >> 13) : 0x7c00));
	e = (int)exp - 112;
	if (e >= 31)
		return (uint16_t)(sign | 0x7c00);
	if (e <= 0) {
		/* The result is an f16 subnormal (or zero): m * 2^-24. */
		if (e < -10)
			return (uint16_t)sign;
		mant |= 0x800000;
		shift = 14 - e;
		m = mant >> shift;
		rem = mant & ((1u << shift) - 1);
		half = 1u << (shift - 1);
		if (rem > half || (rem == half && (m & 1)))
			m++;
		return (uint16_t)(sign | m);
	}
	h = ((uint32_t)e << 10) | (mant >> 13);
	rem = mant & 0x1fff;
	/* A carry out of the mantissa correctly bumps the exponent. */
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++;
	return (uint16_t)(sign | h);
}

static inline float
mk_bf16_to_f32(uint16_t b)
{
	uint32_t x = (uint32_t)b << 16;
	float f;

	memcpy(&f, &x, 4);
	return f;
}

static inline uint16_t
mk_f32_to_bf16(float f)
{
	uint32_t x;

	memcpy(&x, &f, 4);
	if ((x & 0x7fffffff) > 0x7f800000)
		return (uint16_t)((x >> 16) | 0x40);
	x += 0x7fff + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

/*
 * f64 -> f32 rounded to odd: truncate, then set the last bit if anything was
 * lost.  Rounding that result to nearest even in a format at least two bits
 * narrower (f16, bf16) equals rounding the double directly, so f64 -> f16
 * never suffers double rounding.
 */
static inline float
mk_f64_to_f32_odd(double d)
{
	float f = (float)d;
	uint32_t x;

	if (isnan(d))
		return f;
	if (fabs((double)f) > fabs(d))
		f = nextafterf(f, 0.0f);
	if ((double)f != d) {
		memcpy(&x, &f, 4);
		x |= 1;
		memcpy(&f, &x, 4);
	}
	return f;
}

static inline uint16_t
mk_f64_to_f16(double d)
{
	return mk_f32_to_f16(mk_f64_to_f32_odd(d));
}

static inline uint16_t
mk_f64_to_bf16(double d)
{
	return mk_f32_to_bf16(mk_f64_to_f32_odd(d));
}

#endif
