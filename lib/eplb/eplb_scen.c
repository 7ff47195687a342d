/*
 * eplb_scen.c - best for several scenarios (mk_eplb_best_sc): one
 * placement that holds for S load vectors at once, for a plan that must
 * serve traffic it was not made from.
 *
 * Per node (the whole cluster for global plans), with the scenarios'
 * loads normalised per layer:
 *   1. Counts: greedy replication on the scenarios' mean (the counts that
 *      minimise the largest replica of the mean load).
 *   2. Placement: replicas by mean load, largest first, each onto the GPU
 *      with room that raises the objective least, among the GPUs that do
 *      not hold its expert yet (a replica beside another of its expert
 *      serves the same tokens on the same GPU: a wasted slot for every
 *      scenario but the one that is hot on that GPU).
 *   3. Swaps: while exchanging a replica of a GPU that is the heaviest in
 *      some scenario with one of another GPU lowers the objective, make
 *      the best such exchange.
 * The objective is the mean over scenarios of the largest GPU load
 * (--objective worst: the largest over scenarios).  Hierarchical plans
 * split groups onto nodes by the mean load, as best does for one.  The
 * layer then keeps whichever of this plan and the references' plans for
 * the scenarios' sum has the smallest objective.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "eplb/eplb.h"
#include "eplb/eplb_impl.h"

/* One node's problem and its current solution. */
struct sc {
	int		 n, S, G, per;	/* experts, scenarios, GPUs, slots each */
	int		 worst;		/* objective: largest, not mean */
	const double	*w;		/* [S][n] */
	int		*cnt;		/* [n] replicas */
	int		*exp;		/* [G * per] expert of each slot */
	double		*piece;		/* [S][n] w / cnt */
	double		*load;		/* [S][G] */
	unsigned char	*on;		/* [G][n] replicas of the expert there */
	double		*top;		/* [S][3] the three largest loads */
	int		*topg;		/* [S][3] and their GPUs */
	long		 effort;
};

#define LOAD(p, s, g)	((p)->load[(size_t)(s) * (p)->G + (g)])
#define PIECE(p, s, e)	((p)->piece[(size_t)(s) * (p)->n + (e)])

/* The three heaviest GPUs of each scenario. */
static void
tops(struct sc *p)
{
	double *t, v;
	int s, g, k, *tg;

	for (s = 0; s < p->S; s++) {
		t = p->top + 3 * s;
		tg = p->topg + 3 * s;
		t[0] = t[1] = t[2] = -DBL_MAX;
		tg[0] = tg[1] = tg[2] = -1;
		for (g = 0; g < p->G; g++) {
			v = LOAD(p, s, g);
			for (k = 3; k > 0 && v > t[k - 1]; k--)
				if (k < 3) {
					t[k] = t[k - 1];
					tg[k] = tg[k - 1];
				}
			if (k < 3) {
				t[k] = v;
				tg[k] = g;
			}
		}
	}
}

/* The largest load of scenario s on a GPU other than a and b. */
static double
max_but(const struct sc *p, int s, int a, int b)
{
	const double *t = p->top + 3 * s;
	const int *tg = p->topg + 3 * s;
	int k;

	for (k = 0; k < 3; k++)
		if (tg[k] != a && tg[k] != b)
			return t[k];
	return 0;	/* fewer than three GPUs */
}

/* The objective of the per-scenario maxima m[0..S). */
static double
objective(const struct sc *p, const double *m)
{
	double v = 0;
	int s;

	for (s = 0; s < p->S; s++)
		v = p->worst ? (m[s] > v ? m[s] : v) : v + m[s];
	return p->worst ? v : v / p->S;
}

static double
current(const struct sc *p)
{
	double m[64];
	int s;

	for (s = 0; s < p->S; s++)
		m[s] = p->top[3 * s];
	return objective(p, m);
}

