/*
 * eplb-plan - read expert loads (NPY, CSV, SGLang or vLLM/ADRS JSON,
 * SGLang's torch .pt dump), one scenario per input or per window, and
 * write an expert placement - phy2log [L, R], log2phy [L, E, X], logcnt
 * [L, E] (i64) as one tensor stream, or SGLang's JSON - or, with --eval,
 * score a placement on the loads.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <argtable2.h>

#include "moekit.h"
#include "base/clock.h"
#include "base/mem.h"
#include "eplb/eplb.h"
#include "moe/plan.h"
#include "moe/loads.h"
#include "moe/routing.h"

enum { O_R, O_NRED, O_G, O_N, O_K, O_POLICY, O_ALGO, O_OBJ, O_WINDOW,
	O_HISTORY, O_SKIP, O_WIDTH, O_PREV, O_GAIN, O_MOVES, O_BYTES, O_EVAL,
	O_ROUTING, O_STATS, O_REPORT, O_PLOT, O_EFFORT, O_FILES, NOPT };

static const struct mk_optspec spec[NOPT] = {
	[O_R] = { 's', "r", "replicas", "R", "slots per layer (or the next)" },
	[O_NRED] = { 's', NULL, "num-redundant-experts", "N", "R = E + N" },
	[O_G] = { 'S', "G", "gpus,num-gpus", "G", "GPUs (R/G slots each)" },
	[O_N] = { 's', "n", "nodes,num-nodes", "N", "nodes (default 1)" },
	[O_K] = { 's', "g", "groups,num-groups", "K", "expert groups (default 1)" },
	[O_POLICY] = { 's', NULL, "policy", "auto|hierarchical|global",
	    "(auto: hierarchical when K % N == 0)" },
	[O_ALGO] = { 's', "a", "algo", "deepseek|waterfill|best", "(default "
	    "best)" },
	[O_OBJ] = { 's', NULL, "objective", "mean|worst", "best's, over "
	    "scenarios (default mean)" },
	[O_WINDOW] = { 's', NULL, "window", "N", "the last N steps of a "
	    "[T,L,E] log (default all)" },
	[O_HISTORY] = { 's', NULL, "history", "K", "K windows: K scenarios" },
	[O_SKIP] = { 'l', NULL, "skip-zero-layers", NULL, "drop all-zero "
	    "(dense) layers" },
	[O_WIDTH] = { 's', NULL, "log2phy-width", "full|max", "R-E+1 or the "
	    "largest count" },
	[O_PREV] = { 'f', NULL, "prev", "PLAN", "previous phy2log: move the "
	    "fewest experts" },
	[O_GAIN] = { 's', NULL, "min-gain", "X", "keep PLAN unless the gain is "
	    "X (0.02: 2%)" },
	[O_MOVES] = { 's', NULL, "max-moves", "M", "change at most M (layer, "
	    "slot) pairs of PLAN" },
	[O_BYTES] = { 's', NULL, "expert-bytes", "B", "an expert's weights, "
	    "bytes (--stats: bytes moved)" },
	[O_EVAL] = { 'f', NULL, "eval", "PLAN", "score PLAN on the loads" },
	[O_ROUTING] = { 'f', NULL, "routing", "FILE", "routing records: the "
	    "plan's inter-node share (--stats, --eval)" },
	[O_STATS] = { 'l', NULL, "stats", NULL, "statistics on stderr (CSV)" },
	[O_REPORT] = { 'f', NULL, "report", "FILE", "the statistics to FILE" },
	[O_PLOT] = { 'f', NULL, "plot", "FILE.svg", "a picture: GPU loads per "
	    "layer, before and after" },
	[O_EFFORT] = { 's', NULL, "effort", "N", "best's search steps (default "
	    "64)" },
	[O_FILES] = { 'F', NULL, NULL, "FILE", "loads, a scenario each "
	    "(default: stdin)" },
};

struct opts {
	struct mk_opts	 c;
	struct mk_eplb_cfg cfg;
	int		 redundant;	/* --num-redundant-experts, or -1 */
	int		 policy, window, history, skip_zero, width_max, stats;
	int		 eval_by_index;	/* --eval's plan: planned layers only */
	double		 min_gain;	/* -1: always the new plan */
	int64_t		 max_moves;	/* -1: no limit */
	double		 expert_bytes;	/* 0: not given */
	const char	*report, *prev, *eval, *plot, *routing;
	const char	**files;	/* none: stdin */
	int		 nfiles;
};

