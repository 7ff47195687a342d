/*
 * eplb_replay_run.c - eplb-replay's story (eplb_run.h): the log (or
 * routing records) read, every configuration of the lists checked and
 * replayed, the table, --steps and --plot written.
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/threads.h"
#include "cli/io.h"
#include "cli/progress.h"
#include "eplb/eplb_run.h"
#include "moe/loads.h"
#include "moe/routing.h"
#include "tensor/src.h"

#define MAXCFG	4096		/* configurations a sweep may hold */

/* The rules between options, before anything is read. */
static void
rules(const struct mk_eplb_replay_job *o)
{
	const struct mk_eplb_lists *l = &o->l;

	if ((l->nr > 0) == (l->nred > 0))
		mk_usage_error(l->nr > 0 ? "give -r or --num-redundant-experts, "
		    "not both" : "-r LIST (slots per layer) or "
		    "--num-redundant-experts LIST is required");
}

/* The routing's traffic under a placement (mk_replay_log.traffic). */
static int
traffic(void *ctx, int t, const struct mk_eplb_cfg *c, const int64_t *p2l,
    int64_t out[2], struct mk_err *e)
{
	struct mk_moe_placement pl = { p2l, c->R, c->G, c->G / c->N };

	return mk_moe_routing_traffic(ctx, t, &pl, out, NULL, e);
}

/* A step of a load log (mk_replay_log.step). */
static void
step(const void *ld, int t, double *dst)
{
	mk_loads_step(ld, t, dst);
}

/* Step t of a log whose records are g steps apart: the record before. */
static void
held_step(const void *ctx, int t, double *dst)
{
	const struct mk_loads *ld = ctx;

	mk_loads_step(ld, t / (int)ld->steps.gap, dst);
}

/*
 * Whether every load of the log is an integer below 2^40 (window sums
 * then slide exactly): an integer log, or loads that all are.
 */
static int
integer_loads(const struct mk_loads *ld)
{
	size_t i, n;

	if (ld->log != NULL && mk_dtype_kind(ld->log->dtype) == MK_KIND_FLOAT)
		return 0;
	if (ld->log != NULL && (ld->log->dtype == MK_I64 ||
	    ld->log->dtype == MK_U64)) {
		const uint64_t *v = ld->log->data;

		/* i64 in [-2^40, 2^40), and u64 below 2^40 */
		for (i = 0; i < ld->log->nelem; i++)
			if ((ld->log->dtype == MK_I64 ? v[i] + (1ull << 40) :
			    v[i]) >= 1ull << 41 >> (ld->log->dtype == MK_U64))
				return 0;
		return 1;
	}
	if (ld->log != NULL)
		return 1;	/* 32 bits or fewer */
	n = (size_t)ld->T * (size_t)ld->L * (size_t)ld->E;
	for (i = 0; i < n; i++)
		if (ld->w[i] != floor(ld->w[i]) || fabs(ld->w[i]) >= 0x1p40)
			return 0;
	return 1;
}

/* The log, as routing records (with their traffic) or a load log. */
static void
read_log(const struct mk_eplb_replay_job *o, struct mk_loads *ld, struct mk_moe_routing *rt,
    struct mk_replay_log *log)
{
	const unsigned char *p;
	struct mk_src *s, *m;
	struct mk_err e;
	size_t n;
	double *w;
	int fmt;

