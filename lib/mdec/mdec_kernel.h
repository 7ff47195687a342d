/*
 * mdec_kernel.h - the SIMD decode-attention kernel, written once over a
 * handful of vector primitives.  mdec_avx2.h and mdec_avx512.h define the
 * primitives for their width; each mdec_<dtype>_<isa>.c includes one and
 * this file, which defines its entry point MK_MDEC_NAME(f16), (bf16),
 * (f32) or (fp8), and mdec_<isa>.c (arith), the arithmetic alone.
 *
 * The includer provides:
 *   VEC, W			vector type and its lanes (8 or 16)
 *   vzero(), vset1(x), vload(p), vstore(p, v)	aligned f32 loads/stores
 *   vfma(a, b, c)		a * b + c
 *   vmul(a, b)
 *   vxor(a, b)			bitwise exclusive or
 *   vrow(p, off, dt, nv, cv)	elements off.. of a K/V row of dtype dt as
 *				f32; only nv (1..W) are read, the rest are 0;
 *				for dt MK_U8 (FP8 bytes) cv, of
 *   CVT, vcvt(fmt)		what an FP8 format's widening needs (fmt:
 *				enum mk_fp8), made once a block
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
 *	shuffles and adds, not 45);
 *   softmax: the block's score vectors hold all the group's heads, so the
 *	exponentials of several heads run side by side, against a vector of
 *	running maxima (each head's in its lanes), once every score vector
 *	of the block is made; the maximum moves only when a score passes it
 *	by TAU, so rescaling is rare;
 *   values: the weighted V rows are added into accumulators held in
 *	registers for the whole block, a pass per register-full of dims.
 * A bf16 cache whose head size is a whole number of pairs of vectors is
 * widened 2W elements at a time (PAIRS: one widening for two vectors,
 * measured faster in cache): chunk 2m of a row holds the even elements
 * of its 2W from 2mW, chunk 2m+1 the odd ones; q is copied into the same
 * order at the walk's start, which keeps every dot product, and the
 * accumulators, summed in that order, are put back in order at its end.
 * K and V rows are found by arithmetic: position i of the piece is at
 * k + i * ps, or in a paged cache at the block of the sequence's table
 * that holds it; a block of consecutive positions in one stretch, from
 * its first row by the stride.  While a block is computed, the rows read
 * next are prefetched: the piece's next block, or where pieces are walked
 * side by side, the next piece's block (faster for [B, M, KH, D] and
 * paged caches than each walk's own next block, whose rows lie apart), and
 * in a paged cache also the next page of all the pieces into L2 in
 * address order (stretch_slice).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/dtype.h"
#include "base/fp8.h"
#include "mdec/mdec.h"

#ifndef MIXQ		/* the includer has vmix4 and vreduce4 */
#define MIXQ	0
#endif

#define BLK	MK_MDEC_BLOCK
#define GBMAX	4		/* query heads per register block */
#define INL	static inline __attribute__((always_inline))
/* the walk's rare or once-a-walk paths: not inlined, and unused in the
 * file of the arithmetic floor */
#define RARE	static __attribute__((unused))
#define TAU	8.0f		/* log2 units the maximum may lag behind */
#define PAIRS	(MK_NDTYPE + 1)	/* bf16 widened 2W at a time (dt) */
/* whether a group of GB heads reads vmix4's q (a constant where used) */
#define MIXED(GP)	(MIXQ && (GP) == 4)
/*
 * A walk copies q into tiles, so that a chunk's loads come from one
 * pointer at constant offsets (q's rows by their run-time stride left
 * the compiler short of registers, and bf16 on AVX2 measurably slower):
 * for each group of GBMAX rows (a group of fewer padded with zeros), for
 * each chunk c, the rows' chunks side by side, W floats each, in the
 * order vchunk reads the elements.  QT: row g's chunk c in group tiles qt.
 */
#define QT(qt, c, g)	((qt) + ((size_t)(c) * GBMAX + (size_t)(g)) * W)
/* the accumulator of q row g (head g, or vmix4's row g), position jj */
#define AIX(GP, PJ, g, jj)	(MIXED(GP) ? 4 * (jj) + (g) : \
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
 * word; if so they go into idx (a dense stretch then costs no scan step a
 * position, where going bit by bit did).
 */