static const struct mk_usage usage = {
	"-r R | --num-redundant-experts N -G G [-n N] [-g K] "
	    "[--policy auto|hierarchical|global] [-a deepseek|waterfill|best] "
	    "[--objective mean|worst] [--window N [--history K]] "
	    "[--skip-zero-layers] [--log2phy-width full|max] "
	    "[--prev PLAN [--min-gain X] [--max-moves M]] [--expert-bytes B] "
	    "[--eval PLAN] [--routing FILE] [--stats] "
	    "[--report FILE] [--plot FILE.svg] [--effort N] [-f csv|npy|npz|sglang] "
	    "[--emit LIST] "
	    "[-o FILE] [--threads N] [-hVv] [FILE ...]",
	"Plan where expert replicas live from expert load logs.",
	"Outputs, in order: phy2log [L,R], log2phy [L,E,X], logcnt [L,E] (i64);\n"
	    "-f sglang: SGLang's --init-expert-location JSON.  --eval: the "
	    "table, or\ngpu_load [S,L,G] (f64).  FILE: loads [E], [L,E] or "
	    "[T,L,E] (NPY/CSV),\na layer,expert,load CSV, SGLang's "
	    "{\"logical_count\"} JSON or .pt dump, or\nthe ADRS "
	    "{\"load_history\"} JSON; several FILEs are several scenarios;\n"
	    "none or -: stdin.\n",
};

/* The rules between options, before anything is read. */
static void
mode_rules(const struct opts *o)
{
	const char *in[4] = { o->prev, o->eval, o->nfiles ? NULL : "-" };
	static const char *const names[] = { "--prev", "--eval", "FILE" };
	int i;

	if (o->eval && (o->prev || o->min_gain >= 0))
		mk_usage_error("--eval scores a plan; it takes no --prev or "
		    "--min-gain");
	if (o->min_gain >= 0 && !o->prev)
		mk_usage_error("--min-gain needs --prev (the plan to keep)");
	if (o->max_moves >= 0 && !o->prev)
		mk_usage_error("--max-moves needs --prev (the plan moved from)");
	if (o->routing && !o->eval && !o->stats)
		mk_usage_error("--routing: its share goes in the table of --eval "
		    "or --stats");
	if (!o->eval && (o->cfg.R > 0) == (o->redundant >= 0))
		mk_usage_error(o->cfg.R > 0 ? "give -r R or "
		    "--num-redundant-experts N, not both" : "-r R (slots per "
		    "layer) or --num-redundant-experts N is required");
	if (o->history > 1 && o->window == 0)
		mk_usage_error("--history %d needs --window N (the steps of "
		    "each scenario)", o->history);
	if ((int64_t)(o->nfiles ? o->nfiles : 1) * o->history >
	    MK_EPLB_MAX_SCENARIOS)
		mk_usage_error("%d inputs x --history %d: more than %d "
		    "scenarios", o->nfiles ? o->nfiles : 1, o->history,
		    MK_EPLB_MAX_SCENARIOS);
	for (i = 0; i < o->nfiles; i++)
		if (strcmp(o->files[i], "-") == 0)
			in[2] = "-";
	mk_opt_one_stdin(3, in, names, -1);
}

