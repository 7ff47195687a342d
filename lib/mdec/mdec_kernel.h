/*
 * mdec_kernel.h - the SIMD decode-attention kernel, written once over a
 * handful of vector primitives.  mdec_avx2.c and mdec_avx512.c define the
 * primitives for their width and include this file; it then defines the
 * entry points MK_MDEC_NAME(f16), (bf16) and (f32), and (arith), the
 * arithmetic alone.
 *
 * The includer provides:
 *   VEC, W			vector type and its lanes (8 or 16)
 *   vzero(), vset1(x), vload(p), vstore(p, v)	aligned f32 loads/stores
 *   vfma(a, b, c)		a * b + c
 *   vmul(a, b)
 *   vxor(a, b)			bitwise exclusive or
 *   vrow(p, off, dt, nv)	elements off.. of a K/V row of dtype dt as
 *				f32; only nv (1..W) are read, the rest are 0
 *   vbf16_even(p), vbf16_odd(p)	of the 2W bf16 at p, the even and the
 *				odd elements as f32 (a shift and a mask: no
 *				shuffle, unlike widening W in order)
 *   vreduce(const VEC *v)	W vectors -> one vector of their sums, lane
 *				L holding the sum of v[RIN(L)]
 *   ACCS			vector accumulators the values step may hold
 *				(16 of AVX-512's 32 registers, 8 of AVX2's)
 *   MIXQ			1 where the includer also has, for groups of
 *				four heads, vmix4(q, ld, nch) (q's rows mixed
 *				by quarters, in place) and vreduce4(a) (the
 *				scores of accumulators a[4 j + row]); else 0
 *   vexp2(x)			2^x for x <= 0, 0 below -125, NaN kept
 *   vhsum(v)			sum of the lanes
 *   vany_gt(a, b)		whether a lane of a is greater than b's
 *   unmasked64(mask, pos, n)	bit i set if position pos + i < n is not
 *				masked (mask NULL: every valid position)
 *   prefetch(p), prefetch_l2(p)	a line into L1, into L2 only
 *   SPREAD			1: a block's prefetches spread over the steps
 *				of its arithmetic, 0: a few rows' at a time
 *				(AVX2's 16 registers, compute-bound, pay
 *				more for the spreading than it gains)
 *
 * Per block of up to BLK unmasked positions, and per group of up to four
 * query heads of the kv head:
 *   scores: each K chunk is widened once and multiplied with the group's
 *	heads; PJ = W / 4 positions of 4 heads (or W/2 of 2, W of 1) fill W
 *	accumulators, which one transpose-reduction turns into one vector of
 *	scores, lane L = head L / PJ, position L % PJ: the reduction never
 *	leaves the registers (with MIXQ, four heads' q rows are mixed by
 *	quarters at the walk's start, so that the reduction takes 33
 *	shuffles and adds, not 45: 1-2 % faster in cache, RESULTS.md);
 *   softmax: the block's score vectors hold all the group's heads, so the
 *	exponentials of several heads run side by side, against a vector of
 *	running maxima (each head's in its lanes), once every score vector
 *	of the block is made; the maximum moves only when a score passes it
 *	by TAU, so rescaling is rare;
 *   values: the weighted V rows are added into accumulators held in
 *	registers for the whole block, a pass per register-full of dims.
 * A bf16 cache of head size 64 or 128 (known at compile time, whole pairs
 * of vectors) is widened 2W elements at a time (PAIRS, 5-9 % faster in
 * cache on a Xeon, RESULTS.md): chunk 2m of a row holds the even elements
 * of its 2W from 2mW, chunk 2m+1 the odd ones; q is copied into the same
 * order at the walk's start, which keeps every dot product, and the
 * accumulators, summed in that order, are put back in order at its end.
 * K and V rows are found by arithmetic: position i of the piece is at
 * k + i * ps, or in a paged cache at the block of the sequence's table
 * that holds it; a block of consecutive positions in one stretch, from
 * its first row by the stride.  While a block is computed, the rows read
 * next are prefetched: the piece's next block, or where pieces are walked
 * side by side, the next piece's block (in RESULTS.md, 8-12 % faster for
 * [B, M, KH, D] and paged caches than each walk's own next block), and
 * in a paged cache also the next page of all the pieces into L2 in
 * address order (stretch_slice).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/dtype.h"
#include "mdec/mdec.h"

#ifndef MIXQ		/* the includer has vmix4 and vreduce4 */
#define MIXQ	0
#endif

#define BLK	MK_MDEC_BLOCK
#define GBMAX	4		/* query heads per register block */
#define INL	static inline __attribute__((always_inline))
#define TAU	8.0f		/* log2 units the maximum may lag behind */
#define PAIRS	(MK_NDTYPE + 1)	/* bf16 widened 2W at a time (dt) */
/* whether a group of GB heads reads vmix4's q (a constant where used) */
#define MIXED(GB)	(MIXQ && (GB) == 4)
/* the accumulator of q row g (head g, or vmix4's row g), position jj */
#define AIX(GB, PJ, g, jj)	(MIXED(GB) ? 4 * (jj) + (g) : \
				    RIN((g) * (PJ) + (jj)))

_Static_assert(BLK % W == 0 && BLK <= 64 && W % GBMAX == 0,
    "block and vector width");

/* Walks the mask 64 positions at a time, handing out unmasked positions. */
struct scan {
	const uint8_t	*mask;
	size_t		 n, next, base;
	uint64_t	 bits;
};

/*
 * Whether the scan's next BLK positions are all unmasked ones of its
 * word; if so they go into idx (a dense stretch costs no scan step a
 * position: 13.3-13.5 ns a position in cache against 13.7-14.1 bit by
 * bit, RESULTS.md).
 */
