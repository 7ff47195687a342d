/* a2a_job.c - one pass of a2a-layout over a trace; see a2a_job.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2a/a2a_job.h"
#include "moe/phys.h"
#include "base/threads.h"

struct mk_a2a_job {
	struct mk_a2a_job_opts	 o;
	struct mk_a2a_cfg	 c;
	struct mk_moe_trace	*tr;
	struct mk_moe_trace_shape sh;
	struct mk_moe_phys	*map;		/* [plan_rows] with a plan */
	int			 nmap;		/* of them built */
	int			 narrow;	/* i64 ids read as DeepEP's int */
	int32_t			**pbuf;		/* [R] a step's ids, routed or
						 * narrowed */
	size_t			*pcap;		/* [R] ids each holds */
	int			 nbmax;		/* steps laid out at once */
	struct mk_moe_step	 st[MK_MOE_MAX_STEPS], ph;
	struct mk_a2a_group	 g[MK_MOE_MAX_STEPS];
	int			 nb, b;		/* the batch; the next of it */
	int			 step;		/* the batch's first step */
	int64_t			*rows;		/* [R] */
	struct mk_a2a_rank	 pr;
	struct mk_a2a_tally	 tally;
};

/*
 * The options that need the trace's shape, as DeepEP and the outputs'
 * rules have them (usage errors).
 */
static int
check(struct mk_a2a_job *j, struct mk_err *e)
{
	const struct mk_a2a_job_opts *o = &j->o;
	struct mk_a2a_cfg *c = &j->c;
	struct mk_a2a_dcfg d, cb;
	int r = 0;	/* 1: no default config for R */

	if (mk_a2a_config(c, e) < 0)
		return -1;
	/* DeepEP's chunk configs: none in Triton-distributed's layout */
	if (c->style == MK_A2A_DEEPEP && !c->ll_only &&
	    (r = mk_a2a_configs(o->sizing, c->R, &d, &cb, e)) < 0)
		return -1;
	if (r > 0 && o->report)
		return mk_err_usage(e, "%d ranks: DeepEP has no default config; "
		    "give --config", c->R);
	if (o->max_tokens > 0 && c->style == MK_A2A_DEEPEP && c->K > 11)
		return mk_err_usage(e, "--max-tokens: top-%d routing; DeepEP's "
		    "low-latency kernels need K <= 11", c->K);
	if (o->max_tokens > 0 && j->sh.max_T > o->max_tokens)
		return mk_err_usage(e, "--max-tokens %lld: the trace's ranks "
		    "hold up to %lld tokens; %s", (long long)o->max_tokens,
		    (long long)j->sh.max_T, c->style == MK_A2A_TRITON ?
		    "Triton-distributed's layer holds at most max_tokens a "
		    "rank" : "DeepEP's low-latency dispatch asserts num_tokens "
		    "<= num_max_dispatch_tokens_per_rank");
	if (o->sizing->scaleup > 0 && c->R % o->sizing->scaleup != 0)
		return mk_err_usage(e, "--scaleup-ranks %d: does not divide "
		    "the %d ranks (DeepEP's ElasticBuffer asserts num_ranks %% "
		    "num_nvl_ranks == 0)", o->sizing->scaleup, c->R);
	if (o->rank >= c->R)
		return mk_err_usage(e, "--rank %d: the trace has %d ranks",
		    o->rank, c->R);
	if (o->rank >= 0 && j->sh.stepped && o->step < 0)
		return mk_err_usage(e, "--rank on a trace of %d steps needs "
		    "--step", j->sh.S);
	if (o->step >= 0 && (!j->sh.stepped || o->step >= j->sh.S))
		return mk_err_usage(e, "--step %d: the trace has %d steps",
		    o->step, j->sh.stepped ? j->sh.S : 0);
	if (o->plan_rows > 1 && !j->sh.stepped)
		return mk_err_usage(e, "--layer-per-step: the trace has no "
		    "step axis; give --layer");
	if (o->plan_rows > 1 && j->sh.S > o->plan_rows)
		return mk_err_usage(e, "--layer-per-step: the trace has %d "
		    "steps, %s %d layers", j->sh.S, o->plan_name,
		    o->plan_rows);
	return 0;
}

