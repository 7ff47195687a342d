/*
 * eplb_best.c - our planner (--algo best).
 *
 * Per node (the whole cluster for global plans) it solves one problem:
 * choose replica counts for the node's experts and place the replicas on
 * the node's GPUs, S per GPU, so that the largest GPU load is small.
 *   1. Counts start at the greedy ones, which minimise the largest replica
 *      (T*).
 *   2. Placement: largest replica first into the lightest GPU with room
 *      (LPT with cardinality), then a swap search: exchange a replica of
 *      the heaviest GPU with a lighter one of another GPU while that lowers
 *      the heaviest GPU.
 *   3. While the result is above the node's lower bound, move one replica
 *      between two experts of which one sits on the heaviest GPU, re-place,
 *      and keep the move if the largest GPU load drops (joint counts and
 *      placement: the counts that minimise T* are not always the best).
 * Hierarchical plans first choose which groups share a node: every split
 * of the groups into nodes is enumerated when there are few, and the split
 * with the smallest node bound wins; otherwise a greedy split improved by
 * group swaps.  Finally the layer keeps whichever of this plan, deepseek's
 * and waterfill's has the smallest largest GPU load, so it is never worse
 * than either reference.  Everything is deterministic: ties go to the
 * lowest index, and the work is bounded by c->effort, not by time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eplb/eplb.h"
#include "eplb/eplb_impl.h"

struct part;

/* One node's problem and its current solution. */
struct prob {
	int		 n, slots, gpus, S;
	const double	*w;		/* n loads */
	int		*cnt;		/* n counts */
	int		*iexp;		/* slots: expert of each replica */
	double		*ival;		/* slots: its load */
	int		*bin;		/* gpus * S: replicas of each GPU */
	double		*load;		/* gpus */
	int		*heap;		/* scratch */
	double		*pv;		/* n: piece load of each expert */
	int		*ord;		/* 2n: expert order and its scratch */
	struct part	*parts;		/* BLDM partitions (S of them) */
	char		*dirty;		/* gpus: contents need sorting */
	long		 effort;	/* swap steps left */
};

/*
 * Balanced largest differencing (BLDM, Karmarkar-Karp for k items per
 * set): the pieces, largest first, form S rows of G; each row is a partial
 * partition of G one-piece sets.  Repeatedly merge the two partial
 * partitions with the largest spread (heaviest set minus lightest),
 * pairing the heaviest sets of one with the lightest of the other.  The
 * last partition has exactly S pieces per set and is far better balanced
 * than placing the largest piece into the lightest GPU.
 */
struct part {
	double	 spread;
	int	 id;		/* tie-break */
	int	 k;		/* pieces per set so far */
	double	*sum;		/* [G] set sums, heaviest first */
	int	*items;		/* [G][S] piece indices */
};

static int
part_before(const struct part *a, const struct part *b)
{
	return a->spread > b->spread || (a->spread == b->spread && a->id < b->id);
}

/* Sort the sets of a partition by sum, heaviest first (insertion sort). */
static void
sort_sets(struct part *q, int G, int S, int *tmp)
{
	int i, j;
	double v;

	for (i = 1; i < G; i++) {
		v = q->sum[i];
		memcpy(tmp, q->items + (size_t)i * S, sizeof(int) * (size_t)q->k);
		for (j = i - 1; j >= 0 && q->sum[j] < v; j--) {
			q->sum[j + 1] = q->sum[j];
			memcpy(q->items + (size_t)(j + 1) * S, q->items +
			    (size_t)j * S, sizeof(int) * (size_t)q->k);
		}
		q->sum[j + 1] = v;
		memcpy(q->items + (size_t)(j + 1) * S, tmp, sizeof(int) *
		    (size_t)q->k);
	}
	q->spread = q->sum[0] - q->sum[G - 1];
}

