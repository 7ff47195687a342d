/*
 * a2a_scan_avx512.c - the counting pass of a2a-layout with AVX-512
 * F/BW/VL/DQ, for R <= 64 ranks and K <= 8 slots (other shapes go to the
 * generic version).  See a2a_scan.h.
 *
 * A token's ids fill one register.  Its set of ranks is a 64-bit mask:
 * one bit per expert slot by a variable shift, OR-reduced.  The tokens a
 * channel sends to each rank are 16-bit lanes, one per rank, and a
 * token's mask widened by vpmovm2w to all-ones lanes is subtracted from
 * them: two instructions a token instead of a loop over its ranks.  Its
 * set of nodes is the set of non-zero bytes of that mask (8 ranks per
 * node), counted the same way.  Slots per expert remain a scalar
 * histogram.
 */
#include <immintrin.h>
#include <string.h>

#include "a2a.h"
#include "a2a_scan.h"

/* Tokens counted in 16-bit lanes before they are added to the outputs. */
#define LANE_MAX	65535

static inline __m512i
load_ids(const void *ids, int elem, size_t at, __mmask8 kk)
{
	if (elem == 8)
		return _mm512_maskz_loadu_epi64(kk, (const int64_t *)ids + at);
	return _mm512_cvtepi32_epi64(_mm256_maskz_loadu_epi32(kk,
	    (const int32_t *)ids + at));
}

/*
 * hist[i]++ for the first K 64-bit lanes i of iv.  Top-8, the common case,
 * takes the lanes out of the register: 8-byte loads from a 512-bit store
 * wait for the store to complete on Intel (no store forwarding), which
 * made this kernel 30% slower there.
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

/* Add n 16-bit lanes of lane[] to column ch of cnt ([n][C]). */
static void
add_lanes(const uint16_t *lane, int n, int32_t *cnt, int C, int ch)
{
	int d;

	for (d = 0; d < n; d++)
		cnt[(size_t)d * (size_t)C + (size_t)ch] += lane[d];
}

/* Tokens [t, t1) of one channel; returns -1 or the first bad token. */
static int64_t
span(const struct mk_a2a_scan *s, int64_t t, int64_t t1, int ch)
{
	const int K = s->K, R = s->R, inter = s->nchan != NULL;
	const __mmask8 kk = (__mmask8)((1u << K) - 1);
	const __m512i one = _mm512_set1_epi64(1);
	const __m512i lim = _mm512_set1_epi64((long long)s->E + 1 +
	    (s->triton != 0));
	const __m512i experts = _mm512_set1_epi64(s->E);
	const __m512i trash = _mm512_set1_epi64((long long)s->E + 2);
	const __m512i mul = _mm512_set1_epi64((long long)s->mul);
	const __m512i shift = _mm512_set1_epi64(s->shift);
	__m512i lo = _mm512_setzero_si512(), hi = lo, v, v1;
	__m128i nodes = _mm_setzero_si128(), mx;
	__mmask8 in, ex;
	uint64_t m;
	_Alignas(64) uint16_t lane[64];

	for (; t < t1; t++) {
		v = load_ids(s->ids, s->elem, (size_t)t * (size_t)K, kk);
		v1 = _mm512_add_epi64(v, one);
		in = _mm512_mask_cmplt_epu64_mask(kk, v1, lim);
		if (in != kk && !s->lenient)
			return t;
		/* slots per expert: hist[x + 1], out of range to hist[E + 2] */
		count_slots(s->hist, _mm512_mask_mov_epi64(trash, in, v1), K);
		/* rank x * mul >> shift of each expert slot, as one bit */
		ex = _mm512_mask_cmplt_epu64_mask(kk, v, experts);
		m = (uint64_t)_mm512_reduce_or_epi64(_mm512_maskz_sllv_epi64(ex,
		    one, _mm512_srlv_epi64(_mm512_mul_epu32(v, mul), shift)));
		lo = _mm512_sub_epi16(lo, _mm512_movm_epi16((__mmask32)m));
		if (R > 32)
			hi = _mm512_sub_epi16(hi, _mm512_movm_epi16(
			    (__mmask32)(m >> 32)));
		if (inter) {
			mx = _mm_cvtsi64_si128((long long)m);
			nodes = _mm_sub_epi16(nodes, _mm_movm_epi16(
			    (__mmask8)_mm_test_epi8_mask(mx, mx)));
		}
	}
	_mm512_store_si512(lane, lo);
	_mm512_store_si512(lane + 32, hi);
	add_lanes(lane, R, s->chan, s->C, ch);
	if (inter) {
		_mm_store_si128((__m128i *)(void *)lane, nodes);
		add_lanes(lane, R / MK_A2A_NVL, s->nchan, s->C, ch);
	}
	return -1;
}

int64_t
mk_a2a_scan_avx512(const struct mk_a2a_scan *s)
{
	int64_t t, t1, t2, bad;
	int ch;

	if (s->R > 64 || s->K > 8 || s->mul == 0)
		return mk_a2a_scan_generic(s);
	mk_a2a_scan_clear(s);
	for (ch = 0, t = 0; t < s->T; ch++) {
		t1 = s->T - t < s->per ? s->T : t + s->per;
		for (; t < t1; t = t2) {
			t2 = t1 - t > LANE_MAX ? t + LANE_MAX : t1;
			if ((bad = span(s, t, t2, ch)) >= 0)
				return bad;
		}
	}
	return -1;
}