INL int
whole_block(struct scan *s, size_t *idx)
{
	const uint64_t ones = ((uint64_t)1 << BLK) - 1;
	int tz, c;

	if (s->bits == 0)
		return 0;
	tz = __builtin_ctzll(s->bits);
	if (tz + BLK > 64 || (~s->bits >> tz & ones) != 0)
		return 0;
	for (c = 0; c < BLK; c++)
		idx[c] = s->base + (size_t)(tz + c);
	s->bits = tz + BLK == 64 ? 0 : s->bits & ~(uint64_t)0 << (tz + BLK);
	return 1;
}

/* The next (up to BLK) unmasked positions into idx; returns how many. */
INL int
scan_block(struct scan *s, size_t *idx)
{
	int c = 0;

	if (whole_block(s, idx))
		return BLK;
	while (c < BLK) {
		while (s->bits == 0) {
			if (s->next >= s->n)
				return c;
			s->base = s->next;
			s->bits = unmasked64(s->mask, s->next, s->n);
			s->next += 64;
			if (c == 0 && whole_block(s, idx))
				return BLK;
		}
		idx[c++] = s->base + (size_t)__builtin_ctzll(s->bits);
		s->bits &= s->bits - 1;
	}
	return c;
}

/* The entry of a paged cache's block table that holds piece position i. */
INL size_t
page_of(const struct mk_mdec_task *t, size_t i)
{
	return t->bshift >= 0 ? (t->p0 + i) >> t->bshift :
	    (t->p0 + i) / (size_t)t->bs;
}

/* Byte offset of piece position i in K (and V): dense or paged. */
INL size_t
row_off(const struct mk_mdec_task *t, size_t i, int paged)
{
	size_t b;

	if (!paged)
		return i * t->ps;
	b = page_of(t, i);
	return (size_t)t->blk[b] * t->bbytes + (t->p0 + i - b *
	    (size_t)t->bs) * t->ps;
}

/* Whether idx[0..n) is a whole block of consecutive positions. */
INL int
stretch(const size_t *idx, int n)
{
	return n == BLK && idx[BLK - 1] - idx[0] == BLK - 1;
}

/*
 * Positions from piece position i on that share i's stretch of memory:
 * the rest of the piece when dense, of i's page when paged (at most lim).
 */
INL int
run_of(const struct mk_mdec_task *t, size_t i, int lim, int paged)
{
	size_t left;

	if (!paged)
		return lim;
	left = (page_of(t, i) + 1) * (size_t)t->bs - (t->p0 + i);
	return left < (size_t)lim ? (int)left : lim;
}

/*
 * The K and V rows of the BLK positions idx[0..n) into k[j * st] and
 * v[j * st] (rows past n repeat row 0: read, computed, then ignored).  A
 * whole block of consecutive positions is found by adding the row stride
 * along each stretch of memory it spans (dense: one; paged: a page each),
 * not by a lookup a row (14.1-14.3 -> 13.4-13.5 ns a position in cache,
 * RESULTS.md).
 */
INL void
block_rows(const struct mk_mdec_task *t, const size_t *idx, int n, int paged,
    const char **k, const char **v, int st)
{
	const char *kb, *vb;
	size_t o;
	int j, e, run;

	if (stretch(idx, n)) {
		for (j = 0; j < BLK; j += run) {
			run = run_of(t, idx[0] + (size_t)j, BLK - j, paged);
			o = row_off(t, idx[0] + (size_t)j, paged);
			kb = (const char *)t->k + o;
			vb = (const char *)t->v + o;
			for (e = 0; e < run; e++) {
				k[(j + e) * st] = kb + (size_t)e * t->ps;
				v[(j + e) * st] = vb + (size_t)e * t->ps;
			}
		}
		return;
	}
	for (j = 0; j < BLK; j++) {
		o = row_off(t, idx[j < n ? j : 0], paged);
		k[j * st] = (const char *)t->k + o;
		v[j * st] = (const char *)t->v + o;
	}
}

/*
 * Bytes of a K or V row (Dc: the head size when known at compile time),
 * a constant the compiler sees where Dc and dt are.
 */
INL size_t
row_bytes(const struct mk_mdec_task *t, int dt, int Dc)
{
	return (size_t)(Dc ? Dc : t->D) * (dt == MK_F32 ? 4 : 2);
}

/*
 * Chunk c of a row (W elements) as f32, of which nv are read; for PAIRS,
 * odd says which of a pair c is (a constant where inlined: the loops walk
 * chunks from an even one).  Widening bf16 in order takes a shuffle per W
 * elements, on the same ports as the multiply-adds; a pair takes a shift
 * and a mask for 2W.
 */
INL VEC
vchunk(const char *row, int c, int odd, int dt, int nv)
{
	if (dt == PAIRS)
		return odd ? vbf16_odd(row + (size_t)(c - 1) * W * 2) :
		    vbf16_even(row + (size_t)c * W * 2);
	return vrow(row, c * W, dt, nv);
}

/*
 * The cache lines of the rb bytes at p (into L1, or L2 only), one
 * prefetch per 64 bytes from p
 * (a row that does not start on a line leaves its last line to the
 * loads: a hint, cheap, over exact and slower).
 */
INL void
prefetch_row(const char *p, size_t rb, int l2)
{
	size_t off;

#pragma GCC unroll 8
	for (off = 0; off < rb; off += 64)
		if (l2)		/* a constant where this is inlined */
			prefetch_l2(p + off);
		else
			prefetch(p + off);
}