static void
place_bldm(struct prob *p)
{
	int G = p->gpus, S = p->S, e, k, i = 0, r, g, n, a, b, best, t;
	struct part *parts = p->parts, *x, *y, tmpq;
	int *tmp = p->heap;

	/* pieces by (load desc, expert asc): sort experts, then expand */
	for (e = 0; e < p->n; e++)
		p->pv[e] = p->w[e] / p->cnt[e];
	eplb_order_desc(p->pv, p->n, p->ord, p->ord + p->n);
	for (t = 0; t < p->n; t++) {
		e = p->ord[t];
		for (k = 0; k < p->cnt[e]; k++, i++) {
			p->iexp[i] = e;
			p->ival[i] = p->pv[e];
		}
	}

	for (r = 0; r < S; r++) {
		x = &parts[r];
		x->id = r;
		x->k = 1;
		for (g = 0; g < G; g++) {
			x->sum[g] = p->ival[r * G + g];
			x->items[(size_t)g * S] = r * G + g;
		}
		x->spread = x->sum[0] - x->sum[G - 1];
	}
	for (n = S; n > 1; n--) {
		/* the two partitions with the largest spreads */
		a = 0;
		for (t = 1; t < n; t++)
			if (part_before(&parts[t], &parts[a]))
				a = t;
		b = a == 0 ? 1 : 0;
		for (t = 0; t < n; t++)
			if (t != a && part_before(&parts[t], &parts[b]))
				b = t;
		x = &parts[a];
		y = &parts[b];
		/* heaviest of x with lightest of y */
		for (g = 0; g < G; g++) {
			x->sum[g] += y->sum[G - 1 - g];
			memcpy(x->items + (size_t)g * S + x->k, y->items +
			    (size_t)(G - 1 - g) * S, sizeof(int) * (size_t)y->k);
		}
		x->k += y->k;
		x->id = x->id < y->id ? x->id : y->id;
		sort_sets(x, G, S, tmp);
		/* drop y: move the last partition into its place */
		best = n - 1;
		if (b != best) {
			tmpq = parts[b];
			parts[b] = parts[best];
			parts[best] = tmpq;
		}
	}
	x = &parts[0];
	for (g = 0; g < G; g++) {
		p->dirty[g] = 1;
		p->load[g] = x->sum[g];
		memcpy(p->bin + (size_t)g * S, x->items + (size_t)g * S,
		    sizeof(int) * (size_t)S);
	}
}

static int
heaviest(const struct prob *p)
{
	int g, b = 0;

	for (g = 1; g < p->gpus; g++)
		if (p->load[g] > p->load[b])
			b = g;
	return b;
}

/* Keep GPU g's replicas sorted by load, heaviest first. */
static void
sort_bin(struct prob *p, int g)
{
	int *v = p->bin + (size_t)g * p->S, i, j, x;

	for (i = 1; i < p->S; i++) {
		x = v[i];
		for (j = i - 1; j >= 0 && p->ival[v[j]] < p->ival[x]; j--)
			v[j + 1] = v[j];
		v[j + 1] = x;
	}
}

/*
 * Swap search: while some exchange of a replica of the heaviest GPU with a
 * lighter replica of another GPU leaves both below the current maximum,
 * make the exchange that minimises the larger of the two new loads.  Each
 * GPU's replicas are kept sorted, so the best partner of a replica is
 * found by binary search near (its load - half the gap).
 */
