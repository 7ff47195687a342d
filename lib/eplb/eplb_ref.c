/*
 * eplb_ref.c - the two reference algorithms, deepseek-ai/EPLB and
 * round-robin waterfilling with Hamilton counts, exact to them on inputs
 * without ties.
 *
 * Both follow the same hierarchical skeleton (the global policy is the
 * hierarchical one with one group and one node): pack groups onto nodes,
 * replicate experts inside each node, pack each node's replicas onto its
 * GPUs.  They differ in the packer and the replicator, passed in as
 * functions.  As in torch after weight.float(), loads are float32 and
 * every element-wise operation rounds to float32 (C float arithmetic does
 * the same on x86-64); sums of many loads are taken in double and rounded
 * once, where torch's reduction may round several times.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eplb/eplb.h"
#include "eplb/eplb_impl.h"

/* Order items by (weight desc, index asc): a stable merge sort. */
static void
sort_desc(const float *w, int n, int *order, int *tmp)
{
	eplb_order_desc_f(w, n, order, tmp);
}

/* Scratch for one packer call; sized by the caller for n items. */
struct scratch {
	int		*order;
	int		*items;		/* merge sort scratch */
	float		*loads;
	int		*count;
	int		*perm;
};

typedef void	pack_fn(const float *w, int n, int m, int *pack, int *rank,
		    struct scratch *s);
typedef void	repl_fn(const float *w, int nlog, int nphy, int *phy,
		    int *rank, int *cnt, struct scratch *s);

/* Item i alone in pack i: both packers when there are as many packs. */
static void
one_per_pack(int n, int *pack, int *rank)
{
	int i;

	for (i = 0; i < n; i++) {
		pack[i] = i;
		rank[i] = 0;
	}
}

/*
 * Pack a before pack b: lighter, or as light and lower.  Written with &
 * and |, not && and ||: the compiler makes it a flag, not branches,
 * which the loads of real layers mispredicted half the time.
 */
static inline int
lighter(const float *loads, int a, int b)
{
	return (loads[a] < loads[b]) | ((loads[a] == loads[b]) & (a < b));
}

/* Restore the min-heap h[0..n) of packs from position i down. */
static void
pack_sift(int *h, int n, int i, const float *loads)
{
	int c, t, x = h[i];

	for (;;) {
		c = 2 * i + 1;
		if (c >= n)
			break;
		c += (c + 1 < n) & lighter(loads, h[c + 1 < n ? c + 1 : c],
		    h[c]);
		if (!lighter(loads, h[c], x))
			break;
		t = h[c];
		h[i] = t;
		i = c;
	}
	h[i] = x;
}

/*
 * DeepSeek's balanced_packing: n items into m packs of n/m, heaviest
 * first, each into the lightest pack that still has room (the first such
 * on ties).  The packs with room are a heap by (load, index): the same
 * choice as DeepSeek's scan, in log m instead of m.
 */
static void
pack_deepseek(const float *w, int n, int m, int *pack, int *rank,
    struct scratch *s)
{
	int k = n / m, t, i, p, live = m, *h = s->perm;

	if (k == 1) {
		one_per_pack(n, pack, rank);
		return;
	}
	sort_desc(w, n, s->order, s->items);
	for (p = 0; p < m; p++) {
		s->loads[p] = 0;
		s->count[p] = 0;
		h[p] = p;	/* equal loads, ascending index: a heap */
	}
	for (t = 0; t < n; t++) {
		i = s->order[t];
		p = h[0];
		pack[i] = p;
		rank[i] = s->count[p]++;
		s->loads[p] += w[i];
		if (s->count[p] == k)
			h[0] = h[--live];	/* full: out of the heap */
		pack_sift(h, live, 0, s->loads);
	}
}

/* Packs by (load asc, index asc): a stable argsort of the loads. */
static void
sort_packs_asc(const float *loads, int m, int *perm)
{
	int i, j, v;

	for (i = 0; i < m; i++)
		perm[i] = i;
	/* insertion sort: stable, and m is the number of GPUs per node */
	for (i = 1; i < m; i++) {
		v = perm[i];
		for (j = i - 1; j >= 0 && loads[perm[j]] > loads[v]; j--)
			perm[j + 1] = perm[j];
		perm[j + 1] = v;
	}
}

