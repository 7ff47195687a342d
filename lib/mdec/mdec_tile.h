/*
 * mdec_tile.h - the decode-attention walk of the amx row (mdec_amx.c):
 * scores and values as products of bf16 tiles with f32 sums, on
 * AMX-BF16 (TDPBF16PS).  Included after mdec_avx512.h and mdec_kernel.h
 * (whose mask scan and row addressing it uses).
 *
 * Per tile block of up to TB unmasked positions (the mask scan's blocks of
 * 32 in a row):
 *   K rows are widened to bf16 rows [TB][DP] (FP8 exactly, each byte's
 *	bf16 from two 128-byte tables; f16 split exactly into hi + lo, two
 *	rows; bf16 copied, or read where they lie: k_direct), V rows to
 *	VNNI pairs [TB/2][VS] (positions 2r and 2r+1 interleaved, as a
 *	tile's B operand wants them; the columns then come in an order the
 *	walk's end undoes, vnni_col);
 *   scores S^T [TB][16] per tile of eight query rows = K rows x q^T, q
 *	split into bf16 hi + lo as columns 0-7 and 8-15 (16 of q's bits:
 *	within 2^-18 of q);
 *   softmax in f32 on the scores transposed (a head's positions in
 *	vectors of 16), the running maximum moving only past TAU as in
 *	mdec_kernel.h; probabilities split into bf16 hi + lo rows, eight
 *	heads' his then their los, one values tile of 16 rows;
 *   values O [16][DVP] += P [16][TB] x V [TB][DVP]: the rows hi and lo of
 *	a head summed at the walk's end; from MK_TILE_VP_FROM rows, P's
 *	tiles hold sixteen heads' his, then their los, and the two parts
 *	sum into one row of O (value_pair_step), which halves the sums
 *	moved through L2.
 * A product is therefore exact up to f32's rounding of its sums and the
 * 2^-18 (relative) left of q and p by their two bf16 parts: the bound
 * mdecode(1) states.  The tile products run as steps between the next
 * block's widening (struct tick), three blocks in flight (tile_walk).
 *
 * Bytes that the bf16 products cannot carry as the f32 kernels do (an
 * FP8 NaN or E5M2 infinity, an f16 or bf16 infinity or NaN: their low
 * parts turn a signed infinity into NaN) are watched for, 64 bytes at a
 * time; a piece that has one is computed again by the avx512 kernel,
 * whose arithmetic carries them (tile_walk returns 1).  They are
 * watched in the registers the widening loads, not by a pass of their
 * own.
 */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/fp8.h"
#include "base/half.h"
#include "mdec/mdec.h"
#include "mdec/mdec_tile_lay.h"

#define TB	MK_TILE_TB
#define MT	(TB / 16)	/* tiles of positions in a tile block */
/* position tiles of a lone score tile's step: four, where there are */
#define MQ	(MT >= 4 ? 4 : 2)
_Static_assert(TB % BLK == 0 && MT % MQ == 0,
    "a tile block is a whole number of scan blocks");

/* How K and V bytes are read: a dtype's own way of widening. */
enum tkind { TK_BF16, TK_F16, TK_E4M3, TK_E5M2 };

/* The K/V dtype a kind reads (MK_U8: FP8 bytes). */
static inline int
tile_dtype(int kind)
{
	return kind == TK_E4M3 || kind == TK_E5M2 ? MK_U8 : kind == TK_F16 ?
	    MK_F16 : MK_BF16;
}

/* A mask of the first n of 32 lanes. */
static inline __mmask32
first32(int n)
{
	return n >= 32 ? ~(__mmask32)0 : ((__mmask32)1 << n) - 1;
}

/*
 * The FP8 tables (struct tw): the low bytes and the high bytes (sign
 * off) of the bf16 of each of the 128 magnitudes, two vectors each, as
 * the f32 kernels read them (E4M3 times MK_MDEC_FP8_READ: mdec.h), and
 * the byte orders that interleave 32 low and 32 high bytes into bf16.
 * Every FP8 value, subnormals too, is a bf16 normal or zero there (the
 * tile instructions read bf16 subnormals as zero).
 */
static inline void
fp8_tables(int kind, __m512i lut[4], __m512i ilv[2])
{
	const enum mk_fp8 fmt = kind == TK_E4M3 ? MK_FP8_E4M3 : MK_FP8_E5M2;
	uint8_t lo[128], hi[128], ix[2][64];
	uint32_t u;
	float f;
	int c, j;

	for (c = 0; c < 128; c++) {
		f = (float)(mk_fp8_value((uint8_t)c, fmt) *
		    MK_MDEC_FP8_READ(fmt));	/* exact: 3 bits at most */
		memcpy(&u, &f, 4);
		lo[c] = (uint8_t)(u >> 16);
		hi[c] = (uint8_t)(u >> 24 & 0x7f);
	}
	for (j = 0; j < 64; j++) {
		ix[0][j] = (uint8_t)(j / 2 + (j & 1) * 64);
		ix[1][j] = (uint8_t)(32 + j / 2 + (j & 1) * 64);
	}
	lut[0] = _mm512_loadu_si512(lo);
	lut[1] = _mm512_loadu_si512(lo + 64);
	lut[2] = _mm512_loadu_si512(hi);
	lut[3] = _mm512_loadu_si512(hi + 64);
	ilv[0] = _mm512_loadu_si512(ix[0]);
	ilv[1] = _mm512_loadu_si512(ix[1]);
}

/*
 * 64 FP8 bytes at p (nv read, the rest 0) as 64 bf16, *w0 the first 32:
 * each magnitude's bytes from the tables (vpermi2b reads an index's 7 low
 * bits), the sign or'd on, low and high bytes interleaved; the bytes
 * watched into *acc (watch_vec).
 */
INL void
wide_fp8(const uint8_t *p, int nv, const __m512i *lut, const __m512i *ilv,
    __m512i *w0, __m512i *w1, __m512i *acc)
{
	const __m512i b = nv >= 64 ? _mm512_loadu_si512(p) :
	    _mm512_maskz_loadu_epi8(((__mmask64)1 << nv) - 1, p);
	const __m512i sign = _mm512_set1_epi8((char)0x80);
	const __m512i lo = _mm512_permutex2var_epi8(lut[0], b, lut[1]);
	__m512i hi = _mm512_permutex2var_epi8(lut[2], b, lut[3]);

	hi = _mm512_ternarylogic_epi32(hi, b, sign, 0xf8);  /* a | b & c */
	*w0 = _mm512_permutex2var_epi8(lo, ilv[0], hi);
	*w1 = _mm512_permutex2var_epi8(lo, ilv[1], hi);
	*acc = _mm512_max_epu8(*acc, _mm512_or_si512(b, sign));
}

