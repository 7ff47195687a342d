/*
 * eplb-replay - replay a per-step expert load log (or routing records)
 * through rebalancing policies and print, for every configuration of the
 * lists given, what balance it kept and what it moved: one CSV row each.
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <argtable2.h>

#include "moekit.h"
#include "base/mem.h"
#include "moe/routing.h"
#include "cli/progress.h"
#include "eplb/eplb.h"
#include "eplb/eplb_replay.h"
#include "moe/loads.h"

#define NL	32		/* values a list may hold */
#define MAXCFG	4096		/* configurations a sweep may hold */

enum { O_R, O_NRED, O_G, O_N, O_K, O_POLICY, O_ALGO, O_WINDOW, O_INTERVAL,
	O_HISTORY, O_MOVES, O_GAIN, O_BYTES, O_SKIP, O_E, O_TPS, O_FIELDS,
	O_PLOT, O_STEPS, O_FILE, NOPT };

static const struct mk_optspec spec[NOPT] = {
	[O_R] = { 's', "r", "replicas", "LIST", "slots per layer" },
	[O_NRED] = { 's', NULL, "num-redundant-experts", "LIST", "R = E + N" },
	[O_G] = { 'S', "G", "gpus,num-gpus", "LIST", "GPUs" },
	[O_N] = { 's', "n", "nodes,num-nodes", "LIST", "nodes (default 1)" },
	[O_K] = { 's', "g", "groups,num-groups", "LIST", "expert groups "
	    "(default 1)" },
	[O_POLICY] = { 's', NULL, "policy", "LIST", "auto|hierarchical|global "
	    "(default auto)" },
	[O_ALGO] = { 's', "a", "algo", "LIST", "deepseek|waterfill|best "
	    "(default best)" },
	[O_WINDOW] = { 's', NULL, "window", "LIST", "steps a re-plan sees "
	    "(default 1000)" },
	[O_INTERVAL] = { 's', NULL, "interval", "LIST", "steps between "
	    "re-plans (default 3000)" },
	[O_HISTORY] = { 's', NULL, "history", "LIST", "windows as scenarios "
	    "(default 1)" },
	[O_MOVES] = { 's', NULL, "max-moves", "LIST", "slots a re-plan may "
	    "change, or none (default)" },
	[O_GAIN] = { 's', NULL, "min-gain", "LIST", "re-plan only for this "
	    "gain, or none (default)" },
	[O_BYTES] = { 's', NULL, "expert-bytes", "LIST", "an expert's weights "
	    "(44M: DeepSeek-V3 in FP8)" },
	[O_SKIP] = { 'l', NULL, "skip-zero-layers", NULL, "drop all-zero "
	    "(dense) layers" },
	[O_E] = { 's', "E", "experts", "E", "experts (routing records)" },
	[O_TPS] = { 's', NULL, "tokens-per-step", "N", "routing: tokens a step "
	    "(default 1)" },
	[O_FIELDS] = { 's', NULL, "fields", "LAYER,SEQ,TOKEN,EXPERTS",
	    "routing records' fields" },
	[O_PLOT] = { 'f', NULL, "plot", "FILE.svg", "balancedness against "
	    "moves, the Pareto front" },
	[O_STEPS] = { 'f', NULL, "steps", "FILE", "one configuration's "
	    "per-step series (CSV)" },
	[O_FILE] = { 'f', NULL, NULL, "FILE", "the log (default: stdin)" },
};

static const struct mk_usage usage = {
	"-r LIST | --num-redundant-experts LIST -G LIST [-n LIST] [-g LIST] "
	    "[--policy LIST] [-a LIST] [--window LIST] [--interval LIST] "
	    "[--history LIST] [--max-moves LIST] [--min-gain LIST] "
	    "[--expert-bytes LIST] [--skip-zero-layers] [-E E] "
	    "[--tokens-per-step N] [--fields L,S,T,E] [--plot FILE.svg] "
	    "[--steps FILE] [-o FILE] [--threads N] [--quiet] [-hVv] [FILE]",
	"Replay an expert load log through rebalancing policies: balance "
	    "against moves.",
	"Every option taking a LIST (comma-separated) sweeps it: one CSV row\n"
	    "per configuration of the cross product.  FILE: a load log "
	    "[T,L,E] (NPY,\nCSV, SGLang's .pt or JSON with a step axis, the "
	    "ADRS load_history JSON),\nor routing records (JSON lines, an "
	    "[S,R,T,K] trace) with -E.\n",
};

struct opts {
	struct mk_opts	 c;
	int	 r[NL], nr, red[NL], nred, g[NL], ng, n[NL], nn, k[NL], nk;
	int	 pol[NL], npol, algo[NL], nalgo, win[NL], nwin, itv[NL], nitv;
	int	 his[NL], nhis, nmov, ngain, nbytes, skip, E, tps;
	int64_t	 mov[NL];
	double	 gain[NL], bytes[NL];
	const char *plot, *steps, *file;
	struct mk_moe_jsonl fields;
	char	 fieldbuf[256];
};

