/*
 * a2a_scan_avx512.c - the counting pass of a2a-layout with AVX-512
 * F/BW/VL/DQ, for R <= 64 ranks and K <= 8 slots (other shapes go to the
 * generic version).  See a2a_scan.h.
 *
 * A token's ids fill one register; the rank of each slot becomes one bit
 * by a variable shift, and the token's set of ranks is the OR of them (a
 * 64-bit mask); its set of nodes is the set of non-zero bytes of that mask
 * (8 ranks per node).
 *
 * Tokens go 8 at a time where the CPU has BITALG (Ice Lake and Zen 4 on):
 * their 8 masks are OR-reduced together into the 8 lanes of one register
 * (14 shuffles for 8 tokens instead of 6 a token), and vpshufbitqmb picks
 * 8 ranks of every lane at once as a 64-bit mask that increments 64 byte
 * counters (token lane x rank); the lanes are summed when the counters are
 * flushed.  Slots per expert stay a scalar histogram, whose indices are
 * loaded from memory: taking them out of vector registers costs shuffles
 * on the two ports Intel runs 512-bit work on, which were the bottleneck.
 * The histogram is kept in COPIES copies, token t of a batch counting into
 * copy t % COPIES, summed at the end: a hot expert's increments in
 * consecutive tokens then do not wait for each other's stores (with one
 * copy, skewed routing ran measurably slower than uniform on Zen 5; with
 * four, as fast).
 * A batch holding an id out of range (rare) and the tokens left over go
 * one at a time, counted in 16-bit lanes per rank.
 */
#include <immintrin.h>
#include <string.h>

#include "a2a/a2a.h"
#include "a2a/a2a_scan.h"

/* Tokens counted in 16-bit lanes before they are added to the outputs. */
#define LANE_MAX	65535
/* Batches of 8 counted in byte lanes before they are added. */
#define BATCH_MAX	255

/*
 * Histogram copies, for up to HIST_E experts (the copies live on the
 * stack; more experts count into one copy, the caller's), HSTRIDE ints
 * apart: 4 KiB and a line, so that the copies' lines do not alias.
 */
#define COPIES		4
#define HIST_E		1021
#define HSTRIDE		1040
_Static_assert(HIST_E + 3 <= HSTRIDE, "a copy holds E + 3 counts");
_Static_assert(COPIES == 4, "batch8 names each copy");

/* The constants of one scan, in registers. */
struct consts {
	__m512i		 one, lim, experts, trash, mul, shift;
	__mmask8	 kk;		/* the K slots of a token */
	int		 R, K, elem, lenient, pow2;
};

static inline __m512i
load_ids(const void *ids, int elem, size_t at, __mmask8 kk)
{
	if (elem == 8)
		return _mm512_maskz_loadu_epi64(kk, (const int64_t *)ids + at);
	return _mm512_cvtepi32_epi64(_mm256_maskz_loadu_epi32(kk,
	    (const int32_t *)ids + at));
}

/*
 * One bit per slot of ids v: the slot's rank, x * mul >> shift.  A drop
 * (-1, or E) is taken as expert E, whose rank is R: bit R, which no
 * count reads (R < 64) or no bit at all (R = 64).
 */
static inline __m512i
rank_bits(const struct consts *k, __m512i v)
{
	if (k->pow2)	/* -1 >> shift is beyond 63: sllv makes it 0 */
		return _mm512_maskz_sllv_epi64(k->kk, k->one,
		    _mm512_srlv_epi64(v, k->shift));
	v = _mm512_min_epu64(v, k->experts);
	return _mm512_maskz_sllv_epi64(k->kk, k->one, _mm512_srlv_epi64(
	    _mm512_mul_epu32(v, k->mul), k->shift));
}

/*
 * hist[i]++ for the first K 64-bit lanes i of iv.  Top-8 takes the lanes
 * out of the register: 8-byte loads from a 512-bit store wait for the
 * store to complete on Intel (no store forwarding).
 */
