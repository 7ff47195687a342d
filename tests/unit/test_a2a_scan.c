/*
 * test_a2a_scan.c - a2a-layout's counting pass (the kernel a2a_scan):
 * every kernel path this CPU runs against a plain reference written here,
 * on random traces of many shapes (ranks 2 to 160, experts per rank not
 * powers of two, 1 to 12 slots, i32 and i64, drops, duplicates, ids out
 * of range with and without lenient, channels longer than the kernels'
 * narrow counters), outputs poisoned before each run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2a/a2a.h"
#include "a2a/a2a_scan.h"
#include "simd/kern.h"
#include "util.h"

/* The reference: one token at a time, a boolean per rank and node. */
struct want {
	int32_t	*hist, *chan, *nchan;
	int64_t	 bad;
};

static int64_t
id_of(const struct mk_a2a_scan *s, int64_t t, int j)
{
	size_t i = (size_t)t * (size_t)s->K + (size_t)j;

	return s->elem == 4 ? ((const int32_t *)s->ids)[i] :
	    ((const int64_t *)s->ids)[i];
}

static void
reference(const struct mk_a2a_scan *s, struct want *w)
{
	int R = s->R, E = s->E, C = s->C, RR = R / MK_A2A_NVL, epr = E / R;
	int to[MK_MOE_MAX_RANKS], node[MK_MOE_MAX_RANKS], j, d, n, ch;
	int64_t t, x;

	memset(w->hist, 0, sizeof(int32_t) * (size_t)(E + 3));
	/* columns past nch are not the scan's: they keep the poison */
	memset(w->chan, 0x5a, sizeof(int32_t) * (size_t)(R * C));
	memset(w->nchan, 0x5a, sizeof(int32_t) * (size_t)(RR * C + 1));
	for (d = 0; d < R; d++)
		memset(w->chan + d * C, 0, sizeof(int32_t) * (size_t)s->nch);
	for (d = 0; d < RR; d++)
		memset(w->nchan + d * C, 0, sizeof(int32_t) * (size_t)s->nch);
	w->bad = -1;
	for (t = 0; t < s->T; t++) {
		ch = (int)(t / s->per);
		memset(to, 0, sizeof(to));
		memset(node, 0, sizeof(node));
		for (j = 0; j < s->K; j++) {
			x = id_of(s, t, j);
			if (x >= 0 && x < E) {
				w->hist[x + 1]++;
				to[x / epr] = 1;
				node[x / epr / MK_A2A_NVL] = 1;
			} else if (x == -1 || (s->triton && x == E)) {
				w->hist[x + 1]++;
			} else {
				w->hist[E + 2]++;
				if (!s->lenient) {
					w->bad = t;
					return;
				}
			}
		}
		for (d = 0, n = 0; d < R; d++)
			w->chan[d * C + ch] += to[d];
		for (d = 0; d < RR && R > MK_A2A_NVL; d++) {
			w->nchan[d * C + ch] += node[d];
			n += node[d];
		}
		if (n > MK_A2A_NVL) {
			w->bad = t;
			return;
		}
	}
}

/*
 * A random id: mostly experts, some drops, rarely out of range; hot: more
 * than half of them one of three experts (skewed routing, which the
 * kernels count into several histograms).
 */
static int64_t
random_id(struct rng *g, int E, int odd, int hot)
{
	uint64_t u = rng_next(g) % 1000;

	if (odd && u < 3)
		return u == 0 ? E : u == 1 ? E + 1 + (int64_t)(rng_next(g) %
		    1000) : -2 - (int64_t)(rng_next(g) % 1000);
	if (u < 40)
		return -1;
	if (hot && u < 600)
		return (int64_t)(u % 3) % E;
	return (int64_t)(rng_next(g) % (uint64_t)E);
}

