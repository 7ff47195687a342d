/*
 * eplb_engine.c - the engines' own online loops, replayed a step at a time
 * (eplb_replay.h, enum mk_replay_engine; eplb-replay(1) names the commit
 * and the file each rule comes from).
 *
 * A step is served by the placement of its time: its loads split evenly
 * over an expert's replicas (the engines split by token position, which a
 * count log does not have), scored, and, for vLLM and SGLang, added to a
 * window of per-slot loads.  That window is credited to experts through
 * the map current at the re-plan, so steps served under an earlier
 * placement count for whatever expert now holds their slots, as both
 * engines do.  TensorRT-LLM keeps a decayed load per expert instead.
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "eplb/eplb.h"
#include "eplb/replay_impl.h"

/* TensorRT-LLM's decay of a layer's expert loads a step. */
#define TRTLLM_DECAY	0.95f

/* The rows that served a layer, newest last, for the window's oldest. */
struct served {
	int	 n, cap;
	int	*from;		/* [n] the first step each served */
	int32_t	**ex;		/* [n][R] */
	double	**inv;		/* [n][R] */
};

/* An engine's state beside the replay's. */
struct engine {
	struct replay_state *s;
	int	 L, R, E;
	double	*win;		/* [L][R] the window's per-slot loads */
	double	*slot;		/* [L][R] this step's */
	double	*row;		/* [L][E] a step leaving the window */
	int	 cleared;	/* steps up to this one left the window */
	struct served *sv;	/* [L] */
	int64_t	*plan;		/* [L][R] a plan being committed */
	int	 next;		/* its next layer (or chunk) to commit, or
				 * -1: none pending */
	float	*decay;		/* [L][E] trtllm's loads */
	double	*load;		/* [L][E] scratch: the loads planned on */
	int64_t	*old;		/* [R] scratch */
	int	 counter;	/* vllm: steps since the last re-plan */
	int	 due;		/* sglang: the step of the next re-plan */
	int64_t	 plan_moves;	/* moved so far by the plan committing */
	int	 plan_from;	/* the step its first layer served from */
};

/* Layer l's row serving from step `from` on (the row now in s). */
static int
served_add(struct engine *g, int l, int from)
{
	struct served *v = &g->sv[l];
	const size_t R = (size_t)g->R;
	int32_t **ex;
	double **inv;
	int *fr;

	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 4;
		fr = realloc(v->from, sizeof(int) * (size_t)v->cap);
		ex = realloc(v->ex, sizeof(*ex) * (size_t)v->cap);
		inv = realloc(v->inv, sizeof(*inv) * (size_t)v->cap);
		if (fr != NULL)
			v->from = fr;
		if (ex != NULL)
			v->ex = ex;
		if (inv != NULL)
			v->inv = inv;
		if (fr == NULL || ex == NULL || inv == NULL)
			return -1;
	}
	v->from[v->n] = from;
	if ((v->ex[v->n] = malloc(sizeof(int32_t) * R)) == NULL ||
	    (v->inv[v->n] = malloc(sizeof(double) * R)) == NULL) {
		free(v->ex[v->n]);
		return -1;
	}
	memcpy(v->ex[v->n], g->s->ex + (size_t)l * R, sizeof(int32_t) * R);
	memcpy(v->inv[v->n], g->s->inv + (size_t)l * R, sizeof(double) * R);
	v->n++;
	return 0;
}

/* Rows of layer l no step from `oldest` on was served by: dropped. */
static void
served_prune(struct engine *g, int l, int oldest)
{
	struct served *v = &g->sv[l];
	int i, k;

	for (k = 0; k + 1 < v->n && v->from[k + 1] <= oldest; k++) {
		free(v->ex[k]);
		free(v->inv[k]);
	}
	if (k > 0) {
		for (i = k; i < v->n; i++) {
			v->from[i - k] = v->from[i];
			v->ex[i - k] = v->ex[i];
			v->inv[i - k] = v->inv[i];
		}
		v->n -= k;
	}
}

