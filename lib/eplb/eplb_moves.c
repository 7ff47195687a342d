/*
 * eplb_moves.c - a new plan limited to a budget of moved slots
 * (--max-moves); see mk_eplb_limit_moves in eplb.h.
 *
 * Each layer walks from the previous plan to the new one a slot at a
 * time, always taking the slot whose change lowers the layer's objective
 * most (a change that would leave an expert without a replica waits
 * while another is possible).  Every valid point of the walk is a plan of
 * k moves; the lower convex hull of (k, objective) is what a layer can
 * offer, and an exact allocation over the layers' hulls (a multiple-
 * choice knapsack by dynamic programming) spends the budget where it
 * lowers the summed objective most.  The optimum over a budget never
 * rises as the budget grows, so balancedness never falls.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "eplb/eplb.h"

/* One layer's walk and what it offers. */
struct walk {
	int	*order;		/* [d] slots in the order changed */
	int	 d;		/* slots that differ */
	int	 nh;		/* hull points */
	int	*hk;		/* [nh] moves at each, ascending from 0 */
	double	*hf;		/* [nh] the objective there, descending */
};

/* What one layer's walk works on. */
struct layer {
	const struct mk_eplb_cfg *c;
	int	 S;
	const double *w;	/* [S][E] loads as the objective sees them */
	int64_t	*cur, *cnt;	/* [R], [E] */
	int	*rep;		/* [E][G] replicas of each expert on each GPU */
	double	*gl;		/* [S][G] GPU loads */
};

static double
share(const struct layer *y, int s, int e, int n, int c)
{
	return c > 0 ? y->w[(size_t)s * y->c->E + e] * n / c : 0;
}

/* The layer objective (mk_eplb_objective's rule) from loads m[S]. */
static double
combine(const struct mk_eplb_cfg *c, const double *m, int S)
{
	double v = 0;
	int s;

	for (s = 0; s < S; s++)
		v = c->objective == MK_EPLB_WORST && S > 1 ? (m[s] > v ? m[s] :
		    v) : v + m[s];
	return c->objective == MK_EPLB_WORST || S <= 1 ? v : v / S;
}

/* The objective if slot sl changed from its expert to y (loads kept). */
static double
try_change(const struct layer *y, int sl, int to, double *m)
{
	const struct mk_eplb_cfg *c = y->c;
	const int G = c->G, gs = sl / (c->R / G), x = (int)y->cur[sl];
	const int cx = (int)y->cnt[x], cy = (int)y->cnt[to];
	int s, h, nx, ny;
	double v;

	for (s = 0; s < y->S; s++) {
		m[s] = 0;
		for (h = 0; h < G; h++) {
			nx = y->rep[x * G + h];
			ny = y->rep[to * G + h];
			v = y->gl[s * G + h];
			if (nx > 0 || ny > 0 || h == gs)
				v += share(y, s, x, nx - (h == gs), cx - 1) -
				    share(y, s, x, nx, cx) +
				    share(y, s, to, ny + (h == gs), cy + 1) -
				    share(y, s, to, ny, cy);
			m[s] = v > m[s] ? v : m[s];
		}
	}
	return combine(c, m, y->S);
}

/* Slot sl changes to expert to, loads and counts kept up to date. */
static void
change(struct layer *y, int sl, int to)
{
	const int G = y->c->G, gs = sl / (y->c->R / G), x = (int)y->cur[sl];
	int s, h;

	for (s = 0; s < y->S; s++)
		for (h = 0; h < G; h++) {
			int nx = y->rep[x * G + h], ny = y->rep[to * G + h];

			if (nx > 0 || ny > 0 || h == gs)
				y->gl[s * G + h] += share(y, s, x, nx - (h ==
				    gs), (int)y->cnt[x] - 1) - share(y, s, x,
				    nx, (int)y->cnt[x]) + share(y, s, to, ny +
				    (h == gs), (int)y->cnt[to] + 1) - share(y,
				    s, to, ny, (int)y->cnt[to]);
		}
	y->rep[x * G + gs]--;
	y->rep[to * G + gs]++;
	y->cnt[x]--;
	y->cnt[to]++;
	y->cur[sl] = to;
}

/* The exact objective of the layer's current plan. */
static double
exact(const struct layer *y, double *m)
{
	int s;

	for (s = 0; s < y->S; s++)
		m[s] = mk_eplb_max_load(y->c, y->w + (size_t)s * y->c->E,
		    y->cur, y->cnt, NULL);
	return combine(y->c, m, y->S);
}