/*
 * The round-robin waterfilling packer: in round r the next m heaviest items go to
 * the packs ordered from lightest to heaviest; then one swap between the
 * heaviest and the lightest pack if it narrows their gap by more than 1e-6.
 */
static void
pack_waterfill(const float *w, int n, int m, int *pack, int *rank,
    struct scratch *s)
{
	int k = n / m, r, j, i, p, pmax, pmin, a, b, q, cnt;
	double delta, wa, wb, nd;

	if (k == 1) {
		one_per_pack(n, pack, rank);
		return;
	}
	sort_desc(w, n, s->order, s->items);
	for (p = 0; p < m; p++)
		s->loads[p] = 0;
	for (r = 0; r < k; r++) {
		sort_packs_asc(s->loads, m, s->perm);
		for (j = 0; j < m; j++) {
			i = s->order[r * m + j];
			pack[i] = s->perm[j];
			rank[i] = r;
			s->loads[s->perm[j]] += w[i];
		}
	}
	/* Refinement, the loads recounted in item order as the packer does. */
	for (p = 0; p < m; p++)
		s->loads[p] = 0;
	for (i = 0; i < n; i++)
		s->loads[pack[i]] += w[i];
	pmax = pmin = 0;
	for (p = 1; p < m; p++) {
		if (s->loads[p] > s->loads[pmax])
			pmax = p;
		if (s->loads[p] < s->loads[pmin])
			pmin = p;
	}
	delta = (double)(s->loads[pmax] - s->loads[pmin]);
	if (!(delta > 0))
		return;
	a = b = -1;
	for (i = 0; i < n; i++) {
		if (pack[i] == pmax && (a < 0 || w[i] > w[a]))
			a = i;
		if (pack[i] == pmin && (b < 0 || w[i] < w[b]))
			b = i;
	}
	wa = w[a];
	wb = w[b];
	nd = fabs(delta - 2.0 * (wa - wb));
	if (!(nd + 1e-6 < delta))
		return;
	pack[a] = pmin;
	pack[b] = pmax;
	/* The two packs' ranks follow item index order afterwards. */
	for (q = 0; q < 2; q++) {
		p = q ? pmin : pmax;
		cnt = 0;
		for (i = 0; i < n; i++)
			if (pack[i] == p)
				rank[i] = cnt++;
	}
}

/*
 * DeepSeek's replicate_experts: one replica each, then every extra slot to
 * the expert with the largest load per replica (first one on ties).
 */
/* Expert a before expert b: the larger load per replica, then lower. */
static int
hotter(const float *v, int a, int b)
{
	return v[a] > v[b] || (v[a] == v[b] && a < b);
}

/* Restore the max-heap h[0..n) of experts by v from position i down. */
static void
repl_sift(int *h, int n, int i, const float *v)
{
	int c, t;

	for (;;) {
		c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && hotter(v, h[c + 1], h[c]))
			c++;
		if (!hotter(v, h[c], h[i]))
			return;
		t = h[i];
		h[i] = h[c];
		h[c] = t;
		i = c;
	}
}

/*
 * DeepSeek's replicate_experts: one replica each, then every extra slot
 * to the expert with the largest load per replica (w / cnt in float32,
 * the first on ties: torch's argmax).  The experts are a heap by that
 * quotient: the same choice in log n instead of n.  heap and v are
 * scratch of nlog.
 */
static void
repl_greedy_heap(const float *w, int nlog, int nphy, int *phy, int *rank,
    int *cnt, int *heap, float *v)
{
	int i, j, best;

	for (j = 0; j < nlog; j++) {
		phy[j] = j;
		rank[j] = 0;
		cnt[j] = 1;
		heap[j] = j;
		v[j] = w[j] / 1.0f;
	}
	for (j = nlog / 2 - 1; j >= 0; j--)
		repl_sift(heap, nlog, j, v);
	for (i = nlog; i < nphy; i++) {
		best = heap[0];
		phy[i] = best;
		rank[i] = cnt[best]++;
		v[best] = w[best] / (float)cnt[best];
		repl_sift(heap, nlog, 0, v);
	}
}

static void
repl_greedy(const float *w, int nlog, int nphy, int *phy, int *rank, int *cnt,
    struct scratch *s)
{
	repl_greedy_heap(w, nlog, nphy, phy, rank, cnt, s->items, s->loads);
}

