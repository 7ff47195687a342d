/*
 * test_kern.c - every kernel of every ISA this CPU has, against the generic
 * row and against an independent float64 check of the generic row.
 * Outputs are poisoned before each call, guard words around them must
 * survive, inputs start at unaligned addresses, and every tail length up
 * to 70 is tried.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/half.h"
#include "base/fp8.h"
#include "util.h"

#define POISON16	0xA5A5
#define POISON32	0xDEADBEEFu
#define GUARD		8

static struct mk_kern rows[MK_NISA];
static struct mk_kern generic;
static enum mk_isa cur;	/* the ISA the current suite tests */

static uint32_t
bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static float
fbits(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/* Edge values for the float -> 16-bit directions. */
static const uint32_t edges[] = {
	0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000,
	0x33000000, 0x33000001, 0x337fffff, 0x33800000, 0x33c00000,
	0x387fc000, 0x387fe000, 0x387ff000, 0x38800000, 0x3f800000,
	0x3f801000, 0x3f802000, 0x3f803000, 0x477fe000, 0x477fefff,
	0x477ff000, 0x47800000, 0x7f7fffff, 0x7f800000, 0xff800000,
	0x7f800001, 0x7fc00000, 0xffc00001, 0x7f802001, 0x3f808000,
	0x3f818000, 0x3f7fffff, 0xc0490fdb, 0x7f7f8000, 0x7f7f7fff,
};

/*
 * Does code h round x correctly (nearest, ties to even, overflow to
 * infinity past the last midpoint)?  Checked in float64 against the
 * neighbouring codes; maxcode is the largest finite code.
 */
static int
rounds_right(float x, uint16_t h, float (*dec)(uint16_t), uint16_t maxcode)
{
	double v = fabs((double)x), maxv, ulp, g, d, dl, dh;
	uint16_t mag = h & 0x7fff;

	if (isnan(x))
		return isnan(dec(h));
	if (((h & 0x8000) != 0) != (signbit(x) != 0))
		return 0;
	maxv = dec(maxcode);
	ulp = maxv - dec((uint16_t)(maxcode - 1));
	if (v >= maxv + ulp / 2)
		return mag == maxcode + 1;
	if (mag > maxcode)
		return 0;
	g = dec(mag);
	d = fabs(v - g);
	dl = mag > 0 ? fabs(v - dec((uint16_t)(mag - 1))) : INFINITY;
	dh = mag < maxcode ? fabs(dec((uint16_t)(mag + 1)) - v) : INFINITY;
	if (dl < d || dh < d)
		return 0;
	if ((dl == d || dh == d) && (mag & 1))
		return 0;
	return 1;
}

/*
 * The 16-bit codes decoded by their formulas, in float64, written here
 * and not taken from lib/: every row (the generic one too, which loops
 * over mk_f16_to_f32) is held to these as well as to the scalar.
 */
static float
dec_bits(uint16_t h, int ebits)
{
	const int mbits = 15 - ebits, bias = (1 << (ebits - 1)) - 1;
	const unsigned emax = (1u << ebits) - 1;
	unsigned e = (h >> mbits) & emax, m = h & ((1u << mbits) - 1);
	double s = h & 0x8000 ? -1 : 1, f = ldexp(m, -mbits);

	if (e == emax)
		return (float)(m ? copysign(NAN, s) : s * INFINITY);
	return (float)(e ? s * ldexp(1.0 + f, (int)e - bias) :
	    s * ldexp(f, 1 - bias));
}

/* f16: 5 exponent bits; bf16: 8 */
static float dec16(uint16_t h) { return dec_bits(h, 5); }
static float decb(uint16_t h) { return dec_bits(h, 8); }

/* The same value: equal bits, or NaNs of one sign. */
static int
same_value(float a, float b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) && !signbit(a) == !signbit(b);
	return bits(a) == bits(b);
}