INL void
prefetch_rows(const struct mk_mdec_task *t, const size_t *idx, int nb,
    size_t rb, int paged)
{
	const char *k, *v;
	size_t o, off;
	int j;

	for (j = 0; j < nb; j++) {
		o = row_off(t, idx[j], paged);
		k = (const char *)t->k + o;
		v = (const char *)t->v + o;
		/* every cache line the rows touch */
		for (off = 0; off < rb + ((uintptr_t)k & 63); off += 64)
			prefetch(k - ((uintptr_t)k & 63) + off);
		for (off = 0; off < rb + ((uintptr_t)v & 63); off += 64)
			prefetch(v - ((uintptr_t)v & 63) + off);
	}
}

/*
 * The rows read next, handed out a whole row at a time, evenly over the
 * steps of the scores' and the values' loops, so that the prefetches
 * spread over the block's arithmetic: issued in bursts, they wait for the
 * core's few miss buffers and hold the arithmetic behind them
 * (RESULTS.md: 0.54-0.69 of the read probe on one thread of the Xeon with
 * bursts, 0.80-0.92 spread).  A row at a time, not a line: the queue's
 * bookkeeping per line was half the instructions of the loops in cache
 * (RESULTS.md).  Into L1 go, while the scores are made, the block's own
 * V rows, and while the values are summed, the K rows of the block
 * computed next: each row comes half a block before it is read, so that
 * L1 holds a block's K or V rows and the next ones, not two whole blocks
 * (with blocks of 32 positions, the next block's K and V rows prefetched
 * during the whole block thrashed L1: one thread, bsz 8, 88 ms where
 * 16-position blocks took 83, paged 152-157 against 123, RESULTS.md).
 * Each queue: rows p[0], p[st], .. p[(n - 1) st], of which the first
 * ceil(s n / S) are handed out after s of its S steps (acc counts n a
 * step, S a row).
 */
struct pfrows {
	const char *const *p;
	int		 i, n, st, acc, S;
};

struct pfq {
	struct pfrows	 l1;	/* rows into L1 */
	struct pfrows	 l2;	/* rows into L2 only (stretch_slice's, or
				 * the next block's: one_block) */
	size_t		 rb;
};

/* n rows p[0], p[st], .. over S steps (p NULL: none). */
INL struct pfrows
pf_rows(const char *const *p, int n, int st, int S)
{
	return (struct pfrows){ p, 0, p == NULL ? 0 : n, st, S - 1, S };
}

/*
 * One step of the queue (l2: a constant where inlined).  It never hands
 * out a row past n: heads_block counts exactly the steps its loops take.
 */
INL void
pf_tick(struct pfrows *r, size_t rb, int l2)
{
	r->acc += r->n;
	while (r->acc >= r->S) {
		r->acc -= r->S;
		prefetch_row(r->p[r->i++ * r->st], rb, l2);
	}
}

INL void
pf_next(struct pfq *q)
{
	pf_tick(&q->l1, q->rb, 0);
	pf_tick(&q->l2, q->rb, 1);
}

/* The rows the steps did not hand out (none where they were counted). */
INL void
pf_rest(struct pfrows *r, size_t rb, int l2)
{
	while (r->i < r->n)
		prefetch_row(r->p[r->i++ * r->st], rb, l2);
}

/* W accumulators to a vector of scores, as qk_vec's group fills them. */
INL VEC
scores_of(const VEC *a, int GB)
{
	(void)GB;	/* a constant; unused where MIXQ is 0 */
#if MIXQ
	if (MIXED(GB))
		return vreduce4(a);
#endif
	return vreduce(a);
}

/*
 * qk_vec's chunks for PAIRS: a pair of chunks a step, each K row's 2W
 * elements loaded once and split (two chunks' steps of the prefetch
 * queue).
 */
INL void
qk_pairs(const float *const *qg, const char *const *kr, int j0, int nch,
    int GB, int GP, struct pfq *pq, VEC *a)
{
	const int PJ = W / GP;
	VEC qe[GBMAX], qo[GBMAX], ke, ko;
	int c, g, jj;

	for (c = 0; c < nch; c += 2) {
		if (SPREAD) {
			pf_next(pq);
			pf_next(pq);
		}
#pragma GCC unroll 4
		for (g = 0; g < GP; g++) {
			qe[g] = vload(qg[g] + (size_t)c * W);
			qo[g] = vload(qg[g] + (size_t)(c + 1) * W);
		}
#pragma GCC unroll 16
		for (jj = 0; jj < PJ; jj++) {
			ke = vbf16_even(kr[j0 + jj] + (size_t)c * W * 2);
			ko = vbf16_odd(kr[j0 + jj] + (size_t)c * W * 2);
#pragma GCC unroll 4
			for (g = 0; g < GP; g++) {
				a[AIX(GB, PJ, g, jj)] = vfma(qe[g], ke,
				    a[AIX(GB, PJ, g, jj)]);
				a[AIX(GB, PJ, g, jj)] = vfma(qo[g], ko,
				    a[AIX(GB, PJ, g, jj)]);
			}
		}
	}
}

/*
 * Scores of positions j0 .. j0+PJ-1 for the heads of q (GB real ones, GP
 * computed: 1, 2 or 4): one vector, lane g * PJ + jj for head g, position
 * j0 + jj.
 */
INL VEC
qk_vec(const float *q, int ld, const char *const *kr, int j0, int nch,
    int tail, int dt, int GB, int GP, struct pfq *pq)
{
	const int PJ = W / GP;
	VEC a[W], qv[GBMAX], kv;
	const float *qg[GBMAX];
	int c, g, jj, nv;

#pragma GCC unroll 16
	for (c = 0; c < W; c++)
		a[c] = vzero();
#pragma GCC unroll 4
	for (g = 0; g < GP; g++)	/* a head computed for nothing: any q */
		qg[g] = q + (size_t)(g < GB ? g : 0) * ld;
	if (dt == PAIRS) {
		/* both halves of a pair at once: their row loaded once */
		qk_pairs(qg, kr, j0, nch, GB, GP, pq, a);
		return scores_of(a, GB);
	}
	for (c = 0; c < nch; c++) {
		nv = c == nch - 1 ? tail : W;
		if (SPREAD)
			pf_next(pq);
#pragma GCC unroll 4
		for (g = 0; g < GP; g++)
			qv[g] = vload(qg[g] + (size_t)c * W);
#pragma GCC unroll 16
		for (jj = 0; jj < PJ; jj++) {
			kv = vrow(kr[j0 + jj], c * W, dt, nv);
#pragma GCC unroll 4
			for (g = 0; g < GP; g++)
				a[AIX(GB, PJ, g, jj)] = vfma(qv[g], kv,
				    a[AIX(GB, PJ, g, jj)]);
		}
	}
	return scores_of(a, GB);
}