	if (mk_moe_input_kind(o->file, NULL, 0, -1, NULL) == MK_MOE_TRTLLM) {
		/* TensorRT-LLM's statistics: a log of expert loads */
		if (o->E != 0 || o->tps != 1)
			mk_usage_error("%s: a load log: -E and --tokens-per-step "
			    "are for routing records", o->file);
		if (mk_loads_read_trtllm(o->file, 0, MK_LOADS_STEPS, ld, &e) <
		    0 || mk_loads_finish(ld, o->l.skip, &e) < 0)
			mk_fail(NULL, &e);
		*log = (struct mk_replay_log){ ld->T, ld->L, ld->E, ld->w, step,
		    ld, NULL, NULL, integer_loads(ld) };
		return;
	}
	if ((s = mk_src_open(o->file, &e)) == NULL || (fmt = mk_src_format(s,
	    &e)) < 0 || mk_src_slurp(s, &p, &n, &e) < 0)
		mk_fail(s, &e);
	if ((m = mk_src_mem(p, n, mk_src_name(s), 0)) == NULL)
		err(MK_EXIT_DATA, NULL);
	if (mk_moe_input_kind(o->file, p, n, fmt, o->fields) ==
	    MK_MOE_ROUTING) {
		if (o->E == 0)
			mk_usage_error("%s: routing records: give -E, the model's "
			    "experts", mk_src_name(s));
		if (mk_moe_routing_read(m, o->fields, o->E, o->tps, rt, &e) < 0)
			mk_fail(m, &e);
		if ((w = mk_mem_alloc(sizeof(double) * (size_t)rt->T *
		    (size_t)rt->L * (size_t)rt->E)) == NULL)
			err(MK_EXIT_DATA, NULL);
		mk_moe_routing_loads(rt, w);
		*log = (struct mk_replay_log){ rt->T, rt->L, rt->E, w, NULL,
		    NULL, traffic, rt, 1 };
	} else {
		if (o->E != 0 || o->tps != 1)
			mk_usage_error("%s: a load log: -E and --tokens-per-step "
			    "are for routing records", mk_src_name(s));
		if (mk_loads_read_steps(m, o->file, o->l.skip, ld, &e) < 0)
			mk_fail(m, &e);
		*log = (struct mk_replay_log){ ld->T, ld->L, ld->E, ld->w, step,
		    ld, NULL, NULL, integer_loads(ld) };
		/* records g steps apart (vLLM's expert_load_stats_interval):
		 * each holds for its g steps, so the engine's windows and
		 * intervals keep their meaning */
		if (ld->steps.gap > 1) {
			if ((double)ld->T * ld->steps.gap > INT32_MAX)
				mk_usage_error("%s: %d records %.17g steps apart: "
				    "more steps than a replay takes (2^31)",
				    mk_src_name(s), ld->T, ld->steps.gap);
			log->T = ld->T * (int)ld->steps.gap;
			log->w = NULL;
			log->step = held_step;
		}
	}
	mk_src_close(m);
	mk_src_close(s);
}

/*
 * A configuration that would score no step of a log of T: refused,
 * naming what the user typed (or the default they left) that sets its
 * first scored step.
 */
static void __attribute__((noreturn))
too_short(const struct mk_eplb_replay_job *o, const struct mk_replay_cfg *x,
    int T)
{
	const char *what, *why = "";

	if (o->score_from >= 0)
		mk_usage_error("--score-from %d: the log has %d steps",
		    x->score_from, T);
	if (o->given[MK_EPLB_O_WINDOW]) {
		what = "--window";
	} else if (x->engine == MK_ENGINE_SGLANG) {
		what = o->interval_given ? "--interval" : "SGLang's default "
		    "interval";
		why = "SGLang's window is its interval; ";
	} else {
		what = "vLLM's default window";
		why = "--window sets it; ";
	}
	mk_usage_error("%s %d: the log has %d steps (%sa replay scores the "
	    "steps from the first window on)", what, x->window, T, why);
}

/* Whether a row of rc[0..n) is scored from later than its first window. */
static int
scored_later(const struct mk_replay_cfg *rc, int n)
{
	int k;

	for (k = 0; k < n; k++)
		if (rc[k].score_from > (rc[k].engine == MK_ENGINE_TRTLLM ? 0 :
		    rc[k].window))
			return 1;
	return 0;
}

/* The progress line: configurations done. */
struct prog {
	struct mk_progress	 p;
	int			 done;
};

static void
tick(void *ctx, int k, int n)
{
	struct prog *g = ctx;

	(void)k;
	(void)n;
	mk_progress_set(&g->p, ++g->done, 0);
}

