/*
 * eplb_replay.c - a load log replayed through a rebalancing policy; see
 * eplb_replay.h.  The planner, the relabelling, the move limit and the
 * --min-gain rule are eplb-plan's own (mk_eplb_plan_all,
 * mk_eplb_limit_moves, mk_eplb_keep_prev).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/mem.h"
#include "base/threads.h"
#include "eplb/eplb.h"
#include "eplb/eplb_replay.h"
#include "eplb/replay_impl.h"


/* d += (or -=, sign < 0) the loads of steps [a, b). */
static void
add_steps(struct replay_state *s, double *d, int a, int b, int sign)
{
	const size_t cells = (size_t)s->log->L * (size_t)s->log->E;
	size_t i;
	int u;

	for (u = a; u < b; u++) {
		const double *w = replay_step(s, u, s->row);

		if (sign > 0)
			for (i = 0; i < cells; i++)
				d[i] += w[i];
		else
			for (i = 0; i < cells; i++)
				d[i] -= w[i];
	}
}

/*
 * The windows before step t into s->ww, oldest first: up to K of W
 * steps each, as many as the log holds.  Returns how many.  Integer
 * loads let the last sums slide (the steps that entered added, those that
 * left taken away) with the same result as summing anew: a re-plan every
 * I steps then costs 2I steps, not W.
 */
static int
windows(struct replay_state *s, int t)
{
	const size_t cells = (size_t)s->log->L * (size_t)s->log->E;
	const int W = s->rc->window;
	int K = s->rc->history < t / W ? s->rc->history : t / W, k;
	int slide = s->log->integer && K == s->ww_K && t > s->ww_t &&
	    t - s->ww_t < W;

	for (k = 0; k < K; k++) {
		double *d = s->ww + (size_t)k * cells;
		int t0 = t - (K - k) * W, p0 = s->ww_t - (K - k) * W;

		if (slide) {
			add_steps(s, d, p0 + W, t0 + W, 1);
			add_steps(s, d, p0, t0, -1);
			continue;
		}
		memset(d, 0, sizeof(double) * cells);
		add_steps(s, d, t0, t0 + W, 1);
	}
	s->ww_t = t;
	s->ww_K = K;
	return K;
}

/*
 * The re-plan before step t: the new placement, its moves (added to res
 * and returned in *moved).  Returns 0 or -1 with e.
 */
static int
replan(struct replay_state *s, int t, struct mk_replay_res *res, int64_t *moved,
    struct mk_err *e)
{
	const struct mk_replay_cfg *rc = s->rc;
	const int L = s->log->L, R = rc->c.R;
	struct mk_eplb_out out;
	struct mk_eplb_moves m;
	int64_t mv = 0;
	double before, after;
	int K = windows(s, t), l, kept = 0;
	const struct mk_eplb_problem pb = { .c = &rc->c, .w = s->ww, .S = K,
	    .L = L, .prev = s->p2l, .width_max = 1 };