static void
parse_args(int argc, char **argv, struct opts *o)
{
	static const char *const policies[] = { "auto", "hierarchical",
	    "global" };
	static const char *const algos[] = { "deepseek", "waterfill", "best" };
	static const char *const widths[] = { "full", "max" };
	static const char *const objs[] = { "mean", "worst" };
	struct arg_file *files;
	struct mk_common c;
	void *a[NOPT], *t[NOPT + MK_ARGS_EXTRA];

	mk_common_args(&c, MK_OPT_FORMAT | MK_OPT_EMIT | MK_OPT_OUTPUT |
	    MK_OPT_THREADS | MK_OPT_SGLANG);
	mk_args_make(spec, NOPT, &c, a, t);
	mk_cli_parse(argc, argv, t, &c, &usage, &o->c);
	memset(&o->cfg, 0, sizeof(o->cfg));
	o->cfg.R = (int)mk_arg_int(a[O_R], 1, 1 << 24, 0, "--replicas");
	o->redundant = (int)mk_arg_int(a[O_NRED], 0, 1 << 24, -1,
	    "--num-redundant-experts");
	o->cfg.G = (int)mk_arg_int(a[O_G], 1, 1 << 24, 0, "--gpus");
	o->cfg.N = (int)mk_arg_int(a[O_N], 1, 1 << 24, 1, "--nodes");
	o->cfg.K = (int)mk_arg_int(a[O_K], 1, 1 << 24, 1, "--groups");
	o->cfg.algo = mk_arg_choice(a[O_ALGO], algos, 3, MK_EPLB_BEST,
	    "--algo");
	o->cfg.objective = mk_arg_choice(a[O_OBJ], objs, 2, MK_EPLB_MEAN,
	    "--objective");
	o->cfg.effort = (int)mk_arg_int(a[O_EFFORT], 1, 1 << 30, 0, "--effort");
	o->policy = mk_arg_choice(a[O_POLICY], policies, 3, MK_EPLB_AUTO,
	    "--policy");
	o->window = (int)mk_arg_int(a[O_WINDOW], 1, 1 << 30, 0, "--window");
	o->history = (int)mk_arg_int(a[O_HISTORY], 1, MK_EPLB_MAX_SCENARIOS,
	    1, "--history");
	o->skip_zero = ((struct arg_lit *)a[O_SKIP])->count > 0;
	o->eval_by_index = 0;
	o->width_max = mk_arg_choice(a[O_WIDTH], widths, 2, 0,
	    "--log2phy-width") == 1;
	o->report = mk_arg_file(a[O_REPORT]);
	o->plot = mk_arg_file(a[O_PLOT]);
	o->stats = ((struct arg_lit *)a[O_STATS])->count > 0 || o->report;
	o->prev = mk_arg_file(a[O_PREV]);
	o->eval = mk_arg_file(a[O_EVAL]);
	o->routing = mk_arg_file(a[O_ROUTING]);
	o->min_gain = ((struct arg_str *)a[O_GAIN])->count ? mk_opt_double(
	    mk_arg_str(a[O_GAIN]), "--min-gain") : -1;
	o->max_moves = mk_arg_int(a[O_MOVES], 0, INT64_MAX / 2, -1,
	    "--max-moves");
	o->expert_bytes = ((struct arg_str *)a[O_BYTES])->count ?
	    mk_opt_bytes(mk_arg_str(a[O_BYTES]), "--expert-bytes") : 0;
	if (((struct arg_str *)a[O_GAIN])->count && !(o->min_gain >= 0 &&
	    o->min_gain < 1))
		mk_usage_error("--min-gain %s: a fraction of the objective, in "
		    "[0, 1)", mk_arg_str(a[O_GAIN]));
	files = a[O_FILES];
	o->files = files->filename;
	o->nfiles = files->count;
	mode_rules(o);
}

/* E from the loads, R from -r or E + N, and the rules between them. */
static void
configure(struct opts *o, const struct mk_loads *ld)
{
	struct mk_err e;

	o->cfg.E = ld->E;
	if (o->redundant >= 0)
		o->cfg.R = ld->E + o->redundant;
	if (mk_eplb_config(&o->cfg, o->policy, &e) < 0)
		mk_usage_error("%s", e.msg);
	if (o->c.verbose)
		fprintf(stderr, "%s: %d scenario%s of %d layers x %d experts -> "
		    "%d slots on %d GPUs, %d nodes, %d groups, %s policy\n",
		    mk_progname(), ld->S, ld->S > 1 ? "s" : "", ld->L, ld->E,
		    o->cfg.R, o->cfg.G, o->cfg.N, o->cfg.K, o->cfg.hier ?
		    "hierarchical" : "global");
}

/* A plan file's phy2log rows for the loads' layers, checked. */
static int64_t *
plan_rows(struct mk_phy2log *pl, const char *path, const char *opt,
    const struct mk_eplb_cfg *c, const struct mk_loads *ld)
{
	struct mk_err e;
	int64_t *p;

	if ((pl->p == NULL && mk_phy2log_read(path, opt, pl, &e) < 0) ||
	    (p = mk_phy2log_rows(pl, ld->L, ld->L0, ld->layer, c->R, c->E,
	    &e)) == NULL)
		mk_fail(NULL, &e);
	return p;
}

/* Write output k of the plan a layer at a time (buf: E * X values). */
static void
put(struct mk_out *w, int k, const struct mk_eplb_cfg *c,
    const struct mk_eplb_out *plan, int64_t *buf)
{
	const int64_t *v;
	int64_t shape[3];
	size_t n;
	int l;

	mk_out_begin(w, mk_eplb_outputs[k], MK_I64, mk_eplb_output_shape(c,
	    plan, k, shape), shape);
	for (l = 0; l < plan->L; l++) {
		v = mk_eplb_output_layer(c, plan, k, l, buf, &n);
		mk_out_data(w, v, n);
	}
	mk_out_end(w);
}