/* 32 f16 h split exactly: hi their top 8 bits, lo the rest. */
INL __m512i
wide_f16(__m512i h, __m512i *lo)
{
	const __m512 top = _mm512_castsi512_ps(_mm512_set1_epi32(
	    (int)0xffff0000));
	__m512 f0 = _mm512_cvtph_ps(_mm512_castsi512_si256(h));
	__m512 f1 = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(h, 1));
	__m512 t0 = _mm512_and_ps(f0, top), t1 = _mm512_and_ps(f1, top);

	*lo = (__m512i)_mm512_cvtne2ps_pbh(_mm512_sub_ps(f1, t1),
	    _mm512_sub_ps(f0, t0));
	return (__m512i)_mm512_cvtne2ps_pbh(t1, t0);
}

/*
 * The bytes of a row that the tiles cannot carry (the file's comment):
 * the 16-bit words x, or'd with their sign bits, into the unsigned
 * maxima *acc (FP8's bytes: wide_fp8); special() then tells.
 */
INL void
watch_vec(__m512i *acc, __m512i x)
{
	*acc = _mm512_max_epu16(*acc, _mm512_or_si512(x,
	    _mm512_set1_epi16((short)0x8000)));
}

/* Whether the watch saw a byte the tiles cannot carry. */
static inline int
special(__m512i acc, int kind)
{
	switch (kind) {
	case TK_E4M3:	/* 0x7f, 0xff: NaN */
		return _mm512_cmpeq_epi8_mask(acc, _mm512_set1_epi8(-1)) != 0;
	case TK_E5M2:	/* exponent 31: infinities, NaN */
		return _mm512_cmpge_epu8_mask(acc, _mm512_set1_epi8(
		    (char)0xfc)) != 0;
	case TK_F16:
		return _mm512_cmpge_epu16_mask(acc, _mm512_set1_epi16(
		    (short)0xfc00)) != 0;
	default:
		return _mm512_cmpge_epu16_mask(acc, _mm512_set1_epi16(
		    (short)0xff80)) != 0;
	}
}

/* What one walk works with (the parts of its work, mdec_tile_lay.h). */
struct tw {
	const struct mk_mdec_task *t;
	struct mk_tile_lay y;
	__m512i		 lut[4], ilv[2];	/* fp8_tables */
	int		 DV;		/* columns of the values */
	char		*base;		/* t->work */
	uint16_t	*qt, *kb, *vb, *pb;
	float		*sc, *ob, *mx, *ls, *pa;
	/* position tile m of K's set b read where it lies (bf16 rows at
	 * kd[b][m], kds[b][m] bytes apart: k_direct), else NULL */
	const char	*kd[2][MT];
	size_t		 kds[2][MT];
};

/* bf16 parts of a K or V row: f16's hi and lo, one else. */
#define PARTS(kind)	((kind) == TK_F16 ? 2 : 1)

/* K row j's part p, of set b (two blocks in turn); V pair row r's, of
 * set b (three: a block's V is read a block after its K); the values' A
 * tile j, of set b (two). */
#define KROW(w, b, p, j)	((w)->kb + ((size_t)((b) * (w)->y.np + (p)) * \
				    TB + (size_t)(j)) * (size_t)(w)->y.DP)
#define VROW(w, b, p, r)	((w)->vb + ((size_t)((b) * (w)->y.np + (p)) * \
				    (TB / 2) + (size_t)(r)) * \
				    (size_t)(w)->y.VS)
/*
 * Where position tile m of K's set b, part p, K-step s loads from, *st
 * its rows' stride in bytes: the rows themselves (k_direct) or kb.
 */
INL const uint16_t *
k_tile(const struct tw *w, int b, int p, int m, int s, size_t *st)
{
	if (w->kd[b][m] != NULL) {
		*st = w->kds[b][m];
		return (const uint16_t *)(const void *)w->kd[b][m] + 32 * s;
	}
	*st = (size_t)w->y.DP * 2;
	return KROW(w, b, p, 16 * m) + 32 * s;
}
#define PTILE(w, b, j)		((w)->pb + ((size_t)(b) * (size_t)(w)->y.NT + \
				    (size_t)(j)) * 16 * TB)
/*
 * Query row g's weights, part h (0 high, 1 low), in P's set b: eight
 * rows' his then their los a tile; in pairs (y.vp), sixteen rows' his a
 * tile and their los the next.
 */
INL uint16_t *
prow(const struct tw *w, int b, int g, int h)
{
	if (w->y.vp)
		return PTILE(w, b, g / 16 * 2 + h) + (size_t)(g % 16) * TB;
	return PTILE(w, b, g / 8) + (size_t)(8 * h + g % 8) * TB;
}

/*
 * Query row g's values' sums, from its weights' part h: tile j of P
 * sums into the values' tile j, so rows as prow's.  In pairs (y.vp) a
 * pair of 16-row groups sums both parts into the high row
 * (value_pair_step), the low rows then stay 0; a lone group sums them
 * apart.
 */
INL float *
orow(const struct tw *w, int g, int h)
{
	const size_t r = w->y.vp ? (size_t)(g / 16 * 32 + 16 * h + g % 16) :
	    (size_t)(g / 8 * 16 + 8 * h + g % 8);

	return w->ob + r * (size_t)w->y.OS;
}

/*
 * 32 f16 or bf16 of a row from element off (nv read) as bf16 (f16's hi,
 * and *lo), watched into *acc.
 */
INL __m512i
wide32(const char *row, int off, int nv, int kind, __m512i *lo,
    __m512i *acc)
{
	const uint16_t *p = (const uint16_t *)(const void *)row + off;
	const __m512i x = nv >= 32 ? _mm512_loadu_si512(p) :
	    _mm512_maskz_loadu_epi16(first32(nv), p);

	watch_vec(acc, x);
	return kind == TK_F16 ? wide_f16(x, lo) : x;
}

/*
 * Two rows' 32 bf16 a, b of columns c.. into V pair row r: lanes of
 * 128 bits interleaved (vnni_col says which column lands where).
 */