static inline void
count_pair(int32_t *hist, __m128i q)
{
	hist[_mm_cvtsi128_si64(q)]++;
	hist[_mm_extract_epi64(q, 1)]++;
}

static inline void
count_slots(int32_t *hist, __m512i iv, int K)
{
	_Alignas(64) int64_t idx[8];
	int j;

	if (K == 8) {
		count_pair(hist, _mm512_castsi512_si128(iv));
		count_pair(hist, _mm512_extracti64x2_epi64(iv, 1));
		count_pair(hist, _mm512_extracti64x2_epi64(iv, 2));
		count_pair(hist, _mm512_extracti64x2_epi64(iv, 3));
		return;
	}
	_mm512_store_si512(idx, iv);
	for (j = 0; j < K; j++)
		hist[idx[j]]++;
}

/* The per-token counters: 16-bit lanes per rank (lo, hi) and node. */
struct lanes {
	__m512i		 lo, hi;
	__m128i		 nodes;
};

/* Count token t alone; returns 0, or -1 if it holds an id out of range. */
static inline int
one_token(const struct mk_a2a_scan *s, const struct consts *k, int64_t t,
    struct lanes *c)
{
	__m512i v, v1;
	__mmask8 in;
	uint64_t m;

	v = load_ids(s->ids, k->elem, (size_t)t * (size_t)k->K, k->kk);
	v1 = _mm512_add_epi64(v, k->one);
	in = _mm512_mask_cmplt_epu64_mask(k->kk, v1, k->lim);
	if (in != k->kk && !k->lenient)
		return -1;
	/* slots per expert: hist[x + 1], out of range to hist[E + 2] */
	count_slots(s->hist, _mm512_mask_mov_epi64(k->trash, in, v1), k->K);
	m = (uint64_t)_mm512_reduce_or_epi64(_mm512_maskz_mov_epi64(in,
	    rank_bits(k, v)));
	c->lo = _mm512_mask_add_epi16(c->lo, (__mmask32)m, c->lo,
	    _mm512_set1_epi16(1));
	if (k->R > 32)
		c->hi = _mm512_mask_add_epi16(c->hi, (__mmask32)(m >> 32),
		    c->hi, _mm512_set1_epi16(1));
	c->nodes = _mm_mask_add_epi16(c->nodes, _mm_test_epi8_mask(
	    _mm_cvtsi64_si128((long long)m), _mm_cvtsi64_si128((long long)m)),
	    c->nodes, _mm_set1_epi16(1));
	return 0;
}

/* Add n 16-bit lanes of lane[] to column ch of cnt ([n][C]). */
static void
add_lanes(const uint16_t *lane, int n, int32_t *cnt, int C, int ch)
{
	int d;

	for (d = 0; d < n; d++)
		cnt[(size_t)d * (size_t)C + (size_t)ch] += lane[d];
}

static void
flush_lanes(const struct mk_a2a_scan *s, const struct lanes *c, int ch)
{
	_Alignas(64) uint16_t lane[64];

	_mm512_store_si512(lane, c->lo);
	_mm512_store_si512(lane + 32, c->hi);
	add_lanes(lane, s->R, s->chan, s->C, ch);
	if (s->nchan != NULL) {
		_mm_store_si128((__m128i *)(void *)lane, c->nodes);
		add_lanes(lane, s->R / MK_A2A_NVL, s->nchan, s->C, ch);
	}
}

/*
 * Rank masks of tokens a and b as 128-bit quarters (a0|a2, a1|a3, b0|b2,
 * b1|b3), their ids checked into *mx (the largest id + 1 so far).
 */
static inline __m512i
pair(const struct consts *k, const void *ids, size_t at, __m512i *mx)
{
	__m512i a = load_ids(ids, k->elem, at, k->kk);
	__m512i b = load_ids(ids, k->elem, at + (size_t)k->K, k->kk);

	*mx = _mm512_max_epu64(*mx, _mm512_max_epu64(_mm512_add_epi64(a,
	    k->one), _mm512_add_epi64(b, k->one)));
	a = rank_bits(k, a);
	b = rank_bits(k, b);
	return _mm512_or_si512(_mm512_shuffle_i64x2(a, b, 0x44),
	    _mm512_shuffle_i64x2(a, b, 0xee));
}