/*
 * acc[g][c0*W ..] += sum over the block's positions of p[g][j] v_j.  All
 * BLK positions: past nb, p is 0 (their scores were -inf) and the row is
 * row 0 again, so the loop has no variable bound and p's places are
 * constants: head g, position j is lane g * PJ + j % PJ of vector j / PJ.
 */
INL void
pv_step(float *acc, int ld, const float *p, const char *const *vr, int c0,
    int nch, int tail, int dt, int GB, int PJ, int CB, struct pfq *pq)
{
	VEC a[GBMAX][8], pj[GBMAX], vv;
	int cb, g, r, jj;

#pragma GCC unroll 4
	for (g = 0; g < GB; g++)
#pragma GCC unroll 8
		for (cb = 0; cb < CB; cb++)
			a[g][cb] = vload(acc + (size_t)g * ld +
			    (size_t)(c0 + cb) * W);
	for (r = 0; r < BLK / PJ; r++, p += W, vr += PJ)
#pragma GCC unroll 16
		for (jj = 0; jj < PJ; jj++) {
			if (SPREAD && jj % (PJ / 2) == 0)	/* 2 steps */
				pf_next(pq);
#pragma GCC unroll 4
			for (g = 0; g < GB; g++)
				pj[g] = vset1(p[g * PJ + jj]);
#pragma GCC unroll 8
			for (cb = 0; cb < CB; cb++) {
				/* c0 is even: a multiple of CB */
				vv = vchunk(vr[jj], c0 + cb, cb & 1, dt,
				    c0 + cb == nch - 1 ? tail : W);
#pragma GCC unroll 4
				for (g = 0; g < GB; g++)
					a[g][cb] = vfma(pj[g], vv, a[g][cb]);
			}
		}
#pragma GCC unroll 4
	for (g = 0; g < GB; g++)
#pragma GCC unroll 8
		for (cb = 0; cb < CB; cb++)
			vstore(acc + (size_t)g * ld + (size_t)(c0 + cb) * W,
			    a[g][cb]);
}

/* Per-call scratch, carved out of t->work (MK_MDEC_WORK floats). */
struct scratch {
	float	*p;		/* [BLK / PJ][W] probabilities of the block */
	float	*lsum;		/* [G / GBMAX + 1][W] running sums, per lane */
	float	*mv;		/* [G / GBMAX + 1][W] running maxima, per lane */
	float	*s;		/* [BLK / PJ][W] scores, for the rare paths */
	const float *q;		/* [G][ld] q, its elements in the order the
				 * chunks hold them (t->q, or for PAIRS a
				 * copy) */
};

/*
 * The rare path: some score of the vector s (heads g0.., PJ positions
 * each) passed its head's running maximum by TAU.  Per head, move the
 * maximum to the vector's and rescale what was summed so far: the
 * accumulators and the sums (a block's probabilities are made after all
 * its maxima moved).
 */
static void
new_max(const struct mk_mdec_task *t, const float *s, int g0, int GB,
    int PJ, float *mv, float *ls)
{
	float bm, alpha, *row;
	int g, j, c;

	for (g = 0; g < GB; g++) {
		bm = -INFINITY;
		for (j = 0; j < PJ; j++)
			bm = fmaxf(bm, s[g * PJ + j]);
		if (!(bm > mv[g * PJ] + TAU))
			continue;
		alpha = mv[g * PJ] - bm < -125.0f ? 0.0f :
		    exp2f(mv[g * PJ] - bm);
		row = t->acc + (size_t)(g0 + g) * t->ld;
		for (c = 0; c < t->ld; c++)
			row[c] *= alpha;
		for (j = 0; j < PJ; j++) {
			ls[g * PJ + j] *= alpha;
			mv[g * PJ + j] = bm;
		}
		t->m[g0 + g] = bm;
	}
}

/*
 * Everything the heads g0 .. g0+GB-1 do with one block of nb rows: per
 * vector of scores, the (rarely) moved maxima, the probabilities and
 * their sums; then the values.  own: the first heads of the block, which
 * bring its V rows into L1 (the group's later heads find them there).
 */