INL void
put_pair(uint16_t *row, int c, __m512i a, __m512i b)
{
	_mm512_store_si512(row + 2 * c, _mm512_unpacklo_epi16(a, b));
	_mm512_store_si512(row + 2 * c + 32, _mm512_unpackhi_epi16(a, b));
}

/*
 * Where column c of a values row sums: put_pair's lanes hold, per 128
 * bits, four columns of the low halves then (in the next 64 bytes) four
 * of the high ones.  Returns the position of column c in the row.
 */
static inline int
vnni_col(int c)
{
	const int g = c & ~31, i = c & 31, q = i / 8, r = i % 8;

	return g + (r < 4 ? 4 * q + r : 16 + 4 * q + r - 4);
}

/* f32 of the 16 bf16 in the low (h 0) or high (h 1) half of x. */
INL __m512
bf16_f32(__m512i x, int h)
{
	return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(
	    h ? _mm512_extracti64x4_epi64(x, 1) : _mm512_castsi512_si256(x)),
	    16));
}

/*
 * Two vectors of f32 (16 each) split into bf16: hi their nearest, *lo
 * the nearest of what hi leaves.
 */
INL __m512i
split2(__m512 x0, __m512 x1, __m512i *lo)
{
	const __m512i hi = (__m512i)_mm512_cvtne2ps_pbh(x1, x0);

	*lo = (__m512i)_mm512_cvtne2ps_pbh(_mm512_sub_ps(x1, bf16_f32(hi, 1)),
	    _mm512_sub_ps(x0, bf16_f32(hi, 0)));
	return hi;
}

/* A transpose's first step: rows 2i and 2i + 1 of v interleaved into t. */
INL void
unpack_pairs(const __m512 *v, __m512 *t, int n)
{
	int i;

#pragma GCC unroll 8
	for (i = 0; i < n; i += 2) {
		t[i] = _mm512_unpacklo_ps(v[i], v[i + 1]);
		t[i + 1] = _mm512_unpackhi_ps(v[i], v[i + 1]);
	}
}

/*
 * Sixteen vectors transposed in place (v[i] lane c -> v[c] lane i), in
 * 64 shuffles: pairs of rows interleaved, then pairs of pairs (u[4 a + b]
 * holds, in 128-bit lane L, column 4 L + b of rows 4 a .. 4 a + 3), then
 * the 128-bit lanes of u[b], u[4 + b], u[8 + b], u[12 + b] as a 4 x 4.
 */
INL void
transpose16(__m512 *v)
{
	__m512 t[16], u[16], y[4];
	int i, b;

	unpack_pairs(v, t, 16);
#pragma GCC unroll 4
	for (i = 0; i < 16; i += 4) {
		u[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(
		    t[i]), _mm512_castps_pd(t[i + 2])));
		u[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(
		    _mm512_castps_pd(t[i]), _mm512_castps_pd(t[i + 2])));
		u[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(
		    _mm512_castps_pd(t[i + 1]), _mm512_castps_pd(t[i + 3])));
		u[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(
		    _mm512_castps_pd(t[i + 1]), _mm512_castps_pd(t[i + 3])));
	}
#pragma GCC unroll 4
	for (b = 0; b < 4; b++) {
		y[0] = _mm512_shuffle_f32x4(u[b], u[4 + b], 0x44);
		y[1] = _mm512_shuffle_f32x4(u[b], u[4 + b], 0xee);
		y[2] = _mm512_shuffle_f32x4(u[8 + b], u[12 + b], 0x44);
		y[3] = _mm512_shuffle_f32x4(u[8 + b], u[12 + b], 0xee);
		v[b] = _mm512_shuffle_f32x4(y[0], y[2], 0x88);
		v[4 + b] = _mm512_shuffle_f32x4(y[0], y[2], 0xdd);
		v[8 + b] = _mm512_shuffle_f32x4(y[1], y[3], 0x88);
		v[12 + b] = _mm512_shuffle_f32x4(y[1], y[3], 0xdd);
	}
}

/*
 * q's tiles: tile (j, s) holds, for dim pairs r = 0..15 of dims 32 s..,
 * 16 columns: rows 8 j .. 8 j + 7 of q split, column k the
 * high bf16 part of row 8 j + k, column 8 + k its low part.  Rows past G
 * and dims past D are 0.  A tile is the transpose of 16 rows of 16
 * dwords (a dim pair each): the 8 rows' hi, then their lo.
 */
static void
q_tiles_bf16(const struct tw *w)
{
	const struct mk_mdec_task *t = w->t;
	const int NT = w->y.NT, DS = w->y.DS;
	__m512 v[16], x0, x1;
	__m512i lo;
	int j, s, c, g, d;

	for (j = 0; j < NT; j++)
		for (s = 0; s < DS; s++) {
			for (c = 0; c < 8; c++) {
				g = 8 * j + c;
				d = 32 * s;
				x0 = x1 = _mm512_setzero_ps();
				if (g < t->G) {
					const float *q = t->q + (size_t)g *
					    t->ld + d;

					/* ld is a multiple of 16, zero past D */
					if (d < t->ld)
						x0 = _mm512_loadu_ps(q);
					if (d + 16 < t->ld)
						x1 = _mm512_loadu_ps(q + 16);
				}
				v[c] = _mm512_castsi512_ps(split2(x0, x1,
				    &lo));
				v[8 + c] = _mm512_castsi512_ps(lo);
			}
			transpose16(v);
			for (c = 0; c < 16; c++)
				_mm512_store_ps((float *)(void *)(w->qt +
				    ((size_t)j * (size_t)DS + (size_t)s) *
				    512 + 32 * c), v[c]);
		}
}

/*
 * The tiles: 0-3 sums (C), 4-5 A, 6-7 B, each 16 rows of 64 bytes;
 * loaded once a walk (the configuration is the thread's).
 */
static void
tile_config(const struct tw *w)
{
	uint8_t *cfg = (uint8_t *)(w->base + w->y.cfg);
	int i;

	memset(cfg, 0, 64);
	cfg[0] = 1;			/* palette 1 */
	for (i = 0; i < 8; i++) {
		cfg[16 + 2 * i] = 64;	/* colsb, little-endian u16 */
		cfg[48 + i] = 16;	/* rows */
	}
	_tile_loadconfig(cfg);
}

