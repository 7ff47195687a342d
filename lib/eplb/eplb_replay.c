/*
 * eplb_replay.c - a load log replayed through a rebalancing policy; see
 * eplb_replay.h.  The planner, the relabelling, the move limit and the
 * --min-gain rule are eplb-plan's own (mk_eplb_plan_all,
 * mk_eplb_limit_moves, mk_eplb_keep_prev).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "eplb/eplb.h"
#include "eplb/eplb_replay.h"

/* One configuration's replay. */
struct state {
	const struct mk_replay_cfg *rc;
	const struct mk_replay_log *log;
	int64_t	*p2l;		/* [L][R] the placement serving now */
	int32_t	*ex;		/* [L][R] the same, for the scoring loop */
	double	*inv;		/* [L][R] 1 / replicas of each slot's expert */
	double	*ww;		/* [K][L][E] the windows a re-plan sees */
	int64_t	*cnt;		/* [E] scratch */
	double	*bal;		/* [T] each scored step's balancedness */
	double	*row;		/* [L][E] a step, where the log has no w */
};

/* Step t's loads [L][E]. */
static const double *
step_of(const struct state *s, int t)
{
	const struct mk_replay_log *g = s->log;

	if (g->w != NULL)
		return g->w + (size_t)t * (size_t)g->L * (size_t)g->E;
	g->step(g->sctx, t, s->row);
	return s->row;
}

/* Counts and shares of layer l's placement. */
static void
shares(struct state *s, int l)
{
	const int R = s->rc->c.R, E = s->rc->c.E;
	const int64_t *p = s->p2l + (size_t)l * R;
	int i;

	memset(s->cnt, 0, sizeof(int64_t) * (size_t)E);
	for (i = 0; i < R; i++)
		s->cnt[p[i]]++;
	for (i = 0; i < R; i++) {
		s->ex[(size_t)l * R + i] = (int32_t)p[i];
		s->inv[(size_t)l * R + i] = 1.0 / (double)s->cnt[p[i]];
	}
}

/* Step t's summed largest and mean GPU loads over the layers. */
static void
score(const struct state *s, int t, double *max, double *mean)
{
	const struct mk_eplb_cfg *c = &s->rc->c;
	const int L = s->log->L, R = c->R, G = c->G, per = R / G;
	const double *row = step_of(s, t);
	double m = 0, tot = 0, load, top;
	int l, g, j;

	for (l = 0; l < L; l++) {
		const double *w = row + (size_t)l * c->E;
		const int32_t *ex = s->ex + (size_t)l * R;
		const double *inv = s->inv + (size_t)l * R;

		for (top = 0, g = 0; g < G; g++) {
			for (load = 0, j = g * per; j < g * per + per; j++)
				load += w[ex[j]] * inv[j];
			tot += load;
			top = load > top ? load : top;
		}
		m += top;
	}
	*max = m;
	*mean = tot / G;
}

/*
 * The windows before step t into s->ww, oldest first: up to K of W
 * steps each, as many as the log holds.  Returns how many.
 */
static int
windows(struct state *s, int t)
{
	const size_t cells = (size_t)s->log->L * (size_t)s->log->E;
	const int W = s->rc->window;
	int K = s->rc->history < t / W ? s->rc->history : t / W, k, u;
	size_t i;

	for (k = 0; k < K; k++) {
		double *d = s->ww + (size_t)k * cells;
		int t0 = t - (K - k) * W;

		memset(d, 0, sizeof(double) * cells);
		for (u = t0; u < t0 + W; u++) {
			const double *w = step_of(s, u);

			for (i = 0; i < cells; i++)
				d[i] += w[i];
		}
	}
	return K;
}

/*
 * The re-plan before step t: the new placement, its moves (added to res
 * and returned in *moved).  Returns 0 or -1 with e.
 */
static int
replan(struct state *s, int t, struct mk_replay_res *res, int64_t *moved,
    struct mk_err *e)
{
	const struct mk_replay_cfg *rc = s->rc;
	const int L = s->log->L, R = rc->c.R;
	struct mk_eplb_out out;
	int64_t ch, cp, mv = 0, copies = 0;
	double before, after;
	int K = windows(s, t), l, kept = 0;