/* The row of layer l that served step t. */
static int
served_at(const struct engine *g, int l, int t)
{
	const struct served *v = &g->sv[l];
	int i;

	for (i = v->n - 1; i > 0 && v->from[i] > t; i--)
		;
	return i;
}

/* Step u leaves the window: its per-slot loads taken away. */
static void
window_drop(struct engine *g, int u)
{
	const double *w = replay_step(g->s, u, g->row);
	int l, j, k;

	for (l = 0; l < g->L; l++) {
		const double *wl = w + (size_t)l * g->E;
		double *sl = g->win + (size_t)l * g->R;
		int32_t *ex;
		double *inv;

		served_prune(g, l, u);
		k = served_at(g, l, u);
		ex = g->sv[l].ex[k];
		inv = g->sv[l].inv[k];
		for (j = 0; j < g->R; j++)
			sl[j] -= wl[ex[j]] * inv[j];
	}
}

/* The window credited to the experts of the current map: g->load. */
static void
window_loads(struct engine *g)
{
	const int64_t *p2l = g->s->p2l;
	int l, j;

	memset(g->load, 0, sizeof(double) * (size_t)g->L * (size_t)g->E);
	for (l = 0; l < g->L; l++)
		for (j = 0; j < g->R; j++)
			g->load[(size_t)l * g->E + (size_t)p2l[(size_t)l * g->R +
			    j]] += g->win[(size_t)l * g->R + j];
}

/*
 * vLLM's preserve_intragpu_slots for one layer: on each GPU, an expert
 * the new row keeps there goes back to a slot that held it (old slots in
 * order, the first unused match), the others fill the remaining slots in
 * order.  new is rewritten.
 */
static void
preserve_slots(const int64_t *old, int64_t *new, int R, int G)
{
	const int S = R / G;
	int64_t nw[1024];
	unsigned char used[1024], kept[1024];
	int g, a, b, k;

	if (S > 1024)
		return;
	for (g = 0; g < G; g++) {
		const int64_t *o = old + (size_t)g * S;
		int64_t *n = new + (size_t)g * S;

		memcpy(nw, n, sizeof(int64_t) * (size_t)S);
		memset(used, 0, (size_t)S);
		memset(kept, 0, (size_t)S);
		for (a = 0; a < S; a++)
			for (b = 0; b < S; b++)
				if (!used[b] && nw[b] == o[a]) {
					n[a] = nw[b];
					used[b] = kept[a] = 1;
					break;
				}
		for (a = 0, b = 0; a < S; a++) {
			if (kept[a])
				continue;
			for (k = b; k < S && used[k]; k++)
				;
			n[a] = nw[k];
			used[k] = 1;
			b = k + 1;
		}
	}
}

/*
 * Layer l takes row p (from step t + 1 on): charged into res where that
 * step is scored, its moves into moved.
 */
static int
commit(struct engine *g, int l, const int64_t *p, int t,
    struct mk_replay_res *res, int64_t *moved)
{
	int64_t *cur = g->s->p2l + (size_t)l * g->R, ch;

	/* TensorRT-LLM copies every changed slot from host memory */
	ch = replay_charge(g->s, l, p, t + 1, g->s->rc->engine ==
	    MK_ENGINE_TRTLLM, res);
	if (ch == 0)
		return 0;
	memcpy(cur, p, sizeof(int64_t) * (size_t)g->R);
	replay_shares(g->s, l);
	*moved += ch;
	if (g->plan_moves == 0)
		g->plan_from = t + 1;
	g->plan_moves += ch;
	/* TensorRT-LLM keeps no window to take a step out of */
	return g->s->rc->engine == MK_ENGINE_TRTLLM ? 0 : served_add(g, l,
	    t + 1);
}

/* A plan has been committed whole: a rebalance if it moved a slot, from
 * a step scored. */
static void
plan_done(struct engine *g, struct mk_replay_res *res)
{
	res->rebalances += g->plan_moves > 0 && g->plan_from >=
	    g->s->rc->score_from;
	g->plan_moves = 0;
}