/*
 * The tile products of a stage, a step at a time, so that the widening
 * of the next block runs between the steps (the tiles work on their own
 * while the vector units widen: issued in one burst, the products filled
 * the tiles' queue and held every instruction behind them).  Scores of
 * K's set kset, then the values of V's set vset and P's set pset (if
 * vals): a step is one K-step of four sums held in tiles 0-3.
 */
struct tick {
	int	 phase;		/* 0 scores, 1 values, 2 done */
	int	 j, m, s;	/* scores: tiles j (j + 1), positions 16 m..,
				 * K-step s; values: tiles j (j + 1),
				 * columns 16 m.., K-step s */
	int	 kset, vset, pset, vals;
	int	 half;		/* value_pair_step's: V's part, P's part */
	int	 acc, C, T;	/* pacing: T steps over C calls of tick */
};

/* Sums tile r (a constant) at o, rows os bytes apart, where r < n. */
#define C_LOAD(r, n, o, os)	do {					\
		if ((r) < (n))						\
			_tile_loadd(r, o, os);				\
	} while (0)
#define C_STORE(r, n, o, os)	do {					\
		if ((r) < (n))						\
			_tile_stored(r, o, os);				\
	} while (0)

/*
 * The values' four sums, tiles 0-3, loaded or stored (op: C_LOAD,
 * C_STORE) at o, o + 16 (those below n) and o2, o2 + 16 (below n2).
 */
#define C_FOUR(op, o, o2, os, n, n2)	do {				\
		op(0, n, o, os);					\
		op(1, n, (o) + 16, os);					\
		op(2, n2, o2, os);					\
		op(3, n2, (o2) + 16, os);				\
	} while (0)

/*
 * After a values step's last K-step: the next cols column tiles, past
 * the last of them the next rows value tiles, past those the stage's
 * values done.
 */
INL void
value_next(struct tick *k, int cols, int NV, int rows, int NT)
{
	k->s = 0;
	if ((k->m += cols) < NV)
		return;
	k->m = 0;
	if ((k->j += rows) < NT)
		return;
	k->phase = 2;
}

/*
 * Score step: per pair of score tiles j, j + 1 and pair of position
 * tiles, four sums (2 A and 2 B loads for four products); a lone score
 * tile takes four position tiles against its one B.
 */
INL void
score_step(const struct tw *w, struct tick *k, int kind)
{
	const int NT = w->y.NT, DS = w->y.DS, two = k->j + 1 < NT;
	const size_t qs = (size_t)DS * 512;
	const uint16_t *q = w->qt + (size_t)k->j * qs + (size_t)k->s * 512;
	const uint16_t *a;
	size_t ks;
	float *s0 = w->sc + ((size_t)k->kset * (size_t)NT + (size_t)k->j) *
	    TB * 16 + 16 * 16 * k->m;
	int p;

	if (k->s == 0) {
		_tile_zero(0);
		_tile_zero(1);
		_tile_zero(2);
		_tile_zero(3);
	}
	_tile_loadd(6, q, 64);
	if (two)
		_tile_loadd(7, q + qs, 64);
	for (p = 0; p < PARTS(kind); p++) {
		a = k_tile(w, k->kset, p, k->m, k->s, &ks);
		_tile_loadd(4, a, ks);
		a = k_tile(w, k->kset, p, k->m + 1, k->s, &ks);
		_tile_loadd(5, a, ks);
		_tile_dpbf16ps(0, 4, 6);
		_tile_dpbf16ps(1, 5, 6);
		if (two) {
			_tile_dpbf16ps(2, 4, 7);
			_tile_dpbf16ps(3, 5, 7);
			continue;
		}
		if (MQ < 4)
			continue;
		a = k_tile(w, k->kset, p, k->m + 2, k->s, &ks);
		_tile_loadd(4, a, ks);
		a = k_tile(w, k->kset, p, k->m + 3, k->s, &ks);
		_tile_loadd(5, a, ks);
		_tile_dpbf16ps(2, 4, 6);
		_tile_dpbf16ps(3, 5, 6);
	}
	if (++k->s < DS)
		return;
	_tile_stored(0, s0, 64);
	_tile_stored(1, s0 + 16 * 16, 64);
	if (two) {
		_tile_stored(2, s0 + TB * 16, 64);
		_tile_stored(3, s0 + TB * 16 + 16 * 16, 64);
	} else if (MQ == 4) {
		_tile_stored(2, s0 + 2 * 16 * 16, 64);
		_tile_stored(3, s0 + 3 * 16 * 16, 64);
	}
	k->s = 0;
	if ((k->m += two ? 2 : MQ) < MT)
		return;
	k->m = 0;
	if ((k->j += 2) < NT)
		return;
	k->j = 0;
	k->phase = k->vals ? 1 : 2;
}

/*
 * Values step of a pair of 16-row groups (y.vp): P tiles j, j + 2 their
 * weights' high parts, j + 1, j + 3 their low ones, both parts summed
 * into one C tile a group and column tile (values' tiles j, j + 2), two
 * groups by two column tiles.  A K-step goes in halves, a call each (P's
 * high parts, then its low ones against the same B tiles: four products,
 * as the other steps take, so that the pacing spreads them alike), for
 * each of V's parts.  Against value_step's 8 tile loads and 4 KiB of
 * sums moved for these eight products: 6 and 2 KiB (MK_TILE_VP_FROM
 * says where it paid).
 */
INL void
value_pair_step(const struct tw *w, struct tick *k)
{
	const size_t os = (size_t)w->y.OS * 4, vs = (size_t)w->y.VS * 2;
	const int ph = k->half % 2;	/* P's part */
	const uint16_t *a = PTILE(w, k->pset, k->j + ph) + 32 * k->s;
	/* the group's values' tile j and the next group's, j + 2 */
	float *o = w->ob + (size_t)k->j * 16 * (size_t)w->y.OS + 16 * k->m;
	float *o2 = o + (size_t)32 * (size_t)w->y.OS;

	if (k->s == 0 && k->half == 0)
		C_FOUR(C_LOAD, o, o2, os, 4, 4);
	if (ph == 0) {	/* V's part k->half / 2, columns m, m + 1 */
		const uint16_t *v = VROW(w, k->vset, k->half / 2, 16 * k->s) +
		    32 * k->m;

		_tile_loadd(6, v, vs);
		_tile_loadd(7, v + 32, vs);
	}
	_tile_loadd(4, a, TB * 2);
	_tile_loadd(5, a + 2 * 16 * TB, TB * 2);
	_tile_dpbf16ps(0, 4, 6);
	_tile_dpbf16ps(1, 4, 7);
	_tile_dpbf16ps(2, 5, 6);
	_tile_dpbf16ps(3, 5, 7);
	if (++k->half < 2 * w->y.np)
		return;
	k->half = 0;
	if (++k->s < TB / 32)
		return;
	C_FOUR(C_STORE, o, o2, os, 4, 4);
	/* DVP is a multiple of 32: the column tiles come in pairs */
	value_next(k, 2, w->y.DVP / 16, 4, w->y.NT);
}

