/* fp8.c - FP8 bytes to values and back; see fp8.h. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/fp8.h"

/* 2^k, exactly, for the exponents FP8 values take (|k| < 1000). */
static double
pow2(int k)
{
	uint64_t u = (uint64_t)(k + 1023) << 52;
	double x;

	memcpy(&x, &u, sizeof(x));
	return x;
}

/*
 * The value of a byte: its integer significand (the implicit bit on
 * where the exponent field is not 0) times a power of two, exactly,
 * without libm (mdecode's multi-token tails read every element so).
 */
double
mk_fp8_value(uint8_t b, enum mk_fp8 fmt)
{
	const double s = b & 0x80 ? -1.0 : 1.0;
	int e, m;

	if (fmt == MK_FP8_E5M2) {
		e = b >> 2 & 31;
		m = b & 3;
		if (e == 31)
			return m ? NAN : s * INFINITY;
		/* 2^(e - 15) (1 + m / 4); subnormal m / 4 2^-14 */
		return s * (double)(e ? 4 + m : m) * pow2((e ? e : 1) - 17);
	}
	e = b >> 3 & 15;
	m = b & 7;
	if (e == 15 && m == 7)
		return NAN;
	/* 2^(e - 7) (1 + m / 8); subnormal m / 8 2^-6 */
	return s * (double)(e ? 8 + m : m) * pow2((e ? e : 1) - 10);
}

uint8_t
mk_fp8_from_double(double x, enum mk_fp8 fmt)
{
	/* mantissa bits, exponent bias, and the largest finite value */
	const int mb = fmt == MK_FP8_E5M2 ? 2 : 3;
	const int bias = fmt == MK_FP8_E5M2 ? 15 : 7;
	const double big = MK_FP8_MAX(fmt);
	const uint8_t sign = signbit(x) ? 0x80 : 0;
	double a = fabs(x), q;
	int e;

	if (isnan(x))
		return 0x7f;
	/* the quantum of a's binade (subnormals: of the smallest normal) */
	(void)frexp(a, &e);
	e = e - 1 < 1 - bias ? 1 - bias : e - 1;
	q = ldexp(1.0, e - mb);
	a = nearbyint(a / q) * q;	/* ties to even: the default mode */
	if (a > big)		/* E4M3 has no infinity: NaN */
		return (uint8_t)(sign | (fmt == MK_FP8_E5M2 ? 0x7c : 0x7f));
	if (a < ldexp(1.0, 1 - bias))	/* subnormal (or zero) */
		return (uint8_t)(sign | (int)ldexp(a, bias - 1 + mb));
	(void)frexp(a, &e);
	return (uint8_t)(sign | (e - 1 + bias) << mb |
	    ((int)ldexp(a, mb - (e - 1)) - (1 << mb)));
}