/* The lower convex hull of points (k[i], f[i]), k ascending, kept where f
 * falls: the layer's offers.  In place; returns how many. */
static int
hull(int *k, double *f, int n)
{
	int i, h = 0;

	for (i = 0; i < n; i++) {
		if (h > 0 && f[i] >= f[h - 1])
			continue;	/* more moves, no better */
		while (h >= 2 && (f[h - 1] - f[h - 2]) * (double)(k[i] -
		    k[h - 2]) >= (f[i] - f[h - 2]) * (double)(k[h - 1] -
		    k[h - 2]))
			h--;
		k[h] = k[i];
		f[h++] = f[i];
	}
	return h;
}

/*
 * Layer row prev -> row new (both R slots) walked for at most most
 * steps; w: the layer's S rows of loads.  Fills k.  Returns 0 or -1.
 */
static int
walk_layer(const struct mk_eplb_cfg *c, const double *w, int S,
    const int64_t *prev, const int64_t *row, int64_t most, struct walk *k)
{
	const int R = c->R, E = c->E, G = c->G, per = R / G;
	struct layer y = { c, S, w, NULL, NULL, NULL, NULL };
	int *left = NULL, nleft = 0, i, j, best, bok, zeros = 0, n = 1;
	double *m = NULL, f, bf;
	int64_t steps;
	int rc = -1;

	memset(k, 0, sizeof(*k));
	y.cur = malloc(sizeof(int64_t) * ((size_t)R + (size_t)E));
	y.rep = calloc((size_t)E * (size_t)G, sizeof(int));
	y.gl = calloc((size_t)S * (size_t)G, sizeof(double));
	m = malloc(sizeof(double) * (size_t)S);
	left = malloc(sizeof(int) * (size_t)R);
	k->order = malloc(sizeof(int) * (size_t)R);
	k->hk = malloc(sizeof(int) * ((size_t)R + 1));
	k->hf = malloc(sizeof(double) * ((size_t)R + 1));
	if (!y.cur || !y.rep || !y.gl || !m || !left || !k->order || !k->hk ||
	    !k->hf)
		goto out;
	y.cnt = y.cur + R;
	memcpy(y.cur, prev, sizeof(int64_t) * (size_t)R);
	memset(y.cnt, 0, sizeof(int64_t) * (size_t)E);
	for (i = 0; i < R; i++) {
		y.cnt[prev[i]]++;
		y.rep[prev[i] * G + i / per]++;
		if (prev[i] != row[i])
			left[nleft++] = i;
	}
	for (j = 0; j < S; j++)
		for (i = 0; i < G; i++)
			y.gl[j * G + i] = mk_eplb_gpu_load(c, w + (size_t)j * E,
			    y.cur, y.cnt, i);
	k->d = nleft;
	k->hk[0] = 0;
	k->hf[0] = exact(&y, m);
	steps = most < nleft ? most : nleft;
	for (i = 0; i < steps; i++) {
		/* the best change keeping every expert a replica, else any */
		for (best = -1, bok = 0, bf = INFINITY, j = 0; j < nleft; j++) {
			int ok = y.cnt[y.cur[left[j]]] > 1;

			if (bok && !ok)
				continue;
			f = try_change(&y, left[j], (int)row[left[j]], m);
			if (best < 0 || (ok && !bok) || f < bf) {
				best = j;
				bf = f;
				bok = ok;
			}
		}
		zeros += y.cnt[y.cur[left[best]]] == 1;
		zeros -= y.cnt[row[left[best]]] == 0;
		k->order[i] = left[best];
		change(&y, left[best], (int)row[left[best]]);
		left[best] = left[--nleft];
		if (zeros == 0) {	/* a valid plan: an offer */
			k->hk[n] = i + 1;
			k->hf[n++] = exact(&y, m);
		}
	}
	k->nh = hull(k->hk, k->hf, n);
	rc = 0;
out:
	free(y.cur);
	free(y.rep);
	free(y.gl);
	free(m);
	free(left);
	return rc;
}

/* The layer's loads as the objective sees them (mk_eplb_total_objective). */
static void
layer_loads(const struct mk_eplb_cfg *c, const double *w, int S, int L,
    int l, double *ws)
{
	if (S == 1)
		memcpy(ws, w + (size_t)l * c->E, sizeof(double) * (size_t)c->E);
	else
		mk_eplb_scenarios(w, S, L, c->E, l, ws);
}