/* Two pairs: a quarter per token, two lanes to OR. */
static inline __m512i
quad(__m512i p, __m512i q)
{
	return _mm512_or_si512(_mm512_shuffle_i64x2(p, q, 0x88),
	    _mm512_shuffle_i64x2(p, q, 0xdd));
}

/*
 * Ask for the n bytes PREFETCH bytes after byte `byte` of ids: the
 * hardware prefetchers stop at every 4 KiB page, and a trace read in place
 * streams from memory.  Integer arithmetic: past the end of the ids the
 * address is not a C pointer, and prefetches never fault.
 */
#ifndef PREFETCH
#define PREFETCH	2048
#endif

static inline void
prefetch_ahead(const void *ids, size_t byte, int n)
{
	uintptr_t p = (uintptr_t)ids + byte + PREFETCH;
	int i;

	for (i = 0; i < n; i += 64)
		_mm_prefetch((const char *)(p + (uintptr_t)i), _MM_HINT_T0);
}

/*
 * The rank masks of tokens [t, t + 8) as the 8 lanes of *w (in the order
 * 0 4 1 5 2 6 3 7), and their slots added to the histogram; returns 0,
 * or -1 (nothing counted) if one holds an id out of range.
 */
static inline __attribute__((always_inline)) int
batch8(const struct mk_a2a_scan *s, const struct consts *k, int64_t t,
    __m512i *w, size_t HS)
{
	/* locals: the stores to hist may alias *s and *k */
	const int K = k->K, elem = k->elem;
	const size_t at = (size_t)t * (size_t)K;
	const void *ids = s->ids;
	/*
	 * The copies' bases in registers: as a displacement, HS ints would
	 * double the length of every increment (measurably slower).
	 */
	int32_t *h0 = s->hist + 1, *h1 = h0 + HS, *h2 = h0 + 2 * HS,
	    *h3 = h0 + 3 * HS;
	__m512i mx = _mm512_setzero_si512(), q0, q1;
	int i;

	__asm__("" : "+r"(h1), "+r"(h2), "+r"(h3));
	int32_t *const hist[COPIES] = { h0, h1, h2, h3 };

	prefetch_ahead(ids, at * (size_t)elem, 8 * K * elem);
	q0 = quad(pair(k, ids, at, &mx), pair(k, ids, at + 2 * (size_t)K,
	    &mx));
	q1 = quad(pair(k, ids, at + 4 * (size_t)K, &mx), pair(k, ids,
	    at + 6 * (size_t)K, &mx));
	if (_mm512_mask_cmpge_epu64_mask(k->kk, mx, k->lim))
		return -1;
	*w = _mm512_or_si512(_mm512_unpacklo_epi64(q0, q1),
	    _mm512_unpackhi_epi64(q0, q1));
	/* every id is in [-1, E]: hist[x + 1]++, indices from memory */
	if (elem == 8 && K == 8) {
		const int64_t *p = (const int64_t *)ids + at;
#pragma GCC unroll 64
		for (i = 0; i < 64; i++)
			hist[i / 8 % COPIES][p[i]]++;
	} else if (elem == 8) {
		for (i = 0; i < 8 * K; i++)
			hist[i / K % COPIES][((const int64_t *)ids)[at +
			    (size_t)i]]++;
	} else {
		for (i = 0; i < 8 * K; i++)
			hist[i / K % COPIES][((const int32_t *)ids)[at +
			    (size_t)i]]++;
	}
	return 0;
}

/*
 * Byte counters c of ranks 8g..8g+7 (byte 8 lane + j), counting the lanes
 * of w: vpshufbitqmb picks bit 8g + j of every lane.  Nothing to count
 * unless g < NG.
 */