INL void
heads_block(const struct mk_mdec_task *t, struct scratch *w, int g0,
    int GB, const char *const *kr, const char *const *vr, int nb, int dt,
    const char *const *pf, const char *const *ff, size_t rb, int Dc,
    int own)
{
	const int GP = GB == 3 ? 4 : GB, PJ = W / GP, NV = BLK / PJ;
	const int D = Dc ? Dc : t->D, ld = Dc ? (Dc + 15) & ~15 : t->ld;
	const int nch = (D + W - 1) / W, tail = D - (nch - 1) * W;
	const int CB = ACCS / GP < 8 ? ACCS / GP : 8;
	float *mv = w->mv + g0 / GBMAX * W, *ls = w->lsum + g0 / GBMAX * W;
	float *acc = t->acc + (size_t)g0 * ld;
	VEC s[4 * BLK / W], m = vload(mv), l = vload(ls);
	/* steps of the scores' loop, of the values' loops */
	const int S1 = NV * nch, S2 = (nch + CB - 1) / CB * NV * 2;
	struct pfq pq = { pf_rows(vr, SPREAD && own ? BLK : 0, 1, S1),
	    pf_rows(ff, SPREAD ? 2 * BLK : 0, 1, S1 + S2), rb };
	int r, j, c0;

	/*
	 * Every score vector of the block first, then the maxima, then the
	 * exponentials side by side: each exponential is a long chain that
	 * the others' arithmetic now hides (one after each vector of scores
	 * left the chains bare: 15.5-15.9 -> 14.1-14.3 ns a position in
	 * cache, RESULTS.md).
	 */
	for (r = 0; r < NV; r++) {
		if (!SPREAD && pf != NULL)	/* PJ positions' rows */
#pragma GCC unroll 16
			for (j = r * PJ; j < r * PJ + PJ; j++) {
				prefetch_row(pf[2 * j], rb, 0);
				prefetch_row(pf[2 * j + 1], rb, 0);
			}
		if (!SPREAD && ff != NULL)
#pragma GCC unroll 16
			for (j = r * PJ; j < r * PJ + PJ; j++) {
				prefetch_row(ff[2 * j], rb, 1);
				prefetch_row(ff[2 * j + 1], rb, 1);
			}
		/* w->q is the walk's copy of q (PAIRS' order, MIXQ's
		 * mixing); elsewhere t->q itself is read (f16 avx2 ran 7 %
		 * slower in cache through w->q) */
		s[r] = qk_vec((dt == PAIRS || MIXQ ? w->q : t->q) +
		    (size_t)g0 * ld,
		    ld, kr, r * PJ, nch, tail, dt, GB, GP, &pq);
	}
	for (r = 0; r < NV; r++) {
		if (nb < BLK) {	/* the last block of a piece: no rows past nb */
			vstore(w->s, s[r]);
			for (j = 0; j < W; j++)
				if (r * PJ + j % PJ >= nb)
					w->s[j] = -INFINITY;
			s[r] = vload(w->s);
		}
		if (vany_gt(s[r], m + vset1(TAU))) {
			vstore(w->s, s[r]);
			vstore(ls, l);
			new_max(t, w->s, g0, GB, PJ, mv, ls);
			m = vload(mv);
			l = vload(ls);
		}
	}
	for (r = 0; r < NV; r++) {
		s[r] = vexp2(s[r] - m);
		vstore(w->p + r * W, s[r]);
		l = l + s[r];
	}
	vstore(ls, l);
	pf_rest(&pq.l1, rb, 0);
	pq.l1 = pf_rows(pf, SPREAD ? BLK : 0, 2, S2);
	for (c0 = 0; c0 < nch; c0 += CB)
		switch (nch - c0 < CB ? nch - c0 : CB) {
		case 8: pv_step(acc, ld, w->p, vr, c0, nch, tail, dt, GB, PJ,
			    8, &pq); break;
		case 7: pv_step(acc, ld, w->p, vr, c0, nch, tail, dt, GB, PJ,
			    7, &pq); break;
		case 6: pv_step(acc, ld, w->p, vr, c0, nch, tail, dt, GB, PJ,
			    6, &pq); break;
		case 5: pv_step(acc, ld, w->p, vr, c0, nch, tail, dt, GB, PJ,
			    5, &pq); break;
		case 4: pv_step(acc, ld, w->p, vr, c0, nch, tail, dt, GB, PJ,
			    4, &pq); break;
		case 3: pv_step(acc, ld, w->p, vr, c0, nch, tail, dt, GB, PJ,
			    3, &pq); break;
		case 2: pv_step(acc, ld, w->p, vr, c0, nch, tail, dt, GB, PJ,
			    2, &pq); break;
		default: pv_step(acc, ld, w->p, vr, c0, nch, tail, dt, GB, PJ,
			    1, &pq); break;
		}
	pf_rest(&pq.l1, rb, 0);
	pf_rest(&pq.l2, rb, 1);
}

/*
 * The rows probe's rows rows[0..nb): a load per W floats (their bits
 * xored into *a, no arithmetic on them), prefetching row j of pr (stride
 * st; NULL: none) and 2 of ff (NULL: none) with row j.
 */
INL void
read_rows(const char *const *rows, int nb, size_t rb, VEC *a,
    const char *const *pr, int st, const char *const *ff)
{
	const int nf = (int)(rb / 4);	/* whole floats of a row */
	int j, c;

	for (j = 0; j < nb; j++) {
		if (pr != NULL)
			prefetch_row(pr[j * st], rb, 0);
		if (ff != NULL) {
			prefetch_row(ff[2 * j], rb, 1);
			prefetch_row(ff[2 * j + 1], rb, 1);
		}
		for (c = 0; c < nf; c += W)
			*a = vxor(*a, vrow(rows[j], c, MK_F32, nf - c < W ?
			    nf - c : W));
	}
}

/*
 * The rows probe's block: every K row, then every V row, with the
 * prefetches the kernel issues in the same order (pf: the next block's
 * rows, K and V alternating, or NULL).
 */
INL void
read_block(const struct mk_mdec_task *t, const char *const *kr,
    const char *const *vr, int nb, const char *const *pf,
    const char *const *ff, size_t rb)
{
	VEC a = vload(t->acc);

	if (SPREAD) {
		read_rows(kr, nb, rb, &a, vr, 1, ff);
		read_rows(vr, nb, rb, &a, pf, 2, NULL);
	} else {
		read_rows(kr, nb, rb, &a, pf, 2, ff);
		read_rows(vr, nb, rb, &a, pf == NULL ? NULL : pf + 1, 2,
		    NULL);
	}
	vstore(t->acc, a);
}