/* gpu_load [S, L, G]: every GPU's load in every scenario. */
static void
put_gpu_load(struct mk_out *w, const struct mk_eplb_cfg *c,
    const struct mk_loads *ld, const struct mk_eplb_out *plan)
{
	int64_t shape[3] = { ld->S, ld->L, c->G };
	double *v;

	if ((v = malloc(sizeof(double) * (size_t)ld->S * (size_t)ld->L *
	    (size_t)c->G + 1)) == NULL)
		err(MK_EXIT_DATA, NULL);
	mk_eplb_gpu_loads(c, ld->w, ld->S, ld->L, plan, v);
	mk_out_begin(w, "gpu_load", MK_F64, 3, shape);
	mk_out_data(w, v, (size_t)ld->S * (size_t)ld->L * (size_t)c->G);
	mk_out_end(w);
	free(v);
}

/* --eval's plan: R is its width; it must fit the loads. */
static void
eval_plan(struct opts *o, const struct mk_loads *ld, struct mk_eplb_out *plan)
{
	struct mk_phy2log pl;
	struct mk_err e;
	int64_t *p;

	if (mk_phy2log_read(o->eval, "--eval", &pl, &e) < 0)
		mk_fail(NULL, &e);
	if ((o->cfg.R > 0 && o->cfg.R != pl.R) || (o->redundant >= 0 &&
	    ld->E + o->redundant != pl.R))
		mk_usage_error("--eval %s: its plan has %d slots a layer, not "
		    "%d", o->eval, pl.R, o->cfg.R > 0 ? o->cfg.R : ld->E +
		    o->redundant);
	o->cfg.R = pl.R;
	o->redundant = -1;
	o->eval_by_index = pl.L == ld->L && ld->L < ld->L0;
	configure(o, ld);
	p = plan_rows(&pl, o->eval, "--eval", &o->cfg, ld);
	if (mk_eplb_out_from(&o->cfg, p, ld->L, 0, plan, &e) < 0)
		mk_fail(NULL, &e);
	free(p);
}

/* --min-gain: the new plan, or the previous one if it gains too little. */
static void
keep_prev(const struct opts *o, const struct mk_loads *ld,
    const int64_t *prev, struct mk_eplb_out *plan)
{
	struct mk_err e;
	double a, b;
	int kept;

	if ((kept = mk_eplb_keep_prev(&o->cfg, ld->w, ld->S, ld->L, prev,
	    o->width_max, o->min_gain, plan, &a, &b, &e)) < 0)
		mk_fail(NULL, &e);
	if (o->c.verbose)
		fprintf(stderr, "%s: --min-gain %g: the new plan lowers the "
		    "objective by %.4g%% (%.6g -> %.6g): %s\n", mk_progname(),
		    o->min_gain, a > 0 ? (a - b) / a * 100 : 0, a, b, kept ?
		    "keeping the previous plan" : "taking the new one");
}

/* The plan for the loads (with --prev, *prev: the previous one). */
static void
make_plan(struct opts *o, const struct mk_loads *ld, struct mk_eplb_out *plan,
    int64_t **prev)
{
	struct mk_phy2log pl = { 0 };
	struct mk_err e;
	double t0;

	configure(o, ld);
	if (o->prev != NULL)
		*prev = plan_rows(&pl, o->prev, "--prev", &o->cfg, ld);
	t0 = mk_seconds();
	if (mk_eplb_plan_all(&o->cfg, ld->w, ld->S, ld->L, *prev,
	    o->width_max, plan, &e) < 0)
		mk_fail(NULL, &e);
	if (o->c.verbose)
		fprintf(stderr, "%s: planned in %.3f ms\n", mk_progname(),
		    mk_ms_since(t0));
	if (*prev != NULL && o->max_moves >= 0 && mk_eplb_limit_moves(&o->cfg,
	    ld->w, ld->S, ld->L, *prev, o->max_moves, o->width_max, plan, &e) <
	    0)
		mk_fail(NULL, &e);
	if (*prev != NULL && o->min_gain >= 0)
		keep_prev(o, ld, *prev, plan);
}