static void
swap_search(struct prob *p)
{
	int b, c, i, j, k, lo, hi, mid, bi = -1, bj = -1, S = p->S, x, y, t;
	int *ord = p->heap, n = p->gpus;
	double M, gap, d, val, best, eps, want;
	const int *cb, *cc;

	for (c = 0; c < n; c++)
		if (p->dirty[c]) {
			sort_bin(p, c);
			p->dirty[c] = 0;
		}
	/* GPUs by load, lightest first; the last is the heaviest */
	for (c = 0; c < n; c++) {
		for (k = c - 1; k >= 0 && p->load[ord[k]] > p->load[c]; k--)
			ord[k + 1] = ord[k];
		ord[k + 1] = c;
	}
	while (p->effort-- > 0) {
		b = ord[n - 1];
		M = p->load[b];
		eps = M * 1e-12;
		best = M - eps;
		bi = -1;
		cb = p->bin + (size_t)b * S;
		for (t = 0; t < n - 1; t++) {
			c = ord[t];
			gap = M - p->load[c];
			/*
			 * No swap does better than splitting the gap, and
			 * heavier GPUs have smaller gaps: stop here.
			 */
			if (gap <= eps || M - gap / 2 >= best)
				break;
			cc = p->bin + (size_t)c * S;
			for (i = 0; i < S; i++) {
				want = p->ival[cb[i]] - gap / 2;
				/* first j with ival <= want (sorted desc) */
				lo = 0;
				hi = S;
				while (lo < hi) {
					mid = (lo + hi) / 2;
					if (p->ival[cc[mid]] > want)
						lo = mid + 1;
					else
						hi = mid;
				}
				for (k = 0; k < 2; k++) {
					j = lo - k;
					if (j < 0 || j >= S)
						continue;
					d = p->ival[cb[i]] - p->ival[cc[j]];
					if (d <= 0 || d >= gap)
						continue;
					val = M - d > p->load[c] + d ? M - d :
					    p->load[c] + d;
					if (val < best) {
						best = val;
						bi = b * S + i;
						bj = c * S + j;
					}
				}
			}
		}
		if (bi < 0)
			return;
		x = p->bin[bi];
		y = p->bin[bj];
		d = p->ival[x] - p->ival[y];
		c = bj / S;
		p->bin[bi] = y;
		p->bin[bj] = x;
		p->load[b] -= d;
		p->load[c] += d;
		sort_bin(p, b);
		sort_bin(p, c);
		/* both moved: re-sort the order (nearly sorted, insertion) */
		for (t = 1; t < n; t++) {
			x = ord[t];
			for (k = t - 1; k >= 0 && p->load[ord[k]] > p->load[x];
			    k--)
				ord[k + 1] = ord[k];
			ord[k + 1] = x;
		}
	}
}

/* Place for the current counts; returns the largest GPU load. */
static double
place(struct prob *p)
{
	place_bldm(p);
	swap_search(p);
	return p->load[heaviest(p)];
}

/* A saved state of a problem, to try a move and undo it. */
struct sol {
	int	*cnt, *iexp, *bin;
	double	*ival, *load;
	double	 max;
};

static void
save(const struct prob *p, struct sol *s)
{
	memcpy(s->cnt, p->cnt, sizeof(int) * (size_t)p->n);
	memcpy(s->iexp, p->iexp, sizeof(int) * (size_t)p->slots);
	memcpy(s->bin, p->bin, sizeof(int) * (size_t)p->slots);
	memcpy(s->ival, p->ival, sizeof(double) * (size_t)p->slots);
	memcpy(s->load, p->load, sizeof(double) * (size_t)p->gpus);
	s->max = p->load[heaviest(p)];
}

/* Saved states come from after a swap search: their GPUs are sorted. */
static void
restore(struct prob *p, const struct sol *s)
{
	memset(p->dirty, 0, (size_t)p->gpus);
	memcpy(p->cnt, s->cnt, sizeof(int) * (size_t)p->n);
	memcpy(p->iexp, s->iexp, sizeof(int) * (size_t)p->slots);
	memcpy(p->bin, s->bin, sizeof(int) * (size_t)p->slots);
	memcpy(p->ival, s->ival, sizeof(double) * (size_t)p->slots);
	memcpy(p->load, s->load, sizeof(double) * (size_t)p->gpus);
}

/*
 * Move one replica from expert f to expert g in place: the replica of f
 * in slot `at` becomes g's, every other replica of f and g takes its new
 * load, and the GPU loads follow.  p->cnt[f] must be at least 2.
 */
static void
move_replica(struct prob *p, int f, int g, int at)
{
	double vf = p->w[f] / p->cnt[f], vg = p->w[g] / p->cnt[g];
	double nf = p->w[f] / (p->cnt[f] - 1), ng = p->w[g] / (p->cnt[g] + 1);
	int i, x;

	for (i = 0; i < p->slots; i++) {
		x = p->bin[i];
		if (i == at) {
			p->iexp[x] = g;
			p->ival[x] = ng;
			p->load[i / p->S] += ng - vf;
		} else if (p->iexp[x] == f) {
			p->ival[x] = nf;
			p->load[i / p->S] += nf - vf;
		} else if (p->iexp[x] == g) {
			p->ival[x] = ng;
			p->load[i / p->S] += ng - vg;
		} else {
			continue;
		}
		p->dirty[i / p->S] = 1;
	}
	p->cnt[f]--;
	p->cnt[g]++;
}

/* The slot of one of f's replicas: on GPU b if f has one there, else on
 * f's heaviest GPU. */