/*
 * The Hamilton (largest remainder) replicator: one replica each plus floor(extras * w/W),
 * the rest by largest remainder; replicas listed expert by expert.
 */
static void
repl_hamilton(const float *w, int nlog, int nphy, int *phy, int *rank,
    int *cnt, struct scratch *s)
{
	int extra = nphy - nlog, j, i, k, remain, sum = 0, *ord, *tmp;
	float *rem;
	double dsum = 0;
	float denom, share;

	(void)s;

	for (j = 0; j < nlog; j++)
		cnt[j] = 1;
	if (extra > 0) {
		for (j = 0; j < nlog; j++)
			dsum += (double)w[j];
		denom = (float)dsum;
		if (denom < 1e-12f)
			denom = 1e-12f;
		rem = calloc((size_t)nlog, sizeof(*rem));
		ord = malloc(sizeof(int) * 2 * (size_t)nlog);
		if (rem == NULL || ord == NULL) {
			/* cannot happen in practice; stay valid */
			free(rem);
			free(ord);
			cnt[0] += extra;
			goto list;
		}
		tmp = ord + nlog;
		for (j = 0; j < nlog; j++) {
			share = w[j] / denom * (float)extra;
			k = (int)floorf(share);
			cnt[j] += k;
			sum += k;
			rem[j] = share - (float)k;
		}
		remain = extra - sum;
		/* largest remainders, ties to the lower index */
		eplb_order_desc_f(rem, nlog, ord, tmp);
		for (i = 0; i < remain && i < nlog; i++)
			cnt[ord[i]]++;
		free(rem);
		free(ord);
		/*
		 * Rounding could in theory hand out a slot too many or too
		 * few; keep the plan valid by trimming or padding the last
		 * expert that can take it (never seen with float32 shares).
		 */
		for (j = 0, sum = 0; j < nlog; j++)
			sum += cnt[j];
		for (j = nlog - 1; sum > nphy && j >= 0; j--)
			while (sum > nphy && cnt[j] > 1) {
				cnt[j]--;
				sum--;
			}
		if (sum < nphy)
			cnt[0] += nphy - sum;
	}
list:
	for (j = 0, i = 0; j < nlog; j++)
		for (k = 0; k < cnt[j]; k++, i++) {
			phy[i] = j;
			rank[i] = k;
		}
}

/*
 * The loads as float32, as torch's .float() has them.  Loads so large
 * (or small) that float32 sums could overflow (or lose them to zero) are
 * scaled first by the power of two that puts the largest in [1, 2): a
 * power of two changes no rounding, so the plan is the one their ratios
 * give, where 1e38-sized loads had made inf shares and NaN counts.  Loads
 * in float32's comfortable range are not touched: the waterfill packer
 * compares sums with an absolute 1e-6, so it reproduces its reference
 * exactly only on the loads as they are.
 */
#define SCALE_BEYOND	100	/* binary orders of magnitude */

static void
to_float(const double *w, int n, float *wf)
{
	double big = 0;
	int j, k = 0;

	for (j = 0; j < n; j++)
		big = w[j] > big ? w[j] : big;
	if (big > 0 && big <= DBL_MAX && (ilogb(big) > SCALE_BEYOND ||
	    ilogb(big) < -SCALE_BEYOND))
		k = -ilogb(big);
	if (k >= -1000 && k <= 1000) {	/* 2^k is a double: multiply */
		double x = ldexp(1.0, k);
		for (j = 0; j < n; j++)
			wf[j] = (float)(w[j] * x);
	} else {
		for (j = 0; j < n; j++)
			wf[j] = (float)ldexp(w[j], k);
	}
}

/*
 * The shared skeleton (DeepSeek's rebalance_experts_hierarchical) with
 * the given packer and replicator.  Global = one group, one node.
 */