/* --plot: the plan's (or --eval's) GPU loads beside no EPLB or --prev. */
static void
plot(const struct opts *o, const struct mk_loads *ld, FILE *fp,
    const struct mk_eplb_out *plan, const int64_t *prev)
{
	struct mk_eplb_out before = { 0 };
	struct mk_eplb_picture pic;
	struct mk_err e;
	char title[300];

	snprintf(title, sizeof(title), "eplb-plan: %s%s", o->nfiles ?
	    o->files[0] : "stdin", o->nfiles > 1 ? " and more" : "");
	memset(&pic, 0, sizeof(pic));
	pic.c = &o->cfg;
	pic.w = ld->w;
	pic.S = ld->S;
	pic.L = ld->L;
	pic.layer = ld->layer;
	pic.after = plan;
	pic.before_name = "no EPLB";
	pic.after_name = o->eval ? "--eval plan" : "after";
	pic.title = title;
	if (prev != NULL) {
		if (mk_eplb_out_from(&o->cfg, prev, ld->L, 0, &before, &e) < 0)
			mk_fail(NULL, &e);
		pic.before = &before;
		pic.before_name = "--prev";
	}
	if (mk_eplb_plot(fp, &pic, &e) < 0)
		mk_fail(NULL, &e);
	if (prev != NULL)
		mk_eplb_out_free(&before);
}

/*
 * --routing: each plan row's dispatches that leave their token's node,
 * and all, [L][2] (free it), the records' layers found among the loads'.
 */
static int64_t *
routing_traffic(const struct opts *o, const struct mk_loads *ld,
    const struct mk_eplb_out *plan)
{
	const size_t R = (size_t)o->cfg.R;
	struct mk_moe_routing rt;
	struct mk_moe_jsonl f;
	struct mk_src *s;
	struct mk_err e;
	int64_t *tr, *per, *rows, out[2];
	char buf[256];
	int i, r, t;

	if (mk_moe_jsonl_fields(NULL, &f, buf, sizeof(buf), &e) < 0 ||
	    (s = mk_src_open(o->routing, &e)) == NULL ||
	    mk_moe_routing_read(s, &f, o->cfg.E, 1, &rt, &e) < 0)
		mk_fail(NULL, &e);
	tr = calloc(2 * (size_t)ld->L, sizeof(int64_t));
	per = calloc(2 * (size_t)rt.L, sizeof(int64_t));
	rows = malloc(sizeof(int64_t) * R * (size_t)rt.L);
	if (tr == NULL || per == NULL || rows == NULL)
		err(MK_EXIT_DATA, NULL);
	for (i = 0; i < rt.L; i++) {
		for (r = 0; r < ld->L && ld->layer[r] != rt.layer[i]; r++)
			;
		if (r == ld->L)
			mk_usage_error("--routing %s: layer %d is not a layer of "
			    "the loads", o->routing, rt.layer[i]);
		memcpy(rows + (size_t)i * R, plan->phy2log + (size_t)r * R,
		    sizeof(int64_t) * R);
	}
	for (t = 0; t < rt.T; t++)
		if (mk_moe_routing_traffic(&rt, t, rows, o->cfg.R, o->cfg.G,
		    o->cfg.G / o->cfg.N, out, per, &e) < 0)
			mk_fail(s, &e);
	for (i = 0; i < rt.L; i++)
		for (r = 0; r < ld->L; r++)
			if (ld->layer[r] == rt.layer[i]) {
				tr[2 * r] += per[2 * i];
				tr[2 * r + 1] += per[2 * i + 1];
			}
	mk_moe_routing_free(&rt);
	mk_src_close(s);
	free(per);
	free(rows);
	return tr;
}

/*
 * The outputs: --eval's table (on stdout, or beside --emit gpu_load), a
 * plan's tensors or SGLang's JSON, and the statistics asked for.  Output
 * formats: -f's, else CSV for CSV input and NPY for the rest.
 */