int
mk_eplb_replay_run(const struct mk_eplb_replay_job *o)
{
	/* one sweep a process: its configurations held for the whole run
	 * (a usage error exits from among them: nothing of theirs leaks) */
	static struct mk_replay_cfg rc[MAXCFG];
	struct mk_replay_res *res;
	struct mk_replay_log log;
	struct mk_moe_routing rt = { 0 };
	struct mk_loads ld = { 0 };
	struct mk_out *w, *pic = NULL, *stp = NULL;
	struct prog g = { { 0 }, 0 };
	struct mk_err e;
	char title[400], note[1024];
	int n, k, all = -1;	/* all: the sweep's size, if this slice is
				 * empty */

	rules(o);
	mk_eplb_input(o->file);
	read_log(o, &ld, &rt, &log);
	mk_eplb_slot_counts(o->file, &ld, o->l.r, o->l.nr, o->l.nred > 0);
	n = mk_eplb_sweep(o, log.E, rc, MAXCFG);
	if (o->nshard > 1) {
		/* a contiguous slice: the shards' rows concatenate in order */
		int a = (int)((int64_t)n * (o->shard - 1) / o->nshard);
		int b = (int)((int64_t)n * o->shard / o->nshard);

		/* an empty slice is a header alone, so a fixed job array
		 * runs over any sweep (said once all went well) */
		if (a == b)
			all = n;
		memmove(rc, rc + a, sizeof(*rc) * (size_t)(b - a));
		n = b - a;
	}
	for (k = 0; k < n; k++)
		if (rc[k].score_from >= log.T)
			too_short(o, &rc[k], log.T);
	if (o->steps != NULL && n != 1)
		mk_usage_error("--steps: the series of one configuration; the "
		    "lists make %d", n);
	if (o->nlose > 0 && o->lose_step >= log.T)
		mk_usage_error("--lose-gpu %d:...: past the log's %d steps",
		    o->lose_step, log.T);
	if ((res = calloc((size_t)n + 1, sizeof(*res))) == NULL)
		err(MK_EXIT_DATA, NULL);
	pic = o->plot ? mk_out_open(o->plot, MK_FMT_CSV) : NULL;
	stp = o->steps ? mk_out_open(o->steps, MK_FMT_CSV) : NULL;
	w = mk_out_open(o->c.output, MK_FMT_CSV);
	mk_progress_start(&g.p, "configurations", n, o->c.quiet);
	if (mk_eplb_replay_sweep(rc, n, &log, &(struct mk_replay_team){
	    .threads = mk_threads_max(), .done = tick, .ctx = &g }, res,
	    &e) < 0)
		mk_fail(NULL, &e);
	mk_progress_end(&g.p);
	mk_eplb_replay_write(w->fp, rc, res, n, log.traffic != NULL);
	if (stp != NULL) {
		if (mk_eplb_replay_series(stp->fp, rc, &log, &e) < 0)
			mk_fail(NULL, &e);
		mk_out_close(stp);
	}
	if (pic != NULL) {
		snprintf(title, sizeof(title), "eplb-replay: %s, %d steps x %d "
		    "layers", o->file ? o->file : "stdin", log.T, log.L);
		if (mk_eplb_replay_plot(pic->fp, rc, res, n, title, &e) < 0)
			mk_fail(NULL, &e);
		mk_out_close(pic);
	}
	mk_out_close(w);
	/* once all went well: a run that fails says one thing */
	if (o->score_from < 0 && scored_later(rc, n))
		mk_note("every row is scored from step %d, the sweep's latest "
		    "first window, so that rows compare (--score-from sets "
		    "another)", rc[0].score_from);
	if (all >= 0)
		mk_note("--shard %d/%d: the lists make %d configuration%s; this "
		    "slice holds none", o->shard, o->nshard, all, all == 1 ?
		    "" : "s");
	if (mk_loads_note(&ld, note, sizeof(note)))
		mk_note("%s", note);
	if (mk_loads_steps_note(&ld, note, sizeof(note)))
		mk_note("%s", note);
	if (log.traffic != NULL)
		mk_mem_free((void *)log.w);
	mk_moe_routing_free(&rt);
	mk_loads_free(&ld);
	free(res);
	return MK_EXIT_OK;
}