/* DeepSeek's plan of every layer on g->load into g->plan. */
static int
plan_all(struct engine *g, struct mk_err *e)
{
	const struct mk_eplb_problem pb = { .c = &g->s->rc->c, .w = g->load,
	    .S = 1, .L = g->L, .width_max = 1 };
	struct mk_eplb_out out;

	if (mk_eplb_plan_all(&pb, &out, e) < 0)
		return -1;
	memcpy(g->plan, out.phy2log, sizeof(int64_t) * (size_t)g->L *
	    (size_t)g->R);
	mk_eplb_out_free(&out);
	return 0;
}

/*
 * vLLM's EplbState.step() after step t: the async commit of the next
 * layer, then a re-plan every I steps (the first after I/4), deferred
 * while an async one is being committed.
 */
static int
vllm_step(struct engine *g, int t, struct mk_replay_res *res,
    int64_t *moved, struct mk_err *e)
{
	const struct mk_replay_cfg *rc = g->s->rc;
	int l;

	g->counter++;
	if (g->next >= 0) {
		if (commit(g, g->next, g->plan + (size_t)g->next * g->R, t, res,
		    moved) < 0)
			return mk_err_data(e, "out of memory");
		if (++g->next == g->L) {
			g->next = -1;
			plan_done(g, res);
		}
	}
	if (g->counter < rc->interval || g->next >= 0)
		return 0;
	g->counter = 0;
	window_loads(g);
	if (plan_all(g, e) < 0)
		return -1;
	for (l = 0; l < g->L; l++)
		preserve_slots(g->s->p2l + (size_t)l * g->R, g->plan +
		    (size_t)l * g->R, g->R, rc->c.G);
	if (rc->async) {
		g->next = 0;
		return 0;
	}
	for (l = 0; l < g->L; l++)
		if (commit(g, l, g->plan + (size_t)l * g->R, t, res, moved) < 0)
			return mk_err_data(e, "out of memory");
	plan_done(g, res);
	return 0;
}

/*
 * SGLang's EPLBManager after pass t: a chunk of a plan committed, or at
 * the pass due the recorder dumped (cleared) and the layers re-planned,
 * committed at once or the first chunk at the next pass.
 */
static int
sglang_step(struct engine *g, int t, struct mk_replay_res *res,
    int64_t *moved, struct mk_err *e)
{
	const struct mk_replay_cfg *rc = g->s->rc;
	const int C = rc->chunk > 0 && rc->chunk < g->L ? rc->chunk : g->L;
	const int nch = (g->L + C - 1) / C;
	int l, a;

	if (g->next >= 0) {
		a = g->next * C;
		for (l = a; l < a + C && l < g->L; l++)
			if (commit(g, l, g->plan + (size_t)l * g->R, t, res,
			    moved) < 0)
				return mk_err_data(e, "out of memory");
		if (++g->next == nch) {
			g->next = -1;
			g->due = t + rc->interval;
			plan_done(g, res);
		}
		return 0;
	}
	if (t != g->due)
		return 0;
	window_loads(g);
	memset(g->win, 0, sizeof(double) * (size_t)g->L * (size_t)g->R);
	g->cleared = t;
	for (l = 0; l < g->L; l++)
		served_prune(g, l, t + 1);
	if (plan_all(g, e) < 0)
		return -1;
	if (nch > 1) {
		g->next = 0;
		return 0;
	}
	for (l = 0; l < g->L; l++)
		if (commit(g, l, g->plan + (size_t)l * g->R, t, res, moved) < 0)
			return mk_err_data(e, "out of memory");
	g->due = t + rc->interval;
	plan_done(g, res);
	return 0;
}

/*
 * TensorRT-LLM's doReplication and doPlacement for one layer of loads w
 * into p: replicas one at a time to the expert of the largest load a
 * replica (ties: the larger id, its priority queue's), then replicas by
 * load descending (ties: smaller expert) each to the least loaded GPU
 * with a free slot (ties: the smaller), its slots in order.
 */