/* An int LIST option, or its default. */
static int
ilist(void *a, int64_t min, int def, int *v, const char *what)
{
	if (((struct arg_str *)a)->count == 0) {
		v[0] = def;
		return def >= 0;
	}
	return mk_opt_int_list(mk_arg_str(a), min, 1 << 30, v, NL, what);
}

/* --max-moves / --min-gain / --expert-bytes: numbers or "none" (-1). */
static int
nlist(void *a, const char *what, enum mk_num kind, double *v)
{
	if (((struct arg_str *)a)->count == 0) {
		v[0] = kind == MK_NUM_BYTES ? 0 : -1;
		return 1;
	}
	return mk_opt_num_list(mk_arg_str(a), kind, v, NL, what);
}

static void
parse_args(int argc, char **argv, struct opts *o)
{
	static const char *const pols[] = { "auto", "hierarchical", "global" };
	static const char *const algos[] = { "deepseek", "waterfill", "best" };
	struct mk_common c;
	struct mk_err e;
	void *a[NOPT], *t[NOPT + MK_ARGS_EXTRA];
	double v[NL];
	int i;

	mk_common_args(&c, MK_OPT_OUTPUT | MK_OPT_THREADS);
	mk_args_make(spec, NOPT, &c, a, t);
	mk_cli_parse(argc, argv, t, &c, &usage, &o->c);
	o->nr = ilist(a[O_R], 1, -1, o->r, "--replicas");
	o->nred = ilist(a[O_NRED], 0, -1, o->red, "--num-redundant-experts");
	if ((o->nr > 0) == (o->nred > 0))
		mk_usage_error(o->nr > 0 ? "give -r or --num-redundant-experts, "
		    "not both" : "-r LIST (slots per layer) or "
		    "--num-redundant-experts LIST is required");
	o->ng = ilist(a[O_G], 1, -1, o->g, "--gpus");
	o->nn = ilist(a[O_N], 1, 1, o->n, "--nodes");
	o->nk = ilist(a[O_K], 1, 1, o->k, "--groups");
	o->nwin = ilist(a[O_WINDOW], 1, 1000, o->win, "--window");
	o->nitv = ilist(a[O_INTERVAL], 1, 3000, o->itv, "--interval");
	o->nhis = ilist(a[O_HISTORY], 1, 1, o->his, "--history");
	for (i = 0; i < o->nhis; i++)
		if (o->his[i] > MK_EPLB_MAX_SCENARIOS)
			mk_usage_error("--history %d: at most %d", o->his[i],
			    MK_EPLB_MAX_SCENARIOS);
	o->npol = ((struct arg_str *)a[O_POLICY])->count ? mk_opt_choice_list(
	    mk_arg_str(a[O_POLICY]), pols, 3, o->pol, "--policy") : 1;
	o->nalgo = ((struct arg_str *)a[O_ALGO])->count ? mk_opt_choice_list(
	    mk_arg_str(a[O_ALGO]), algos, 3, o->algo, "--algo") : 1;
	if (((struct arg_str *)a[O_ALGO])->count == 0)
		o->algo[0] = MK_EPLB_BEST;
	o->nmov = nlist(a[O_MOVES], "--max-moves", MK_NUM_COUNT, v);
	for (i = 0; i < o->nmov; i++)
		o->mov[i] = (int64_t)v[i];
	o->ngain = nlist(a[O_GAIN], "--min-gain", MK_NUM_FRACTION, o->gain);
	o->nbytes = nlist(a[O_BYTES], "--expert-bytes", MK_NUM_BYTES,
	    o->bytes);
	o->skip = ((struct arg_lit *)a[O_SKIP])->count > 0;
	o->E = (int)mk_arg_int(a[O_E], 1, 1 << 20, 0, "--experts");
	o->tps = (int)mk_arg_int(a[O_TPS], 1, 1 << 30, 1, "--tokens-per-step");
	if (mk_moe_jsonl_fields(((struct arg_str *)a[O_FIELDS])->count ?
	    mk_arg_str(a[O_FIELDS]) : NULL, &o->fields, o->fieldbuf,
	    sizeof(o->fieldbuf), &e) < 0)
		mk_usage_error("%s", e.msg);
	o->plot = mk_arg_file(a[O_PLOT]);
	o->steps = mk_arg_file(a[O_STEPS]);
	o->file = mk_arg_file(a[O_FILE]);
}

/* The routing's traffic under a placement (mk_replay_log.traffic). */
static int
traffic(void *ctx, int t, const struct mk_eplb_cfg *c, const int64_t *p2l,
    int64_t out[2], struct mk_err *e)
{
	return mk_moe_routing_traffic(ctx, t, p2l, c->R, c->G, c->G / c->N,
	    out, NULL, e);
}