/*
 * Values step: the sums of four C tiles held over the block's TB / 32
 * K-steps, a pair of value tiles by a pair of column tiles (2 A and 2 B
 * loads for four products), or a lone value tile by four column tiles;
 * pairs of 16-row groups go by value_pair_step (tick_one).
 */
INL void
value_step(const struct tw *w, struct tick *k, int kind)
{
	const int NT = w->y.NT, NV = w->y.DVP / 16;
	const int two = k->j + 1 < NT, step = two ? 2 : 4;
	const int nc = NV - k->m < step ? NV - k->m : step;
	const int n2 = two ? nc + 2 : nc;	/* C 2, 3 in use where < n2 */
	const size_t os = (size_t)w->y.OS * 4, vs = (size_t)w->y.VS * 2;
	const size_t ps = TB * 2;
	const uint16_t *a = PTILE(w, k->pset, k->j) + 32 * k->s;
	float *o = w->ob + (size_t)k->j * 16 * (size_t)w->y.OS + 16 * k->m;
	/* C 0, 1: tile j, columns m, m + 1; 2, 3: tile j + 1 (two), or
	 * columns m + 2, m + 3 */
	float *o2 = two ? o + (size_t)16 * (size_t)w->y.OS : o + 32;
	int p;

	if (k->s == 0)
		C_FOUR(C_LOAD, o, o2, os, nc, n2);
	_tile_loadd(4, a, ps);
	if (two)
		_tile_loadd(5, a + 16 * TB, ps);
	for (p = 0; p < PARTS(kind); p++) {
		const uint16_t *v = VROW(w, k->vset, p, 16 * k->s) + 32 * k->m;

		_tile_loadd(6, v, vs);
		_tile_dpbf16ps(0, 4, 6);
		if (two)
			_tile_dpbf16ps(2, 5, 6);
		if (nc > 1) {
			_tile_loadd(7, v + 32, vs);
			_tile_dpbf16ps(1, 4, 7);
			if (two)
				_tile_dpbf16ps(3, 5, 7);
		}
		if (two || nc < 3)
			continue;
		_tile_loadd(6, v + 64, vs);
		_tile_dpbf16ps(2, 4, 6);
		if (nc > 3) {
			_tile_loadd(7, v + 96, vs);
			_tile_dpbf16ps(3, 4, 7);
		}
	}
	if (++k->s < TB / 32)
		return;
	C_FOUR(C_STORE, o, o2, os, nc, n2);
	value_next(k, step, NV, 2, NT);
}

/* Steps of a stage (score_step's and value_step's loops, counted). */
static int
tick_steps(const struct tw *w, int vals)
{
	const int NT = w->y.NT, NV = w->y.DVP / 16;
	int j, n = 0, st, pair = 0;

	for (j = 0; j < NT; j += 2) {
		st = j + 1 < NT ? 2 : MQ;
		n += MT / st * w->y.DS;
	}
	for (j = 0; vals && j < NT; j += pair ? 4 : 2) {
		pair = w->y.vp && j + 2 < NT;
		st = pair || j + 1 < NT ? 2 : 4;
		n += (NV + st - 1) / st * (TB / 32) * (pair ? 2 * w->y.np : 1);
	}
	return n;
}

/* One step of the stage, if any is left. */
INL void
tick_one(const struct tw *w, struct tick *k, int kind)
{
	if (k->phase == 0)
		score_step(w, k, kind);
	else if (k->phase == 1 && w->y.vp && k->j + 2 < w->y.NT)
		value_pair_step(w, k);
	else if (k->phase == 1)
		value_step(w, k, kind);
}

/* A call of the pacer: the stage's T steps spread over its C calls. */
INL void
tick(const struct tw *w, struct tick *k, int kind)
{
	for (k->acc += k->T; k->acc >= k->C && k->phase < 2; k->acc -= k->C)
		tick_one(w, k, kind);
}

/* The steps the calls left. */
INL void
tick_drain(const struct tw *w, struct tick *k, int kind)
{
	while (k->phase < 2)
		tick_one(w, k, kind);
}

/*
 * A stage: the scores of K's set kset (if sc), then the values of V's
 * set vset and P's set pset (if vals), paced over C calls of tick.
 */
static void
tick_start(struct tick *k, const struct tw *w, int kset, int vset,
    int pset, int sc, int vals, int C)
{
	memset(k, 0, sizeof(*k));
	k->kset = kset;
	k->vset = vset;
	k->pset = pset;
	k->vals = vals;
	k->phase = sc ? 0 : vals ? 1 : 2;
	k->C = C > 0 ? C : 1;
	k->T = tick_steps(w, vals) - (sc ? 0 : tick_steps(w, 0));
}

/* Elements a call of tick follows in a row: FP8's widening takes 64. */
#define WSTEP(kind)	((kind) == TK_E4M3 || (kind) == TK_E5M2 ? 64 : 32)

/* Calls of tick a block's widening makes. */
static int
widen_calls(const struct tw *w, int kind)
{
	return TB / 2 * ((w->y.DP + WSTEP(kind) - 1) / WSTEP(kind));
}

/*
 * 64 columns c.. of FP8 rows a pair (kr0, kr1; V's vr0, vr1, where not
 * mla) into K rows k0 (and its pair's, DP on) and V pair row v0: the
 * columns past DP or DVP not stored.
 */