INL int
whole_block(struct scan *s, size_t *idx)
{
	const uint64_t ones = ((uint64_t)1 << BLK) - 1;
	size_t first;
	int tz, c;

	if (s->bits == 0)
		return 0;
	tz = __builtin_ctzll(s->bits);
	if (tz + BLK > 64 || (~s->bits >> tz & ones) != 0)
		return 0;
	/* a local: s->base read once, not after every store to idx */
	first = s->base + (size_t)tz;
	for (c = 0; c < BLK; c++)
		idx[c] = first + (size_t)c;
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

/*
 * Byte offset of piece position i in K (and V): dense or paged (a
 * branch, not a copy of the kernel per layout: it is taken once a
 * stretch of a block, and the copies cost half the build).
 */
INL size_t
row_off(const struct mk_mdec_task *t, size_t i)
{
	size_t b;

	if (t->blk == NULL)
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
run_of(const struct mk_mdec_task *t, size_t i, int lim)
{
	size_t left;

	if (t->blk == NULL)
		return lim;
	left = (page_of(t, i) + 1) * (size_t)t->bs - (t->p0 + i);
	return left < (size_t)lim ? (int)left : lim;
}

/*
 * The K and V rows of the BLK positions idx[0..n) into k[j * st] and
 * v[j * st] (rows past n repeat row 0: read, computed, then ignored).  A
 * whole block of consecutive positions is found by adding the row stride
 * along each stretch of memory it spans (dense: one; paged: a page each),
 * not by a lookup a row (the lookup's loads cost the hottest loop time).
 */
INL void
block_rows(const struct mk_mdec_task *t, const size_t *idx, int n,
    const char **k, const char **v, int st)
{
	const char *kb, *vb;
	size_t o;
	int j, e, run;

	if (stretch(idx, n) && t->blk == NULL) {	/* one stretch */
		kb = (const char *)t->k + idx[0] * t->ps;
		vb = (const char *)t->v + idx[0] * t->ps;
		for (j = 0; j < BLK; j++, kb += t->ps, vb += t->ps) {
			k[j * st] = kb;
			v[j * st] = vb;
		}
		return;
	}
	if (stretch(idx, n)) {
		for (j = 0; j < BLK; j += run) {
			run = run_of(t, idx[0] + (size_t)j, BLK - j);
			o = row_off(t, idx[0] + (size_t)j);
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
		o = row_off(t, idx[j < n ? j : 0]);
		k[j * st] = (const char *)t->k + o;
		v[j * st] = (const char *)t->v + o;
	}
}

/* Bytes of an element of K or V (dt MK_U8: FP8). */
INL size_t
elem_bytes(int dt)
{
	return dt == MK_F32 ? 4 : dt == MK_U8 ? 1 : 2;
}

/* Bytes of a K or V row. */
INL size_t
row_bytes(const struct mk_mdec_task *t, int dt)
{
	return (size_t)t->D * elem_bytes(dt);
}

/*
 * Chunk c of a row (W elements) as f32, of which nv are read; for PAIRS,
 * and for FP8 where FP8_PAIRS, odd says which of a pair c is (a constant
 * where inlined: the loops walk chunks from an even one), or is -1 where
 * c has no pair (a tail, or FP8's last chunk of an odd number).  Widening
 * bf16 in order takes a shuffle per W elements, on the same ports as the
 * multiply-adds; a pair takes a shift and a mask for 2W.
 */
INL VEC
vchunk(const char *row, int c, int odd, int dt, int nv, CVT cv)
{
	if (dt == PAIRS)
		return odd == 1 ? vbf16_odd(row + (size_t)(c - 1) * W * 2) :
		    vbf16_even(row + (size_t)c * W * 2);
	if (dt == MK_U8 && FP8_PAIRS && odd >= 0)
		return vfp8_half(row + (size_t)(c - odd) * W, odd, cv);
	return vrow(row, c * W, dt, nv, cv);
}

/*
 * How a row's cache lines are prefetched: the row's bytes, and the
 * offsets of its second, third and fourth lines, clamped to its last line
 * (a row of fewer lines asks for its last one again: cheaper than a branch
 * or a loop a line, in the hottest loops).  The row's size is a run-time
 * value; a loop a line added instructions to the hottest loop on AVX2,
 * and a jump into a run of prefetches mispredicted on the Xeon.
 */
struct rowpf {
	size_t	rb, o1, o2, o3;
};

INL struct rowpf
row_pf(size_t rb)
{
	const size_t last = rb > 64 ? (rb - 1) & ~(size_t)63 : 0;

	return (struct rowpf){ rb, last < 64 ? last : 64,
	    last < 128 ? last : 128, last < 192 ? last : 192 };
}

#define PREF(p, l2)	do {						\
		if (l2)		/* a constant where inlined */		\
			prefetch_l2(p);					\
		else							\
			prefetch(p);					\
	} while (0)

/*
 * The cache lines of the row at p (into L1, or L2 only), one prefetch per
 * 64 bytes from p (a row that does not start on a line leaves its last
 * line to the loads: a hint, cheap, over exact and slower).
 */
INL void
prefetch_row(const char *p, const struct rowpf *r, int l2)
{
	size_t off;

	PREF(p, l2);
	/* where the row's size is known when compiled, its repeated last
	 * line is asked for once (a row of 128 bytes: two prefetches, not
	 * four) */
	if (!__builtin_constant_p(r->o1) || r->o1 != 0)
		PREF(p + r->o1, l2);
	if (!__builtin_constant_p(r->o2 != r->o1) || r->o2 != r->o1)
		PREF(p + r->o2, l2);
	if (!__builtin_constant_p(r->o3 != r->o2) || r->o3 != r->o2)
		PREF(p + r->o3, l2);
	for (off = 256; off < r->rb; off += 64)
		PREF(p + off, l2);
}

INL void
prefetch_rows(const struct mk_mdec_task *t, const size_t *idx, int nb,
    size_t rb)
{
	const char *k, *v;
	size_t o, off;
	int j;

	for (j = 0; j < nb; j++) {
		o = row_off(t, idx[j]);
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
 * bursts, 0.80-0.92 spread; rows handed out at fixed points of each
 * vector of scores, two to six at a time, read at 0.72-0.75 where the
 * even spread reads at 0.89).  A row at a time, not a line: the queue's
 * bookkeeping per line was half the instructions of the loops in cache
 * (RESULTS.md).  Into L1 go, while the scores are made, the block's own
 * V rows, and while the values are summed, the K rows of the block
 * computed next: each row comes half a block before it is read, so that
 * L1 holds a block's K or V rows and the next ones, not two whole blocks
 * (with blocks of 32 positions, the next block's K and V rows prefetched
 * during the whole block thrashed L1, measurably slower on one thread).
 * Each queue: rows p[0], p[st], .. p[(n - 1) st], of which the first
 * ceil(s n / S) are handed out after s of its S steps (acc counts n a
 * step, S a row).  Where the head size is known when compiled, so are n
 * and S, and the compiler folds the bookkeeping away.
 */
struct pfrows {
	const char *const *p;
	int		 i, n, st, acc, S;
};

struct pfq {
	struct pfrows	 l1;	/* rows into L1 */
	struct pfrows	 l2;	/* rows into L2 only (stretch_slice's, or
				 * the next block's: one_block) */
	struct rowpf	 rp;
};

/* n rows p[0], p[st], .. over S steps (SPREAD 0: none). */
INL struct pfrows
pf_rows(const char *const *p, int n, int st, int S)
{
	return (struct pfrows){ p, 0, SPREAD ? n : 0, st, S - 1, S };
}

/*
 * One step of the queue (l2: a constant where inlined).  It never hands
 * out a row past n: heads_block counts exactly the steps its loops take.
 */
INL void
pf_tick(struct pfrows *r, const struct rowpf *rp, int l2)
{
	r->acc += r->n;
	while (r->acc >= r->S) {
		r->acc -= r->S;
		prefetch_row(r->p[r->i++ * r->st], rp, l2);
	}
}

INL void
pf_next(struct pfq *q)
{
	pf_tick(&q->l1, &q->rp, 0);
	pf_tick(&q->l2, &q->rp, 1);
}

/* The rows the steps did not hand out (none where they were counted). */
INL void
pf_rest(struct pfrows *r, const struct rowpf *rp, int l2)
{
	while (r->i < r->n)
		prefetch_row(r->p[r->i++ * r->st], rp, l2);
}

/* W accumulators to a vector of scores, as qk_chunk fills them. */
INL VEC
scores_of(const VEC *a, int GP)
{
	(void)GP;	/* a constant; unused where MIXQ is 0 */
#if MIXQ
	if (MIXED(GP))
		return vreduce4(a);
#endif
	return vreduce(a);
}

/*
 * Chunk c of the scores of positions j0 .. j0+PJ-1 (nv of its W elements
 * read) into the accumulators: each K chunk widened once and multiplied
 * with the GP q rows of the group's tiles qt (QT below).
 */
INL void
qk_chunk(const float *qt, const char *const *kr, int j0, int c, int nv,
    int dt, int GP, int GQ, CVT cv, VEC *a)
{
	const int PJ = W / GP;
	VEC qv[GBMAX], kv;
	int g, jj;

#pragma GCC unroll 4
	for (g = 0; g < GP; g++)
		qv[g] = vload(QT(qt, c, g < GQ ? g : 0));
#pragma GCC unroll 16
	for (jj = 0; jj < PJ; jj++) {
		kv = vrow(kr[j0 + jj], c * W, dt, nv, cv);
#pragma GCC unroll 4
		for (g = 0; g < GP; g++)
			a[AIX(GP, PJ, g, jj)] = vfma(qv[g], kv,
			    a[AIX(GP, PJ, g, jj)]);
	}
}

/*
 * The same for PAIRS and FP8_PAIRS: chunks c and c + 1, each K row's 2W
 * elements loaded once and split.
 */
INL void
qk_pair(const float *qt, const char *const *kr, int j0, int c, int dt,
    int GP, int GQ, CVT cv, VEC *a)
{
	const int PJ = W / GP;
	VEC qe[GBMAX], qo[GBMAX], ke, ko;
	int g, jj;

#pragma GCC unroll 4
	for (g = 0; g < GP; g++) {
		qe[g] = vload(QT(qt, c, g < GQ ? g : 0));
		qo[g] = vload(QT(qt, c + 1, g < GQ ? g : 0));
	}
#pragma GCC unroll 16
	for (jj = 0; jj < PJ; jj++) {
		ke = vchunk(kr[j0 + jj], c, 0, dt, W, cv);
		ko = vchunk(kr[j0 + jj], c + 1, 1, dt, W, cv);
#pragma GCC unroll 4
		for (g = 0; g < GP; g++) {
			a[AIX(GP, PJ, g, jj)] = vfma(qe[g], ke,
			    a[AIX(GP, PJ, g, jj)]);
			a[AIX(GP, PJ, g, jj)] = vfma(qo[g], ko,
			    a[AIX(GP, PJ, g, jj)]);
		}
	}
}

/*
 * UNSEEN(p): on AVX-512 (SPREAD), whose loops over a head size known when
 * compiled are unrolled whole, p becomes a value the compiler cannot
 * follow, so that what is read through it is read again where it is used
 * rather than hoisted out of the loops into registers: hoisted, q's tiles
 * (G 2 D 128: 16 vectors) and the rows' pointers (G 1: 16, which went
 * through vector registers, VMOVQ on the multiply-adds' ports) took what
 * the K rows needed, spilled (G 1 D 128 in cache 1.1-1.23x 4bc270a's
 * time, RESULTS.md).  AVX2 loops over chunks and keeps p.
 */
#define UNSEEN(p)	do {						\
		if (SPREAD)						\
			__asm__("" : "+r"(p));				\
	} while (0)

/* The row pointers from p[j0], read again a chunk (UNSEEN). */
INL const char *const *
rows_again(const char *const *p, int j0)
{
	if (!SPREAD)
		return p;
	p += j0;
	UNSEEN(p);
	return p;
}

/* The index of position j0 in rows_again's rows. */
#define RJ(j0)	(SPREAD ? 0 : (j0))

/*
 * Scores of positions j0 .. j0+PJ-1 for the GP q rows of the tiles qt
 * over D elements: one vector, lane g * PJ + jj for row g, position
 * j0 + jj.
 * The head size is a run-time bound: whole chunks, then the tail.
 */
INL VEC
qk_vec(const float *qt, const char *const *kr, int j0, int D, int dt,
    int GP, int GQ, int Dc, CVT cv, struct pfq *pq)
{
	const int nfull = D / W, tail = D % W;
	VEC a[W];
	int c, u;

#pragma GCC unroll 16
	for (c = 0; c < W; c++)
		a[c] = vzero();
	/* D a whole number of pairs: no tail */
	if (dt == PAIRS || (dt == MK_U8 && FP8_PAIRS && Dc % (2 * W) == 0 &&
	    Dc)) {
#pragma GCC unroll 8
		for (c = 0; c < nfull; c += 2) {
			if (SPREAD) {
				pf_next(pq);
				pf_next(pq);
			}
			qk_pair(qt, rows_again(kr, j0), RJ(j0), c, dt, GP, GQ,
			    cv, a);
		}
		return scores_of(a, GP);
	}
	if (Dc && SPREAD) {	/* all chunks unrolled: the queue folded
				 * (not on AVX2, which has no queue: slower there) */
#pragma GCC unroll 16
		for (c = 0; c < nfull; c++) {
			if (SPREAD)
				pf_next(pq);
			qk_chunk(qt, rows_again(kr, j0), RJ(j0), c, W, dt,
			    GP, GQ, cv, a);
		}
		return scores_of(a, GP);
	}
	c = 0;
	if (dt == MK_U8 && FP8_PAIRS)	/* two chunks widened at once */
#pragma GCC unroll 2
		for (; c + 2 <= nfull; c += 2) {
			if (SPREAD) {
				pf_next(pq);
				pf_next(pq);
			}
			qk_pair(qt, kr, j0, c, dt, GP, GQ, cv, a);
		}
	/* four chunks a step: a loop a chunk cost G 3 more instructions
	 * than the loop of a head size known when compiled */
	for (; c + 4 <= nfull; c += 4)
#pragma GCC unroll 4
		for (u = 0; u < 4; u++) {
			if (SPREAD)
				pf_next(pq);
			qk_chunk(qt, kr, j0, c + u, W, dt, GP, GQ, cv, a);
		}
	for (; c < nfull; c++) {
		if (SPREAD)
			pf_next(pq);
		qk_chunk(qt, kr, j0, c, W, dt, GP, GQ, cv, a);
	}
	if (tail) {
		if (SPREAD)
			pf_next(pq);
		qk_chunk(qt, kr, j0, nfull, tail, dt, GP, GQ, cv, a);
	}
	return scores_of(a, GP);
}

/*
 * acc[g][c0*W ..] += sum over the block's positions of p[g][j] v_j, for
 * the NR rows g and CB chunks from c0 (of which the last reads nv
 * elements), with PJ positions a vector of p.  All BLK
 * positions: past nb, p is 0 (their scores were -inf) and the row is row
 * 0 again, so the loop has no variable bound and p's places are
 * constants: row g, position j is lane g * PJ + j % PJ of vector j / PJ.
 * For PAIRS c0 is even (pv_values's passes of 2 or more chunks come
 * first, and a row of pairs has an even number of chunks); so is it in
 * any pass of 2 or more chunks, whose chunks FP8_PAIRS widens by pairs.
 */
INL void
pv_step(float *const *acc, const float *p, const char *const *vr, int c0,
    int nv, int dt, int NR, int PJ, int CB, CVT cv, struct pfq *pq)
{
	VEC a[GBMAX][8], pj[GBMAX], vv;
	int cb, g, r, jj;

#pragma GCC unroll 4
	for (g = 0; g < NR; g++)
#pragma GCC unroll 8
		for (cb = 0; cb < CB; cb++)
			a[g][cb] = vload(acc[g] + (size_t)(c0 + cb) * W);
	for (r = 0; r < BLK / PJ; r++, p += W, vr += PJ)
#pragma GCC unroll 16
		for (jj = 0; jj < PJ; jj++) {
			if (SPREAD && jj % (PJ / 2) == 0)	/* 2 steps */
				pf_next(pq);
#pragma GCC unroll 4
			for (g = 0; g < NR; g++)
				pj[g] = vset1(p[g * PJ + jj]);
#pragma GCC unroll 8
			for (cb = 0; cb < CB; cb++) {
				vv = vchunk(vr[jj], c0 + cb, CB > 1 ? cb & 1 :
				    -1, dt, cb == CB - 1 ? nv : W, cv);
#pragma GCC unroll 4
				for (g = 0; g < NR; g++)
					a[g][cb] = vfma(pj[g], vv, a[g][cb]);
			}
		}
#pragma GCC unroll 4
	for (g = 0; g < NR; g++)
#pragma GCC unroll 8
		for (cb = 0; cb < CB; cb++)
			vstore(acc[g] + (size_t)(c0 + cb) * W, a[g][cb]);
}

/*
 * Chunks a pass of the values holds in registers for NR rows: a power of
 * two, at most 8, filling the ACCS accumulators as far as it can.
 */
#define CBMAX(NR)	(ACCS / (NR) >= 8 ? 8 : ACCS / (NR) >= 4 ? 4 : \
			    ACCS / (NR) >= 2 ? 2 : 1)
_Static_assert(CBMAX(3) == CBMAX(4), "three rows take four's passes");

/*
 * The values of a block for NR rows over a row of D elements: passes of CB
 * chunks, each holding CB accumulators a row in registers.  CB runs down
 * the powers of two from CBMAX, so that any head size takes at most one
 * pass of each smaller size (a copy of pv_step per size from 1 to 8 cost a
 * third of the build), then the tail.
 */
INL void
pv_values(float *const *acc, const float *p, const char *const *vr, int D,
    int dt, int NR, int PJ, CVT cv, struct pfq *pq)
{
	const int CBM = CBMAX(NR), nfull = D / W, tail = D % W;
	int c0 = 0;

	for (; c0 + CBM <= nfull; c0 += CBM)
		pv_step(acc, p, vr, c0, W, dt, NR, PJ, CBM, cv, pq);
	if (CBM > 4 && c0 + 4 <= nfull) {
		pv_step(acc, p, vr, c0, W, dt, NR, PJ, 4, cv, pq);
		c0 += 4;
	}
	if (CBM > 2 && c0 + 2 <= nfull) {
		pv_step(acc, p, vr, c0, W, dt, NR, PJ, 2, cv, pq);
		c0 += 2;
	}
	if (CBM > 1 && c0 + 1 <= nfull) {
		pv_step(acc, p, vr, c0, W, dt, NR, PJ, 1, cv, pq);
		c0 += 1;
	}
	if (tail)
		pv_step(acc, p, vr, c0, tail, dt, NR, PJ, 1, cv, pq);
}

/*
 * Passes of pv_values for NR rows over a row of D elements (each takes
 * two steps of the prefetch queue a vector of probabilities).
 */
INL int
pv_passes(int D, int NR)
{
	const int CBM = CBMAX(NR);

	return D / W / CBM + __builtin_popcount((unsigned)(D / W % CBM)) +
	    (D % W != 0);
}

/* Per-call scratch, carved out of t->work (MK_MDEC_WORK floats). */
struct scratch {
	float	*p;		/* [BLK / PJ][W] probabilities of the block */
	float	*lsum;		/* [G / GBMAX + 1][W] running sums, per lane */
	float	*mv;		/* [G / GBMAX + 1][W] running maxima, per lane */
	float	*s;		/* [BLK / PJ][W] scores, for the rare paths */
	const float *q;		/* q as tiles (QT) */
	float	*rows;		/* [2][BLK][ld]: a block's K, V rows widened
				 * to f32 (more than GBMAX heads), or NULL */
};

/* The f32 file's groups of heads, for rows widened by another (widen_rows). */
void	MK_MDEC_NAME(f32_groups)(const struct mk_mdec_task *, struct scratch *,
	    const char *const *, const char *const *, int, const char *const *,
	    const char *const *, size_t);

/*
 * The rare path: some score of the vector s (heads g0.., PJ positions
 * each) passed its head's running maximum by TAU.  Per head, move the
 * maximum to the vector's and rescale what was summed so far: the
 * accumulators and the sums (a block's probabilities are made after all
 * its maxima moved).
 */
RARE void
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
 * Everything the heads g0 .. g0+GB-1 do with one block of nb rows, their
 * scores as GP rows (1, 2, or 4 for 3 or 4 heads: a fourth row's scores
 * computed for nothing): per vector of scores, the (rarely) moved maxima,
 * the probabilities and their sums; then the values of the GB heads
 * (three rows where there are three: a fourth row of padding costs
 * Llama-3.2-3B's G of 3 a quarter more arithmetic on AVX2).  own: the
 * first heads of the block, which bring
 * its V rows into L1 (the group's later heads find them there).
 */
INL void
heads_block(const struct mk_mdec_task *t, struct scratch *w, int g0,
    int GB, int GP, const char *const *kr, const char *const *vr, int nb,
    int dt, const char *const *pf, const char *const *ff, size_t rb,
    int own, int Dc)
{
	const int PJ = W / GP, NV = BLK / PJ, D = Dc ? Dc : t->D;
	const int ld = Dc ? (int)MK_MDEC_LD(Dc) : t->ld;
	/* columns of the values: D, or t->dv in whole pairs of vectors (a
	 * pair is PAIRS's unit) where D is a run-time value */
	const int DV = Dc || t->dv <= 0 || t->dv >= D ? D : (t->dv + 2 * W -
	    1) / (2 * W) * (2 * W) < D ? (t->dv + 2 * W - 1) / (2 * W) *
	    (2 * W) : D;
	float *mv = w->mv + g0 / GBMAX * W, *ls = w->lsum + g0 / GBMAX * W;
	float *acc[GBMAX];
	const float *qt = w->q + (size_t)g0 * (size_t)((D + W - 1) / W) * W;
	const float *qr;	/* qt, UNSEEN: q's tiles read a vector */
	VEC s[4 * BLK / W], m = vload(mv), l = vload(ls);
	const int NR = GP == 4 && GB == 3 ? 3 : GP;	/* rows of values */
	/* distinct q rows of the scores: a group of three computes its
	 * fourth row from the first's q (never from vmix4's mixed rows),
	 * which a compile-time three then loads once (AVX2 G 3, D 128
	 * measured faster in cache) */
	const int GQ = !MIXQ && NR == 3 ? 3 : GP;
	const CVT cv = vcvt(t->fp8);
	/*
	 * Steps of the scores' loop, of the values' loops (three rows take
	 * as many passes as four); every queue hands out a constant number
	 * of rows, so that where the head size is known the compiler folds
	 * the queue: rows with nothing to prefetch ask for the block's own,
	 * which are in L1 (a cheap no-op).
	 */
	const int S1 = NV * ((D + W - 1) / W), S2 = pv_passes(DV, GP) * NV * 2;
	struct pfq pq = { pf_rows(own ? vr : kr, BLK, 1, S1),
	    pf_rows(ff != NULL ? ff : kr, 2 * BLK, ff != NULL ? 1 : 0, S1 + S2),
	    row_pf(Dc ? (size_t)Dc * elem_bytes(dt) : rb) };
	int r, j, g;

	for (g = 0; g < GB; g++)
		acc[g] = t->acc + (size_t)(g0 + g) * ld;
	/*
	 * Every score vector of the block first, then the maxima, then the
	 * exponentials side by side: each exponential is a long chain that
	 * the others' arithmetic now hides (one after each vector of scores
	 * left the chains bare).
	 */
	for (r = 0; r < NV; r++) {
		if (!SPREAD && pf != NULL)	/* PJ positions' rows */
#pragma GCC unroll 16
			for (j = r * PJ; j < r * PJ + PJ; j++) {
				prefetch_row(pf[2 * j], &pq.rp, 0);
				prefetch_row(pf[2 * j + 1], &pq.rp, 0);
			}
		if (!SPREAD && ff != NULL)
#pragma GCC unroll 16
			for (j = r * PJ; j < r * PJ + PJ; j++) {
				prefetch_row(ff[2 * j], &pq.rp, 1);
				prefetch_row(ff[2 * j + 1], &pq.rp, 1);
			}
		qr = qt;
		UNSEEN(qr);
		s[r] = qk_vec(qr, kr, r * PJ, D, dt, GP, GQ, Dc, cv, &pq);
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
	pf_rest(&pq.l1, &pq.rp, 0);
	pq.l1 = pf_rows(pf != NULL ? pf : kr, BLK, pf != NULL ? 2 : 1, S2);
	if (NR == 3)
		pv_values(acc, w->p, vr, DV, dt, 3, PJ, cv, &pq);
	else
		pv_values(acc, w->p, vr, DV, dt, GP, PJ, cv, &pq);
	pf_rest(&pq.l1, &pq.rp, 0);
	pf_rest(&pq.l2, &pq.rp, 1);
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
	const struct rowpf rp = row_pf(rb);
	int j, c;

	for (j = 0; j < nb; j++) {
		if (pr != NULL)
			prefetch_row(pr[j * st], &rp, 0);
		if (ff != NULL) {
			prefetch_row(ff[2 * j], &rp, 1);
			prefetch_row(ff[2 * j + 1], &rp, 1);
		}
		for (c = 0; c < nf; c += W)
			*a = vxor(*a, vrow(rows[j], c, MK_F32, nf - c < W ?
			    nf - c : W, vcvt(MK_FP8_NONE)));
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
 * (one thread of the Zen 5 VM, tests/bench/pagedfloor.c: faster with these
 * prefetches; the Xeon: no slower without, and there they cost), so where
 * the task says so (t->l2: the kernel table's paged_l2) the next block's
 * pages (all kv heads, BLK KH rows) are also brought into L2 in address
 * order, walk h of KH taking rows h BLK .. h BLK + BLK - 1 of them: rows
 * ff[0..2*BLK), K and V alternating, of the stretch that starts at
 * position pos.  The rows each walk reads next still come into L1 as
 * before.  (For [B, M, KH, D], whose stretches follow each other, the
 * hardware prefetchers do this already: slower with it.)  Returns
 * 0, ff unfilled, where walk h has no slice (h not below KH).
 */
INL int
stretch_slice(const struct mk_mdec_task *t, size_t pos, int h, size_t rb,
    const char **ff)
{
	/* t->k points h rows of rb bytes into each position */
	const size_t kh = t->ps / rb, lo = (size_t)h * BLK;
	const char *kb, *vb;
	size_t o, r = 0, a, b;	/* r: rows of the pages before this run */
	int i, run;

	if (lo + BLK > kh * BLK)
		return 0;
	for (i = 0; i < BLK && r < lo + BLK; i += run, r += (size_t)run * kh) {
		run = run_of(t, pos + (size_t)i, BLK - i);
		if (r + (size_t)run * kh <= lo)
			continue;
		o = row_off(t, pos + (size_t)i) - (size_t)h * rb;
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
 * How rows of dtype dt and head size D are read: bf16 by pairs where a
 * row is whole pairs of vectors.
 */
INL int
read_dt(int dt, int D)
{
	return dt == MK_BF16 && D % (2 * W) == 0 ? PAIRS : dt;
}

/*
 * The kernel's arithmetic alone, the floor --bench-kernel measures the
 * kernel against: every position of t's piece (no mask, no softmax, no
 * block bookkeeping) has its K and V rows widened once per W elements and
 * multiplied into the q rows' accumulators (as the kernel computes them:
 * a group of three heads as four), 2 D multiply-adds a row, in ACCS
 * independent chains (as many as the kernel's values step holds):
 * PH = ACCS / (2 GP) chunks in turn, each into chains of its own, so that
 * the chains' indices are constants for any D.
 * What the kernel does beyond this (scores reduced across lanes,
 * exponentials, row addresses, prefetches) is its overhead.
 */
INL void
arith_chunk(const char *kr, const char *vr, const float *q, int ld, int c,
    int odd, int nv, int d, int GP, CVT cv, const VEC *pb, VEC *a)
{
	VEC kv = vchunk(kr, c, odd, d, nv, cv), vv = vchunk(vr, c, odd, d, nv,
	    cv);
	int g;

#pragma GCC unroll 4
	for (g = 0; g < GP; g++) {
		a[g] = vfma(vload(q + (size_t)g * ld + (size_t)c * W), kv,
		    a[g]);
		a[GP + g] = vfma(pb[g], vv, a[GP + g]);
	}
}

INL void
arith_group(const struct mk_mdec_task *t, const float *q, int GP, int d,
    VEC *a)
{
	const int D = t->D, ld = t->ld, nfull = D / W, tail = D % W;
	const char *kr = t->k, *vr = t->v;
	const int PH = ACCS / (2 * GP) > 0 ? ACCS / (2 * GP) : 1;
	/* PAIRS, FP8_PAIRS: whole pairs of chunks a step (a pair into one
	 * set of chains where only one fits) */
	const int PS = (d == PAIRS || (d == MK_U8 && FP8_PAIRS)) && PH % 2 ?
	    PH + 1 : PH;
	const CVT cv = vcvt(t->fp8);
	VEC pb[GBMAX];
	size_t i;
	int c, ph, g;

#pragma GCC unroll 4
	for (g = 0; g < GP; g++)
		pb[g] = vset1(q[(size_t)g * ld] + 1.0f);
	for (i = 0; i < t->n; i++, kr += t->ps, vr += t->ps) {
		for (c = 0; c < nfull; c += PS)
#pragma GCC unroll 8
			for (ph = 0; ph < PS; ph++) {
				if (c + ph >= nfull)
					break;
				arith_chunk(kr, vr, q, ld, c + ph, nfull % 2 ?
				    -1 : ph & 1, W, d, GP, cv, pb,
				    a + 2 * GP * (ph % PH));
			}
		if (tail)
			arith_chunk(kr, vr, q, ld, nfull, -1, tail, d, GP, cv,
			    pb, a);
	}
}

INL void
arith(const struct mk_mdec_task *t, int d)
{
	VEC a[ACCS];
	int c, g0, GB;

#pragma GCC unroll 16
	for (c = 0; c < ACCS; c++)
		a[c] = vzero();
	for (g0 = 0; g0 < t->G; g0 += GB) {
		GB = t->G - g0 < GBMAX ? t->G - g0 : GBMAX;
		if (GB >= 3)	/* a group of three as four, as computed */
			arith_group(t, t->q + (size_t)g0 * t->ld, 4, d, a);
		else if (GB == 2)
			arith_group(t, t->q + (size_t)g0 * t->ld, 2, d, a);
		else
			arith_group(t, t->q + (size_t)g0 * t->ld, 1, d, a);
	}
#pragma GCC unroll 16
	for (c = 1; c < ACCS; c++)	/* kept: the sum of the chains */
		a[0] = a[0] + a[c];
	vstore(t->acc, a[0]);
}

/* The floor's entry, MK_MDEC_NAME(arith), in the file of the read probe. */
#define MK_MDEC_ARITH							\
void									\
MK_MDEC_NAME(arith)(const struct mk_mdec_task *t, int dt)		\
{									\
	/* rows read as the kernel reads them */			\
	switch (read_dt(dt, t->D)) {					\
	case PAIRS:	arith(t, PAIRS); break;				\
	case MK_F16:	arith(t, MK_F16); break;			\
	case MK_BF16:	arith(t, MK_BF16); break;			\
	case MK_U8:	arith(t, MK_U8); break;				\
	default:	arith(t, MK_F32); break;			\
	}								\
}

#ifdef KDT
/*
 * The walk, for the dtype KDT of the including file (mdec_<dtype>_<isa>.c:
 * one a file, so that they compile side by side).  The blocks of each
 * group size are functions of their own, not inlined into the walk: the
 * compiler's dataflow passes grow faster than the function they see.
 */
#define HEADS(fname, G, Dc)						\
static __attribute__((noinline)) void					\
fname(const struct mk_mdec_task *t, struct scratch *w, int g0, int GB,	\
    const char *const *kr, const char *const *vr, int nb,		\
    const char *const *pf, const char *const *ff, size_t rb, int own)	\
{									\
	heads_block(t, w, g0, (G) == 4 ? GB : (G), (G) >= 3 ? 4 : (G), kr,	\
	    vr, nb, KDT, pf, ff, rb, own, Dc);				\
}
/*
 * The copies of MK_MDEC_VARIANTS (mdec.h): any head size, and 128, the
 * common one, known when compiled: its loops without bounds to test and
 * its prefetch queue folded away (measurably slower with 128 a run-time
 * value on the Xeon), and 64 (gpt-oss's; a run-time 64 ran a lone head
 * much slower on the Xeon's AVX-512).  bf16 rows of 128 are
 * read by pairs, never by mdec_bf16w_<isa>.c, which defines NO_D128.  The
 * FP8 files define NO_D64 (FP8 caches are of 128, vLLM's, or MLA's 576)
 * and AVX2's NO_D128 (no faster with 128 known).  The copy for three heads
 * of 128 (Llama-3.2-3B's) is AVX2's: AVX-512 mixes the four rows (MIXQ)
 * and runs three within noise of four.  RESULTS.md has the figures.
 */
MK_MDEC_VARIANTS(HEADS)

#ifndef NO_D128
#define D128	1
#else
#define D128	0
#endif
#if D128 && !defined(NO_D64)
#define D64	1
#else
#define D64	0
#endif

/* Whether this file makes the copy for G heads of size D. */
#define MADE(G, D)	((D) == 0 || ((D) == 128 && D128 && ((G) != 3 ||	\
			    !MIXQ)) || ((D) == 64 && D64))

typedef void heads_fn(const struct mk_mdec_task *, struct scratch *, int,
    int, const char *const *, const char *const *, int,
    const char *const *, const char *const *, size_t, int);

/* The copies this file makes, in MK_MDEC_VARIANTS' order (the others are
 * never referenced, so never compiled into code). */
static const struct copy {
	int		 G, D;
	heads_fn	*f;
} copies[] = {
#define COPY(name, G, D)	{ G, D, MADE(G, D) ? name : NULL },
	MK_MDEC_VARIANTS(COPY)
#undef COPY
};

/* The first copy that fits GB heads of size D (0: any). */
INL heads_fn *
copy_for(int D, int GB)
{
	size_t i;

#pragma GCC unroll 16
	for (i = 0; i < sizeof(copies) / sizeof(copies[0]); i++)
		if (copies[i].f != NULL && (copies[i].D == D ||
		    copies[i].D == 0) && (copies[i].G == GB ||
		    (copies[i].G == 4 && GB == 3)))
			return copies[i].f;
	return heads1;		/* not reached: heads1 fits any */
}

/*
 * Widened once from more than WIDE_G heads a kv head: FP8's widening costs
 * more than a row's store and its f32 loads from G 8 on (MLA's G 16 the
 * most), f16's and bf16's from G 16 (below that, as f32 rows they ran
 * slower on both ISAs).
 */
#define WIDE_G	(KDT == MK_U8 ? GBMAX : 3 * GBMAX)

/*
 * Head sizes with copies of their own in this file: the rows of other
 * sizes are widened once where more than GBMAX heads share them
 * (widen_rows); rows of these keep their copies (f16 G 8 D 128 as f32 rows
 * ran slower on AVX2).
 */
#define SIZED(D)	((D128 && (D) == 128) || (D64 && (D) == 64))

/*
 * The block's heads, GBMAX at a time, each group a call of its size (and
 * of the head size, where the rows are this file's: rb their bytes).  p,
 * fp: as one_block's, for the first group.
 */
INL void
groups(const struct mk_mdec_task *t, struct scratch *w, const char *const *kr,
    const char *const *vr, int nb, const char *const *p,
    const char *const *fp, size_t rb)
{
	/* the head size whose copies apply: the rows are this file's */
	const int D = D128 && rb == row_bytes(t, KDT) ? t->D : 0;
	int g0, GB;

	for (g0 = 0; g0 < t->G; g0 += GB, p = NULL, fp = NULL) {
		GB = t->G - g0 < GBMAX ? t->G - g0 : GBMAX;
		copy_for(D, GB)(t, w, g0, GB, kr, vr, nb, p, fp, rb,
		    g0 == 0);
	}
}

/* One row of D elements widened to f32 at dst (a whole vector past D). */
INL void
widen_row(float *dst, const char *row, int D, CVT cv)
{
	const int nfull = D / W, tail = D % W;
	int c;

	for (c = 0; c + 1 < nfull; c += 2) {	/* FP8_PAIRS's pairs */
		vstore(dst + c * W, vchunk(row, c, 0, KDT, W, cv));
		vstore(dst + (c + 1) * W, vchunk(row, c + 1, 1, KDT, W, cv));
	}
	if (c < nfull)
		vstore(dst + c * W, vchunk(row, c, -1, KDT, W, cv));
	if (tail)
		vstore(dst + nfull * W, vrow(row, nfull * W, KDT, tail, cv));
}

/*
 * With more than GBMAX query heads a kv head (MLA's 16, 8 of Llama-3-70B)
 * every group widened the block's rows again: with more than WIDE_G
 * (and no copy for the head size, SIZED) they are widened once into
 * f32 rows (w->rows, ld floats each; rows past nb are row 0 again, as
 * block_rows gives them) whose pointers go to kw, vw, and the groups run
 * on them in mdec_f32_<isa>.c (MK_MDEC_GROUPS).  MLA's V rows are K's.
 */
INL void
widen_rows(const struct mk_mdec_task *t, float *rows, const char *const *kr,
    const char *const *vr, int nb, const char **kw, const char **vw)
{
	const CVT cv = vcvt(t->fp8);
	float *kd, *vd;
	int j;

	for (j = 0; j < nb; j++) {
		kd = rows + (size_t)j * t->ld;
		vd = rows + (size_t)(BLK + j) * t->ld;
		widen_row(kd, kr[j], t->D, cv);
		kw[j] = (const char *)kd;
		vw[j] = kw[j];
		if (vr[j] != kr[j]) {	/* MLA's V is K's row */
			widen_row(vd, vr[j], t->D, cv);
			vw[j] = (const char *)vd;
		}
	}
	for (; j < BLK; j++) {
		kw[j] = kw[0];
		vw[j] = vw[0];
	}
}

/*
 * E4M3's NaN bytes (0x7f, 0xff) widen to a finite value (vrow); where the
 * block's rows hold one, its effect is set here, as the arithmetic would
 * have carried it: a NaN in K makes a score NaN, so every sum and value of
 * the piece's heads (lsum NaN: lse is NaN); a NaN in V column d makes
 * column d of every head's values NaN (0 x NaN too).  The accumulators
 * keep NaN through every later block, sum and rescaling.
 */
RARE void
fp8_poison(const struct mk_mdec_task *t, struct scratch *w,
    const char *const *kr, const char *const *vr, int nb)
{
	const int ng = (t->G + GBMAX - 1) / GBMAX;
	int j, d, g, kn = 0;

	for (j = 0; j < nb; j++)
		for (d = 0; d < t->D; d++) {
			if (isnan(mk_fp8_value((uint8_t)kr[j][d], t->fp8)))
				kn = 1;
			if (!isnan(mk_fp8_value((uint8_t)vr[j][d], t->fp8)))
				continue;
			for (g = 0; g < t->G; g++)
				t->acc[(size_t)g * t->ld + (size_t)d] = NAN;
		}
	if (!kn)
		return;
	for (g = 0; g < t->G; g++)
		for (d = 0; d < t->ld; d++)
			t->acc[(size_t)g * t->ld + (size_t)d] = NAN;
	for (j = 0; j < ng * W; j++)
		w->lsum[j] = NAN;
}

/*
 * Bytes a vector register holds, as GCC's vector extension: compiled with
 * the includer's ISA flags, so one definition serves AVX2 and AVX-512.
 */
typedef uint8_t BYTES __attribute__((vector_size(4 * W)));

/*
 * E4M3's NaN bytes, 0x7f and 0xff, are those whose seven bits below the
 * sign plus one carry into bit 7 (an and, an add and an or a vector; no
 * mask registers): the bytes of the n at p so into the lanes of *acc,
 * a row's tail past whole vectors 8 bytes at a time into *tail, its last
 * bytes one at a time (never read past the row, and no call: copying the
 * tail into a zeroed vector called memcpy, which cost every row the
 * loop's constants again).
 */
INL void
nan_bytes(BYTES *acc, uint64_t *tail, const char *p, size_t n)
{
	BYTES v;
	uint64_t x;
	size_t i;

	for (i = 0; i + sizeof(v) <= n; i += sizeof(v)) {
		memcpy(&v, p + i, sizeof(v));
		*acc |= (v & 0x7f) + 1;
	}
	for (; i + 8 <= n; i += 8) {
		memcpy(&x, p + i, 8);
		*tail |= (x & 0x7f7f7f7f7f7f7f7f) + 0x0101010101010101;
	}
	for (; i < n; i++)
		*tail |= ((uint8_t)p[i] & 0x7fu) + 1u;
}

/* nan_bytes over the block's K and V rows of rb bytes. */
INL void
nan_rows(BYTES *m, uint64_t *tail, const char *const *kr,
    const char *const *vr, int nb, size_t rb)
{
	int j;

	for (j = 0; j < nb; j++) {
		nan_bytes(m, tail, kr[j], rb);
		nan_bytes(m, tail, vr[j], rb);
	}
}

/*
 * The block's K and V rows checked for E4M3's NaN: one pass of loads, its
 * loops unrolled for rows of 128 bytes (the FP8 files' head size of its
 * own, D128).
 */
INL void
fp8_nans(const struct mk_mdec_task *t, struct scratch *w,
    const char *const *kr, const char *const *vr, int nb, size_t rb)
{
	BYTES m = { 0 };
	uint64_t u[sizeof(m) / 8], any = 0;
	size_t i;

	if (D128 && rb == 128)
		nan_rows(&m, &any, kr, vr, nb, 128);
	else
		nan_rows(&m, &any, kr, vr, nb, rb);
	memcpy(u, &m, sizeof(m));
	for (i = 0; i < sizeof(m) / 8; i++)
		any |= u[i];
	if (any & 0x8080808080808080)
		fp8_poison(t, w, kr, vr, nb);
}

/*
 * The block idx[0..nb); ahead[0..na) is the block whose rows to prefetch
 * into L1, in the rows of task at (t itself, or the walk computed next);
 * nxt[0..nn) the walk's own next block, whose stretch slice h (walk h of
 * walks side by side; -1: a walk alone) goes to L2 in a paged cache.
 * Where no slice goes to L2, the AVX-512 kernel brings the rows of ahead
 * into L2 as well, spread over the whole block: they are then asked for
 * a block before they are read, not half a block, and the L1 prefetches
 * find them in L2 ([B, KH, M, D] at bsz 8 faster on the Zen 5 and the
 * Xeon, the other layouts within noise or faster, at a small cost a
 * position in cache).
 */
INL void
one_block(const struct mk_mdec_task *t, struct scratch *w, const size_t *idx,
    int nb, const struct mk_mdec_task *at, const size_t *ahead, int na,
    const size_t *nxt, int nn, int h)
{
	const char *kr[BLK], *vr[BLK], *pf[2 * BLK], *const *p = pf;
	const char *ff[2 * BLK], *const *fp = NULL;
	const size_t rb = row_bytes(t, KDT);

	block_rows(t, idx, nb, kr, vr, 1);
	if (na == 0)
		p = NULL;
	else
		block_rows(at, ahead, na, pf, pf + 1, 2);
	if (t->blk != NULL && t->l2 && h >= 0 && stretch(nxt, nn) &&
	    stretch_slice(t, nxt[0], h, rb, ff))
		fp = ff;
	else if (SPREAD)	/* the rows of p into L2 too, a block ahead */
		fp = p;
	if (t->rd) {
		read_block(t, kr, vr, nb, p, fp, rb);
		return;
	}
	if (KDT == MK_U8 && t->fp8 == MK_FP8_E4M3)
		fp8_nans(t, w, kr, vr, nb, rb);
#ifndef F32_ROWS
	if (w->rows != NULL && KDT != PAIRS && !SIZED(t->D) &&
	    t->G > WIDE_G) {
		const char *kw[BLK], *vw[BLK];

		widen_rows(t, w->rows, kr, vr, nb, kw, vw);
		MK_MDEC_NAME(f32_groups)(t, w, kw, vw, nb, p, fp, rb);
		return;
	}
#endif
	groups(t, w, kr, vr, nb, p, fp, rb);
}

/* The running sums of head g: the lanes of its group's vector it owns. */
RARE float
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
 * For PAIRS: the sums [G][ld] back in order, each 2W elements from the
 * order of vchunk (even elements, then odd); tmp holds 2W floats.
 */
RARE void
pairs_back(float *acc, int G, int ld, int D, float *tmp)
{
	int g, m, i;

	for (g = 0; g < G; g++)
		for (m = 0; m + 2 * W <= D; m += 2 * W) {
			float *s = acc + (size_t)g * ld + m;

			for (i = 0; i < W; i++) {
				tmp[2 * i] = s[i];
				tmp[2 * i + 1] = s[W + i];
			}
			memcpy(s, tmp, 2 * W * sizeof(float));
		}
}

/*
 * q's rows as the walk's tiles at dst (QT), mixed for MIXQ.  A chunk of a
 * row is W floats of it (q's rows are zero up to ld, past D), or for PAIRS
 * the even, then the odd elements of 2W.
 */
RARE void
q_tiles(float *dst, const struct mk_mdec_task *t, int pairs)
{
	const int nch = (t->D + W - 1) / W, ng = (t->G + GBMAX - 1) / GBMAX;
	const float *r;
	float *o;
	int i, c, g, e;

	for (i = 0; i < ng; i++) {
		o = dst + (size_t)i * (size_t)nch * GBMAX * W;
		for (g = 0; g < GBMAX; g++) {
			r = t->q + (size_t)(i * GBMAX + g) * t->ld;
			for (c = 0; c < nch; c++) {
				if (i * GBMAX + g >= t->G)
					memset(QT(o, c, g), 0, W * sizeof(float));
				else if (!pairs)
					memcpy(QT(o, c, g), r + c * W,
					    W * sizeof(float));
				else
					for (e = 0; e < W; e++)
						QT(o, c, g)[e] = r[(c & ~1) * W +
						    2 * e + (c & 1)];
			}
		}
#if MIXQ
		if (t->G - i * GBMAX >= 3)
			for (c = 0; c < nch; c++)
				vmix4(QT(o, c, 0), W, 1);
#endif
	}
}

/* The walk's start: its scratch, outputs, and first block in slot 0. */
INL void
walk_start(const struct mk_mdec_task *t, struct walk *k)
{
	const int ng = (t->G + GBMAX - 1) / GBMAX;
	float *qd;
	int g, i;

	k->sc = (struct scan){ t->mask, t->n, 0, 0, 0 };
	k->done = 0;
	k->w.p = t->work;
	k->w.s = k->w.p + BLK * W;
	k->w.lsum = k->w.s + BLK * W;
	k->w.mv = k->w.lsum + (size_t)ng * W;
	/* after mv: 64-byte aligned; the rows after q's tiles too */
	qd = k->w.mv + (size_t)ng * W;
	q_tiles(qd, t, KDT == PAIRS);
	k->w.q = qd;
	k->w.rows = t->G > GBMAX ? qd + (size_t)ng * GBMAX *
	    MK_MDEC_LD(t->D) : NULL;
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
    int h)
{
	if (k->done || k->nb[cur] == 0) {
		k->done = 1;
		return 0;
	}
	one_block(t, &k->w, k->idx[cur], k->nb[cur], nt, nk->idx[nc],
	    nk->done ? 0 : nk->nb[nc], k->idx[!cur], k->nb[!cur], h);
	return 1;
}

INL void
walk_end(const struct mk_mdec_task *t, const struct walk *k)
{
	int g, i;

	if (KDT == PAIRS && !t->rd)	/* the sums back in order */
		pairs_back(t->acc, t->G, t->ld, t->D, k->w.s);
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
 * through them together.
 */
INL void
pieces(const struct mk_mdec_task *t, int n)
{
	const size_t rb = row_bytes(t, KDT);
	struct walk k[MK_MDEC_GROUP];
	int cur, h, live;

	for (h = 0; h < n; h++) {
		walk_start(&t[h], &k[h]);
		if (h == 0)	/* the first walk's first block */
			prefetch_rows(t, k[0].idx[0], k[0].nb[0], rb);
	}
	for (cur = 0, live = 1; live; cur = !cur) {
		for (h = 0; h < n; h++)
			walk_scan(&k[h], cur);
		for (h = 0, live = 0; h < n; h++)
			live |= walk_step(&t[h], &k[h], &t[(h + 1) % n],
			    &k[(h + 1) % n], cur, h + 1 < n ? cur : !cur,
			    n > 1 ? h : -1);
	}
	for (h = 0; h < n; h++)
		walk_end(&t[h], &k[h]);
}

/* The entry point MK_MDEC_NAME(name): the walk over n pieces. */
#define MK_MDEC_ENTRY(name)						\
void									\
MK_MDEC_NAME(name)(const struct mk_mdec_task *t, int n)			\
{									\
	pieces(t, n);							\
}

/* In mdec_f32_<isa>.c (F32_ROWS): the groups of heads on f32 rows. */
#define MK_MDEC_GROUPS							\
void									\
MK_MDEC_NAME(f32_groups)(const struct mk_mdec_task *t, struct scratch *w,	\
    const char *const *kr, const char *const *vr, int nb,		\
    const char *const *p, const char *const *fp, size_t rb)		\
{									\
	groups(t, w, kr, vr, nb, p, fp, rb);				\
}

/*
 * bf16's entry, in a file of KDT PAIRS: rows of whole pairs of vectors
 * walked here, others by MK_MDEC_NAME(bf16w) (mdec_bf16w_<isa>.c).
 */
#define MK_MDEC_BF16_ENTRY						\
void									\
MK_MDEC_NAME(bf16)(const struct mk_mdec_task *t, int n)			\
{									\
	if (read_dt(MK_BF16, t->D) == PAIRS)				\
		pieces(t, n);						\
	else								\
		MK_MDEC_NAME(bf16w)(t, n);				\
}
#endif /* KDT */