static inline __attribute__((always_inline, target("avx512bitalg"))) __m512i
bump(__m512i c, __m512i w, int g, int NG)
{
	if (g >= NG)
		return c;
	return _mm512_mask_add_epi8(c, _mm512_bitshuffle_epi64_mask(w,
	    _mm512_add_epi8(_mm512_set1_epi8((char)(8 * g)),
	    _mm512_set1_epi64(0x0706050403020100ll))), c,
	    _mm512_set1_epi8(1));
}

/* Sum the 8 lanes of byte counters c (byte 8 lane + j) into out[j]. */
static inline void
sum_lanes(__m512i c, uint16_t out[8])
{
	__m512i w = _mm512_add_epi16(
	    _mm512_cvtepu8_epi16(_mm512_castsi512_si256(c)),
	    _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(c, 1)));
	__m256i h = _mm256_add_epi16(_mm512_castsi512_si256(w),
	    _mm512_extracti64x4_epi64(w, 1));

	_mm_storeu_si128((__m128i *)(void *)out, _mm_add_epi16(
	    _mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1)));
}

/* Add byte counters c[0..NG) of ranks and cn of nodes to column ch. */
static void
flush_bytes(const struct mk_a2a_scan *s, const __m512i *c, __m512i cn,
    int ch)
{
	uint16_t sum[8];
	int g, n;

	for (g = 0; g < (s->R + 7) / 8; g++) {
		sum_lanes(c[g], sum);
		n = s->R - 8 * g < 8 ? s->R - 8 * g : 8;
		add_lanes(sum, n, s->chan + (size_t)8 * (size_t)g *
		    (size_t)s->C, s->C, ch);
	}
	if (s->nchan != NULL) {
		sum_lanes(cn, sum);
		add_lanes(sum, s->R / MK_A2A_NVL, s->nchan, s->C, ch);
	}
}

/*
 * Tokens [t, t1) of one channel, at most LANE_MAX; returns -1 or the first
 * bad token.  Batches of 8 when NG (groups of 8 ranks, a constant in each
 * caller so that the counters stay in registers) is not 0, their slots
 * counted into COPIES histograms HS ints apart (HS 0: one; a run-time
 * value, which costs nothing measurable where a copy of each function
 * per value cost the build 2.3 s, RESULTS.md).
 */
static inline __attribute__((always_inline, target("avx512bitalg"))) int64_t
span_ng(const struct mk_a2a_scan *s, const struct consts *k, int64_t t,
    int64_t t1, int ch, const int NG, size_t HS)
{
	const __m512i z = _mm512_setzero_si512();
	__m512i c0 = z, c1 = z, c2 = z, c3 = z, c4 = z, c5 = z, c6 = z,
	    c7 = z, cn = z, w;
	struct lanes l = { z, z, _mm_setzero_si128() };
	int64_t u;
	int n = 0;

	for (; NG > 0 && t1 - t >= 8; t += 8) {
		if (batch8(s, k, t, &w, HS) < 0) {
			for (u = t; u < t + 8; u++)
				if (one_token(s, k, u, &l) < 0)
					return u;
			continue;
		}
		c0 = bump(c0, w, 0, NG);
		c1 = bump(c1, w, 1, NG);
		c2 = bump(c2, w, 2, NG);
		c3 = bump(c3, w, 3, NG);
		c4 = bump(c4, w, 4, NG);
		c5 = bump(c5, w, 5, NG);
		c6 = bump(c6, w, 6, NG);
		c7 = bump(c7, w, 7, NG);
		cn = _mm512_mask_add_epi8(cn, _mm512_test_epi8_mask(w, w), cn,
		    _mm512_set1_epi8(1));
		if (++n == BATCH_MAX) {
			const __m512i c[8] = { c0, c1, c2, c3, c4, c5, c6, c7 };

			flush_bytes(s, c, cn, ch);
			c0 = c1 = c2 = c3 = c4 = c5 = c6 = c7 = cn = z;
			n = 0;
		}
	}
	if (n > 0) {
		const __m512i c[8] = { c0, c1, c2, c3, c4, c5, c6, c7 };

		flush_bytes(s, c, cn, ch);
	}
	for (; t < t1; t++)
		if (one_token(s, k, t, &l) < 0)
			return t;
	flush_lanes(s, &l, ch);
	return -1;
}

