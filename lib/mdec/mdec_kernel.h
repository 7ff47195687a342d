/*
 * mdec_kernel.h - the SIMD decode-attention kernel, written once over a
 * handful of vector primitives.  mdec_avx2.c and mdec_avx512.c define the
 * primitives for their width and include this file; it then defines the
 * three entry points MK_MDEC_NAME(f16), (bf16) and (f32).
 *
 * The includer provides:
 *   VEC, W			vector type and its lanes (8 or 16)
 *   vzero(), vset1(x), vload(p), vstore(p, v)	aligned f32 loads/stores
 *   vfma(a, b, c)		a * b + c
 *   vmul(a, b)
 *   vrow(p, off, dt, nv)	elements off.. of a K/V row of dtype dt as
 *				f32; only nv (1..W) are read, the rest are 0
 *   vreduce(const VEC *v)	W vectors -> one vector of their sums, lane
 *				L holding the sum of v[SLOT(L)]
 *   SLOT(j)			where the partial sums of block position j go
 *				(transposed so that vreduce needs no final
 *				permute; BLK/W groups of W)
 *   vexp2(x)			2^x for x <= 0, 0 below -125, NaN kept
 *   vhsum(v)			sum of the lanes
 *   vany_gt(v, x)		whether a lane of v is greater than x
 *   vtail(v, n)		v with lanes n.. (if any) set to -inf
 *   unmasked64(mask, pos, n)	bit i set if position pos + i < n is not
 *				masked (mask NULL: every valid position)
 *   prefetch(p)
 *   QK_PJ(GB), PV_CB(GB)	register blocking: positions per score step,
 *				chunks of W dims per accumulate step
 *
 * Per block of up to BLK unmasked positions and per group of up to four
 * query heads: scores (each K row chunk loaded once for the heads and
 * several positions at once, partial sums reduced by one transpose), one
 * online-softmax update per head, then the weighted V rows added into the
 * accumulators.  The rows of the next block are prefetched while this one
 * is computed: with masked positions skipped, the hardware prefetchers
 * alone would leave the loads waiting.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/dtype.h"
#include "mdec/mdec.h"

#define BLK	MK_MDEC_BLOCK
#define GBMAX	4		/* query heads per register block */
#ifndef AHEAD
#define AHEAD	2		/* blocks prefetched ahead */
#endif
#define INL	static inline __attribute__((always_inline))

_Static_assert(BLK % W == 0 && BLK <= 64, "block and vector width");

/* Walks the mask 64 positions at a time, handing out unmasked positions. */
struct scan {
	const uint8_t	*mask;
	size_t		 n, next, base;
	uint64_t	 bits;
};

/* The next (up to BLK) unmasked positions into idx; returns how many. */
INL int
scan_block(struct scan *s, size_t *idx)
{
	int c = 0;

	while (c < BLK) {
		while (s->bits == 0) {
			if (s->next >= s->n)
				return c;
			s->base = s->next;
			s->bits = unmasked64(s->mask, s->next, s->n);
			s->next += 64;
		}
		idx[c++] = s->base + (size_t)__builtin_ctzll(s->bits);
		s->bits &= s->bits - 1;
	}
	return c;
}

INL void
prefetch_rows(const char *base, size_t rb, const size_t *idx, int nb)
{
	const char *row;
	ptrdiff_t off;
	int j;

	for (j = 0; j < nb; j++) {
		row = base + idx[j] * rb;
		/* every cache line the row touches */
		for (off = -(ptrdiff_t)((uintptr_t)row & 63);
		    off < (ptrdiff_t)rb; off += 64)
			prefetch(row + off);
	}
}

/*
 * Scores of positions j0 .. j0+PJ-1 for heads q[0..GB-1]: partial sums
 * (one vector per head and position) into part[g * BLK + SLOT(j)].
 */
INL void
qk_step(const float *q, int ld, const char *const *rows, int j0, int nch,
    int tail, int dt, int GB, int PJ, VEC *part, const char *const *pf)
{
	VEC a[GBMAX][8], qv[GBMAX], kv;
	int c, g, j, nv;
	size_t off;

#pragma GCC unroll 4
	for (g = 0; g < GB; g++)
#pragma GCC unroll 8
		for (j = 0; j < PJ; j++)
			a[g][j] = vzero();
	for (c = 0; c < nch; c++) {
		nv = c == nch - 1 ? tail : W;
		/*
		 * Prefetch the rows of a later block a line at a time, spread
		 * over the arithmetic: a burst of them would fill the miss
		 * queue and stall the core.
		 */
		off = (size_t)c * W * (dt == MK_F32 ? 4 : 2);
		if (pf != NULL && off % 64 == 0)
#pragma GCC unroll 8
			for (j = 0; j < PJ; j++) {
				prefetch(pf[2 * (j0 + j)] + off);
				prefetch(pf[2 * (j0 + j) + 1] + off);
			}
#pragma GCC unroll 4
		for (g = 0; g < GB; g++)
			qv[g] = vload(q + (size_t)g * ld + (size_t)c * W);
#pragma GCC unroll 8
		for (j = 0; j < PJ; j++) {
			kv = vrow(rows[j0 + j], c * W, dt, nv);
#pragma GCC unroll 4
			for (g = 0; g < GB; g++)
				a[g][j] = vfma(qv[g], kv, a[g][j]);
		}
	}
#pragma GCC unroll 4
	for (g = 0; g < GB; g++)
#pragma GCC unroll 8
		for (j = 0; j < PJ; j++)
			part[g * BLK + SLOT(j0 + j)] = a[g][j];
}