	*moved = 0;
	if (mk_eplb_plan_all(&pb, &out, e) < 0)
		return -1;
	if (rc->max_moves >= 0 && mk_eplb_limit_moves(&pb, rc->max_moves, &out,
	    e) < 0)
		goto fail;
	if (rc->min_gain >= 0 && (kept = mk_eplb_keep_prev(&pb, rc->min_gain,
	    &out, &before, &after, e)) < 0)
		goto fail;
	for (l = 0; l < L && !kept; l++) {
		mk_eplb_migration(&rc->c, s->p2l + (size_t)l * R, out.phy2log +
		    (size_t)l * R, &m);
		mv += m.changed;
	}
	if (mv > 0) {
		/* charged (from step t, if scored), then installed */
		for (l = 0; l < L; l++)
			(void)replay_charge(s, l, out.phy2log + (size_t)l * R, t,
			    0, res);
		memcpy(s->p2l, out.phy2log, sizeof(int64_t) * (size_t)L * R);
		for (l = 0; l < L; l++)
			replay_shares(s, l);
		res->rebalances += t >= rc->score_from;
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
state_free(struct replay_state *s)
{
	mk_mem_free(s->p2l);
	mk_mem_free(s->ex);
	mk_mem_free(s->inv);
	mk_mem_free(s->ww);
	mk_eplb_xfer_work_free(s->xw);
	free(s->hostg);
	free(s->lost);
	free(s->cnt);
	free(s->bal);
	free(s->row);
}

static int
state_init(struct replay_state *s, const struct mk_replay_cfg *rc,
    const struct mk_replay_log *log, struct mk_err *e)
{
	const size_t LR = (size_t)log->L * (size_t)rc->c.R;
	const size_t S = (size_t)(rc->c.R / rc->c.G);
	size_t i, j;
	int l;

	memset(s, 0, sizeof(*s));
	s->rc = rc;
	s->log = log;
	s->ww_t = -1;
	s->p2l = mk_mem_alloc(sizeof(int64_t) * LR);
	s->ex = mk_mem_alloc(sizeof(int32_t) * LR);
	s->inv = mk_mem_alloc(sizeof(double) * LR);
	s->ww = mk_mem_alloc(sizeof(double) * (size_t)rc->history *
	    (size_t)log->L * (size_t)log->E);
	s->cnt = malloc(sizeof(int64_t) * (size_t)log->E);
	s->bal = malloc(sizeof(double) * ((size_t)log->T + 1));
	s->row = malloc(sizeof(double) * (size_t)log->L * (size_t)log->E);
	s->xw = mk_eplb_xfer_work(rc->c.G, log->E);
	s->hostg = calloc((size_t)rc->c.G, sizeof(int64_t));
	s->lost = rc->nlose > 0 ? malloc(sizeof(int64_t) * LR) : NULL;
	if (!s->p2l || !s->ex || !s->inv || !s->ww || !s->cnt || !s->bal ||
	    !s->row || !s->xw || !s->hostg || (rc->nlose > 0 && !s->lost)) {
		state_free(s);
		return mk_err_data(e, "out of memory replaying %d layers", log->L);
	}
	/*
	 * The placement an engine starts from: SGLang's and vLLM's slot p
	 * holds expert p mod E (vLLM's experts, then its redundant ones
	 * round-robin: the same); TensorRT-LLM's GPU g holds experts g E / G
	 * onwards, in order.
	 */
	for (i = 0; i < LR; i++) {
		j = i % (size_t)rc->c.R;
		s->p2l[i] = rc->engine == MK_ENGINE_TRTLLM ? (int64_t)((j / S) *
		    (size_t)log->E / (size_t)rc->c.G + j % S) % log->E :
		    (int64_t)j % log->E;
	}
	for (l = 0; l < log->L; l++)
		replay_shares(s, l);
	return 0;
}


/*
 * The replay on `threads` threads: a re-plan by one, the steps it serves
 * scored by all (each step's figures kept, summed in order afterwards:
 * the same result on any number of threads).  Returns 0 or -1 with e.
 */
static int
play(struct replay_state *s, struct replay_steps *x, struct mk_replay_res *res,
    int threads, struct mk_err *e)
{
	const struct mk_replay_cfg *rc = s->rc;
	const struct mk_replay_log *log = s->log;
	int bad = 0;

	(void)threads;		/* without OpenMP */
#pragma omp parallel num_threads(threads) if (threads > 1)
	{
		double *buf = malloc(sizeof(double) * (size_t)log->L *
		    (size_t)log->E);
		struct mk_err ek;
		int a, b, t;

		if (buf == NULL) {
#pragma omp atomic write
			bad = 1;
		}
#pragma omp barrier
		for (a = 0; a < log->T && !bad; a = b) {
			b = a < rc->window ? rc->window : a + rc->interval;
			b = b < log->T ? b : log->T;
#pragma omp single
			if (a >= rc->window && replan(s, a, res, &x->moved[a],
			    &ek) < 0) {
				bad = 1;
				*e = ek;
			}
			if (bad)
				break;
#pragma omp single
			if (a <= rc->lose_step && rc->lose_step < b)
				replay_lose_snap(s, rc->lose_step);
#pragma omp for schedule(static)
			for (t = a; t < b; t++) {
				replay_score(s, replay_step(s, t, buf), &x->max[t],
				    &x->mean[t], NULL);
				if (t >= rc->score_from && log->traffic != NULL &&
				    log->traffic(log->ctx, t, &rc->c, s->p2l,
				    x->tr + 2 * t, &ek) < 0) {
#pragma omp critical
					{
						bad = 1;
						*e = ek;
					}
				}
			}
		}
		free(buf);
	}
	if (bad && e->msg[0] == '\0')
		mk_err_data(e, "out of memory replaying %d layers", log->L);
	return bad ? -1 : 0;
}

/*
 * ratio[t]: step t's largest GPU load over the mean without EPLB, one
 * replica of each expert, E/G consecutive experts a GPU (eplb-plan's
 * baseline), summed over layers (0 for a step without load), steps from
 * `from` on, on `threads` threads.  The same for every configuration of
 * c->G GPUs: a sweep makes it once.  Returns 0 or -1 with e.
 */
static int
base_ratio(const struct mk_replay_log *log, const struct mk_eplb_cfg *c,
    int from, int threads, double *ratio, struct mk_err *e)
{
	const int L = log->L, E = log->E;
	const size_t LE = (size_t)L * (size_t)E;
	double *rows = NULL;

	/* a step's row a thread, where the log makes them */
	if (threads < 1)
		threads = 1;
	if (log->w == NULL && (rows = malloc(sizeof(double) * LE *
	    (size_t)threads)) == NULL)
		return mk_err_data(e, "out of memory replaying %d layers", L);
#pragma omp parallel num_threads(threads) if (threads > 1)
	{
		double *row = rows, max, sum;
		const double *w;
		int t, l, k;

#ifdef _OPENMP
		if (rows != NULL)
			row = rows + LE * (size_t)omp_get_thread_num();
#endif
#pragma omp for schedule(static)
		for (t = from; t < log->T; t++) {
			if (log->w != NULL) {
				w = log->w + (size_t)t * LE;
			} else {
				log->step(log->sctx, t, row);
				w = row;
			}
			for (max = sum = 0, l = 0; l < L; l++) {
				max += mk_eplb_noeplb_max(c, w + (size_t)l * E);
				for (k = 0; k < E; k++)
					sum += w[(size_t)l * E + k];
			}
			ratio[t] = sum > 0 ? max * c->G / sum : 0;
		}
	}
	free(rows);
	return 0;
}

/* res->base_s: the scored steps' MoE seconds without EPLB (ratio). */
static void
base_seconds(const struct mk_replay_cfg *rc, int T, const double *ratio,
    struct mk_replay_res *res)
{
	int t;

	for (res->base_s = 0, t = rc->score_from; t < T; t++)
		res->base_s += rc->moe_ms / 1e3 * ratio[t];
}

/* The replay of rc on `threads` threads (mk_eplb_replay). */
static int
replay(const struct mk_replay_cfg *rc, const struct mk_replay_log *log,
    struct mk_replay_res *res, struct mk_replay_steps *st, int threads,
    struct mk_err *e)
{
	const int T = log->T;
	double smax = 0, smean = 0;
	int64_t inter = 0, total = 0;
	struct replay_steps x;
	struct replay_state s;
	int t, n = 0, r = -1;

	memset(res, 0, sizeof(*res));
	e->msg[0] = '\0';
	x.max = malloc(sizeof(double) * 2 * ((size_t)T + 1));
	x.moved = calloc(3 * ((size_t)T + 1), sizeof(int64_t));
	if (x.max == NULL || x.moved == NULL) {
		free(x.max);
		free(x.moved);
		return mk_err_data(e, "out of memory replaying %d steps", T);
	}
	x.mean = x.max + T + 1;
	x.tr = x.moved + T + 1;
	if (state_init(&s, rc, log, e) < 0)
		goto out;
	if ((rc->engine == MK_ENGINE_IDEAL ? play(&s, &x, res, threads, e) :
	    replay_engine(&s, &x, res, e)) < 0)
		goto done;
	for (t = 0; t < T; t++) {
		if (st != NULL) {
			st->bal[t] = t >= rc->score_from && x.max[t] > 0 ?
			    x.mean[t] / x.max[t] : NAN;
			st->max[t] = x.max[t];
			st->mean[t] = x.mean[t];
			st->moves[t] = x.moved[t];
			st->inter[t] = log->traffic != NULL && x.tr[2 * t + 1] >
			    0 ? (double)x.tr[2 * t] / (double)x.tr[2 * t + 1] :
			    NAN;
		}
		if (t < rc->score_from)
			continue;
		smax += x.max[t];
		smean += x.mean[t];
		inter += x.tr[2 * t];
		total += x.tr[2 * t + 1];
		if (x.max[t] > 0)
			s.bal[n++] = x.mean[t] / x.max[t];
		/* a step's MoE takes moe_ms over its balancedness */
		if (x.mean[t] > 0)
			res->moe_s += rc->moe_ms / 1e3 * x.max[t] / x.mean[t];
		res->scored++;
	}
	if (rc->nlose > 0 && rc->lose_step < T && replay_lost(&s, x.moved, res,
	    e) < 0)
		goto done;
	res->balancedness = smax > 0 ? smean / smax : 1;
	res->par = smean > 0 ? smax / smean : 1;
	res->p5 = quantile(s.bal, n, 0.05);
	res->bytes = (double)res->copies * rc->expert_bytes;
	res->inter_share = log->traffic == NULL ? NAN : total > 0 ?
	    (double)inter / (double)total : 0;
	r = 0;
done:
	state_free(&s);
out:
	free(x.max);
	free(x.moved);
	return r;
}

/* Milliseconds a thread takes to score a step's slot (DeepSeek-V3's 58
 * layers x 288 slots: 0.1 ms a step on the 2-vCPU VM). */
#define SLOT_MS	6e-6

int
mk_eplb_replay(const struct mk_replay_cfg *rc, const struct mk_replay_log *log,
    struct mk_replay_res *res, struct mk_replay_steps *st, struct mk_err *e)
{
	const int threads = mk_threads_for((double)log->T * log->L * rc->c.R *
	    SLOT_MS);
	double *ratio = NULL;
	int r;

	if (rc->moe_ms > 0 && ((ratio = malloc(sizeof(double) *
	    ((size_t)log->T + 1))) == NULL || base_ratio(log, &rc->c,
	    rc->score_from, threads, ratio, e) < 0)) {
		free(ratio);
		return ratio == NULL ? mk_err_data(e, "out of memory replaying "
		    "%d steps", log->T) : -1;
	}
	r = replay(rc, log, res, st, threads, e);
	if (r == 0 && ratio != NULL)
		base_seconds(rc, log->T, ratio, res);
	free(ratio);
	return r;
}

/*
 * The no-EPLB ratios of every configuration of rc[0..n) that asks for
 * them (--moe-ms), one array per count of GPUs, from the earliest step
 * any of them scores: into res[k].base_s.  Returns 0 or -1 with e.
 */
static int
sweep_base(const struct mk_replay_cfg *rc, int n,
    const struct mk_replay_log *log, int threads, struct mk_replay_res *res,
    struct mk_err *e)
{
	double *ratio = malloc(sizeof(double) * ((size_t)log->T + 1));
	int k, j, from;

	if (ratio == NULL)
		return mk_err_data(e, "out of memory replaying %d steps",
		    log->T);
	for (k = 0; k < n; k++) {
		/* once for each G, where it first appears */
		for (j = 0; j < k && rc[j].c.G != rc[k].c.G; j++)
			;
		if (rc[k].moe_ms <= 0 || j < k)
			continue;
		for (from = log->T, j = k; j < n; j++)
			if (rc[j].c.G == rc[k].c.G && rc[j].score_from < from)
				from = rc[j].score_from;
		if (base_ratio(log, &rc[k].c, from, threads, ratio, e) < 0) {
			free(ratio);
			return -1;
		}
		for (j = k; j < n; j++)
			if (rc[j].c.G == rc[k].c.G)
				base_seconds(&rc[j], log->T, ratio, &res[j]);
	}
	free(ratio);
	return 0;
}

int
mk_eplb_replay_sweep(const struct mk_replay_cfg *rc, int n,
    const struct mk_replay_log *log, const struct mk_replay_team *team,
    struct mk_replay_res *res, struct mk_err *e)
{
	const int threads = team->threads;
	int k, bad = n, T = threads < 1 ? 1 : threads > n ? n : threads;

	(void)T;		/* without OpenMP */
	/* one configuration a thread: each re-plan's layers then on one */
#pragma omp parallel for schedule(dynamic, 1) num_threads(T) if (T > 1)
	for (k = 0; k < n; k++) {
		struct mk_err ek;

		/* several at once: each on one thread */
		if ((T > 1 ? replay(&rc[k], log, &res[k], NULL, 1, &ek) :
		    replay(&rc[k], log, &res[k], NULL, mk_threads_for((double)
		    log->T * log->L * rc[k].c.R * SLOT_MS), &ek)) < 0) {
#pragma omp critical
			if (k < bad) {
				bad = k;
				*e = ek;
			}
		}
		if (team->done != NULL) {
#pragma omp critical
			team->done(team->ctx, k, n);
		}
	}
	if (bad < n)
		return -1;
	return sweep_base(rc, n, log, threads < 1 ? 1 : threads, res, e);
}

/* A count, or the empty field for one that does not apply (< 0). */
static void
opt_field(FILE *fp, int64_t v)
{
	if (v >= 0)
		fprintf(fp, "%lld", (long long)v);
	fputc(',', fp);
}

/*
 * What EPLB gains: the MoE seconds without it over those with it and its
 * moves (vLLM's async moves overlap serving and are not charged).
 */
static double
speedup(const struct mk_replay_cfg *x, const struct mk_replay_res *r)
{
	double with = r->moe_s + (x->engine == MK_ENGINE_VLLM && x->async ? 0 :
	    r->move_s);

	return with > 0 ? r->base_s / with : NAN;
}

void
mk_eplb_replay_write(FILE *fp, const struct mk_replay_cfg *rc,
    const struct mk_replay_res *res, int n, int routing)
{
	const struct mk_replay_cfg *x;
	int k, ideal, trt, link = n > 0 && rc[0].link_gbps > 0;
	int moe = n > 0 && rc[0].moe_ms > 0, lose = n > 0 && rc[0].nlose > 0;

	fprintf(fp, "engine,replicas,gpus,nodes,groups,policy,algo,window,"
	    "interval,history,max_moves,min_gain,async,layers_per_chunk,"
	    "layer_updates_per_iter,expert_bytes,score_from,balancedness,"
	    "balancedness_p5,par,rebalances,moves,bytes_moved,"
	    "bytes_inter_node,slots_per_gpu%s,transfers,batches%s%s%s\n",
	    routing ? ",inter_node_share" : "", link ? ",move_s" : "",
	    moe ? ",moe_s,speedup" : "", lose ? ",lost_balancedness,"
	    "lost_steps,lost_experts" : "");
	for (k = 0; k < n; k++) {
		x = &rc[k];
		ideal = x->engine == MK_ENGINE_IDEAL;
		trt = x->engine == MK_ENGINE_TRTLLM;
		fprintf(fp, "%s,%d,%d,%d,", mk_eplb_engine_name(x->engine),
		    x->c.R, x->c.G, x->c.N);
		/* TensorRT-LLM's balancer has no groups, policy or algorithm
		 * to choose: empty, as eplb-replay(1) says */
		if (trt)
			fputs(",,,", fp);
		else
			fprintf(fp, "%d,%s,%s,", x->c.K,
			    mk_eplb_policy_name(x->c.hier),
			    mk_eplb_algo_names[x->c.algo]);
		opt_field(fp, trt ? -1 : x->window);
		opt_field(fp, trt ? -1 : x->interval);
		opt_field(fp, ideal ? x->history : -1);
		if (ideal && x->max_moves < 0)
			fputs("none,", fp);
		else
			opt_field(fp, ideal ? x->max_moves : -1);
		if (ideal)
			fprintf(fp, x->min_gain < 0 ? "none," : "%g,",
			    x->min_gain);
		else
			fputc(',', fp);
		fprintf(fp, "%s,", x->engine == MK_ENGINE_VLLM ? x->async ?
		    "on" : "off" : "");
		opt_field(fp, x->engine == MK_ENGINE_SGLANG ? x->chunk : -1);
		opt_field(fp, trt ? x->updates : -1);
		if (x->expert_bytes > 0)
			fprintf(fp, "%.17g", x->expert_bytes);
		fprintf(fp, ",%d,%.9f,%.9f,%.9f,%lld,%lld,", x->score_from,
		    res[k].balancedness, res[k].p5, res[k].par,
		    (long long)res[k].rebalances, (long long)res[k].moves);
		if (x->expert_bytes > 0)
			fprintf(fp, "%.17g", res[k].bytes);
		fputc(',', fp);
		if (x->expert_bytes > 0 && x->c.N > 1)
			fprintf(fp, "%.17g", (double)res[k].copies_inter *
			    x->expert_bytes);
		fprintf(fp, ",%d", x->c.R / x->c.G);
		if (routing)
			fprintf(fp, ",%.9f", res[k].inter_share);
		fprintf(fp, ",%lld,%lld", (long long)res[k].transfers,
		    (long long)res[k].batches);
		if (link)
			fprintf(fp, ",%.6g", res[k].move_s);
		if (moe)
			fprintf(fp, ",%.6g,%.6g", res[k].moe_s, speedup(x,
			    &res[k]));
		if (lose)
			fprintf(fp, ",%.9f,%d,%lld", res[k].lost_balancedness,
			    res[k].lost_steps, (long long)res[k].lost_experts);
		fputc('\n', fp);
	}
}

const char *const mk_eplb_engine_names[MK_NENGINE] = { "ideal", "vllm",
    "sglang", "trtllm" };

const char *
mk_eplb_engine_name(int engine)
{
	return (unsigned)engine < MK_NENGINE ? mk_eplb_engine_names[engine] :
	    "?";
}

int
mk_eplb_replay_series(FILE *fp, const struct mk_replay_cfg *rc,
    const struct mk_replay_log *log, struct mk_err *e)
{
	struct mk_replay_steps st;
	struct mk_replay_res res;
	int t, r = -1;

	st.bal = malloc(sizeof(double) * (size_t)log->T * 4 + 1);
	st.moves = malloc(sizeof(int64_t) * (size_t)log->T + 1);
	if (st.bal == NULL || st.moves == NULL) {
		mk_err_data(e, "out of memory for %d steps' series", log->T);
		goto out;
	}
	st.max = st.bal + log->T;
	st.mean = st.max + log->T;
	st.inter = st.mean + log->T;
	if (mk_eplb_replay(rc, log, &res, &st, e) < 0)
		goto out;
	fprintf(fp, "step,balancedness,max_load,mean_load,moves%s\n",
	    log->traffic ? ",inter_node_share" : "");
	for (t = 0; t < log->T; t++) {
		fprintf(fp, "%d,%.9g,%.17g,%.17g,%lld", t, st.bal[t], st.max[t],
		    st.mean[t], (long long)st.moves[t]);
		if (log->traffic)
			fprintf(fp, ",%.9g", st.inter[t]);
		fputc('\n', fp);
	}
	r = 0;
out:
	free(st.bal);
	free(st.moves);
	return r;
}