INL void
widen64(const struct tw *w, int c, const char *kr0, const char *kr1,
    const char *vr0, const char *vr1, int mla, uint16_t *k0, uint16_t *v0,
    __m512i *seen)
{
	const int D = w->t->D, DP = w->y.DP, DVP = w->y.DVP;
	__m512i a0, a1, b0, b1;

	wide_fp8((const uint8_t *)kr0 + c, D - c, w->lut, w->ilv, &a0, &a1,
	    seen);
	wide_fp8((const uint8_t *)kr1 + c, D - c, w->lut, w->ilv, &b0, &b1,
	    seen);
	_mm512_store_si512(k0 + c, a0);
	_mm512_store_si512(k0 + DP + c, b0);
	if (c + 32 < DP) {
		_mm512_store_si512(k0 + c + 32, a1);
		_mm512_store_si512(k0 + DP + c + 32, b1);
	}
	if (c >= DVP)
		return;
	if (!mla) {
		wide_fp8((const uint8_t *)vr0 + c, D - c, w->lut, w->ilv, &a0,
		    &a1, seen);
		wide_fp8((const uint8_t *)vr1 + c, D - c, w->lut, w->ilv, &b0,
		    &b1, seen);
	}
	put_pair(v0, c, a0, b0);
	if (c + 32 < DVP)
		put_pair(v0, c + 32, a1, b1);
}

/*
 * 32 columns c.. of f16 or bf16 rows a pair into K rows (k0, and f16's
 * low parts k1; k0 NULL: K read where it lies, only watched) and V pair
 * rows v0 (v1), as widen64.
 */
INL void
widen32(const struct tw *w, int c, const char *kr0, const char *kr1,
    const char *vr0, const char *vr1, int mla, uint16_t *k0, uint16_t *k1,
    uint16_t *v0, uint16_t *v1, __m512i *seen, int kind)
{
	const int D = w->t->D, DP = w->y.DP;
	__m512i a, b, al = _mm512_setzero_si512(), bl = al;

	a = wide32(kr0, c, D - c, kind, &al, seen);
	b = wide32(kr1, c, D - c, kind, &bl, seen);
	if (k0 != NULL) {
		_mm512_store_si512(k0 + c, a);
		_mm512_store_si512(k0 + DP + c, b);
	}
	if (PARTS(kind) > 1) {
		_mm512_store_si512(k1 + c, al);
		_mm512_store_si512(k1 + DP + c, bl);
	}
	if (c >= w->y.DVP)
		return;
	if (!mla) {
		a = wide32(vr0, c, D - c, kind, &al, seen);
		b = wide32(vr1, c, D - c, kind, &bl, seen);
	}
	put_pair(v0, c, a, b);
	if (PARTS(kind) > 1)
		put_pair(v1, c, al, bl);
}

/*
 * Block i's rows kr[0..TB) widened into its buffer sets, two positions
 * at a time, and watched into *seen: K rows into K's set i % 2, and V
 * into V's set i % MK_TILE_VSETS as VNNI pairs, from its own rows or,
 * for MLA (mla: V is K's rows), from the same registers; the stage's
 * steps between (tick), and the next block's rows (pk, pv [0..na); pk
 * NULL: none) prefetched a pair at a time, so that the prefetches
 * spread over the block rather than wait in a burst for the core's miss
 * buffers.
 */
INL void
widen(const struct tw *w, int i, const char *const *kr,
    const char *const *vr, int mla, const char *const *pk,
    const char *const *pv, int na, __m512i *seen, struct tick *tk,
    int kind)
{
	const int fp8 = kind == TK_E4M3 || kind == TK_E5M2;
	const struct rowpf rp = row_pf((size_t)w->t->D * (fp8 ? 1 : 2));
	uint16_t *k0, *k1, *v0, *v1;
	int r, c, e;

	for (r = 0; r < TB / 2; r++) {
		/* the next block's rows of this pair, a pair at a time */
		for (e = 2 * r; pk != NULL && e < 2 * r + 2 && e < na; e++) {
			prefetch_row(pk[e], &rp, 0);
			if (pv[e] != pk[e])
				prefetch_row(pv[e], &rp, 0);
		}
		k0 = w->kd[i & 1][2 * r / 16] != NULL ? NULL :
		    KROW(w, i & 1, 0, 2 * r);
		k1 = KROW(w, i & 1, 1, 2 * r);
		v0 = VROW(w, i % MK_TILE_VSETS, 0, r);
		v1 = VROW(w, i % MK_TILE_VSETS, 1, r);
		for (c = 0; c < w->y.DP; c += WSTEP(kind)) {
			if (fp8)
				widen64(w, c, kr[2 * r], kr[2 * r + 1],
				    vr[2 * r], vr[2 * r + 1], mla, k0, v0,
				    seen);
			else
				widen32(w, c, kr[2 * r], kr[2 * r + 1],
				    vr[2 * r], vr[2 * r + 1], mla, k0, k1, v0,
				    v1, seen, kind);
			tick(w, tk, kind);
		}
	}
}

/*
 * A score tile's 16 positions (s: 16 rows of 16 columns) as its eight
 * heads' rows of st (TB floats apart): each head's columns k and 8 + k
 * (q's hi and lo parts) summed.  Positions p and p + 8 share a vector
 * (head k in lanes k and 8 + k), whose two 8 x 8 halves then transpose
 * together: 40 shuffles, not the 64 of a 16 x 16 transpose before the
 * sums.
 */
INL void
head_rows(const float *s, float *st)
{
	/* the last step's 128-bit lanes: of a and b, the even or odd ones */
	const __m512i ev = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 8,
	    9, 10, 11, 24, 25, 26, 27);
	const __m512i od = _mm512_add_epi32(ev, _mm512_set1_epi32(4));
	__m512 y[8], t[8], u[8], r0, r1;
	int p;

#pragma GCC unroll 8
	for (p = 0; p < 8; p++) {
		r0 = _mm512_load_ps(s + p * 16);
		r1 = _mm512_load_ps(s + (p + 8) * 16);
		y[p] = _mm512_add_ps(_mm512_shuffle_f32x4(r0, r1, 0x44),
		    _mm512_shuffle_f32x4(r0, r1, 0xee));
	}
	unpack_pairs(y, t, 8);
#pragma GCC unroll 2
	for (p = 0; p < 8; p += 4) {
		u[p] = _mm512_shuffle_ps(t[p], t[p + 2], 0x44);
		u[p + 1] = _mm512_shuffle_ps(t[p], t[p + 2], 0xee);
		u[p + 2] = _mm512_shuffle_ps(t[p + 1], t[p + 3], 0x44);
		u[p + 3] = _mm512_shuffle_ps(t[p + 1], t[p + 3], 0xee);
	}