/*
 * In a paged cache the walks side by side read a block of positions head
 * by head (rows of D elements, KH of them apart) and jump to a random
 * page every block.  Memory serves that order slowly on some machines
 * (one thread of the Zen 5 VM, tests/bench/pagedfloor.c: 0.42 of a
 * row-by-row read with these prefetches, 0.32 without; the Xeon: no
 * slower, and there these prefetches cost 4-19 %, RESULTS.md), so where
 * the task says so (t->l2: the kernel table's paged_l2) the next block's
 * pages (all kv heads, BLK KH rows) are also brought into L2 in address
 * order, walk h of KH taking rows h BLK .. h BLK + BLK - 1 of them: rows
 * ff[0..2*BLK), K and V alternating, of the stretch that starts at
 * position pos.  The rows each walk reads next still come into L1 as
 * before.  (For [B, M, KH, D], whose stretches follow each other, the
 * hardware prefetchers do this already: 10 % slower with it.)  Returns
 * 0, ff unfilled, where walk h has no slice (h not below KH).
 */
INL int
stretch_slice(const struct mk_mdec_task *t, size_t pos, int h, size_t rb,
    int paged, const char **ff)
{
	/* t->k points h rows of rb bytes into each position */
	const size_t kh = t->ps / rb, lo = (size_t)h * BLK;
	const char *kb, *vb;
	size_t o, r = 0, a, b;	/* r: rows of the pages before this run */
	int i, run;

	if (lo + BLK > kh * BLK)
		return 0;
	for (i = 0; i < BLK && r < lo + BLK; i += run, r += (size_t)run * kh) {
		run = run_of(t, pos + (size_t)i, BLK - i, paged);
		if (r + (size_t)run * kh <= lo)
			continue;
		o = row_off(t, pos + (size_t)i, paged) - (size_t)h * rb;
		kb = (const char *)t->k + o;
		vb = (const char *)t->v + o;
		a = r > lo ? r : lo;
		b = r + (size_t)run * kh < lo + BLK ? r + (size_t)run * kh :
		    lo + BLK;
		for (; a < b; a++) {
			ff[2 * (a - lo)] = kb + (a - r) * rb;
			ff[2 * (a - lo) + 1] = vb + (a - r) * rb;
		}
	}
	return 1;
}

/*
 * The block idx[0..nb); ahead[0..na) is the block whose rows to prefetch
 * into L1, in the rows of task at (t itself, or the walk computed next);
 * nxt[0..nn) the walk's own next block, whose stretch slice h (walk h of
 * walks side by side; -1: a walk alone) goes to L2 in a paged cache.
 * Where no slice goes to L2, the AVX-512 kernel brings the rows of ahead
 * into L2 as well, spread over the whole block: they are then asked for
 * a block before they are read, not half a block, and the L1 prefetches
 * find them in L2 (RESULTS.md: [B, KH, M, D] at bsz 8 14-21 % faster on
 * one and two threads of the Zen 5, 5-26 % on 1 to 16 threads of the
 * Xeon; the other layouts within noise or faster; 0.15-0.4 ns more a
 * position in cache).
 */
INL void
one_block(const struct mk_mdec_task *t, struct scratch *w, const size_t *idx,
    int nb, const struct mk_mdec_task *at, const size_t *ahead, int na,
    const size_t *nxt, int nn, int h, int dt, int paged, int Dc)
{
	const char *kr[BLK], *vr[BLK], *pf[2 * BLK], *const *p = pf;
	const char *ff[2 * BLK], *const *fp = NULL;
	const size_t rb = row_bytes(t, dt, Dc);
	int g0, GB;

	block_rows(t, idx, nb, paged, kr, vr, 1);
	if (na == 0)
		p = NULL;
	else
		block_rows(at, ahead, na, paged, pf, pf + 1, 2);
	if (paged && t->l2 && h >= 0 && stretch(nxt, nn) &&
	    stretch_slice(t, nxt[0], h, rb, paged, ff))
		fp = ff;
	else if (SPREAD)	/* the rows of p into L2 too, a block ahead */
		fp = p;
	if (t->rd) {
		read_block(t, kr, vr, nb, p, fp, rb);
		return;
	}
	for (g0 = 0; g0 < t->G; g0 += GB, p = NULL, fp = NULL) {
		GB = t->G - g0 < GBMAX ? t->G - g0 : GBMAX;
		switch (GB) {
		case 4: heads_block(t, w, g0, 4, kr, vr, nb, dt, p, fp, rb,
		    Dc, g0 == 0); break;
		case 3: heads_block(t, w, g0, 3, kr, vr, nb, dt, p, fp, rb,
		    Dc, g0 == 0); break;
		case 2: heads_block(t, w, g0, 2, kr, vr, nb, dt, p, fp, rb,
		    Dc, g0 == 0); break;
		default: heads_block(t, w, g0, 1, kr, vr, nb, dt, p, fp, rb,
		    Dc, g0 == 0); break;
		}
	}
}

/* The running sums of head g: the lanes of its group's vector it owns. */
static float
lane_sum(const float *ls, int GB, int g)
{
	const int GP = GB == 3 ? 4 : GB, PJ = W / GP;
	float s = 0;
	int j;

	for (j = 0; j < PJ; j++)
		s += ls[g * PJ + j];
	return s;
}

/*
 * One task's walk through its piece: its mask scan and two blocks, the
 * one computed and the next, whose rows are prefetched meanwhile (more
 * blocks ahead measured no faster, on both machines of RESULTS.md).
 */
struct walk {
	struct scan	 sc;
	struct scratch	 w;
	size_t		 idx[2][BLK];
	int		 nb[2];
	int		 done;
};

/*
 * For PAIRS: each 2W elements of q's rows [G][ld] from pairs into the
 * order of vchunk (to), or back (!to); tmp holds 2W floats.
 */