/* May a replica of expert e join GPU g (no second one, if avoidable)? */
static int
may_join(const struct sc *p, int e, int g)
{
	return p->on[(size_t)g * p->n + e] == 0 || p->cnt[e] > p->G;
}

/* The objective if GPU g took one more replica of expert e. */
static double
with(const struct sc *p, int g, int e)
{
	double m[64], v;
	int s;

	for (s = 0; s < p->S; s++) {
		v = LOAD(p, s, g) + PIECE(p, s, e);
		m[s] = v > p->top[3 * s] ? v : p->top[3 * s];
	}
	return objective(p, m);
}

static double
mean_load(const struct sc *p, int g)
{
	double v = 0;
	int s;

	for (s = 0; s < p->S; s++)
		v += LOAD(p, s, g);
	return v;
}

static void
put(struct sc *p, int slot, int e)
{
	int g = slot / p->per, s;

	p->exp[slot] = e;
	p->on[(size_t)g * p->n + e]++;
	for (s = 0; s < p->S; s++)
		LOAD(p, s, g) += PIECE(p, s, e);
}

/*
 * Step 2: replicas by mean load, largest first (ties: the lower expert),
 * each onto the GPU with room it may join that raises the objective least
 * (ties: the lighter in the mean, then the lower index).  fill and ord are
 * scratch of G and n ints.
 */
static void
place(struct sc *p, int *fill, int *ord, double *key)
{
	int i, k, e, g, best, slots = p->G * p->per;
	double v, bv = 0, bm = 0, m;

	for (e = 0; e < p->n; e++) {
		for (key[e] = 0, k = 0; k < p->S; k++)
			key[e] += PIECE(p, k, e);
	}
	eplb_order_desc(key, p->n, ord, ord + p->n);
	memset(fill, 0, sizeof(int) * (size_t)p->G);
	memset(p->on, 0, (size_t)p->G * (size_t)p->n);
	memset(p->load, 0, sizeof(double) * (size_t)p->S * (size_t)p->G);
	tops(p);
	for (i = 0; i < p->n; i++) {
		e = ord[i];
		for (k = 0; k < p->cnt[e]; k++) {
			best = -1;
			for (g = 0; g < p->G; g++) {
				if (fill[g] == p->per || !may_join(p, e, g))
					continue;
				v = with(p, g, e);
				m = mean_load(p, g);
				if (best < 0 || v < bv || (v == bv && m < bm)) {
					best = g;
					bv = v;
					bm = m;
				}
			}
			/* no GPU without e has room: the lightest with room */
			for (g = 0; best < 0 && g < p->G; g++)
				if (fill[g] < p->per)
					best = g;
			put(p, best * p->per + fill[best]++, e);
			tops(p);
		}
	}
	(void)slots;
}

/* The best swap found so far. */
struct swap {
	double	 obj;
	int	 a, b;		/* slots */
};

/* Every exchange of a slot of GPU g1 with one of GPU g2. */
static void
try_pair(const struct sc *p, int g1, int g2, struct swap *best)
{
	double m[64], d, l1, l2, mo, v;
	int i, j, s, a, b, ea, eb;

	for (i = 0; i < p->per; i++) {
		a = g1 * p->per + i;
		ea = p->exp[a];
		if (!may_join(p, ea, g2))
			continue;
		for (j = 0; j < p->per; j++) {
			b = g2 * p->per + j;
			eb = p->exp[b];
			if (ea == eb || !may_join(p, eb, g1))
				continue;
			for (s = 0; s < p->S; s++) {
				d = PIECE(p, s, ea) - PIECE(p, s, eb);
				l1 = LOAD(p, s, g1) - d;
				l2 = LOAD(p, s, g2) + d;
				mo = max_but(p, s, g1, g2);
				v = l1 > l2 ? l1 : l2;
				m[s] = v > mo ? v : mo;
			}
			v = objective(p, m);
			if (v < best->obj) {
				best->obj = v;
				best->a = a;
				best->b = b;
			}
		}
	}
}

