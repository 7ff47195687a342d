/*
 * a2a_scan_generic.c - the counting pass of a2a-layout in plain C, for
 * every shape (see a2a_scan.h).
 */
#include <string.h>

#include "a2a/a2a.h"
#include "a2a/a2a_scan.h"

static inline int64_t
id_at(const void *ids, int elem, size_t i)
{
	return elem == 4 ? ((const int32_t *)ids)[i] :
	    ((const int64_t *)ids)[i];
}

/* Zero columns 0..nch-1 of n rows C apart. */
static void
clear_columns(int32_t *a, int n, int C, int nch)
{
	int d;

	for (d = 0; d < n; d++)
		memset(a + (size_t)d * (size_t)C, 0, (size_t)nch *
		    sizeof(int32_t));
}

void
mk_a2a_scan_clear(const struct mk_a2a_scan *s)
{
	memset(s->hist, 0, ((size_t)s->E + 3) * sizeof(int32_t));
	clear_columns(s->chan, s->R, s->C, s->nch);
	if (s->nchan != NULL)
		clear_columns(s->nchan, s->R / MK_A2A_NVL, s->C, s->nch);
}

/*
 * Bit i of a byte b spread to byte i of a word: adding spread(b) to a
 * word of 8 byte counters counts 8 ranks at once, without a loop over the
 * bits of the token's mask (whose exits branch predictors cannot guess).
 */
static inline uint64_t
spread(uint64_t b)
{
	/* byte i keeps bit i of b, then becomes 0x80 if that was set */
	uint64_t y = (b & 0xff) * 0x0101010101010101ull &
	    0x8040201008040201ull;

	return ((y + 0x7f7f7f7f7f7f7f7full) & 0x8080808080808080ull) >> 7;
}

/* Byte counters flushed every 255 tokens, before they wrap. */
#define BYTE_MAX	255

struct counts {
	uint64_t	 rank[MK_MOE_MASK_WORDS * 8];	/* 8 ranks a word */
	uint64_t	 node[MK_MOE_MAX_RANKS / 64];	/* 8 nodes a word */
};

/* A token's nodes are one bit each of a word */
_Static_assert(MK_MOE_MAX_RANKS / MK_A2A_NVL <= 64, "nodes in a word");

/* Add the byte counters of n ranks to column ch of out ([n][C]), zero. */
static void
flush(uint64_t *w, int n, int32_t *out, int C, int ch)
{
	int d;

	for (d = 0; d < n; d++)
		out[(size_t)d * (size_t)C + (size_t)ch] +=
		    (int32_t)(w[d / 8] >> (d % 8 * 8) & 0xff);
	memset(w, 0, (size_t)(n + 7) / 8 * sizeof(*w));
}

/* Tokens [t, t1) of channel ch; returns -1 or the first bad token. */
static int64_t
span(const struct mk_a2a_scan *s, int64_t t, int64_t t1, int ch)
{
	const int K = s->K, R = s->R, E = s->E, epr = E / R;
	const int inter = s->nchan != NULL, lenient = s->lenient;
	const int elem = s->elem, shift = s->shift;
	const uint64_t mul = s->mul;
	/* x + 1 below lim: a drop or an expert; anything else goes to trash */
	const uint64_t lim = (uint64_t)E + 1 + (s->triton != 0);
	const uint64_t trash = (uint64_t)E + 2;
	const void *ids = s->ids;
	int32_t *hist = s->hist;
	uint64_t mask[MK_MOE_MASK_WORDS], nodes, i;
	struct counts c;
	int64_t x, t0 = t;
	int j, w, d;

	memset(&c, 0, sizeof(c));
	for (; t < t1; t++) {
		/* 3 words up to 192 ranks (a constant size, stores inline) */
		if (R <= 192)
			memset(mask, 0, 3 * sizeof(uint64_t));
		else
			memset(mask, 0, sizeof(mask));
		for (j = 0; j < K; j++) {
			x = id_at(ids, elem, (size_t)t * (size_t)K + (size_t)j);
			i = (uint64_t)x + 1 < lim ? (uint64_t)x + 1 : trash;
			hist[i]++;
			if (i == trash && !lenient)
				return t;
			if ((uint64_t)x >= (uint64_t)E)
				continue;
			d = mul ? (int)((uint64_t)x * mul >> shift) :
			    (int)(x / epr);
			mask[d >> 6] |= (uint64_t)1 << (d & 63);
		}
		nodes = 0;
		for (w = 0; w < (R + 63) / 64; w++)
			for (j = 0; j < 64 && w * 64 + j < R; j += 8) {
				i = mask[w] >> j & 0xff;
				c.rank[w * 8 + j / 8] += spread(i);
				nodes |= (uint64_t)(i != 0) << (w * 8 + j / 8);
			}
		if (inter) {
			/* 64 ranks or fewer are 8 nodes or fewer */
			if (R > 64 && !s->any_nodes &&
			    __builtin_popcountll(nodes) > MK_A2A_NVL)
				return t;
			for (j = 0; j < R / MK_A2A_NVL; j += 8)
				c.node[j / 8] += spread(nodes >> j);
		}
		if ((t - t0) % BYTE_MAX == BYTE_MAX - 1 || t + 1 == t1) {
			flush(c.rank, R, s->chan, s->C, ch);
			if (inter)
				flush(c.node, R / MK_A2A_NVL, s->nchan, s->C,
				    ch);
		}
	}
	return -1;
}

int64_t
mk_a2a_scan_generic(const struct mk_a2a_scan *s)
{
	int64_t t, t1, bad;
	int ch;

	mk_a2a_scan_clear(s);
	for (ch = 0, t = 0; t < s->T; ch++, t = t1) {
		t1 = s->T - t < s->per ? s->T : t + s->per;
		if ((bad = span(s, t, t1, ch)) >= 0)
			return bad;
	}
	return -1;
}

/* The table: its rows and their selection at the chosen level. */
const struct mk_a2a_kern mk_a2a_kern_generic = {
	.name = "generic",
	.a2a_scan = mk_a2a_scan_generic,
};

static const struct mk_a2a_kern mk_a2a_kern_avx2 = MK_KERN_ROW_NONE("avx2");
static const struct mk_a2a_kern mk_a2a_kern_avx512bf16 =
    MK_KERN_ROW_NONE("avx512bf16");
static const struct mk_a2a_kern mk_a2a_kern_amx = MK_KERN_ROW_NONE("amx");

MK_KERN_ROWS(mk_a2a_kern, struct mk_a2a_kern);

MK_KERN_TABLE(mk_a2a_kern, struct mk_a2a_kern, MK_A2A_KERNELS)