static void
trtllm_plan(const struct mk_eplb_cfg *c, const float *w, int64_t *p,
    int *cnt, double *gpu, int *used)
{
	const int E = c->E, R = c->R, G = c->G, S = R / G;
	double sum = 0, best, v, top;
	int i, k, r, x, n;

	for (i = 0; i < E; i++)
		sum += w[i];
	for (i = 0; i < E; i++)
		cnt[i] = sum == 0 ? R / E + (i < R % E) : 1;
	for (k = E; sum != 0 && k < R; k++) {
		for (x = 0, best = -1, i = 0; i < E; i++)
			if ((v = (double)w[i] / cnt[i]) >= best) {
				best = v;
				x = i;
			}
		cnt[x]++;
	}
	for (r = 0; r < G; r++) {
		gpu[r] = 0;
		used[r] = 0;
	}
	/* replicas in order of load a replica, descending; experts of
	 * equal load ascending */
	for (n = 0; n < R;) {
		for (x = -1, top = -1, i = 0; i < E; i++) {
			if (cnt[i] < 0)
				continue;
			v = (double)w[i] / cnt[i];
			if (v > top) {
				top = v;
				x = i;
			}
		}
		for (k = 0; k < cnt[x]; k++, n++) {
			for (r = -1, i = 0; i < G; i++)
				if (used[i] < S && (r < 0 || gpu[i] < gpu[r]))
					r = i;
			p[(size_t)r * S + used[r]++] = x;
			gpu[r] += top;
		}
		cnt[x] = -1;	/* placed */
	}
}

/*
 * TensorRT-LLM's MoeLoadBalancer after iteration t: each layer's decayed
 * load took the step (in the caller); the layers of this iteration's set
 * (layer l in set l mod U, U = ceil(L / updates), the sets in turn, one
 * more empty set where the first and last are of a size) re-planned,
 * their loads cleared.
 */
static int
trtllm_step(struct engine *g, int t, struct mk_replay_res *res,
    int64_t *moved, struct mk_err *e)
{
	const struct mk_replay_cfg *rc = g->s->rc;
	const int k = rc->updates < g->L ? rc->updates : g->L;
	const int U = (g->L + k - 1) / k;
	const int first = (g->L + U - 1) / U, last = g->L - (U - 1) * first;
	const int cycle = U + (first == last);
	int set = t % cycle, l, *cnt = NULL, *used = NULL;
	double *gpu = NULL;
	int rcode = -1;

	if (set >= U)
		return 0;
	cnt = malloc(sizeof(int) * (size_t)g->E);
	used = malloc(sizeof(int) * (size_t)rc->c.G);
	gpu = malloc(sizeof(double) * (size_t)rc->c.G);
	if (cnt == NULL || used == NULL || gpu == NULL) {
		mk_err_data(e, "out of memory");
		goto out;
	}
	for (l = set; l < g->L; l += U) {
		trtllm_plan(&rc->c, g->decay + (size_t)l * g->E, g->old, cnt,
		    gpu, used);
		if (commit(g, l, g->old, t, res, moved) < 0) {
			mk_err_data(e, "out of memory");
			goto out;
		}
		memset(g->decay + (size_t)l * g->E, 0, sizeof(float) *
		    (size_t)g->E);
	}
	replay_host_done(g->s, res);
	plan_done(g, res);
	rcode = 0;
out:
	free(cnt);
	free(used);
	free(gpu);
	return rcode;
}

static void
engine_free(struct engine *g)
{
	int l, k;

	for (l = 0; g->sv != NULL && l < g->L; l++) {
		for (k = 0; k < g->sv[l].n; k++) {
			free(g->sv[l].ex[k]);
			free(g->sv[l].inv[k]);
		}
		free(g->sv[l].from);
		free(g->sv[l].ex);
		free(g->sv[l].inv);
	}
	free(g->sv);
	mk_mem_free(g->win);
	mk_mem_free(g->slot);
	mk_mem_free(g->plan);
	mk_mem_free(g->decay);
	mk_mem_free(g->load);
	free(g->row);
	free(g->old);
}

/* The engine's start: its buffers, and its window of the placement
 * state_init made. */