	*moved = 0;
	if (mk_eplb_plan_all(&rc->c, s->ww, K, L, s->p2l, 1, &out, e) < 0)
		return -1;
	if (rc->max_moves >= 0 && mk_eplb_limit_moves(&rc->c, s->ww, K, L,
	    s->p2l, rc->max_moves, 1, &out, e) < 0)
		goto fail;
	if (rc->min_gain >= 0 && (kept = mk_eplb_keep_prev(&rc->c, s->ww, K,
	    L, s->p2l, 1, rc->min_gain, &out, &before, &after, e)) < 0)
		goto fail;
	for (l = 0; l < L && !kept; l++) {
		mk_eplb_migration(&rc->c, s->p2l + (size_t)l * R, out.phy2log +
		    (size_t)l * R, &ch, &cp);
		mv += ch;
		copies += cp;
	}
	if (mv > 0) {
		memcpy(s->p2l, out.phy2log, sizeof(int64_t) * (size_t)L * R);
		for (l = 0; l < L; l++)
			shares(s, l);
		res->rebalances++;
		res->moves += mv;
		res->copies += copies;
	}
	*moved = mv;
	mk_eplb_out_free(&out);
	return 0;
fail:
	mk_eplb_out_free(&out);
	return -1;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The q-quantile of v[0..n) (sorted in place), as numpy.percentile. */
static double
quantile(double *v, int n, double q)
{
	double pos, f;
	int i;

	if (n == 0)
		return NAN;
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	pos = q * (n - 1);
	i = (int)pos;
	f = pos - i;
	return i + 1 < n ? v[i] + f * (v[i + 1] - v[i]) : v[i];
}

static void
state_free(struct state *s)
{
	mk_mem_free(s->p2l);
	mk_mem_free(s->ex);
	mk_mem_free(s->inv);
	mk_mem_free(s->ww);
	free(s->cnt);
	free(s->bal);
	free(s->row);
}

static int
state_init(struct state *s, const struct mk_replay_cfg *rc,
    const struct mk_replay_log *log, struct mk_err *e)
{
	const size_t LR = (size_t)log->L * (size_t)rc->c.R;
	size_t i;
	int l;

	memset(s, 0, sizeof(*s));
	s->rc = rc;
	s->log = log;
	s->p2l = mk_mem_alloc(sizeof(int64_t) * LR);
	s->ex = mk_mem_alloc(sizeof(int32_t) * LR);
	s->inv = mk_mem_alloc(sizeof(double) * LR);
	s->ww = mk_mem_alloc(sizeof(double) * (size_t)rc->history *
	    (size_t)log->L * (size_t)log->E);
	s->cnt = malloc(sizeof(int64_t) * (size_t)log->E);
	s->bal = malloc(sizeof(double) * ((size_t)log->T + 1));
	s->row = malloc(sizeof(double) * (size_t)log->L * (size_t)log->E);
	if (!s->p2l || !s->ex || !s->inv || !s->ww || !s->cnt || !s->bal ||
	    !s->row) {
		state_free(s);
		return mk_err_data(e, "out of memory replaying %d layers", log->L);
	}
	/* SGLang's trivial placement */
	for (i = 0; i < LR; i++)
		s->p2l[i] = (int64_t)(i % (size_t)rc->c.R) % log->E;
	for (l = 0; l < log->L; l++)
		shares(s, l);
	return 0;
}

int
mk_eplb_replay(const struct mk_replay_cfg *rc, const struct mk_replay_log *log,
    struct mk_replay_res *res, struct mk_replay_steps *st, struct mk_err *e)
{
	double smax = 0, smean = 0, mx, mn;
	int64_t tr[2], inter = 0, total = 0, moved;
	struct state s;
	int t, n = 0;

	memset(res, 0, sizeof(*res));
	if (state_init(&s, rc, log, e) < 0)
		return -1;
	for (t = 0; t < log->T; t++) {
		moved = 0;
		if (t >= rc->window && (t - rc->window) % rc->interval == 0 &&
		    replan(&s, t, res, &moved, e) < 0)
			goto fail;
		tr[0] = tr[1] = 0;
		if (t >= rc->window && log->traffic != NULL &&
		    log->traffic(log->ctx, t, &rc->c, s.p2l, tr, e) < 0)
			goto fail;
		score(&s, t, &mx, &mn);
		if (st != NULL) {
			st->bal[t] = t >= rc->window && mx > 0 ? mn / mx : NAN;
			st->max[t] = mx;
			st->mean[t] = mn;
			st->moves[t] = moved;
			st->inter[t] = log->traffic != NULL && tr[1] > 0 ?
			    (double)tr[0] / (double)tr[1] : NAN;
		}
		if (t < rc->window)
			continue;
		smax += mx;
		smean += mn;
		inter += tr[0];
		total += tr[1];
		if (mx > 0)
			s.bal[n++] = mn / mx;
		res->scored++;
	}
	res->balancedness = smax > 0 ? smean / smax : 1;
	res->par = smean > 0 ? smax / smean : 1;
	res->p5 = quantile(s.bal, n, 0.05);
	res->bytes = (double)res->copies * rc->expert_bytes;
	res->inter_share = log->traffic == NULL ? NAN : total > 0 ?
	    (double)inter / (double)total : 0;
	state_free(&s);
	return 0;
fail:
	state_free(&s);
	return -1;
}

int
mk_eplb_replay_sweep(const struct mk_replay_cfg *rc, int n,
    const struct mk_replay_log *log, int threads,
    void (*done)(void *ctx, int k, int n), void *ctx,
    struct mk_replay_res *res, struct mk_err *e)
{
	int k, bad = n, T = threads < 1 ? 1 : threads > n ? n : threads;

	(void)T;		/* without OpenMP */
	/* one configuration a thread: each re-plan's layers then on one */
#pragma omp parallel for schedule(dynamic, 1) num_threads(T) if (T > 1)
	for (k = 0; k < n; k++) {
		struct mk_err ek;

		if (mk_eplb_replay(&rc[k], log, &res[k], NULL, &ek) < 0) {
#pragma omp critical
			if (k < bad) {
				bad = k;
				*e = ek;
			}
		}
		if (done != NULL) {
#pragma omp critical
			done(ctx, k, n);
		}
	}
	return bad < n ? -1 : 0;
}