static void
write_all(const struct opts *o, const struct mk_loads *ld, int fmt,
    const struct mk_eplb_out *plan, const int64_t *prev)
{
	static const char *const evals[] = { "gpu_load" };
	struct mk_eplb_out all;
	struct mk_out *w, *rep, *pic;
	struct mk_err e;
	int64_t *buf = NULL, *traffic;
	int order[8], i, n;

	n = o->eval ? (o->c.emit ? mk_opt_emit(o->c.emit, evals, 1, order, 8) :
	    0) : mk_opt_emit(o->c.emit, mk_eplb_outputs, MK_EPLB_NOUT, order, 8);
	/* the report first: stdout opened after it is held till both are done */
	traffic = o->routing ? routing_traffic(o, ld, plan) : NULL;
	rep = o->report ? mk_out_open(o->report, MK_FMT_CSV) : NULL;
	pic = o->plot ? mk_out_open(o->plot, MK_FMT_CSV) : NULL;
	w = mk_out_open(o->c.output, o->eval && n == 0 ? MK_FMT_CSV :
	    o->c.format != MK_FMT_AUTO ? o->c.format : fmt == MK_FMT_CSV ?
	    MK_FMT_CSV : MK_FMT_NPY);
	if (o->eval && n > 0)
		put_gpu_load(w, &o->cfg, ld, plan);
	if (!o->eval && w->fmt == MK_FMT_SGLANG)
		mk_eplb_sglang_write(w->fp, &o->cfg, plan, ld->layer, ld->L0);
	/* present at once: a fresh page faulted in costs 10 us on some VMs */
	if (!o->eval && w->fmt != MK_FMT_SGLANG && (buf = mk_mem_alloc(
	    sizeof(int64_t) * (size_t)o->cfg.E * (size_t)plan->X)) == NULL)
		err(MK_EXIT_DATA, NULL);
	/* a row for every input layer: a plan's row is the model's layer */
	if (buf != NULL && ld->L < ld->L0 && mk_eplb_out_every_layer(&o->cfg,
	    plan, ld->layer, ld->L0, o->width_max, &all, &e) < 0)
		mk_fail(NULL, &e);
	for (i = 0; i < n && buf != NULL; i++)
		put(w, order[i], &o->cfg, ld->L < ld->L0 ? &all : plan, buf);
	if (buf != NULL && ld->L < ld->L0)
		mk_eplb_out_free(&all);
	if ((o->eval || o->stats) && mk_eplb_report(o->eval && n == 0 ? w->fp :
	    rep ? rep->fp : stderr, &o->cfg, ld->w, ld->S, ld->L, ld->layer,
	    plan, prev, o->eval != NULL, o->expert_bytes, traffic,
	    o->eval_by_index, &e) < 0)
		mk_fail(NULL, &e);
	if (pic != NULL) {
		plot(o, ld, pic->fp, plan, prev);
		mk_out_close(pic);
	}
	if (rep != NULL)
		mk_out_close(rep);
	mk_out_close(w);
	/* a swapped -G/-g plans another machine: name the one planned for,
	 * once all is written */
	if (o->stats || o->eval)
		fprintf(stderr, "%s: %s for %d GPUs (%d node%s of %d), %d "
		    "slots (%d a GPU), %d experts in %d group%s, %s policy\n",
		    mk_progname(), o->eval ? "evaluated" : "planned",
		    o->cfg.G, o->cfg.N, o->cfg.N > 1 ? "s" : "",
		    o->cfg.G / o->cfg.N, o->cfg.R, o->cfg.R / o->cfg.G,
		    o->cfg.E, o->cfg.K, o->cfg.K > 1 ? "s" : "",
		    o->cfg.hier ? "hierarchical" : "global");
	mk_mem_free(buf);
	free(traffic);
}

int
main(int argc, char *argv[])
{
	struct mk_eplb_out plan;
	struct mk_loads ld;
	struct mk_err e;
	struct opts o;
	double t0;
	int64_t *prev = NULL;
	char note[1024];
	int fmt, i;

	mk_init(argc, argv);
	parse_args(argc, argv, &o);
	for (i = 0; i < o.nfiles; i++)
		mk_out_input(o.files[i]);
	mk_out_input(o.prev);
	mk_out_input(o.eval);
	mk_out_input(o.routing);
	t0 = mk_seconds();
	if (mk_loads_read_all(o.files, o.nfiles, o.window, o.history,
	    o.skip_zero, &ld, &fmt, &e) < 0)
		mk_fail(NULL, &e);
	if (o.c.verbose)
		fprintf(stderr, "%s: read in %.3f ms\n", mk_progname(),
		    mk_ms_since(t0));
	if (o.eval)
		eval_plan(&o, &ld, &plan);
	else
		make_plan(&o, &ld, &plan, &prev);
	write_all(&o, &ld, fmt, &plan, prev);
	/* once all went well: a run that fails says one thing */
	if (mk_loads_note(&ld, note, sizeof(note)))
		fprintf(stderr, "%s: %s\n", mk_progname(), note);
	free(prev);
	mk_eplb_out_free(&plan);
	mk_loads_free(&ld);
	return MK_EXIT_OK;
}