static int
slot_of(const struct prob *p, int f, int b)
{
	int i, at = -1;

	for (i = 0; i < p->slots; i++)
		if (p->iexp[p->bin[i]] == f) {
			if (i / p->S == b)
				return i;
			if (at < 0 || p->load[i / p->S] > p->load[at / p->S])
				at = i;
		}
	return at;
}

/*
 * Joint search over counts and placement.  Candidate moves involve an
 * expert e with a replica on the heaviest GPU b: e takes a replica from
 * the expert that loses least by it (e's replicas shrink), or e's replica
 * on b goes to the expert whose extra replica is smallest (b sheds load).
 * Each candidate is applied in place and the swap search continues from
 * there; the best strict improvement is kept.  Bounded by p->effort.
 */
static void
count_search(struct prob *p, struct sol *cur, struct sol *trial,
    double bound)
{
	int b, k, e, f, g, i, bf, bg, bat, at, cand[64], nc, dir;
	double v, bv, bestmax;

	while (p->effort > 0 && cur->max > bound * (1 + 1e-9)) {
		restore(p, cur);
		b = heaviest(p);
		nc = 0;
		/* the experts of the three largest replicas on b */
		for (k = 0; k < p->S && nc < 3; k++) {
			e = p->iexp[p->bin[b * p->S + k]];
			for (i = 0; i < nc && cand[i] != e; i++)
				;
			if (i == nc)
				cand[nc++] = e;
		}
		bestmax = cur->max * (1 - 1e-12);
		bf = bg = bat = -1;
		for (i = 0; i < nc && p->effort > 0; i++) {
			for (dir = 0; dir < 2; dir++) {
				e = cand[i];
				f = g = -1;
				bv = 0;
				if (dir == 0) {
					g = e;
					for (k = 0; k < p->n; k++) {
						if (k == e || cur->cnt[k] < 2)
							continue;
						v = p->w[k] / (cur->cnt[k] - 1);
						if (f < 0 || v < bv) {
							f = k;
							bv = v;
						}
					}
				} else if (cur->cnt[e] >= 2) {
					f = e;
					for (k = 0; k < p->n; k++) {
						if (k == e)
							continue;
						v = p->w[k] / (cur->cnt[k] + 1);
						if (g < 0 || v < bv) {
							g = k;
							bv = v;
						}
					}
				}
				if (f < 0 || g < 0)
					continue;
				p->effort -= p->S;	/* the move's own cost */
				restore(p, cur);
				at = slot_of(p, f, b);
				move_replica(p, f, g, at);
				swap_search(p);
				if ((v = p->load[heaviest(p)]) < bestmax) {
					bestmax = v;
					bf = f;
					bg = g;
					bat = at;
					save(p, trial);
				}
			}
		}
		if (bf < 0)
			return;
		/* keep the best move: trial becomes the current state */
		restore(p, trial);
		save(p, cur);
	}
}

/*
 * Solve one node: n experts w[] onto `gpus` GPUs of S slots.  On return
 * slot_exp[g*S+s] is the expert (an index into w) of each slot and cnt[]
 * the counts.  Returns 0 or -1 (memory).
 */