static void
swap_slots(struct sc *p, int a, int b)
{
	int g1 = a / p->per, g2 = b / p->per, ea = p->exp[a], eb = p->exp[b];
	int s;
	double d;

	for (s = 0; s < p->S; s++) {
		d = PIECE(p, s, ea) - PIECE(p, s, eb);
		LOAD(p, s, g1) -= d;
		LOAD(p, s, g2) += d;
	}
	p->on[(size_t)g1 * p->n + ea]--;
	p->on[(size_t)g2 * p->n + eb]--;
	p->on[(size_t)g2 * p->n + ea]++;
	p->on[(size_t)g1 * p->n + eb]++;
	p->exp[a] = eb;
	p->exp[b] = ea;
	tops(p);
}

/*
 * Step 3: the best exchange between a GPU that is the heaviest in some
 * scenario and any other, while one lowers the objective.  Each step
 * costs the effort one step of best's swap search does per slot pair.
 */
static void
swaps(struct sc *p)
{
	struct swap best;
	int s, k, g1, g2;
	double cur;

	while (p->effort > 0) {
		cur = current(p);
		best.obj = cur - cur * 1e-12;
		best.a = -1;
		for (s = 0; s < p->S; s++) {
			g1 = p->topg[3 * s];
			/* each heaviest GPU once */
			for (k = 0; k < s && p->topg[3 * k] != g1; k++)
				;
			if (k < s)
				continue;
			for (g2 = 0; g2 < p->G; g2++)
				if (g2 != g1)
					try_pair(p, g1, g2, &best);
		}
		p->effort -= 1;
		if (best.a < 0)
			return;
		swap_slots(p, best.a, best.b);
	}
}

/*
 * Solve one node: n experts with loads w[S][n] onto G GPUs of `per`
 * slots.  On return slot_exp[g*per+k] is the expert (an index into w's
 * rows) of each slot, each GPU's in ascending order, and cnt[] the
 * counts.  Returns 0 or -1 (memory).
 */
static int
solve_node(const double *w, int n, int S, int G, int per, long effort,
    int worst, int *slot_exp, int *cnt)
{
	struct sc p;
	double *mean = NULL, *key = NULL;
	int *fill = NULL, *ord = NULL, *heap = NULL, s, e, g, k, v, j;
	int slots = G * per, ok = -1;

	memset(&p, 0, sizeof(p));
	p.n = n;
	p.S = S;
	p.G = G;
	p.per = per;
	p.w = w;
	p.worst = worst;
	p.effort = effort;
	p.cnt = cnt;
	p.exp = slot_exp;
	p.piece = malloc(sizeof(double) * (size_t)S * (size_t)n);
	p.load = malloc(sizeof(double) * (size_t)S * (size_t)G);
	p.on = malloc((size_t)G * (size_t)n);
	p.top = malloc(sizeof(double) * 3 * (size_t)S);
	p.topg = malloc(sizeof(int) * 3 * (size_t)S);
	mean = calloc((size_t)n + 1, sizeof(double));
	key = malloc(sizeof(double) * (size_t)n);
	fill = malloc(sizeof(int) * (size_t)G);
	ord = malloc(sizeof(int) * 2 * (size_t)n);
	heap = malloc(sizeof(int) * (size_t)n);
	if (!p.piece || !p.load || !p.on || !p.top || !p.topg || !mean ||
	    !key || !fill || !ord || !heap)
		goto out;
	for (e = 0; e < n; e++) {
		for (mean[e] = 0, s = 0; s < S; s++)
			mean[e] += w[(size_t)s * n + e];
		mean[e] /= S;
	}
	eplb_greedy_counts(mean, n, slots, cnt, heap);
	for (s = 0; s < S; s++)
		for (e = 0; e < n; e++)
			PIECE(&p, s, e) = w[(size_t)s * n + e] / cnt[e];
	place(&p, fill, ord, key);
	swaps(&p);
	/* each GPU's slots in expert order */
	for (g = 0; g < G; g++)
		for (k = 1; k < per; k++) {
			v = slot_exp[g * per + k];
			for (j = k - 1; j >= 0 && slot_exp[g * per + j] > v; j--)
				slot_exp[g * per + j + 1] = slot_exp[g * per + j];
			slot_exp[g * per + j + 1] = v;
		}
	ok = 0;
out:
	free(p.piece);
	free(p.load);
	free(p.on);
	free(p.top);
	free(p.topg);
	free(mean);
	free(key);
	free(fill);
	free(ord);
	free(heap);
	return ok;
}