/* A buffer of n inputs at an odd offset; out with guard words around it. */
static void
check_f32_to_16(void (*fn)(uint16_t *, const float *, size_t),
    uint16_t (*ref)(float), float (*dec)(uint16_t), uint16_t maxcode,
    const float *in, size_t n)
{
	uint16_t *out = malloc((n + 2 * GUARD) * 2 + 2);
	uint16_t *o = out + GUARD + 1;	/* 2-byte aligned, not 32 */
	size_t i, bad = 0;

	for (i = 0; i < n + 2 * GUARD + 1; i++)
		out[i] = POISON16;
	fn(o, in, n);
	for (i = 0; i < n; i++)
		if ((o[i] != ref(in[i]) || !rounds_right(in[i], o[i], dec,
		    maxcode)) && bad++ < 3)
			fprintf(stderr, "  %s: in %08x -> %04x, want %04x\n",
			    mk_isa_name(cur), bits(in[i]), o[i], ref(in[i]));
	CU_ASSERT_EQUAL(bad, 0);
	for (i = 0; i < GUARD; i++) {
		CU_ASSERT_EQUAL(o[-1 - (long)i], POISON16);
		CU_ASSERT_EQUAL(o[n + i], POISON16);
	}
	free(out);
}

static void
check_16_to_f32(void (*fn)(float *, const uint16_t *, size_t),
    float (*ref)(uint16_t), float (*dec)(uint16_t), const uint16_t *in,
    size_t n)
{
	uint32_t *out = malloc((n + 2 * GUARD + 1) * 4);
	uint32_t *o = out + GUARD + 1;
	size_t i, bad = 0;

	for (i = 0; i < n + 2 * GUARD + 1; i++)
		out[i] = POISON32;
	fn((float *)o, in, n);
	for (i = 0; i < n; i++)
		if ((o[i] != bits(ref(in[i])) || !same_value(fbits(o[i]),
		    dec(in[i]))) && bad++ < 3)
			fprintf(stderr, "  %s: in %04x -> %08x, want %08x\n",
			    mk_isa_name(cur), in[i], o[i], bits(ref(in[i])));
	CU_ASSERT_EQUAL(bad, 0);
	for (i = 0; i < GUARD; i++) {
		CU_ASSERT_EQUAL(out[GUARD - i], POISON32);
		CU_ASSERT_EQUAL(o[n + i], POISON32);
	}
	free(out);
}

/* All 65536 inputs, then every length 0..70 from an odd address. */
static void
all16(void (*fn)(float *, const uint16_t *, size_t), float (*ref)(uint16_t),
    float (*dec)(uint16_t))
{
	uint16_t *in = malloc(65536 * 2 + 2);
	size_t i, n;

	for (i = 0; i < 65536; i++)
		in[i + 1] = (uint16_t)(i * 40503u);	/* a permutation */
	check_16_to_f32(fn, ref, dec, in + 1, 65536);
	for (n = 0; n <= 70; n++)
		check_16_to_f32(fn, ref, dec, in + 1 + n, n);
	free(in);
}

static void
random32(void (*fn)(uint16_t *, const float *, size_t), uint16_t (*ref)(float),
    float (*dec)(uint16_t), uint16_t maxcode)
{
	const size_t N = 1 << 20;
	struct rng r = { 0x9e3779b97f4a7c15ULL };
	float *buf = malloc((N + 1) * 4);
	float *in = buf + 1;
	size_t i, n;

	for (i = 0; i < N; i++) {
		uint64_t x = rng_next(&r);
		/* Half raw bit patterns, half values near the 16-bit range. */
		in[i] = i % 2 ? fbits((uint32_t)x) :
		    (float)(((double)(int64_t)x / 9.2e18) *
		    pow(2.0, (double)(int)(x % 48) - 30));
	}
	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		in[i] = fbits(edges[i]);
	check_f32_to_16(fn, ref, dec, maxcode, in, N);
	for (n = 0; n <= 70; n++)
		check_f32_to_16(fn, ref, dec, maxcode, in + n, n);
	free(buf);
}

static void
test_f16_to_f32(void)
{
	all16(rows[cur].f16_to_f32, mk_f16_to_f32, dec16);
}

static void
test_bf16_to_f32(void)
{
	all16(rows[cur].bf16_to_f32, mk_bf16_to_f32, decb);
}