/* One random case through every kernel path; returns 1 if all agree. */
static int
one_case(struct rng *g, const struct mk_a2a_kern *tab, int ntab, int R, int epr,
    int K, int64_t T, int nch)
{
	struct mk_a2a_scan s;
	struct want w;
	int E = R * epr, RR = R / MK_A2A_NVL, odd = rng_next(g) % 3 == 0, i;
	int hot = rng_next(g) % 2 == 0;
	/* rows wider than the channels scanned: a piece of a rank */
	int C = nch + (rng_next(g) % 3 == 0 ? 1 + (int)(rng_next(g) % 3) : 0);
	size_t n = (size_t)T * (size_t)K, j;
	int64_t got, *ids64 = malloc(sizeof(int64_t) * (n + 1));
	int32_t *ids32 = malloc(sizeof(int32_t) * (n + 1));
	int32_t *hist = malloc(sizeof(int32_t) * (size_t)(E + 3));
	int32_t *chan = malloc(sizeof(int32_t) * (size_t)(R * C));
	int32_t *nchan = malloc(sizeof(int32_t) * (size_t)(RR * C + 1));
	int ok = 1;

	w.hist = malloc(sizeof(int32_t) * (size_t)(E + 3));
	w.chan = malloc(sizeof(int32_t) * (size_t)(R * C));
	w.nchan = malloc(sizeof(int32_t) * (size_t)(RR * C + 1));
	CU_ASSERT_FATAL(ids64 && ids32 && hist && chan && nchan && w.hist &&
	    w.chan && w.nchan);
	for (j = 0; j < n; j++) {
		ids64[j] = random_id(g, E, odd, hot);
		/* a repeat of the previous slot: duplicates within a token */
		if (j > 0 && rng_next(g) % 16 == 0)
			ids64[j] = ids64[j - 1];
		ids32[j] = (int32_t)ids64[j];
	}
	memset(&s, 0, sizeof(s));
	s.elem = rng_next(g) % 2 ? 8 : 4;
	s.ids = s.elem == 8 ? (const void *)ids64 : (const void *)ids32;
	s.K = K;
	s.R = R;
	s.E = E;
	s.C = C;
	s.nch = nch;
	s.T = T;
	s.per = T > 0 ? (T + nch - 1) / nch : 1;
	s.triton = (int)(rng_next(g) % 2);
	s.lenient = (int)(rng_next(g) % 2);
	mk_a2a_scan_rank_of(&s, E, R);
	s.hist = hist;
	s.chan = chan;
	s.nchan = R > MK_A2A_NVL ? nchan : NULL;
	reference(&s, &w);
	for (i = 0; i < ntab; i++) {
		memset(hist, 0x5a, sizeof(int32_t) * (size_t)(E + 3));
		memset(chan, 0x5a, sizeof(int32_t) * (size_t)(R * C));
		memset(nchan, 0x5a, sizeof(int32_t) * (size_t)(RR * C + 1));
		got = tab[i].a2a_scan(&s);
		if (got != w.bad) {
			ok = 0;
		} else if (got < 0) {
			ok &= memcmp(hist, w.hist, sizeof(int32_t) *
			    (size_t)(E + 3)) == 0;
			ok &= memcmp(chan, w.chan, sizeof(int32_t) *
			    (size_t)(R * C)) == 0;
			ok &= R <= MK_A2A_NVL || memcmp(nchan, w.nchan,
			    sizeof(int32_t) * (size_t)(RR * C)) == 0;
		}
		if (!ok) {
			fprintf(stderr, "\na2a_scan %s: R=%d epr=%d K=%d T=%lld "
			    "C=%d elem=%d triton=%d lenient=%d: bad %lld, "
			    "want %lld\n", tab[i].name, R, epr, K, (long long)T,
			    C, s.elem, s.triton, s.lenient, (long long)got,
			    (long long)w.bad);
			break;
		}
	}
	free(ids64);
	free(ids32);
	free(hist);
	free(chan);
	free(nchan);
	free(w.hist);
	free(w.chan);
	free(w.nchan);
	return ok;
}