/* What a node needs: the layer's scenarios. */
struct many {
	const struct mk_eplb_cfg *c;
	const double	*w;		/* [S][E] */
	int		 S;
};

static int
solve_many(void *ctx, const int *ids, int n, int gpus, int per, int *slot,
    int *cnt)
{
	const struct many *m = ctx;
	double *wn = malloc(sizeof(double) * (size_t)m->S * (size_t)n + 1);
	int s, j, r;

	if (wn == NULL)
		return -1;
	for (s = 0; s < m->S; s++)
		for (j = 0; j < n; j++)
			wn[(size_t)s * n + j] = m->w[(size_t)s * m->c->E +
			    ids[j]];
	r = solve_node(wn, n, m->S, gpus, per, m->c->effort * 4L,
	    m->c->objective == MK_EPLB_WORST, slot, cnt);
	free(wn);
	return r;
}

double
mk_eplb_objective(const struct mk_eplb_cfg *c, const double *w, int S,
    const int64_t *phy2log, const int64_t *cnt)
{
	double v = 0, m;
	int s;

	for (s = 0; s < S; s++) {
		m = mk_eplb_max_load(c, w + (size_t)s * c->E, phy2log, cnt, NULL);
		v = c->objective == MK_EPLB_WORST ? (m > v ? m : v) : v + m;
	}
	return c->objective == MK_EPLB_WORST || S == 0 ? v : v / S;
}

int
mk_eplb_best_sc(const struct mk_eplb_cfg *c, const double *w, int S,
    struct mk_eplb_plan *p)
{
	struct many m = { c, w, S };
	struct mk_eplb_plan ref;
	int64_t *buf;
	double *sum, mine, other;
	int e, s, r = -1, which;

	if (S > MK_EPLB_MAX_SCENARIOS)
		return -1;
	sum = calloc((size_t)c->E, sizeof(double));
	buf = malloc(sizeof(int64_t) * (size_t)(2 * c->R + c->E));
	if (sum == NULL || buf == NULL)
		goto out;
	for (s = 0; s < S; s++)
		for (e = 0; e < c->E; e++)
			sum[e] += w[(size_t)s * c->E + e];
	if (eplb_by_nodes(c, sum, solve_many, &m, p) < 0)
		goto out;
	mine = mk_eplb_objective(c, w, S, p->phy2log, p->cnt);
	ref.phy2log = buf;
	ref.rank = buf + c->R;
	ref.cnt = buf + 2 * c->R;
	/* never above the references (for the sum) on the objective */
	for (which = 0; which < 2; which++) {
		if ((which == 0 ? mk_eplb_deepseek(c, sum, &ref) :
		    mk_eplb_waterfill(c, sum, &ref)) < 0)
			goto out;
		other = mk_eplb_objective(c, w, S, ref.phy2log, ref.cnt);
		if (other < mine) {
			memcpy(p->phy2log, ref.phy2log, sizeof(int64_t) *
			    (size_t)c->R);
			memcpy(p->rank, ref.rank, sizeof(int64_t) * (size_t)c->R);
			memcpy(p->cnt, ref.cnt, sizeof(int64_t) * (size_t)c->E);
			mine = other;
		}
	}
	r = 0;
out:
	free(sum);
	free(buf);
	return r;
}