static void
test_f32_to_f16(void)
{
	random32(rows[cur].f32_to_f16, mk_f32_to_f16, dec16, 0x7bff);
}

static void
test_f32_to_bf16(void)
{
	random32(rows[cur].f32_to_bf16, mk_f32_to_bf16, decb, 0x7f7f);
}

static void
test_generic_rounding(void)
{
	struct rng r = { 12345 };
	size_t i, bad16 = 0, badb = 0;
	float x;

	for (i = 0; i < 400000; i++) {
		uint64_t u = rng_next(&r);
		x = i < sizeof(edges) / sizeof(edges[0]) ? fbits(edges[i]) :
		    i % 3 ? (float)((double)(int32_t)u * pow(2.0,
		    (double)(int)(u >> 40 & 63) - 60)) : fbits((uint32_t)u);
		if (!rounds_right(x, mk_f32_to_f16(x), dec16, 0x7bff))
			bad16++;
		if (!rounds_right(x, mk_f32_to_bf16(x), decb, 0x7f7f))
			badb++;
	}
	CU_ASSERT_EQUAL(bad16, 0);
	CU_ASSERT_EQUAL(badb, 0);
}

/* Decoding f16 by formula in float64 must match every code. */
static void
test_generic_decode(void)
{
	unsigned h;
	size_t bad = 0;

	for (h = 0; h < 65536; h++) {
		unsigned e = (h >> 10) & 31, m = h & 1023;
		double s = h & 0x8000 ? -1 : 1, v;
		float f = mk_f16_to_f32((uint16_t)h);
		if (e == 31) {
			if (m ? !isnan(f) : !(isinf(f) && (f < 0) == (s < 0)))
				bad++;
			continue;
		}
		v = e ? s * ldexp(1.0 + m / 1024.0, (int)e - 15) :
		    s * ldexp(m / 1024.0, -14);
		if ((double)f != v || !signbit(f) != !(s < 0))
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/* f64 -> f16 must round once: a value just above a tie between f16 codes
 * that rounds down to the tie in f32 would go wrong through f32. */
static void
test_no_double_rounding(void)
{
	/* 1 + 2^-11 is the tie between 1 and 1+2^-10; add 2^-40. */
	double d = 1.0 + ldexp(1, -11) + ldexp(1, -40);

	CU_ASSERT_EQUAL(mk_f32_to_f16((float)d), 0x3c00);	/* via f32 */
	CU_ASSERT_EQUAL(mk_f64_to_f16(d), 0x3c01);		/* direct */
	CU_ASSERT_EQUAL(mk_f64_to_bf16(1.0 + ldexp(1, -8) + ldexp(1, -40)),
	    0x3f81);
	CU_ASSERT_EQUAL(mk_f64_to_f16(70000.0), 0x7c00);
	CU_ASSERT_EQUAL(mk_f64_to_f16(-0.0), 0x8000);
}

/*
 * FP8 rounding: every finite byte of both formats is its own value's
 * nearest; the midpoint of two neighbours goes to the even one, a hair
 * off it to the nearer; past the largest value, E4M3's NaN, E5M2's inf.
 */
static void
test_fp8_round(void)
{
	double v, w, mid;
	int fmt, b, bad = 0;

	for (fmt = MK_FP8_E4M3; fmt <= MK_FP8_E5M2; fmt++) {
		for (b = 0; b < 256; b++) {
			v = mk_fp8_value((uint8_t)b, (enum mk_fp8)fmt);
			if (isnan(v) || isinf(v))
				continue;
			bad += mk_fp8_from_double(v, (enum mk_fp8)fmt) != b;
			/* b's upper neighbour in magnitude */
			w = mk_fp8_value((uint8_t)(b + 1), (enum mk_fp8)fmt);
			if ((b & 0x7f) == 0x7f || isnan(w) || isinf(w))
				continue;
			mid = (v + w) / 2;
			bad += mk_fp8_from_double(mid, (enum mk_fp8)fmt) !=
			    (b & 1 ? b + 1 : b);
			bad += mk_fp8_from_double(mid + (w - v) / 64,
			    (enum mk_fp8)fmt) != b + 1;
			bad += mk_fp8_from_double(mid - (w - v) / 64,
			    (enum mk_fp8)fmt) != b;
		}
		CU_ASSERT_EQUAL(mk_fp8_from_double(NAN, (enum mk_fp8)fmt) &
		    0x7f, 0x7f);
	}
	CU_ASSERT_EQUAL(mk_fp8_from_double(470, MK_FP8_E4M3), 0x7f);
	CU_ASSERT_EQUAL(mk_fp8_from_double(-460, MK_FP8_E4M3), 0xfe);
	CU_ASSERT_EQUAL(mk_fp8_from_double(70000, MK_FP8_E5M2), 0x7c);
	CU_ASSERT_EQUAL(mk_fp8_from_double(-0.0, MK_FP8_E5M2), 0x80);
	CU_ASSERT_EQUAL(bad, 0);
}

/* MOEKIT_ISA: unknown and unsupported names are usage errors. */
static void
test_isa_env(void)
{
	struct mk_err e;
	const char *old = getenv("MOEKIT_ISA");
	char *save = old ? strdup(old) : NULL;
	int i;

	setenv("MOEKIT_ISA", "sse9", 1);
	CU_ASSERT_EQUAL(mk_kern_init(&e), -1);
	CU_ASSERT_EQUAL(e.status, MK_EXIT_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "MOEKIT_ISA=sse9"));
	for (i = 0; i < MK_NISA; i++) {
		setenv("MOEKIT_ISA", mk_isa_name((enum mk_isa)i), 1);
		if (mk_isa_supported((enum mk_isa)i)) {
			CU_ASSERT_EQUAL(mk_kern_init(&e), 0);
			CU_ASSERT_EQUAL(mk_kern_isa(), (enum mk_isa)i);
		} else {
			CU_ASSERT_EQUAL(mk_kern_init(&e), -1);
			CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "not supported"));
		}
	}
	if (save) {
		setenv("MOEKIT_ISA", save, 1);
		free(save);
	} else {
		unsetenv("MOEKIT_ISA");
	}
	CU_ASSERT_EQUAL(mk_kern_init(&e), 0);
}

