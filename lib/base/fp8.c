/* fp8.c - FP8 bytes to values and f16 bits; see fp8.h. */
#include <math.h>
#include <pthread.h>

#include "base/fp8.h"
#include "base/half.h"

double
mk_fp8_value(uint8_t b, enum mk_fp8 fmt)
{
	double s = b & 0x80 ? -1.0 : 1.0;
	int e, m;

	if (fmt == MK_FP8_E5M2) {
		e = b >> 2 & 31;
		m = b & 3;
		if (e == 31)
			return m ? NAN : s * INFINITY;
		return e ? s * ldexp(1.0 + m / 4.0, e - 15) :
		    s * ldexp(m / 4.0, -14);
	}
	e = b >> 3 & 15;
	m = b & 7;
	if (e == 15 && m == 7)
		return NAN;
	return e ? s * ldexp(1.0 + m / 8.0, e - 7) : s * ldexp(m / 8.0, -6);
}

/* E4M3's f16 bits by byte; E5M2's are the byte shifted up */
static uint16_t e4m3[256];

static void
e4m3_init(void)
{
	int b;

	for (b = 0; b < 256; b++)
		e4m3[b] = mk_f32_to_f16((float)mk_fp8_value((uint8_t)b,
		    MK_FP8_E4M3));
}

void
mk_fp8_to_f16(uint16_t *dst, const uint8_t *src, size_t n, enum mk_fp8 fmt)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	size_t i;

	if (fmt == MK_FP8_E5M2) {
		for (i = 0; i < n; i++)
			dst[i] = (uint16_t)(src[i] << 8);
		return;
	}
	(void)pthread_once(&once, e4m3_init);
	for (i = 0; i < n; i++)
		dst[i] = e4m3[src[i]];
}