/* The plan's mappings, one a row (each row checked now). */
static int
open_plan(struct mk_a2a_job *j, struct mk_err *e)
{
	const struct mk_a2a_job_opts *o = &j->o;
	char what[320];
	int l, n = o->plan_rows > 1 ? o->plan_rows : 1;

	if ((j->map = calloc((size_t)n, sizeof(*j->map))) == NULL)
		return mk_err_data(e, "out of memory");
	for (l = 0; l < n; l++, j->nmap++) {
		if (n > 1)
			snprintf(what, sizeof(what), "%.256s, layer %d",
			    o->plan_name, l);
		else
			snprintf(what, sizeof(what), "%.256s", o->plan_name);
		if (mk_moe_phys_init(&j->map[l], o->plan + (size_t)l *
		    (size_t)o->plan_slots, o->plan_slots, o->plan_experts,
		    what, e) < 0)
			return -1;
	}
	j->c.E = o->plan_slots;
	return 0;
}

/* A step's routed or narrowed ids, rank by rank. */
static int
open_bufs(struct mk_a2a_job *j, struct mk_err *e)
{
	/* sized as the steps come: a header's word is no size to allocate */
	if ((j->pbuf = calloc((size_t)j->sh.R, sizeof(*j->pbuf))) == NULL ||
	    (j->pcap = calloc((size_t)j->sh.R, sizeof(*j->pcap))) == NULL)
		return mk_err_data(e, "out of memory");
	return 0;
}

/* Room in pbuf for the loaded step st's ids (its data is read now). */
static int
grow_bufs(struct mk_a2a_job *j, const struct mk_moe_step *st,
    const char *where, struct mk_err *e)
{
	size_t want;
	int32_t *p;
	int r;

	for (r = 0; r < st->R; r++) {
		want = (size_t)st->T[r] * (size_t)st->K + 1;
		if (want <= j->pcap[r])
			continue;
		if ((p = realloc(j->pbuf[r], sizeof(int32_t) * want)) == NULL)
			return mk_err_data(e, "%srank %d: out of memory for %lld "
			    "tokens x %d ids", where, r, (long long)st->T[r],
			    st->K);
		j->pbuf[r] = p;
		j->pcap[r] = want;
	}
	return 0;
}

/*
 * The layout runs on one thread below a few milliseconds of ids (about
 * 64 MiB at the counting's pace), else on all (base/threads.h).
 */
static int
threads(const struct mk_moe_trace_shape *sh)
{
	double bytes = (double)(sh->S > 0 ? sh->S : 1) * sh->R *
	    (double)sh->max_T * sh->K * sh->elem;

	return mk_threads_for(bytes / 13e6);
}

static int
job_open(struct mk_a2a_job *j, struct mk_src *s, struct mk_err *e)
{
	int b;

	if ((j->tr = mk_moe_trace_open(s, j->o.R, e)) == NULL)
		return -1;
	j->sh = mk_moe_trace_shape(j->tr);
	j->c.R = j->sh.R;
	j->c.K = j->sh.K;
	j->c.threads = threads(&j->sh);
	if (j->o.plan != NULL && open_plan(j, e) < 0)
		return -1;
	if (check(j, e) < 0)
		return -1;
	/* DeepEP reads int64 ids as int: only --lenient lets such ids by */
	j->narrow = j->o.plan == NULL && j->c.lenient && j->sh.elem == 8 &&
	    j->c.style == MK_A2A_DEEPEP;
	if ((j->o.plan != NULL || j->narrow) && open_bufs(j, e) < 0)
		return -1;
	/* several steps of a file read in place; a mapping goes by one */
	j->nbmax = j->pbuf == NULL ? mk_moe_trace_batch(j->tr) : 1;
	for (b = 0; b < j->nbmax; b++)
		if (mk_a2a_group_alloc(&j->g[b], &j->c) < 0)
			return mk_err_data(e, "out of memory");
	if ((j->rows = calloc((size_t)j->c.R, sizeof(int64_t))) == NULL)
		return mk_err_data(e, "out of memory");
	return 0;
}

struct mk_a2a_job *
mk_a2a_job_open(const struct mk_a2a_job_opts *o, struct mk_src *s,
    struct mk_err *e)
{
	struct mk_a2a_job *j;

	if ((j = calloc(1, sizeof(*j))) == NULL) {
		mk_err_data(e, "out of memory");
		return NULL;
	}
	j->o = *o;
	j->c = o->cfg;
	if (job_open(j, s, e) < 0) {
		mk_a2a_job_close(j);
		return NULL;
	}
	return j;
}

void
mk_a2a_job_spare_cpu(struct mk_a2a_job *j)
{
	if (j->c.threads > 1 && j->c.threads >= mk_usable_cpus())
		j->c.threads--;
}

const struct mk_a2a_cfg *
mk_a2a_job_cfg(const struct mk_a2a_job *j)
{
	return &j->c;
}

struct mk_moe_trace_shape
mk_a2a_job_shape(const struct mk_a2a_job *j)
{
	return j->sh;
}