static int
init_isa(enum mk_isa isa)
{
	cur = isa;
	mk_kern_build(isa, &rows[isa]);
	return 0;
}

static int init_generic(void) { return init_isa(MK_ISA_GENERIC); }
static int init_avx2(void) { return init_isa(MK_ISA_AVX2); }
static int init_avx512(void) { return init_isa(MK_ISA_AVX512); }

void
suite_kern(void)
{
	static int (*const inits[MK_NISA])(void) = {
		init_generic, init_avx2, init_avx512
	};
	char name[64];
	CU_pSuite s;
	int i;

	mk_kern_build(MK_ISA_GENERIC, &generic);
	s = CU_add_suite("kern/generic-reference", NULL, NULL);
	CU_add_test(s, "f16 decode by formula", test_generic_decode);
	CU_add_test(s, "f32->f16/bf16 round to nearest even",
	    test_generic_rounding);
	CU_add_test(s, "f64->f16 rounds once", test_no_double_rounding);
	CU_add_test(s, "fp8 rounding", test_fp8_round);
	CU_add_test(s, "MOEKIT_ISA", test_isa_env);
	for (i = 0; i < MK_NISA; i++) {
		snprintf(name, sizeof(name), "kern/%s",
		    mk_isa_name((enum mk_isa)i));
		s = CU_add_suite(name, inits[i], NULL);
		CU_add_test(s, "f16_to_f32", test_f16_to_f32);
		CU_add_test(s, "f32_to_f16", test_f32_to_f16);
		CU_add_test(s, "bf16_to_f32", test_bf16_to_f32);
		CU_add_test(s, "f32_to_bf16", test_f32_to_bf16);
		if (!mk_isa_supported((enum mk_isa)i)) {
			CU_set_suite_active(s, CU_FALSE);
			printf("test-unit: SKIP %s (this CPU lacks it)\n", name);
		}
	}
}