static void
pair_order(float *dst, const float *src, int G, int ld, int D, int to,
    float *tmp)
{
	int g, m, i;

	for (g = 0; g < G; g++)
		for (m = 0; m + 2 * W <= D; m += 2 * W) {
			const float *s = src + (size_t)g * ld + m;

			for (i = 0; i < W; i++) {
				if (to) {
					tmp[i] = s[2 * i];
					tmp[W + i] = s[2 * i + 1];
				} else {
					tmp[2 * i] = s[i];
					tmp[2 * i + 1] = s[W + i];
				}
			}
			memcpy(dst + (size_t)g * ld + m, tmp, 2 * W *
			    sizeof(float));
		}
}

/* The walk's start: its scratch, outputs, and first block in slot 0. */
INL void
walk_start(const struct mk_mdec_task *t, struct walk *k, int dt)
{
	const int ng = (t->G + GBMAX - 1) / GBMAX;
	int g, i;

	k->sc = (struct scan){ t->mask, t->n, 0, 0, 0 };
	k->done = 0;
	k->w.p = t->work;
	k->w.s = k->w.p + BLK * W;
	k->w.lsum = k->w.s + BLK * W;
	k->w.mv = k->w.lsum + (size_t)ng * W;
	k->w.q = t->q;
	if (dt == PAIRS || MIXQ) {	/* after mv: 64-byte aligned */
		float *cq = k->w.mv + (size_t)ng * W;

		if (dt == PAIRS)
			pair_order(cq, t->q, t->G, t->ld, t->D, 1, k->w.s);
		else
			memcpy(cq, t->q, (size_t)t->G * (size_t)t->ld *
			    sizeof(float));
#if MIXQ
		for (g = 0; g + GBMAX <= t->G; g += GBMAX)
			vmix4(cq + (size_t)g * t->ld, t->ld, (t->D + W - 1) / W);
#endif
		k->w.q = cq;
	}
	for (i = 0; i < ng * W; i++) {
		/* lanes of a head computed for nothing (a group of three):
		 * +inf, so that they never move a maximum and add 0 */
		g = t->G - i / W * GBMAX;
		g = g == 3 ? i % W >= 3 * (W / 4) : 0;
		k->w.lsum[i] = 0;
		k->w.mv[i] = g ? INFINITY : -INFINITY;
	}
	for (g = 0; g < t->G; g++) {
		t->m[g] = -INFINITY;
		memset(t->acc + (size_t)g * t->ld, 0,
		    (size_t)t->ld * sizeof(float));
	}
	/* Poisoned: an index read from a slot no scan filled points far out
	 * of any mapping, which the sanitizer builds report. */
	memset(k->idx, 0x7f, sizeof(k->idx));
	k->nb[0] = scan_block(&k->sc, k->idx[0]);
	k->nb[1] = 0;
}

/* Scans the walk's block after the one in slot cur into the other slot. */
INL void
walk_scan(struct walk *k, int cur)
{
	if (!k->done && k->nb[cur] != 0)
		k->nb[!cur] = scan_block(&k->sc, k->idx[!cur]);
}

/*
 * The walk's block in ring slot cur, if any left; whether there was.  It
 * prefetches the rows of the block of walk nk (task nt) in slot nc: its
 * own next block when it walks alone, else the next walk's, so that
 * walks side by side prefetch one block ahead of the reads too, not a
 * block of every walk (which would not stay in L1 until read).
 */
INL int
walk_step(const struct mk_mdec_task *t, struct walk *k,
    const struct mk_mdec_task *nt, const struct walk *nk, int cur, int nc,
    int h, int dt, int paged, int Dc)
{
	if (k->done || k->nb[cur] == 0) {
		k->done = 1;
		return 0;
	}
	one_block(t, &k->w, k->idx[cur], k->nb[cur], nt, nk->idx[nc],
	    nk->done ? 0 : nk->nb[nc], k->idx[!cur], k->nb[!cur], h, dt,
	    paged, Dc);
	return 1;
}

INL void
walk_end(const struct mk_mdec_task *t, const struct walk *k, int dt)
{
	int g, i;

	if (dt == PAIRS && !t->rd)	/* the sums back in order */
		pair_order(t->acc, t->acc, t->G, t->ld, t->D, 0, k->w.s);
	for (g = 0; g < t->G; g++) {
		i = g / GBMAX;
		t->l[g] = lane_sum(k->w.lsum + i * W, t->G - i * GBMAX <
		    GBMAX ? t->G - i * GBMAX : GBMAX, g % GBMAX);
		/* the lanes of a head that saw no position keep -inf */
		if (t->l[g] == 0)
			t->m[g] = -INFINITY;
	}
}

/*
 * The pieces t[0..n): the kv heads of one stretch of positions, walked
 * block by block side by side, so that where a position's heads are
 * neighbours in memory ([B, M, KH, D], paged) the reads go forward
 * through them together.  Dc is the head size when the caller knows it at
 * compile time (the common ones get loops without tails), else 0.
 */
INL void
pieces(const struct mk_mdec_task *t, int n, int dt, int paged, int Dc)
{
	const size_t rb = row_bytes(t, dt, Dc);
	struct walk k[MK_MDEC_GROUP];
	int cur, h, live;

	for (h = 0; h < n; h++) {
		walk_start(&t[h], &k[h], dt);
		if (h == 0)	/* the first walk's first block */
			prefetch_rows(t, k[0].idx[0], k[0].nb[0], rb, paged);
	}
	for (cur = 0, live = 1; live; cur = !cur) {
		for (h = 0; h < n; h++)
			walk_scan(&k[h], cur);
		for (h = 0, live = 0; h < n; h++)
			live |= walk_step(&t[h], &k[h], &t[(h + 1) % n],
			    &k[(h + 1) % n], cur, h + 1 < n ? cur : !cur,
			    n > 1 ? h : -1, dt, paged, Dc);
	}
	for (h = 0; h < n; h++)
		walk_end(&t[h], &k[h], dt);
}