#pragma GCC unroll 4
	for (p = 0; p < 4; p++) {
		_mm512_store_ps(st + p * TB, _mm512_permutex2var_ps(u[p], ev,
		    u[p + 4]));
		_mm512_store_ps(st + (p + 4) * TB, _mm512_permutex2var_ps(u[p],
		    od, u[p + 4]));
	}
}

/*
 * The rare path: head row's maximum moves to bm.  Its running sums are
 * rescaled now; its values' sums, which the tiles may be adding to in
 * this stage, at the next stage's start (tile_rescale), by the factor
 * kept in pa.
 */
static void
tile_new_max(const struct tw *w, int row, float bm)
{
	const float alpha = w->mx[row] - bm < -125.0f ? 0.0f :
	    exp2f(w->mx[row] - bm);
	int d;

	for (d = 0; d < 16; d++)
		w->ls[(size_t)row * 16 + (size_t)d] *= alpha;
	w->pa[row] *= alpha;
	w->mx[row] = bm;
}

/* The values' sums of the rows whose maximum moved, rescaled. */
static void
tile_rescale(const struct tw *w)
{
	const int DVP = w->y.DVP;
	float *hi, *lo;
	int row, d;

	for (row = 0; row < w->t->G; row++) {
		if (w->pa[row] == 1.0f)
			continue;
		hi = orow(w, row, 0);
		lo = orow(w, row, 1);
		for (d = 0; d < DVP; d++) {
			hi[d] *= w->pa[row];
			lo[d] *= w->pa[row];
		}
		w->pa[row] = 1.0f;
	}
}

/*
 * The softmax of score tile j's block of nb positions into P's set b:
 * its scores a head a row (st: head_rows), then per head its TB scores
 * (-inf past nb), the maximum moved if past TAU, the probabilities into
 * the values' A tile as hi and lo rows, and their sums; a step of stage
 * tk a head.
 */
INL void
softmax(const struct tw *w, int b, int j, int nb, struct tick *tk, int kind)
{
	const float *s = w->sc + ((size_t)b * (size_t)w->y.NT + (size_t)j) *
	    TB * 16;
	const __m512 ninf = _mm512_set1_ps(-INFINITY);
	float *st = (float *)(void *)(w->base + w->y.st);
	uint16_t *ph, *pl;
	__m512 x[MT], mx, m, p0, p1, sum;
	__m512i hi, lo;
	float bm;
	int i, k, row;

	for (i = 0; i < MT; i++)
		head_rows(s + 16 * i * 16, st + 16 * i);
	for (k = 0; k < 8; k++) {
		tick(w, tk, kind);
		row = 8 * j + k;
		ph = prow(w, b, row, 0);
		pl = prow(w, b, row, 1);
		if (row >= w->t->G) {	/* rows past G: nothing */
			memset(ph, 0, TB * 2);
			memset(pl, 0, TB * 2);
			continue;
		}
		mx = ninf;
		for (i = 0; i < MT; i++) {
			x[i] = _mm512_load_ps(st + k * TB + 16 * i);
			if (16 * i + 16 > nb)
				x[i] = _mm512_mask_blend_ps(16 * i >= nb ? 0 :
				    (__mmask16)((1u << (nb - 16 * i)) - 1),
				    ninf, x[i]);
			mx = _mm512_max_ps(mx, x[i]);
		}
		bm = _mm512_reduce_max_ps(mx);
		if (bm > w->mx[row] + TAU)
			tile_new_max(w, row, bm);
		m = _mm512_set1_ps(w->mx[row]);
		sum = _mm512_load_ps(w->ls + (size_t)row * 16);
		for (i = 0; i < MT; i += 2) {
			p0 = vexp2(_mm512_sub_ps(x[i], m));
			p1 = vexp2(_mm512_sub_ps(x[i + 1], m));
			sum = _mm512_add_ps(sum, _mm512_add_ps(p0, p1));
			hi = split2(p0, p1, &lo);
			_mm512_store_si512(ph + 16 * i, hi);
			_mm512_store_si512(pl + 16 * i, lo);
		}
		_mm512_store_ps(w->ls + (size_t)row * 16, sum);
	}
}

/* The walk's scratch in t->work, its sums zero, its q tiles made. */
INL void
tile_start(struct tw *w, const struct mk_mdec_task *t, int kind)
{
	const int DV = t->dv > 0 && t->dv < t->D ? t->dv : t->D;
	int i;

	w->t = t;
	w->DV = DV;
	w->y = mk_tile_lay(t->G, t->D, DV, PARTS(kind));
	if (kind == TK_E4M3 || kind == TK_E5M2)
		fp8_tables(kind, w->lut, w->ilv);
	w->base = (char *)t->work;
	w->qt = (uint16_t *)(void *)(w->base + w->y.qt);
	w->kb = (uint16_t *)(void *)(w->base + w->y.kb);
	w->vb = (uint16_t *)(void *)(w->base + w->y.vb);
	w->pb = (uint16_t *)(void *)(w->base + w->y.pb);
	w->sc = (float *)(void *)(w->base + w->y.sc);
	w->ob = (float *)(void *)(w->base + w->y.ob);
	w->mx = (float *)(void *)(w->base + w->y.mx);
	w->ls = (float *)(void *)(w->base + w->y.ls);
	w->pa = (float *)(void *)(w->base + w->y.pa);
	q_tiles_bf16(w);
	memset(w->ob, 0, (size_t)w->y.NT * 16 * (size_t)w->y.OS * 4);
	memset(w->ls, 0, (size_t)w->y.NT * 8 * 64);
	for (i = 0; i < w->y.NT * 8; i++) {
		w->mx[i] = -INFINITY;
		w->pa[i] = 1.0f;
	}
}

/* The walk's end: each head's hi and lo sums, in column order. */
static void
tile_end(const struct tw *w)
{
	const struct mk_mdec_task *t = w->t;
	const float *hi, *lo;
	float l;
	int g, d, c;

	for (g = 0; g < t->G; g++) {
		hi = orow(w, g, 0);
		lo = orow(w, g, 1);
		for (d = 0; d < t->ld; d++) {
			c = vnni_col(d);
			t->acc[(size_t)g * t->ld + (size_t)d] = d < w->DV ?
			    hi[c] + lo[c] : 0;
		}
		for (l = 0, c = 0; c < 16; c++)
			l += w->ls[(size_t)g * 16 + (size_t)c];
		t->l[g] = l;
		t->m[g] = l == 0 ? -INFINITY : w->mx[g];
	}
}