/*
 * The one step of a batch into j->ph: through the plan's row for it, or
 * narrowed to DeepEP's int.  Every rank is read first.
 */
static int
route(struct mk_a2a_job *j, const char *where, struct mk_err *e)
{
	int l = j->nmap > 1 ? j->step : 0;

	if (mk_moe_step_load(&j->st[0], j->c.threads, e) < 0 ||
	    grow_bufs(j, &j->st[0], where, e) < 0)
		return -1;
	if (j->narrow) {
		mk_moe_step_narrow(&j->st[0], &j->ph, j->pbuf);
		return 0;
	}
	if (l >= j->nmap)
		return mk_err_data(e, "%s%s has %d layers (--layer-per-step)",
		    where, j->o.plan_name, j->nmap);
	return mk_moe_phys_map(&j->map[l], &j->st[0], &j->ph, j->pbuf,
	    j->c.lenient, where, e);
}

/* The next batch of steps, laid out.  Returns its size, 0, or -1. */
static int
next_batch(struct mk_a2a_job *j, struct mk_err *e)
{
	char where[MK_MOE_MAX_STEPS][320];
	const char *wherev[MK_MOE_MAX_STEPS];
	int b, nb;

	j->step += j->nb;
	j->nb = j->b = 0;
	if ((nb = mk_moe_trace_next_steps(j->tr, j->st, j->nbmax, e)) <= 0)
		return nb;
	for (b = 0; b < nb; b++) {
		if (j->sh.stepped)
			snprintf(where[b], sizeof(where[b]), "%.256s: step %d, ",
			    mk_moe_trace_name(j->tr), j->step + b);
		else
			snprintf(where[b], sizeof(where[b]), "%.256s: ",
			    mk_moe_trace_name(j->tr));
		wherev[b] = where[b];
	}
	if (j->pbuf != NULL && route(j, where[0], e) < 0)
		return -1;
	if (mk_a2a_layout_steps(&j->c, j->pbuf ? &j->ph : j->st, j->g, nb,
	    wherev, e) < 0)
		return -1;
	return j->nb = nb;
}

int
mk_a2a_job_next(struct mk_a2a_job *j, struct mk_a2a_view *v,
    struct mk_err *e)
{
	const struct mk_a2a_group *g;
	int64_t most;
	int b, r, k, nb;

	if (j->b == j->nb && (nb = next_batch(j, e)) <= 0)
		return nb;
	b = j->b++;
	k = j->step + b;
	g = &j->g[b];
	/*
	 * Triton-distributed's output buffer persists across steps and grows
	 * when the largest receiver needs more rows; every rank allocates the
	 * same.
	 */
	for (r = 0, most = 0; r < j->c.R; r++)
		if (g->recv_rows[r] > most)
			most = g->recv_rows[r];
	j->rows[0] = mk_a2a_triton_rows(j->rows[0], j->o.max_tokens > 0 ?
	    j->o.max_tokens : j->sh.max_T, j->c.K, most);
	for (r = 1; r < j->c.R; r++)
		j->rows[r] = j->rows[0];
	mk_a2a_tally_step(&j->tally, &j->c, g, k, j->rows[0]);
	j->tally.max_T = j->sh.max_T;
	memset(v, 0, sizeof(*v));
	v->step = k;
	v->g = g;
	v->rows = j->rows;
	if (j->o.rank >= 0 && (!j->sh.stepped || k == j->o.step)) {
		mk_a2a_rank_free(&j->pr);
		if (mk_a2a_rank(&j->c, j->pbuf ? &j->ph : &j->st[b], g,
		    j->o.rank, &j->pr, e) < 0)
			return -1;
		v->pr = &j->pr;
	}
	return 1;
}

const struct mk_a2a_tally *
mk_a2a_job_tally(const struct mk_a2a_job *j)
{
	return &j->tally;
}

char *
mk_a2a_job_describe(const struct mk_a2a_job *j, char *buf, size_t size)
{
	return mk_moe_trace_describe(j->tr, buf, size);
}

void
mk_a2a_job_close(struct mk_a2a_job *j)
{
	int b, r;

	if (j == NULL)
		return;
	mk_a2a_rank_free(&j->pr);
	for (b = 0; b < MK_MOE_MAX_STEPS; b++)
		mk_a2a_group_free(&j->g[b]);
	if (j->pbuf != NULL)
		for (r = 0; r < j->sh.R; r++)
			free(j->pbuf[r]);
	free(j->pbuf);
	free(j->pcap);
	for (b = 0; b < j->nmap; b++)
		mk_moe_phys_free(&j->map[b]);
	free(j->map);
	mk_moe_trace_close(j->tr);
	free(j->rows);
	free(j);
}