/*
 * span_ng with NG a constant: ng groups of 8 ranks, 0 for one at a time;
 * many: the histograms HSTRIDE apart, else one.
 */
__attribute__((target("avx512bitalg"))) static int64_t
span(const struct mk_a2a_scan *s, const struct consts *k, int64_t t,
    int64_t t1, int ch, int ng, int many)
{
	const size_t HS = many ? HSTRIDE : 0;

	switch (ng) {
	case 1: return span_ng(s, k, t, t1, ch, 1, HS);
	case 2: return span_ng(s, k, t, t1, ch, 2, HS);
	case 3: return span_ng(s, k, t, t1, ch, 3, HS);
	case 4: return span_ng(s, k, t, t1, ch, 4, HS);
	case 5: return span_ng(s, k, t, t1, ch, 5, HS);
	case 6: return span_ng(s, k, t, t1, ch, 6, HS);
	case 7: return span_ng(s, k, t, t1, ch, 7, HS);
	case 8: return span_ng(s, k, t, t1, ch, 8, HS);
	default: return span_ng(s, k, t, t1, ch, 0, HS);
	}
}

/* Add the n counts of every copy in h to out. */
static void
sum_copies(int32_t *out, const int32_t *h, size_t n)
{
	size_t i;
	int c;

	for (c = 0; c < COPIES; c++)
		for (i = 0; i < n; i++)
			out[i] += h[(size_t)c * HSTRIDE + i];
}

int64_t
mk_a2a_scan_avx512(const struct mk_a2a_scan *s)
{
	_Alignas(64) int32_t copies[COPIES * HSTRIDE];
	struct mk_a2a_scan own = *s;
	struct consts k;
	int64_t t, t1, t2, bad;
	size_t n = (size_t)s->E + 3;
	int ch, ng, c, many;

	if (s->R > 64 || s->K > 8 || s->mul == 0)
		return mk_a2a_scan_generic(s);
	k.one = _mm512_set1_epi64(1);
	k.lim = _mm512_set1_epi64((long long)s->E + 1 + (s->triton != 0));
	k.experts = _mm512_set1_epi64(s->E);
	k.trash = _mm512_set1_epi64((long long)s->E + 2);
	k.mul = _mm512_set1_epi64((long long)s->mul);
	k.shift = _mm512_set1_epi64(s->shift);
	k.kk = (__mmask8)((1u << s->K) - 1);
	k.R = s->R;
	k.K = s->K;
	k.elem = s->elem;
	k.lenient = s->lenient;
	k.pow2 = s->mul == 1;
	/* lenient scans count ids out of range: one at a time */
	ng = __builtin_cpu_supports("avx512bitalg") && !s->lenient ?
	    (s->R + 7) / 8 : 0;
	mk_a2a_scan_clear(s);
	/* batches count into the copies where they fit */
	if ((many = ng > 0 && s->E <= HIST_E)) {
		for (c = 0; c < COPIES; c++)
			memset(copies + (size_t)c * HSTRIDE, 0, n *
			    sizeof(int32_t));
		own.hist = copies;
	}
	bad = -1;
	for (ch = 0, t = 0; t < s->T && bad < 0; ch++) {
		t1 = s->T - t < s->per ? s->T : t + s->per;
		for (; t < t1 && bad < 0; t = t2) {
			t2 = t1 - t > LANE_MAX ? t + LANE_MAX : t1;
			bad = span(&own, &k, t, t2, ch, ng, many);
		}
	}
	if (many)
		sum_copies(s->hist, copies, n);
	return bad;
}

const struct mk_a2a_kern mk_a2a_kern_avx512 = {
	.name = "avx512",
	.a2a_scan = mk_a2a_scan_avx512,
};