static int
engine_init(struct engine *g, struct replay_state *s)
{
	const struct mk_replay_cfg *rc = s->rc;
	const size_t LR = (size_t)s->log->L * (size_t)rc->c.R;
	const size_t LE = (size_t)s->log->L * (size_t)s->log->E;
	int l;

	memset(g, 0, sizeof(*g));
	g->s = s;
	g->L = s->log->L;
	g->R = rc->c.R;
	g->E = s->log->E;
	g->next = -1;
	g->cleared = -1;
	/* vLLM's counter starts at 3/4 of the interval */
	g->counter = rc->interval - rc->interval / 4;
	g->due = rc->interval;
	g->win = mk_mem_alloc(sizeof(double) * LR);
	g->slot = mk_mem_alloc(sizeof(double) * LR);
	g->plan = mk_mem_alloc(sizeof(int64_t) * LR);
	g->decay = mk_mem_alloc(sizeof(float) * LE);
	g->load = mk_mem_alloc(sizeof(double) * LE);
	g->row = malloc(sizeof(double) * LE);
	g->old = malloc(sizeof(int64_t) * (size_t)g->R);
	g->sv = calloc((size_t)g->L, sizeof(*g->sv));
	if (!g->win || !g->slot || !g->plan || !g->decay || !g->load ||
	    !g->row || !g->old || !g->sv)
		return -1;
	memset(g->win, 0, sizeof(double) * LR);
	memset(g->decay, 0, sizeof(float) * LE);
	/* the start placement is state_init's; TensorRT-LLM keeps no window */
	for (l = 0; l < g->L && rc->engine != MK_ENGINE_TRTLLM; l++)
		if (served_add(g, l, 0) < 0)
			return -1;
	return 0;
}

/* Step t served: scored, into the window or the decayed loads. */
static void
serve(struct engine *g, int t, const double *w, struct replay_steps *x)
{
	const struct mk_replay_cfg *rc = g->s->rc;
	const size_t LR = (size_t)g->L * (size_t)g->R;
	const size_t LE = (size_t)g->L * (size_t)g->E;
	size_t i;
	int u;

	replay_score(g->s, w, &x->max[t], &x->mean[t], rc->engine ==
	    MK_ENGINE_TRTLLM ? NULL : g->slot);
	if (rc->engine == MK_ENGINE_TRTLLM) {
		for (i = 0; i < LE; i++)
			g->decay[i] = g->decay[i] * TRTLLM_DECAY + (float)w[i];
		return;
	}
	for (i = 0; i < LR; i++)
		g->win[i] += g->slot[i];
	/* the window's oldest step leaves it (SGLang's since its dump) */
	if ((u = t - rc->window) >= 0 && u > g->cleared)
		window_drop(g, u);
}

int
replay_engine(struct replay_state *s, struct replay_steps *x,
    struct mk_replay_res *res, struct mk_err *e)
{
	const struct mk_replay_log *log = s->log;
	const int eng = s->rc->engine;
	struct engine g;
	double *buf = malloc(sizeof(double) * (size_t)log->L * (size_t)log->E);
	int t, r = -1;

	memset(&g, 0, sizeof(g));
	if (buf == NULL || engine_init(&g, s) < 0) {
		mk_err_data(e, "out of memory replaying %d layers", log->L);
		goto out;
	}
	for (t = 0; t < log->T; t++) {
		replay_lose_snap(s, t);
		serve(&g, t, replay_step(s, t, buf), x);
		if (t >= s->rc->score_from && log->traffic != NULL &&
		    log->traffic(log->ctx, t, &s->rc->c, s->p2l, x->tr + 2 * t,
		    e) < 0)
			goto out;
		if ((eng == MK_ENGINE_VLLM ? vllm_step(&g, t, res,
		    &x->moved[t], e) : eng == MK_ENGINE_SGLANG ?
		    sglang_step(&g, t, res, &x->moved[t], e) : trtllm_step(&g,
		    t, res, &x->moved[t], e)) < 0)
			goto out;
	}
	r = 0;
out:
	engine_free(&g);
	free(buf);
	return r;
}
