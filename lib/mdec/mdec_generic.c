/*
 * mdec_generic.c - decode attention and the read probe in portable C.
 *
 * Deliberately a different algorithm from the SIMD kernel (mdec_kernel.h),
 * so that the two check each other: one position at a time, each K and V
 * row widened to f32 into a scratch row, one online-softmax update per
 * position and head.  The inner loops keep eight
 * partial sums so that compilers can vectorise them for any target.
 */
#include <math.h>
#include <string.h>

#include "base/dtype.h"
#include "base/fp8.h"
#include "base/half.h"
#include "mdec/mdec.h"

/*
 * What an FP8 row widens to, by byte: its value as the kernels read it
 * (MK_MDEC_FP8_READ), from the format's definition rather than from the
 * kernels' bit manipulation, which it checks.
 */
struct fp8lut {
	float	 v[256];
};

static void
fp8_lut(struct fp8lut *l, int fmt)
{
	int b;

	for (b = 0; b < 256; b++)
		l->v[b] = (float)(mk_fp8_value((uint8_t)b, (enum mk_fp8)fmt) *
		    MK_MDEC_FP8_READ(fmt));
}

/* A row of D elements of dtype dt as f32 (lut: MK_U8's values). */
static void
widen(float *dst, const void *src, int D, int dt, const struct fp8lut *lut)
{
	const uint16_t *h = src;
	const uint8_t *b = src;
	const float *f = src;
	int d;

	switch (dt) {
	case MK_U8:
		for (d = 0; d < D; d++)
			dst[d] = lut->v[b[d]];
		break;
	case MK_F16:
		for (d = 0; d < D; d++)
			dst[d] = mk_f16_to_f32(h[d]);
		break;
	case MK_BF16:
		for (d = 0; d < D; d++)
			dst[d] = mk_bf16_to_f32(h[d]);
		break;
	default:
		memcpy(dst, f, (size_t)D * sizeof(float));
		break;
	}
}

static float
dot(const float *a, const float *b, int D)
{
	float s[8] = { 0 };
	int d, i;

	for (d = 0; d + 8 <= D; d += 8)
		for (i = 0; i < 8; i++)
			s[i] += a[d + i] * b[d + i];
	for (i = 0; d < D; d++, i++)
		s[i] += a[d] * b[d];
	return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

/* y += p * x */
static void
axpy(float *restrict y, float p, const float *restrict x, int D)
{
	int d;

	for (d = 0; d < D; d++)
		y[d] += p * x[d];
}

static void
scale(float *y, float alpha, int D)
{
	int d;

	for (d = 0; d < D; d++)
		y[d] *= alpha;
}

#define TAU	8.0f	/* as in mdec_kernel.h */

static float
exp2_flush(float x)
{
	return x < -125.0f ? 0.0f : exp2f(x);
}

/* Byte offset of piece position i (the task's two addressings). */
static size_t
offset(const struct mk_mdec_task *t, size_t i)
{
	size_t a = t->p0 + i, b;

	if (t->blk == NULL)
		return i * t->ps;
	b = a / (size_t)t->bs;
	return (size_t)t->blk[b] * t->bbytes + (a % (size_t)t->bs) * t->ps;
}

/* The rows probe: the rows kernel() would use, their whole 32-bit words
 * xored together into acc[0], the rest of acc zero. */
static void
read_rows(const struct mk_mdec_task *t, int dt)
{
	const size_t nw = (size_t)t->D * mk_dtype_size((enum mk_dtype)dt) / 4;
	uint32_t x = 0, w;
	size_t i, j, o;

	for (i = 0; i < t->n; i++) {
		if (t->mask != NULL && t->mask[i] != 0)
			continue;
		o = offset(t, i);
		for (j = 0; j < nw; j++) {
			memcpy(&w, (const char *)t->k + o + 4 * j, 4);
			x ^= w;
			memcpy(&w, (const char *)t->v + o + 4 * j, 4);
			x ^= w;
		}
	}
	memset(t->acc, 0, (size_t)t->ld * sizeof(float));
	memcpy(t->acc, &x, sizeof(x));
}

static void
kernel(const struct mk_mdec_task *t, int dt)
{
	const int D = t->D, G = t->G, ld = t->ld;
	float *kr = t->work, *vr = t->work + ((D + 15) & ~15);
	struct fp8lut lut;
	float s, alpha, p;
	size_t i, o;
	int g;

	if (t->rd) {
		read_rows(t, dt);
		return;
	}
	if (dt == MK_U8)
		fp8_lut(&lut, t->fp8);
	for (g = 0; g < G; g++) {
		t->m[g] = -INFINITY;
		t->l[g] = 0;
		memset(t->acc + (size_t)g * ld, 0, (size_t)ld * sizeof(float));
	}
	for (i = 0; i < t->n; i++) {
		if (t->mask != NULL && t->mask[i] != 0)
			continue;
		o = offset(t, i);
		widen(kr, (const char *)t->k + o, D, dt, &lut);
		widen(vr, (const char *)t->v + o, D, dt, &lut);
		for (g = 0; g < G; g++) {
			s = dot(t->q + (size_t)g * ld, kr, D);
			/*
			 * The reference maximum moves only when a score
			 * passes it by TAU, so that rescaling is rare; a NaN
			 * score never moves it and spreads through p.
			 */
			if (s > t->m[g] + TAU) {
				alpha = exp2_flush(t->m[g] - s);
				scale(t->acc + (size_t)g * ld, alpha, D);
				t->l[g] *= alpha;
				t->m[g] = s;
			}
			p = exp2_flush(s - t->m[g]);
			t->l[g] += p;
			axpy(t->acc + (size_t)g * ld, p, vr, t->dv > 0 &&
			    t->dv < D ? t->dv : D);
		}
	}
}

void
mk_mdec_f16_generic(const struct mk_mdec_task *t, int n)
{
	while (n-- > 0)
		kernel(t++, MK_F16);
}

void
mk_mdec_bf16_generic(const struct mk_mdec_task *t, int n)
{
	while (n-- > 0)
		kernel(t++, MK_BF16);
}

void
mk_mdec_f32_generic(const struct mk_mdec_task *t, int n)
{
	while (n-- > 0)
		kernel(t++, MK_F32);
}

void
mk_mdec_fp8_generic(const struct mk_mdec_task *t, int n)
{
	while (n-- > 0)
		kernel(t++, MK_U8);
}

/*
 * The arithmetic alone (the floor --bench-kernel compares with): every
 * position's rows widened and multiplied into each head, no softmax.
 */
void
mk_mdec_arith_generic(const struct mk_mdec_task *t, int dt)
{
	const int D = t->D, ld = t->ld;
	float *kr = t->work, *vr = t->work + ((D + 15) & ~15), s = 0;
	struct fp8lut lut;
	size_t i;
	int g;

	if (dt == MK_U8)
		fp8_lut(&lut, t->fp8);
	memset(t->acc, 0, (size_t)t->G * (size_t)ld * sizeof(float));
	for (i = 0; i < t->n; i++) {
		widen(kr, (const char *)t->k + i * t->ps, D, dt, &lut);
		widen(vr, (const char *)t->v + i * t->ps, D, dt, &lut);
		for (g = 0; g < t->G; g++) {
			s += dot(t->q + (size_t)g * ld, kr, D);
			axpy(t->acc + (size_t)g * ld, t->q[(size_t)g * ld],
			    vr, D);
		}
	}
	t->acc[0] += s;
}