/*
 * The next tile block of the scan: up to TB unmasked positions, the
 * scan's blocks of BLK in a row, into idx; returns how many.
 */
INL int
tile_scan(struct scan *sc, size_t *idx)
{
	int n = 0, got;

	do {
		got = scan_block(sc, idx + n);
		n += got;
	} while (got == BLK && n < TB);
	return n;
}

/*
 * Which position tiles of K's set b (rows kr[0..TB)) the tiles read
 * where they lie: bf16 rows (nothing to widen) of whole K-steps (D a
 * multiple of 32: a tile's row ends at its row's end) 16 to a tile at
 * one stride, as a dense cache's are.  Their copy into kb, its stores
 * and the loads of it from L2, are saved.
 */
INL void
k_direct(struct tw *w, int b, const char *const *kr, int kind)
{
	ptrdiff_t d;
	int m, e;

	for (m = 0; m < MT; m++) {
		const char *const *r = kr + 16 * m;

		w->kd[b][m] = NULL;
		if (kind != TK_BF16 || w->t->D % 32 != 0)
			continue;
		d = r[1] - r[0];
		for (e = 2; d >= 0 && e < 16 && r[e] - r[e - 1] == d; e++)
			;
		if (d >= 0 && e == 16) {
			w->kd[b][m] = r[0];
			w->kds[b][m] = (size_t)d;
		}
	}
}

/*
 * Tile block i (idx[0..nb))'s rows widened into its buffer sets (rows
 * past nb are the block's first again: computed, then ignored), watched
 * for bytes the tiles cannot carry (into *seen), and the next block's
 * (ahead, na) prefetched; the steps of stage tk between.
 */
INL void
tile_rows(struct tw *w, int i, const size_t *idx, int nb,
    const size_t *ahead, int na, __m512i *seen, struct tick *tk, int kind)
{
	const struct mk_mdec_task *t = w->t;
	const char *kr[TB], *vr[TB], *pk[TB], *pv[TB];
	int j;

	for (j = 0; j < TB; j += BLK) {
		if (j < nb)
			block_rows(t, idx + j, nb - j < BLK ? nb - j : BLK,
			    kr + j, vr + j, 1);
		else
			block_rows(t, idx, 1, kr + j, vr + j, 1);
		if (j < na)
			block_rows(t, ahead + j, na - j < BLK ? na - j : BLK,
			    pk + j, pv + j, 1);
	}
	k_direct(w, i & 1, kr, kind);
	widen(w, i, kr, vr, vr[0] == kr[0], na > 0 ? pk : NULL, pv, na, seen,
	    tk, kind);
}

/*
 * One task's walk, for K/V kind (a constant where inlined: a copy a
 * kind); returns 1 where a byte the tiles cannot carry was seen (the
 * caller computes the piece again by the avx512 kernel).  The blocks go
 * through in a pipeline of stages, so that what the tiles read was
 * stored a stage before (a tile load waits for the stores of what it
 * reads to reach the cache: no store forwards to it) and the vector
 * work of a stage runs beside its tile products: in stage i, block i's
 * scores and block i - 2's values on the tiles, block i - 1's softmax and
 * block i + 1's widening on the vectors.
 */
INL int
tile_walk(const struct mk_mdec_task *t, int kind)
{
	struct scan sc = { t->mask, t->n, 0, 0, 0 };
	size_t idx[3][TB];	/* block i's positions: idx[i % 3] */
	int nb[4];		/* and their count: nb[i % 4], 0 past the end */
	__m512i seen = _mm512_setzero_si512();
	struct tick tk;
	struct tw w;
	int i, j, sm, vl, calls;

	tile_start(&w, t, kind);
	tile_config(&w);
	memset(nb, 0, sizeof(nb));
	nb[0] = tile_scan(&sc, idx[0]);
	nb[1] = nb[0] == TB ? tile_scan(&sc, idx[1]) : 0;
	tick_start(&tk, &w, 0, 0, 0, 0, 0, 1);
	if (nb[0] > 0)
		tile_rows(&w, 0, idx[0], nb[0], idx[1], nb[1], &seen, &tk,
		    kind);
	for (i = 0; nb[i % 4] > 0 || (i >= 1 && nb[(i - 1) % 4] > 0) ||
	    (i >= 2 && nb[(i - 2) % 4] > 0); i++) {
		sm = i >= 1 && nb[(i - 1) % 4] > 0;
		vl = i >= 2 && nb[(i - 2) % 4] > 0;
		/* block i + 2 (the slot of block i - 2's count) */
		nb[(i + 2) % 4] = nb[(i + 1) % 4] == TB ? tile_scan(&sc,
		    idx[(i + 2) % 3]) : 0;
		/* the maxima block i - 2's softmax moved, now that block
		 * i - 3's values are in the sums */
		tile_rescale(&w);
		calls = (nb[(i + 1) % 4] > 0 ? widen_calls(&w, kind) : 0) +
		    (sm ? 8 * w.y.NT : 0);
		tick_start(&tk, &w, i & 1, (i + 2) % MK_TILE_VSETS, i & 1,
		    nb[i % 4] > 0, vl, calls);
		for (j = 0; sm && j < w.y.NT; j++)
			softmax(&w, (i - 1) & 1, j, nb[(i - 1) % 4], &tk, kind);
		if (nb[(i + 1) % 4] > 0)
			tile_rows(&w, i + 1, idx[(i + 1) % 3], nb[(i + 1) % 4],
			    idx[(i + 2) % 3], nb[(i + 2) % 4], &seen, &tk,
			    kind);
		tick_drain(&w, &tk, kind);
	}
	_tile_release();
	if (special(seen, kind))
		return 1;
	tile_end(&w);
	return 0;
}

/* The walk's copies, one a kind of K/V rows. */
#define WALK(name, kind)						\
static __attribute__((noinline)) int					\
name(const struct mk_mdec_task *t)					\
{									\
	return tile_walk(t, kind);					\
}
WALK(walk_bf16, TK_BF16)
WALK(walk_f16, TK_F16)
WALK(walk_e4m3, TK_E4M3)
WALK(walk_e5m2, TK_E5M2)
#undef WALK

static int
tile_walk_kind(const struct mk_mdec_task *t, int kind)
{
	switch (kind) {
	case TK_BF16:	return walk_bf16(t);
	case TK_F16:	return walk_f16(t);
	case TK_E4M3:	return walk_e4m3(t);
	default:	return walk_e5m2(t);
	}
}