static int
solve_node(const double *w, int n, int gpus, int S, long effort,
    int *slot_exp, int *cnt)
{
	struct prob p;
	struct sol best, trial;
	void *partmem;
	double W = 0, bound, t;
	int slots = gpus * S, i, g, s, ok = -1;

	memset(&p, 0, sizeof(p));
	p.n = n;
	p.slots = slots;
	p.gpus = gpus;
	p.S = S;
	p.w = w;
	p.effort = effort;
	p.cnt = malloc(sizeof(int) * (size_t)n);
	p.iexp = malloc(sizeof(int) * (size_t)slots);
	p.ival = malloc(sizeof(double) * (size_t)slots);
	p.bin = malloc(sizeof(int) * (size_t)slots);
	p.load = malloc(sizeof(double) * (size_t)gpus);
	p.heap = malloc(sizeof(int) * (size_t)(n + 2 * gpus + S));
	p.parts = calloc((size_t)S, sizeof(struct part));
	p.pv = malloc(sizeof(double) * (size_t)n);
	p.dirty = calloc((size_t)gpus, 1);
	p.ord = malloc(sizeof(int) * 2 * (size_t)n);
	partmem = malloc((sizeof(double) + sizeof(int) * (size_t)S) *
	    (size_t)gpus * (size_t)S);
	if (p.parts != NULL && partmem != NULL)
		for (i = 0; i < S; i++) {
			p.parts[i].sum = (double *)partmem + (size_t)i * gpus;
			p.parts[i].items = (int *)((double *)partmem +
			    (size_t)S * gpus) + (size_t)i * gpus * S;
		}
	best.cnt = malloc(sizeof(int) * (size_t)n);
	best.iexp = malloc(sizeof(int) * (size_t)slots);
	best.bin = malloc(sizeof(int) * (size_t)slots);
	best.ival = malloc(sizeof(double) * (size_t)slots);
	best.load = malloc(sizeof(double) * (size_t)gpus);
	trial.cnt = malloc(sizeof(int) * (size_t)n);
	trial.iexp = malloc(sizeof(int) * (size_t)slots);
	trial.bin = malloc(sizeof(int) * (size_t)slots);
	trial.ival = malloc(sizeof(double) * (size_t)slots);
	trial.load = malloc(sizeof(double) * (size_t)gpus);
	if (!p.cnt || !p.iexp || !p.ival || !p.bin || !p.load || !p.heap ||
	    !best.cnt || !best.iexp || !best.bin || !best.ival ||
	    !best.load || !trial.cnt || !trial.iexp || !trial.bin ||
	    !trial.ival || !trial.load || !p.parts ||
	    !partmem || !p.pv || !p.ord || !p.dirty)
		goto out;
	for (i = 0; i < n; i++)
		W += w[i];
	t = eplb_greedy_counts(w, n, slots, p.cnt, p.heap);
	bound = W / gpus > t ? W / gpus : t;
	place(&p);
	save(&p, &best);
	count_search(&p, &best, &trial, bound);
	memcpy(cnt, best.cnt, sizeof(int) * (size_t)n);
	/* GPU contents, each GPU's slots in expert order */
	for (g = 0; g < gpus; g++) {
		for (s = 0; s < S; s++)
			slot_exp[g * S + s] = best.iexp[best.bin[g * S + s]];
		for (s = 1; s < S; s++) {
			int v = slot_exp[g * S + s], j = s - 1;
			while (j >= 0 && slot_exp[g * S + j] > v) {
				slot_exp[g * S + j + 1] = slot_exp[g * S + j];
				j--;
			}
			slot_exp[g * S + j + 1] = v;
		}
	}
	ok = 0;
out:
	free(p.cnt); free(p.iexp); free(p.ival); free(p.bin); free(p.load);
	free(p.heap); free(best.cnt); free(best.iexp); free(best.bin);
	free(best.ival); free(best.load); free(trial.cnt); free(trial.iexp);
	free(trial.bin); free(trial.ival); free(trial.load); free(p.parts);
	free(partmem); free(p.pv); free(p.ord);
	free(p.dirty);
	return ok;
}

#define MAX_SPLITS	4096

/*
 * A greedy split (heaviest group onto the lightest node with room),
 * improved by swapping groups between the worst node and the others.
 */