static int
skeleton(const struct mk_eplb_cfg *c, const double *w, pack_fn *pack,
    repl_fn *repl, struct mk_eplb_plan *out)
{
	int E = c->E, R = c->R, G = c->G;
	int N = c->hier ? c->N : 1, K = c->hier ? c->K : 1;
	int gs = E / K, gpn = K / N, epn = E / N, rpn = R / N, gpun = G / N;
	int S = R / G, n, g, j, i, p, big;
	float *wf, *tpg, *wn, *tpp;
	int *gpack, *grank, *log2mlog, *mlog2log, *phy, *rank, *cnt, *pk, *rk;
	int *pphy2phy;
	struct scratch s;
	double sum;
	int ok = 0;

	big = (R > K ? R : K) + 1;
	wf = malloc(sizeof(float) * (size_t)E);
	tpg = calloc((size_t)K, sizeof(float));
	wn = malloc(sizeof(float) * (size_t)epn);
	tpp = malloc(sizeof(float) * (size_t)rpn);
	gpack = malloc(sizeof(int) * (size_t)K);
	grank = malloc(sizeof(int) * (size_t)K);
	log2mlog = malloc(sizeof(int) * (size_t)E);
	mlog2log = malloc(sizeof(int) * (size_t)E);
	phy = malloc(sizeof(int) * (size_t)rpn);
	rank = malloc(sizeof(int) * (size_t)rpn);
	cnt = malloc(sizeof(int) * (size_t)epn);
	pk = malloc(sizeof(int) * (size_t)rpn);
	rk = malloc(sizeof(int) * (size_t)rpn);
	pphy2phy = malloc(sizeof(int) * (size_t)rpn);
	s.order = malloc(sizeof(int) * (size_t)big);
	s.items = malloc(sizeof(int) * (size_t)big);
	s.loads = malloc(sizeof(float) * (size_t)big);
	s.count = malloc(sizeof(int) * (size_t)big);
	s.perm = malloc(sizeof(int) * (size_t)big);
	if (!wf || !tpg || !wn || !tpp || !gpack || !grank || !log2mlog ||
	    !mlog2log || !phy || !rank || !cnt || !pk || !rk || !pphy2phy ||
	    !s.order || !s.items || !s.loads || !s.count || !s.perm)
		goto out;

	to_float(w, E, wf);
	/* Step 1: groups onto nodes. */
	for (g = 0; g < K; g++) {
		for (j = 0, sum = 0; j < gs; j++)
			sum += (double)wf[g * gs + j];
		tpg[g] = (float)sum;
	}
	pack(tpg, K, N, gpack, grank, &s);
	for (j = 0; j < E; j++) {
		g = j / gs;
		log2mlog[j] = (gpack[g] * gpn + grank[g]) * gs + j % gs;
		mlog2log[log2mlog[j]] = j;
	}
	for (n = 0; n < N; n++) {
		/* Step 2: replicas inside node n. */
		for (j = 0; j < epn; j++)
			wn[j] = wf[mlog2log[n * epn + j]];
		repl(wn, epn, rpn, phy, rank, cnt, &s);
		/* Step 3: the node's replicas onto its GPUs. */
		for (i = 0; i < rpn; i++)
			tpp[i] = wn[phy[i]] / (float)cnt[phy[i]];
		pack(tpp, rpn, gpun, pk, rk, &s);
		for (i = 0; i < rpn; i++)
			pphy2phy[pk[i] * S + rk[i]] = i;
		for (p = 0; p < rpn; p++) {
			i = pphy2phy[p];
			out->phy2log[n * rpn + p] = mlog2log[n * epn + phy[i]];
			out->rank[n * rpn + p] = rank[i];
		}
		for (j = 0; j < epn; j++)
			out->cnt[mlog2log[n * epn + j]] = cnt[j];
	}
	ok = 1;
out:
	free(wf); free(tpg); free(wn); free(tpp); free(gpack); free(grank);
	free(log2mlog); free(mlog2log); free(phy); free(rank); free(cnt);
	free(pk); free(rk); free(pphy2phy); free(s.order); free(s.items);
	free(s.loads); free(s.count); free(s.perm);
	return ok ? 0 : -1;
}

int
mk_eplb_deepseek(const struct mk_eplb_cfg *c, const double *w,
    struct mk_eplb_plan *p)
{
	return skeleton(c, w, pack_deepseek, repl_greedy, p);
}

int
mk_eplb_waterfill(const struct mk_eplb_cfg *c, const double *w,
    struct mk_eplb_plan *p)
{
	return skeleton(c, w, pack_waterfill, repl_hamilton, p);
}