/* acc[g][c0*W ..] += sum over the block's positions of p[g][j] v_j. */
INL void
pv_step(float *acc, int ld, const float *p, const char *const *rows,
    int nb, int c0, int nch, int tail, int dt, int GB, int CB)
{
	VEC a[GBMAX][8], pj[GBMAX], vv;
	int cb, g, j;

#pragma GCC unroll 4
	for (g = 0; g < GB; g++)
#pragma GCC unroll 8
		for (cb = 0; cb < CB; cb++)
			a[g][cb] = vload(acc + (size_t)g * ld +
			    (size_t)(c0 + cb) * W);
	for (j = 0; j < nb; j++) {
#pragma GCC unroll 4
		for (g = 0; g < GB; g++)
			pj[g] = vset1(p[g * BLK + j]);
#pragma GCC unroll 8
		for (cb = 0; cb < CB; cb++) {
			vv = vrow(rows[j], (c0 + cb) * W, dt,
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

/* The largest power of two <= PV_CB(GB) and <= left. */
INL int
pv_width(int GB, int left)
{
	int cb = PV_CB(GB);

	while (cb > left)
		cb /= 2;
	return cb;
}

/* Per-call scratch, carved out of t->work (MK_MDEC_WORK floats). */
struct scratch {
	float	*p;		/* [G][BLK] probabilities of the block */
	float	*lsum;		/* [G][W] running sums, one per lane */
	VEC	*part;		/* [GBMAX][BLK] partial dot products */
};

/*
 * A new running maximum for head g: the block's scores s[] went more than
 * TAU above it.  Rescale what was summed so far and move to it.
 */
static void
new_max(const struct mk_mdec_task *t, struct scratch *w, int g,
    const float *s)
{
	float *row = t->acc + (size_t)g * t->ld, *ls = w->lsum + g * W;
	float bm = -INFINITY, alpha;
	int c, j;

	for (j = 0; j < BLK; j++)
		bm = s[j] > bm ? s[j] : bm;
	alpha = t->m[g] - bm < -125.0f ? 0.0f : exp2f(t->m[g] - bm);
	for (c = 0; c < t->ld; c += W)
		vstore(row + c, vmul(vload(row + c), vset1(alpha)));
	vstore(ls, vmul(vload(ls), vset1(alpha)));
	t->m[g] = bm;
}

/*
 * Softmax of one block for heads g0..g0+GB-1: scores from the partial
 * sums, p = 2^(s - m) into w->p, added to the per-lane running sums.
 *
 * The running maximum m only moves when a score exceeds it by more than
 * TAU (log2 units), so p may reach 2^TAU: harmless in f32, and it keeps
 * the horizontal maximum, the rescaling and a data-dependent branch out of
 * all but a few blocks.
 */
#define TAU	8.0f

INL void
softmax_block(const struct mk_mdec_task *t, struct scratch *w, int g0,
    int GB, int nb)
{
	float *p;
	VEC s[BLK / W];
	int g, r, over;

	for (g = 0; g < GB; g++) {
		p = w->p + g * BLK;
		over = 0;
		for (r = 0; r < BLK / W; r++) {
			s[r] = vtail(vreduce(w->part + g * BLK + r * W),
			    nb - r * W);
			over |= vany_gt(s[r], t->m[g0 + g] + TAU);
		}
		if (over) {
			for (r = 0; r < BLK / W; r++)
				vstore(p + r * W, s[r]);
			new_max(t, w, g0 + g, p);
		}
		for (r = 0; r < BLK / W; r++) {
			s[r] = vexp2(s[r] - vset1(t->m[g0 + g]));
			vstore(p + r * W, s[r]);
			vstore(w->lsum + (g0 + g) * W, vload(w->lsum +
			    (g0 + g) * W) + s[r]);
		}
	}
}

/* Everything one group of GB heads does with one block. */
INL void
heads_block(const struct mk_mdec_task *t, struct scratch *w, int g0,
    int GB, const char *const *kr, const char *const *vr, int nb, int dt,
    const char *const *pf, int Dc)
{
	const int D = Dc ? Dc : t->D, ld = Dc ? (Dc + 15) & ~15 : t->ld;
	const int nch = (D + W - 1) / W;
	const int tail = D - (nch - 1) * W;
	float *acc = t->acc + (size_t)g0 * ld;
	int j, c0, cb;

	for (j = 0; j < BLK; j += QK_PJ(GB))
		qk_step(t->q + (size_t)g0 * ld, ld, kr, j, nch, tail, dt, GB,
		    QK_PJ(GB), w->part, pf);
	softmax_block(t, w, g0, GB, nb);
	for (c0 = 0; c0 < nch; c0 += cb) {
		cb = pv_width(GB, nch - c0);
		switch (cb) {
		case 8: pv_step(acc, ld, w->p, vr, nb, c0, nch, tail, dt, GB, 8);
			break;
		case 4: pv_step(acc, ld, w->p, vr, nb, c0, nch, tail, dt, GB, 4);
			break;
		case 2: pv_step(acc, ld, w->p, vr, nb, c0, nch, tail, dt, GB, 2);
			break;
		default: pv_step(acc, ld, w->p, vr, nb, c0, nch, tail, dt, GB, 1);
			break;
		}
	}
}

/* The block idx[0..nb); ahead[0..na) is the block whose rows to prefetch. */
INL void
one_block(const struct mk_mdec_task *t, struct scratch *w, const size_t *idx,
    int nb, const size_t *ahead, int na, int dt, size_t rb, int Dc)
{
	const char *kr[BLK], *vr[BLK], *pf[2 * BLK], *const *p = pf;
	int j, g0, GB;

	/* With nothing ahead, the slots of ahead hold stale indices. */
	if (na == 0)
		ahead = idx;
	for (j = 0; j < BLK; j++) {
		/* Rows past nb repeat row 0: read, computed, then ignored. */
		kr[j] = (const char *)t->k + idx[j < nb ? j : 0] * rb;
		vr[j] = (const char *)t->v + idx[j < nb ? j : 0] * rb;
		pf[2 * j] = (const char *)t->k + ahead[j < na ? j : 0] * rb;
		pf[2 * j + 1] = (const char *)t->v + ahead[j < na ? j : 0] * rb;
	}
	if (na == 0)
		p = NULL;
	for (g0 = 0; g0 < t->G; g0 += GB, p = NULL) {
		GB = t->G - g0 < GBMAX ? t->G - g0 : GBMAX;
		switch (GB) {
		case 4: heads_block(t, w, g0, 4, kr, vr, nb, dt, p, Dc); break;
		case 3: heads_block(t, w, g0, 3, kr, vr, nb, dt, p, Dc); break;
		case 2: heads_block(t, w, g0, 2, kr, vr, nb, dt, p, Dc); break;
		default: heads_block(t, w, g0, 1, kr, vr, nb, dt, p, Dc); break;
		}
	}
}

/*
 * One piece.  Dc is the head size when the caller knows it at compile time
 * (the common ones get loops without tails), else 0.
 */
INL void
piece(const struct mk_mdec_task *t, int dt, int Dc)
{
	const size_t rb = (size_t)(Dc ? Dc : t->D) *
	    mk_dtype_size((enum mk_dtype)dt);
	struct scan sc = { t->mask, t->n, 0, 0, 0 };
	struct scratch w;
	size_t idx[AHEAD + 1][BLK];
	int nb[AHEAD + 1], cur, g, i;

	w.p = t->work;
	w.lsum = w.p + (((size_t)t->G * BLK + 15) & ~(size_t)15);
	w.part = (VEC *)(void *)(w.lsum + (size_t)t->G * 16);
	for (g = 0; g < t->G; g++) {
		t->m[g] = -INFINITY;
		vstore(w.lsum + g * W, vzero());
		memset(t->acc + (size_t)g * t->ld, 0,
		    (size_t)t->ld * sizeof(float));
	}
	/* Poisoned: an index read from a slot no scan filled points far out
	 * of any mapping, which the sanitizer builds report. */
	memset(idx, 0x7f, sizeof(idx));
	/* a ring of blocks: the one computed and AHEAD being prefetched */
	for (i = 0; i < AHEAD; i++) {
		nb[i] = scan_block(&sc, idx[i]);
		prefetch_rows(t->k, rb, idx[i], nb[i]);
		prefetch_rows(t->v, rb, idx[i], nb[i]);
	}
	for (cur = 0; nb[cur] > 0; cur = (cur + 1) % (AHEAD + 1)) {
		i = (cur + AHEAD) % (AHEAD + 1);
		nb[i] = scan_block(&sc, idx[i]);
		one_block(t, &w, idx[cur], nb[cur], idx[i], nb[i], dt, rb, Dc);
	}
	for (g = 0; g < t->G; g++)
		t->l[g] = vhsum(vload(w.lsum + g * W));
}

INL void
mdec_kernel(const struct mk_mdec_task *t, int dt)
{
	switch (t->D) {
	case 64:	piece(t, dt, 64); break;
	case 128:	piece(t, dt, 128); break;
	default:	piece(t, dt, 0); break;
	}
}

void
MK_MDEC_NAME(f16)(const struct mk_mdec_task *t)
{
	mdec_kernel(t, MK_F16);
}

void
MK_MDEC_NAME(bf16)(const struct mk_mdec_task *t)
{
	mdec_kernel(t, MK_BF16);
}

void
MK_MDEC_NAME(f32)(const struct mk_mdec_task *t)
{
	mdec_kernel(t, MK_F32);
}