static void
greedy_split(const struct eplb_groups *gt, int N, uint64_t *nodes)
{
	int K = gt->K, per = K / N, order[64], fill[64], i, j, k, g, bn;
	int round, a, b, done;
	double nl[64], tw;
	uint64_t x, y;

	for (g = 0; g < K; g++)
		order[g] = g;
	for (i = 1; i < K; i++)
		for (j = i; j > 0 && gt->load[order[j]] > gt->load[order[j - 1]];
		    j--) {
			g = order[j];
			order[j] = order[j - 1];
			order[j - 1] = g;
		}
	for (k = 0; k < N; k++) {
		nodes[k] = 0;
		nl[k] = 0;
		fill[k] = 0;
	}
	for (i = 0; i < K; i++) {
		bn = -1;
		for (k = 0; k < N; k++)
			if (fill[k] < per && (bn < 0 || nl[k] < nl[bn]))
				bn = k;
		nodes[bn] |= (uint64_t)1 << order[i];
		nl[bn] += gt->load[order[i]];
		fill[bn]++;
	}
	for (round = 0; round < 4 * K; round++) {
		int wn = 0;
		for (k = 1; k < N; k++)
			if (eplb_node_term(gt, nodes[k]) >
			    eplb_node_term(gt, nodes[wn]))
				wn = k;
		tw = eplb_node_term(gt, nodes[wn]);
		done = 0;
		for (k = 0; k < N && !done; k++) {
			if (k == wn)
				continue;
			for (a = 0; a < K && !done; a++) {
				if (!(nodes[wn] >> a & 1))
					continue;
				for (b = 0; b < K && !done; b++) {
					if (!(nodes[k] >> b & 1))
						continue;
					x = (nodes[wn] & ~((uint64_t)1 << a)) |
					    (uint64_t)1 << b;
					y = (nodes[k] & ~((uint64_t)1 << b)) |
					    (uint64_t)1 << a;
					if (eplb_node_term(gt, x) < tw &&
					    eplb_node_term(gt, y) < tw) {
						nodes[wn] = x;
						nodes[k] = y;
						done = 1;
					}
				}
			}
		}
		if (!done)
			break;
	}
}

/*
 * The split of ways[0..n) (N masks each) with the smallest mean (worst:
 * largest) over the S scenarios' tables gs[] of their largest node
 * bound, the first on ties.  Returns its index, or -1 (memory).
 */
static int
split_sc(const struct eplb_groups *gs, int S, int N, const uint64_t *ways,
    int n, int worst)
{
	double best = 0, v, m, t;
	int i, j, s, which = -1;

	for (i = 0; i < n; i++) {
		for (v = 0, s = 0; s < S; s++) {
			for (m = 0, j = 0; j < N; j++)
				if ((t = eplb_node_term(&gs[s], ways[(size_t)i *
				    (size_t)N + (size_t)j])) > m)
					m = t;
			v = worst ? (m > v ? m : v) : v + m;
		}
		if (which < 0 || v < best) {
			best = v;
			which = i;
		}
	}
	return which;
}

/*
 * Choose the groups of each node: nodes[k] is a bitmask of groups.  Every
 * split is tried when there are at most MAX_SPLITS, keeping the one with
 * the smallest worst node bound (the first on ties) - with S > 1
 * scenarios w[S][E], the smallest mean (or largest) over them, which
 * holds held-out loads better than the split for their sum (RESULTS.md);
 * otherwise a greedy split of their sum improved by swaps.  Returns 0 or
 * -1 (memory).
 */
int
eplb_split_groups(const struct mk_eplb_cfg *c, const double *w, int S,
    uint64_t *nodes)
{
	struct eplb_groups gt, *gs = NULL;
	uint64_t *ways;
	double *sum;
	int N = c->N, n = 0, which = -1, s, e, ok = -1;

	if ((sum = calloc((size_t)c->E, sizeof(double))) == NULL)
		return -1;
	for (s = 0; s < S; s++)
		for (e = 0; e < c->E; e++)
			sum[e] += w[(size_t)s * c->E + e];
	if (eplb_groups_init(&gt, c, sum) < 0) {
		free(sum);
		return -1;
	}
	ways = malloc(sizeof(uint64_t) * MAX_SPLITS * (size_t)N);
	if (ways != NULL)
		n = eplb_group_splits(c->K, N, ways, MAX_SPLITS);
	if (n > 0 && S == 1) {
		eplb_best_split(&gt, N, ways, n, &which);
	} else if (n > 0) {
		if ((gs = calloc((size_t)S, sizeof(*gs))) == NULL)
			goto out;
		for (s = 0; s < S; s++)
			if (eplb_groups_init(&gs[s], c, w + (size_t)s * c->E) <
			    0)
				goto out;
		which = split_sc(gs, S, N, ways, n, c->objective ==
		    MK_EPLB_WORST);
	}
	if (which >= 0)
		memcpy(nodes, ways + (size_t)which * (size_t)N,
		    sizeof(uint64_t) * (size_t)N);
	else
		greedy_split(&gt, N, nodes);
	ok = 0;
out:
	for (s = 0; gs != NULL && s < S; s++)
		eplb_groups_free(&gs[s]);
	free(gs);
	free(ways);
	free(sum);
	eplb_groups_free(&gt);
	return ok;
}