/* A step of a load log (mk_replay_log.step). */
static void
step(const void *ld, int t, double *dst)
{
	mk_loads_step(ld, t, dst);
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
read_log(struct opts *o, struct mk_loads *ld, struct mk_moe_routing *rt,
    struct mk_replay_log *log)
{
	const unsigned char *p;
	struct mk_src *s, *m;
	struct mk_err e;
	size_t n;
	double *w;
	int fmt;

	if ((s = mk_src_open(o->file, &e)) == NULL || (fmt = mk_src_format(s,
	    &e)) < 0 || mk_src_slurp(s, &p, &n, &e) < 0)
		mk_fail(s, &e);
	if ((m = mk_src_mem(p, n, mk_src_name(s), 0)) == NULL)
		err(MK_EXIT_DATA, NULL);
	if (mk_moe_routing_is(p, n, fmt, &o->fields)) {
		if (o->E == 0)
			mk_usage_error("%s: routing records: give -E, the model's "
			    "experts", mk_src_name(s));
		if (mk_moe_routing_read(m, &o->fields, o->E, o->tps, rt, &e) < 0)
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
		if (mk_loads_read_steps(m, o->file, o->skip, ld, &e) < 0)
			mk_fail(m, &e);
		*log = (struct mk_replay_log){ ld->T, ld->L, ld->E, ld->w, step,
		    ld, NULL, NULL, integer_loads(ld) };
	}
	mk_src_close(m);
	mk_src_close(s);
}

/* The cross product of the lists, each configuration checked. */
static int
configs(const struct opts *o, int E, struct mk_replay_cfg *rc)
{
	int i[12], m = 0, nrr = o->nr > 0 ? o->nr : o->nred;
	const int lim[12] = { nrr, o->ng, o->nn, o->nk, o->npol, o->nalgo,
	    o->nwin, o->nitv, o->nhis, o->nmov, o->ngain, o->nbytes };
	struct mk_replay_cfg *x;
	struct mk_err e;
	char lab[300];
	int d;

	memset(i, 0, sizeof(i));
	for (;;) {
		if (m == MAXCFG)
			mk_usage_error("the lists make more than %d "
			    "configurations", MAXCFG);
		x = &rc[m];
		memset(x, 0, sizeof(*x));
		x->c.E = E;
		x->c.R = o->nr > 0 ? o->r[i[0]] : E + o->red[i[0]];
		x->c.G = o->g[i[1]];
		x->c.N = o->n[i[2]];
		x->c.K = o->k[i[3]];
		x->policy = o->pol[i[4]];
		x->c.algo = o->algo[i[5]];
		x->c.objective = MK_EPLB_MEAN;
		x->window = o->win[i[6]];
		x->interval = o->itv[i[7]];
		x->history = o->his[i[8]];
		x->max_moves = o->mov[i[9]];
		x->min_gain = o->gain[i[10]];
		x->expert_bytes = o->bytes[i[11]];
		if (mk_eplb_config(&x->c, x->policy, &e) < 0 &&
		    (x->c.hier = x->policy != MK_EPLB_GLOBAL, 1))
			mk_usage_error("%s (configuration %s)", e.msg,
			    mk_eplb_replay_label(x, lab, sizeof(lab)));
		m++;
		for (d = 0; d < 12 && ++i[d] == lim[d]; d++)
			i[d] = 0;
		if (d == 12)
			break;
	}
	return m;
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
main(int argc, char *argv[])
{
	struct mk_replay_cfg *rc;
	struct mk_replay_res *res;
	struct mk_replay_log log;
	struct mk_moe_routing rt = { 0 };
	struct mk_loads ld = { 0 };
	struct mk_out *w, *pic = NULL, *stp = NULL;
	struct prog g = { { 0 }, 0 };
	struct mk_err e;
	char title[400];
	struct opts o;
	int n, k;

	mk_init(argc, argv);
	memset(&o, 0, sizeof(o));
	parse_args(argc, argv, &o);
	mk_out_input(o.file);
	if ((rc = malloc(sizeof(*rc) * MAXCFG)) == NULL)
		err(MK_EXIT_DATA, NULL);
	read_log(&o, &ld, &rt, &log);
	n = configs(&o, log.E, rc);
	for (k = 0; k < n; k++)
		if (rc[k].window >= log.T)
			mk_usage_error("--window %d: the log has %d steps (a "
			    "replay scores the steps after the first window)",
			    rc[k].window, log.T);
	if (o.steps != NULL && n != 1)
		mk_usage_error("--steps: the series of one configuration; the "
		    "lists make %d", n);
	if ((res = calloc((size_t)n, sizeof(*res))) == NULL)
		err(MK_EXIT_DATA, NULL);
	pic = o.plot ? mk_out_open(o.plot, MK_FMT_CSV) : NULL;
	stp = o.steps ? mk_out_open(o.steps, MK_FMT_CSV) : NULL;
	w = mk_out_open(o.c.output, MK_FMT_CSV);
	mk_progress_start(&g.p, "configurations", n, o.c.quiet);
	if (mk_eplb_replay_sweep(rc, n, &log, mk_threads_max(), tick, &g, res,
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
		    "layers", o.file ? o.file : "stdin", log.T, log.L);
		if (mk_eplb_replay_plot(pic->fp, rc, res, n, title, &e) < 0)
			mk_fail(NULL, &e);
		mk_out_close(pic);
	}
	mk_out_close(w);
	if (log.traffic != NULL)
		mk_mem_free((void *)log.w);
	mk_moe_routing_free(&rt);
	mk_loads_free(&ld);
	free(res);
	free(rc);
	return MK_EXIT_OK;
}