/*
 * The knapsack: choice[l] gets the hull point of layer l, at most B moves
 * in all, the least summed objective.  Returns 0 or -1 (memory).
 */
static int
allocate(const struct walk *k, int L, int64_t B, int *choice)
{
	double *dp = malloc(sizeof(double) * (size_t)(B + 1)), *nx;
	uint16_t *pick = malloc(sizeof(uint16_t) * (size_t)L * (size_t)(B + 1));
	int64_t b, best;
	int l, j;

	nx = malloc(sizeof(double) * (size_t)(B + 1));
	if (dp == NULL || pick == NULL || nx == NULL) {
		free(dp);
		free(pick);
		free(nx);
		return -1;
	}
	for (b = 0; b <= B; b++)
		dp[b] = 0;
	for (l = 0; l < L; l++) {
		for (b = 0; b <= B; b++) {
			nx[b] = INFINITY;
			for (j = 0; j < k[l].nh && k[l].hk[j] <= b; j++)
				if (dp[b - k[l].hk[j]] + k[l].hf[j] < nx[b]) {
					nx[b] = dp[b - k[l].hk[j]] + k[l].hf[j];
					pick[(size_t)l * (size_t)(B + 1) +
					    (size_t)b] = (uint16_t)j;
				}
		}
		memcpy(dp, nx, sizeof(double) * (size_t)(B + 1));
	}
	for (best = B, l = L - 1; l >= 0; l--) {
		choice[l] = pick[(size_t)l * (size_t)(B + 1) + (size_t)best];
		best -= k[l].hk[choice[l]];
	}
	free(dp);
	free(pick);
	free(nx);
	return 0;
}

int
mk_eplb_limit_moves(const struct mk_eplb_problem *pb, int64_t M,
    struct mk_eplb_out *plan, struct mk_err *e)
{
	const struct mk_eplb_cfg *c = pb->c;
	const double *w = pb->w;
	const int S = pb->S, L = pb->L, width_max = pb->width_max;
	const int64_t *prev = pb->prev;
	const size_t R = (size_t)c->R;
	struct walk *k = calloc((size_t)L, sizeof(*k));
	int *choice = malloc(sizeof(int) * (size_t)L), l, j, i, bad = 0;
	double *ws = malloc(sizeof(double) * (size_t)S * (size_t)c->E);
	int64_t *rows = malloc(sizeof(int64_t) * (size_t)L * R), B = 0;
	struct mk_eplb_out lim;
	int rc = -1;

	if (k == NULL || choice == NULL || ws == NULL || rows == NULL)
		goto out;
	for (l = 0; l < L && !bad; l++) {
		layer_loads(c, w, S, L, l, ws);
		bad = walk_layer(c, ws, S, prev + (size_t)l * R,
		    plan->phy2log + (size_t)l * R, M, &k[l]) < 0;
		B += k[l].hk[k[l].nh - 1];
	}
	if (bad || allocate(k, L, B < M ? B : M, choice) < 0)
		goto out;
	for (l = 0; l < L; l++) {
		int64_t *r = rows + (size_t)l * R;

		memcpy(r, prev + (size_t)l * R, sizeof(int64_t) * R);
		for (j = 0; j < k[l].hk[choice[l]]; j++) {
			i = k[l].order[j];
			r[i] = plan->phy2log[(size_t)l * R + (size_t)i];
		}
	}
	if (mk_eplb_out_from(c, rows, L, width_max, &lim, e) < 0)
		goto fail;
	/* a layer taken whole keeps its planner's replica ranks */
	for (l = 0; l < L; l++)
		if (k[l].hk[choice[l]] == k[l].d)
			memcpy(lim.rank + (size_t)l * R, plan->rank + (size_t)l *
			    R, sizeof(int64_t) * R);
	mk_eplb_out_free(plan);
	*plan = lim;
	rc = 0;
	goto done;
out:
	mk_err_data(e, "out of memory limiting the moves of %d layers", L);
fail:
	rc = -1;
done:
	for (l = 0; k != NULL && l < L; l++) {
		free(k[l].order);
		free(k[l].hk);
		free(k[l].hf);
	}
	free(k);
	free(choice);
	free(ws);
	free(rows);
	return rc;
}