static int
kernel_rows(struct mk_a2a_kern *tab)
{
	int i, n = 0;

	for (i = 0; i < MK_NISA; i++)
		if (mk_isa_supported((enum mk_isa)i))
			mk_a2a_kern_build((enum mk_isa)i, &tab[n++]);
	return n;
}

static void
test_random_shapes(void)
{
	static const int ranks[] = { 1, 2, 4, 8, 16, 24, 32, 48, 64, 72, 128,
	    160 };
	static const int eprs[] = { 1, 2, 3, 5, 8, 16, 40 };
	static const int topk[] = { 1, 2, 3, 4, 6, 8, 9, 12 };
	struct mk_a2a_kern tab[MK_NISA];
	struct rng g = { 0x9e3779b97f4a7c15ull };
	int ntab = kernel_rows(tab), k, fails = 0;

	for (k = 0; k < 400; k++) {
		int R = ranks[rng_next(&g) % (sizeof(ranks) / sizeof(*ranks))];
		int epr = eprs[rng_next(&g) % (sizeof(eprs) / sizeof(*eprs))];
		int K = topk[rng_next(&g) % (sizeof(topk) / sizeof(*topk))];
		int64_t T = (int64_t)(rng_next(&g) % 700);
		int C = 1 + (int)(rng_next(&g) % 12);

		fails += !one_case(&g, tab, ntab, R, epr, K, T, C);
	}
	CU_ASSERT_EQUAL(fails, 0);
}

/*
 * One channel longer than the 16-bit lanes (65535 tokens) and the byte
 * counters of 8-token batches (255 batches) hold.
 */
static void
test_long_channel(void)
{
	struct mk_a2a_kern tab[MK_NISA];
	struct rng g = { 42 };
	int ntab = kernel_rows(tab), k;

	CU_ASSERT(one_case(&g, tab, ntab, 16, 2, 1, 70000, 1));
	CU_ASSERT(one_case(&g, tab, ntab, 64, 4, 2, 66000, 1));
	/* either way of lenient and triton, which one_case draws */
	for (k = 0; k < 8; k++) {
		CU_ASSERT(one_case(&g, tab, ntab, 32, 8, 8, 2100 + k, 1));
		CU_ASSERT(one_case(&g, tab, ntab, 56, 5, 7, 4100 + k, 2));
		/* nearly every token reaches both ranks: counters fill */
		CU_ASSERT(one_case(&g, tab, ntab, 2, 4, 8, 4100 + k, 1));
	}
}

/* The rank of every expert, by the multiply-shift the kernels use. */
static void
test_rank_of(void)
{
	static const int cases[][2] = { { 256, 32 }, { 160, 32 }, { 96, 32 },
	    { 8, 8 }, { 300, 4 }, { 65536 * 3, 3 }, { 1 << 20, 16 },
	    { 30000 * 3, 3 } };
	struct mk_a2a_scan s;
	size_t i;
	int64_t x;
	int bad = 0;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		int E = cases[i][0], R = cases[i][1];

		mk_a2a_scan_rank_of(&s, E, R);
		for (x = 0; x < E && s.mul != 0; x++)
			bad += (int64_t)((uint64_t)x * s.mul >> s.shift) !=
			    x / (E / R);
	}
	CU_ASSERT_EQUAL(bad, 0);
	/* beyond 2^32 / epr the product could round up: division instead */
	mk_a2a_scan_rank_of(&s, 3 * 70000, 3);
	CU_ASSERT_EQUAL(s.mul, 0);
}

void
suite_a2a_scan(void)
{
	CU_pSuite s = CU_add_suite("a2a_scan", NULL, NULL);

	CU_add_test(s, "every path against a reference, random shapes",
	    test_random_shapes);
	CU_add_test(s, "channels longer than narrow counters",
	    test_long_channel);
	CU_add_test(s, "rank of an expert by multiply-shift", test_rank_of);
}