int
eplb_by_nodes(const struct mk_eplb_cfg *c, const double *w, int Sw,
    eplb_node_fn *solve, void *ctx, struct mk_eplb_plan *p)
{
	int N = c->hier ? c->N : 1, E = c->E, S = c->R / c->G;
	int gpn = c->G / N, rpn = c->R / N, gs = c->K ? E / c->K : E;
	int *ids, *slot, *cnt, n, k, g, j, i, ok = -1;
	uint64_t nodes[64];

	ids = malloc(sizeof(int) * (size_t)E);
	cnt = malloc(sizeof(int) * (size_t)E);
	slot = malloc(sizeof(int) * (size_t)rpn);
	if (!ids || !cnt || !slot)
		goto out;
	if (N > 1) {
		if (N > 64 || eplb_split_groups(c, w, Sw, nodes) < 0)
			goto out;
	}
	for (k = 0; k < N; k++) {
		/* the node's experts, in ascending order */
		n = 0;
		if (N == 1) {
			for (j = 0; j < E; j++)
				ids[n++] = j;
		} else {
			for (g = 0; g < c->K; g++)
				if (nodes[k] >> g & 1)
					for (j = 0; j < gs; j++)
						ids[n++] = g * gs + j;
		}
		if (solve(ctx, ids, n, gpn, S, slot, cnt) < 0)
			goto out;
		for (i = 0; i < rpn; i++)
			p->phy2log[k * rpn + i] = ids[slot[i]];
		for (j = 0; j < n; j++)
			p->cnt[ids[j]] = cnt[j];
	}
	/* replica ranks: ascending physical slot */
	for (j = 0; j < E; j++)
		cnt[j] = 0;
	for (i = 0; i < c->R; i++)
		p->rank[i] = cnt[p->phy2log[i]]++;
	ok = 0;
out:
	free(ids);
	free(cnt);
	free(slot);
	return ok;
}

/* What a node of best's needs: the layer's loads and the effort. */
struct one {
	const double	*w;
	long		 effort;
};

static int
solve_one(void *ctx, const int *ids, int n, int gpus, int S, int *slot,
    int *cnt)
{
	const struct one *o = ctx;
	double *wn = malloc(sizeof(double) * (size_t)(n + 1));
	int j, r;

	if (wn == NULL)
		return -1;
	for (j = 0; j < n; j++)
		wn[j] = o->w[ids[j]];
	r = solve_node(wn, n, gpus, S, o->effort, slot, cnt);
	free(wn);
	return r;
}

static void
copy_plan(const struct mk_eplb_cfg *c, struct mk_eplb_plan *dst,
    const struct mk_eplb_plan *src)
{
	memcpy(dst->phy2log, src->phy2log, sizeof(int64_t) * (size_t)c->R);
	memcpy(dst->rank, src->rank, sizeof(int64_t) * (size_t)c->R);
	memcpy(dst->cnt, src->cnt, sizeof(int64_t) * (size_t)c->E);
}

int
mk_eplb_best(const struct mk_eplb_cfg *c, const double *w,
    struct mk_eplb_plan *p)
{
	struct one o = { w, c->effort };
	struct mk_eplb_plan ref;
	int64_t *buf;
	double mine, other;
	int r, which;

	if (eplb_by_nodes(c, w, 1, solve_one, &o, p) < 0)
		return -1;
	mine = mk_eplb_max_load(c, w, p->phy2log, p->cnt, NULL);
	buf = malloc(sizeof(int64_t) * (size_t)(2 * c->R + c->E));
	if (buf == NULL)
		return -1;
	ref.phy2log = buf;
	ref.rank = buf + c->R;
	ref.cnt = buf + 2 * c->R;
	/* Never worse than a reference on any layer. */
	for (which = 0; which < 2; which++) {
		r = which == 0 ? mk_eplb_deepseek(c, w, &ref) :
		    mk_eplb_waterfill(c, w, &ref);
		if (r < 0) {
			free(buf);
			return -1;
		}
		other = mk_eplb_max_load(c, w, ref.phy2log, ref.cnt, NULL);
		if (other < mine) {
			copy_plan(c, p, &ref);
			mine = other;
		}
	}
	free(buf);
	return 0;
}