/*
 * How rows of dtype dt are read at the head sizes the kernels know at
 * compile time (64, 128: whole pairs of vectors): bf16 by pairs.
 */
INL int
read_dt(int dt)
{
	return dt == MK_BF16 && 64 % (2 * W) == 0 ? PAIRS : dt;
}

INL void
mdec_kernel(const struct mk_mdec_task *t, int n, int dt)
{
	const int pd = read_dt(dt);
	int paged = t->blk != NULL;

	switch (t->D * 2 + paged) {
	case 128:	pieces(t, n, pd, 0, 64); break;
	case 129:	pieces(t, n, pd, 1, 64); break;
	case 256:	pieces(t, n, pd, 0, 128); break;
	case 257:	pieces(t, n, pd, 1, 128); break;
	default:	if (paged)
				pieces(t, n, dt, 1, 0);
			else
				pieces(t, n, dt, 0, 0);
			break;
	}
}

/*
 * The kernel's arithmetic alone, the floor --bench-kernel measures the
 * kernel against: every position of t's piece (no mask, no softmax, no
 * block bookkeeping) has its K and V rows widened once per W elements and
 * multiplied into the G heads' accumulators, 2 G D multiply-adds, in
 * ACCS independent chains (as many as the kernel's values step holds):
 * PH = ACCS / (2 GP) chunks in turn, each into chains of its own, so that
 * the chains' indices are constants for any D.
 * What the kernel does beyond this (scores reduced across lanes,
 * exponentials, row addresses, prefetches) is its overhead.
 */
INL void
arith_group(const struct mk_mdec_task *t, const float *q, int GP, int dt,
    int Dc, int pairs, VEC *a)
{
	const int D = Dc ? Dc : t->D, ld = Dc ? (Dc + 15) & ~15 : t->ld;
	const int nch = (D + W - 1) / W, tail = D - (nch - 1) * W;
	const char *kr = t->k, *vr = t->v;
	const int PH = ACCS / (2 * GP) > 0 ? ACCS / (2 * GP) : 1;
	/* PAIRS: whole pairs of chunks a step (a pair into one set of
	 * chains where only one fits); pairs is a constant where inlined,
	 * which keeps the chains' indices constants */
	const int PS = pairs && PH % 2 ? PH + 1 : PH, d = pairs ? PAIRS : dt;
	VEC pb[GBMAX], kv, vv;
	size_t i;
	int c, ph, g, nv, x;

#pragma GCC unroll 4
	for (g = 0; g < GP; g++)
		pb[g] = vset1(q[(size_t)g * ld] + 1.0f);
	for (i = 0; i < t->n; i++, kr += t->ps, vr += t->ps)
		for (c = 0; c < nch; c += PS)
#pragma GCC unroll 8
			for (ph = 0; ph < PS; ph++) {
				if (c + ph >= nch)
					break;
				nv = c + ph == nch - 1 ? tail : W;
				kv = vchunk(kr, c + ph, ph & 1, d, nv);
				vv = vchunk(vr, c + ph, ph & 1, d, nv);
				x = 2 * GP * (pairs ? ph % PH : ph);
#pragma GCC unroll 4
				for (g = 0; g < GP; g++) {
					a[x + g] = vfma(vload(q + (size_t)g *
					    ld + (size_t)(c + ph) * W), kv,
					    a[x + g]);
					a[x + GP + g] = vfma(pb[g], vv,
					    a[x + GP + g]);
				}
			}
}

INL void
arith(const struct mk_mdec_task *t, int dt, int Dc, int pairs)
{
	VEC a[ACCS];
	int c, g0, GB;

#pragma GCC unroll 16
	for (c = 0; c < ACCS; c++)
		a[c] = vzero();
	for (g0 = 0; g0 < t->G; g0 += GB) {
		GB = t->G - g0 < GBMAX ? t->G - g0 : GBMAX;
		switch (GB) {
		case 4: arith_group(t, t->q + (size_t)g0 * t->ld, 4, dt, Dc,
		    pairs, a); break;
		case 3: arith_group(t, t->q + (size_t)g0 * t->ld, 3, dt, Dc,
		    pairs, a); break;
		case 2: arith_group(t, t->q + (size_t)g0 * t->ld, 2, dt, Dc,
		    pairs, a); break;
		default: arith_group(t, t->q + (size_t)g0 * t->ld, 1, dt, Dc,
		    pairs, a); break;
		}
	}
#pragma GCC unroll 16
	for (c = 1; c < ACCS; c++)	/* kept: the sum of the chains */
		a[0] = a[0] + a[c];
	vstore(t->acc, a[0]);
}

void
MK_MDEC_NAME(arith)(const struct mk_mdec_task *t, int dt)
{
	/* rows read as the kernel reads them */
	const int pairs = read_dt(dt) == PAIRS;

	switch (t->D * 2 + pairs) {
	case 128:	arith(t, dt, 64, 0); break;
	case 129:	arith(t, dt, 64, 1); break;
	case 256:	arith(t, dt, 128, 0); break;
	case 257:	arith(t, dt, 128, 1); break;
	default:	arith(t, dt, 0, 0); break;
	}
}

void
MK_MDEC_NAME(f16)(const struct mk_mdec_task *t, int n)
{
	mdec_kernel(t, n, MK_F16);
}

void
MK_MDEC_NAME(bf16)(const struct mk_mdec_task *t, int n)
{
	mdec_kernel(t, n, MK_BF16);
}

void
MK_MDEC_NAME(f32)(const struct mk_mdec_task *t, int n)
{
	mdec_kernel(t, n, MK_F32);
}
