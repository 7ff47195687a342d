/*
 * eplb_plan_run.c - eplb-plan's story (eplb_run.h): the loads read, a plan
 * made (or --eval's read and scored), the outputs and statistics written.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/mem.h"
#include "cli/io.h"
#include "eplb/eplb_run.h"
#include "eplb/eplb_xfer.h"
#include "moe/loads.h"
#include "moe/plan.h"
#include "moe/routing.h"
#include "tensor/stream.h"

/* The rules between options, before anything is read. */
static void
mode_rules(const struct mk_eplb_plan_job *o)
{
	const char *in[4] = { o->prev, o->eval, o->nfiles ? NULL : "-" };
	static const char *const names[] = { "--prev", "--eval", "FILE" };
	int i;

	if (o->eval && (o->prev || o->min_gain >= 0))
		mk_usage_error("--eval scores a plan; it takes no --prev or "
		    "--min-gain");
	if (o->eval && (o->c.format == MK_FMT_SGLANG || o->c.format ==
	    MK_FMT_VLLM || o->c.format == MK_FMT_TRTLLM))
		mk_usage_error("--eval writes a table or gpu_load (--emit), not "
		    "an engine's placement file");
	if (o->eval && o->c.emit == NULL && o->c.format != MK_FMT_AUTO &&
	    o->c.format != MK_FMT_CSV)
		mk_usage_error("--eval writes a CSV table: -f csv or a .csv "
		    "file (--emit gpu_load writes the GPU loads as a tensor)");
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
	mk_arg_one_stdin(3, in, names, -1);
}

/* E from the loads, R from -r or E + N, and the rules between them. */
static void
configure(struct mk_eplb_plan_job *o, const struct mk_loads *ld)
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
		    o->cfg.R, o->cfg.G, o->cfg.N, o->cfg.K,
		    mk_eplb_policy_name(o->cfg.hier));
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

/*
 * Whether the plan p [L][R] is hierarchical: every expert group's
 * replicas on one node (what DeepSeek's hierarchical policy makes).
 */
static int
plan_is_hier(const struct mk_eplb_cfg *c, const int64_t *p, int L)
{
	int *node = malloc(sizeof(int) * (size_t)c->K), l, r, g, ok = 1;

	if (node == NULL)
		err(MK_EXIT_DATA, NULL);
	for (l = 0; l < L && ok; l++) {
		for (g = 0; g < c->K; g++)
			node[g] = -1;
		for (r = 0; r < c->R && ok; r++) {
			g = (int)(p[(size_t)l * c->R + r] / (c->E / c->K));
			if (node[g] < 0)
				node[g] = r / (c->R / c->N);
			ok = node[g] == r / (c->R / c->N);
		}
	}
	free(node);
	return ok;
}

/* --eval's plan: R is its width; it must fit the loads. */
static void
eval_plan(struct mk_eplb_plan_job *o, const struct mk_loads *ld, struct mk_eplb_out *plan)
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
	/* R is the plan's: where it does not fit, the plan is named */
	if (pl.R < ld->E)
		mk_usage_error("--eval %s: its %d slots a layer are fewer than "
		    "the loads' %d experts", o->eval, pl.R, ld->E);
	if (pl.R % o->cfg.G != 0)
		mk_usage_error("--eval %s: its %d slots a layer do not split "
		    "over --gpus %d", o->eval, pl.R, o->cfg.G);
	o->cfg.R = pl.R;
	o->redundant = -1;
	o->eval_by_index = pl.L == ld->L && ld->L < ld->L0;
	configure(o, ld);
	p = plan_rows(&pl, o->eval, "--eval", &o->cfg, ld);
	/*
	 * scored as what it is: a plan that spreads a group over nodes is
	 * global, whatever the policy would have been, and its lower bound
	 * the global one
	 */
	if (o->cfg.hier && !plan_is_hier(&o->cfg, p, ld->L))
		o->cfg.hier = 0, o->eval_spread = 1;
	if (mk_eplb_out_from(&o->cfg, p, ld->L, 0, plan, &e) < 0)
		mk_fail(NULL, &e);
	free(p);
}

/* --min-gain: the new plan, or the previous one if it gains too little. */
static void
keep_prev(const struct mk_eplb_plan_job *o, const struct mk_loads *ld,
    const int64_t *prev, struct mk_eplb_out *plan)
{
	struct mk_err e;
	double a, b;
	int kept;

	if ((kept = mk_eplb_keep_prev(&(struct mk_eplb_problem){ .c =
	    &o->cfg, .w = ld->w, .S = ld->S, .L = ld->L, .prev = prev,
	    .width_max = o->width_max }, o->min_gain, plan, &a, &b, &e)) < 0)
		mk_fail(NULL, &e);
	if (o->c.verbose)
		fprintf(stderr, "%s: --min-gain %g: the new plan lowers the "
		    "objective by %.4g%% (%.6g -> %.6g): %s\n", mk_progname(),
		    o->min_gain, a > 0 ? (a - b) / a * 100 : 0, a, b, kept ?
		    "keeping the previous plan" : "taking the new one");
}

/*
 * --max-moves M with a carry: the repair's changes are the least any plan
 * makes; the rest of M walks from the repaired plan towards the new one.
 */
static int64_t
budget(const struct mk_eplb_plan_job *o, const struct mk_eplb_prevs *p)
{
	struct mk_err e;

	if (o->max_moves >= p->least)
		return o->max_moves - p->least;
	mk_err_data(&e, "--max-moves %lld: the plan on the new GPUs must "
	    "change at least %lld slots (an empty slot or a lost expert's "
	    "each)", (long long)o->max_moves, (long long)p->least);
	mk_fail(NULL, &e);
	return 0;
}

/* The plan for the loads (with --prev, *p: the previous one). */
static void
make_plan(struct mk_eplb_plan_job *o, const struct mk_loads *ld, struct mk_eplb_out *plan,
    struct mk_eplb_prevs *p)
{
	struct mk_eplb_problem pb;
	struct mk_err e;
	double t0;

	configure(o, ld);
	if (o->prev != NULL)
		mk_eplb_prevs_read(o, ld, p);
	pb = (struct mk_eplb_problem){ .c = &o->cfg, .w = ld->w, .S = ld->S,
	    .L = ld->L, .prev = p->rows, .width_max = o->width_max };
	t0 = mk_seconds();
	if (mk_eplb_plan_all(&pb, plan, &e) < 0)
		mk_fail(NULL, &e);
	if (o->c.verbose)
		fprintf(stderr, "%s: planned in %.3f ms\n", mk_progname(),
		    mk_ms_since(t0));
	/* budgets and gains count from a whole plan: the repaired one */
	pb.prev = p->whole;
	if (p->rows != NULL && o->max_moves >= 0 && mk_eplb_limit_moves(&pb,
	    budget(o, p), plan, &e) < 0)
		mk_fail(NULL, &e);
	if (p->rows != NULL && o->min_gain >= 0)
		keep_prev(o, ld, p->whole, plan);
}

/*
 * The plan the other policy makes on several nodes, where it can (the
 * hierarchical one needs whole groups a node): into *out, 1; else 0.
 */
static int
other_plan(const struct mk_eplb_plan_job *o, const struct mk_loads *ld,
    struct mk_eplb_out *out)
{
	struct mk_eplb_cfg oc = o->cfg;
	struct mk_err e;

	if (oc.N < 2 || (!oc.hier && oc.K % oc.N != 0) ||
	    mk_eplb_config(&oc, oc.hier ? MK_EPLB_GLOBAL : MK_EPLB_HIER, &e) <
	    0)
		return 0;
	if (mk_eplb_plan_all(&(struct mk_eplb_problem){ .c = &oc, .w = ld->w,
	    .S = ld->S, .L = ld->L, .width_max = o->width_max }, out, &e) < 0)
		mk_fail(NULL, &e);
	return 1;
}

/*
 * --plot: the plan's (or --eval's) GPU loads beside no EPLB or --prev
 * (carried onto the new GPUs and repaired, where they are others).
 */
static void
plot(const struct mk_eplb_plan_job *o, const struct mk_loads *ld, FILE *fp,
    const struct mk_eplb_out *plan, const struct mk_eplb_prevs *p)
{
	const int64_t *prev = p->whole;
	struct mk_eplb_out before = { 0 }, other = { 0 };
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
		pic.before_name = p->id == NULL ? "--prev" : o->nlost > 0 ?
		    "--prev, survivors repaired" : "--prev, regrouped";
	}
	pic.other = other_plan(o, ld, &other) ? &other : NULL;
	if (mk_eplb_plot(fp, &pic, &e) < 0)
		mk_fail(NULL, &e);
	if (prev != NULL)
		mk_eplb_out_free(&before);
	if (pic.other != NULL)
		mk_eplb_out_free(&other);
}

/* Whether fmt is one of the engines' placement files. */
static int
engine_file(enum mk_fmt fmt)
{
	return fmt == MK_FMT_SGLANG || fmt == MK_FMT_VLLM ||
	    fmt == MK_FMT_TRTLLM;
}

/* The plan as the engine of w's format loads it (moe/plan.h). */
static void
write_engine_file(struct mk_out *w, const struct mk_eplb_plan_job *o,
    const struct mk_eplb_cfg *c, const struct mk_loads *ld,
    const struct mk_eplb_out *plan)
{
	const struct mk_moe_plan_rows rows = { .phy2log = plan->phy2log,
	    .L = plan->L, .R = c->R, .E = c->E, .layer = ld->layer,
	    .L0 = ld->L0, .updates = o->updates };

	if (w->fmt == MK_FMT_SGLANG)
		mk_moe_write_sglang(w->fp, &rows);
	else if (w->fmt == MK_FMT_VLLM)
		mk_moe_write_vllm(w->fp, &rows);
	else
		mk_moe_write_trtllm(w->fp, &rows);
}

/*
 * vLLM's and TensorRT-LLM's files hold MoE layers only: all-zero layers
 * (a dump's dense ones) among the rows would be misread as MoE layers.
 */
static void
engine_file_rules(const struct mk_eplb_plan_job *o, struct mk_loads *ld)
{
	const int keyed = o->c.format == MK_FMT_SGLANG || o->c.format ==
	    MK_FMT_TRTLLM;
	const char *in = o->nfiles ? o->files[0] : "stdin";
	int l;

	/*
	 * SGLang's map and TensorRT-LLM's YAML key rows by the model's layer:
	 * never a silent 0 for a log that numbers its MoE layers from 0
	 */
	if (keyed && ld->layers == MK_LAYERS_MOE && o->first_moe < 0)
		mk_usage_error("-f %s: %s numbers the MoE layers from 0 (vLLM's "
		    "records), and %s's file wants the model's layer numbers: "
		    "give --first-moe-layer N (DeepSeek-V3: 3)", o->c.format ==
		    MK_FMT_SGLANG ? "sglang" : "trtllm", in, o->c.format ==
		    MK_FMT_SGLANG ? "SGLang" : "TensorRT-LLM");
	if (o->first_moe >= 0 && ld->layers == MK_LAYERS_MODEL)
		mk_usage_error("--first-moe-layer %d: %s numbers the model's "
		    "layers already", o->first_moe, in);
	/* the rows are the model's layers from first_moe on */
	for (l = 0; o->first_moe > 0 && l < ld->L; l++)
		ld->layer[l] += o->first_moe;
	for (l = 0; o->first_moe > 0 && l < ld->nzero; l++)
		ld->zero[l] += o->first_moe;
	if (o->first_moe > 0)
		ld->L0 += o->first_moe;
	if ((o->c.format == MK_FMT_VLLM || o->c.format == MK_FMT_TRTLLM) &&
	    ld->nzero > 0 && !ld->skipped)
		mk_usage_error("-f %s: %d layers have no load (dense layers?), "
		    "and %s's file has MoE layers only: give "
		    "--skip-zero-layers", o->c.format == MK_FMT_VLLM ? "vllm" :
		    "trtllm", ld->nzero, o->c.format == MK_FMT_VLLM ? "vLLM" :
		    "TensorRT-LLM");
	if (o->updates > 0 && o->c.format != MK_FMT_TRTLLM)
		mk_usage_error("--layer-updates-per-iter %d: a setting of "
		    "TensorRT-LLM's file (-f trtllm)", o->updates);
}

/*
 * --routing: each plan row's dispatches that leave their token's node,
 * and all, [L][2] (free it), counted on the records' layers.
 */
static int64_t *
routing_traffic(const struct mk_eplb_plan_job *o, const struct mk_loads *ld,
    const struct mk_eplb_out *plan)
{
	struct mk_moe_placement pl = { plan->phy2log, o->cfg.R, o->cfg.G,
	    o->cfg.G / o->cfg.N };
	struct mk_err e;
	char what[300];
	int64_t *tr;

	if ((tr = malloc(sizeof(int64_t) * 2 * ((size_t)ld->L + 1))) == NULL)
		err(MK_EXIT_DATA, NULL);
	snprintf(what, sizeof(what), "--routing %s", o->routing);
	if (mk_moe_routing_plan_traffic(o->routing, what, o->cfg.E, &pl,
	    ld->layer, ld->L, tr, &e) < 0)
		mk_fail(NULL, &e);
	return tr;
}

/*
 * The outputs: --eval's table (on stdout, or beside --emit gpu_load), a
 * plan's tensors or SGLang's JSON, and the statistics asked for.  Output
 * formats: -f's, else CSV for CSV input and NPY for the rest.
 */
static void
write_all(const struct mk_eplb_plan_job *o, const struct mk_loads *ld, int fmt,
    const struct mk_eplb_out *plan, const struct mk_eplb_prevs *p)
{
	static const char *const evals[] = { "gpu_load" };
	const struct mk_eplb_problem pb = { .c = &o->cfg, .w = ld->w, .S =
	    ld->S, .L = ld->L, .prev = p->rows, .width_max = o->width_max };
	struct mk_eplb_out all;
	struct mk_out *w, *rep, *pic, *xf;
	struct mk_err e;
	int64_t *buf = NULL, *traffic;
	int order[8], i, n;

	n = o->eval ? (o->c.emit ? mk_arg_emit(o->c.emit, evals, 1, order, 8) :
	    0) : mk_arg_emit(o->c.emit, mk_eplb_outputs, MK_EPLB_NOUT, order, 8);
	/* the report first: stdout opened after it is held till both are done */
	traffic = o->routing ? routing_traffic(o, ld, plan) : NULL;
	rep = o->report ? mk_out_open(o->report, MK_FMT_CSV) : NULL;
	pic = o->plot ? mk_out_open(o->plot, MK_FMT_CSV) : NULL;
	xf = o->transfers ? mk_out_open(o->transfers, MK_FMT_CSV) : NULL;
	w = mk_out_open(o->c.output, o->eval && n == 0 ? MK_FMT_CSV :
	    o->c.format != MK_FMT_AUTO ? o->c.format : fmt == MK_FMT_CSV ?
	    MK_FMT_CSV : MK_FMT_NPY);
	if (o->eval && n > 0)
		put_gpu_load(w, &o->cfg, ld, plan);
	if (!o->eval && engine_file(w->fmt))
		write_engine_file(w, o, &o->cfg, ld, plan);
	/* present at once: a fresh page faulted in costs 10 us on some VMs */
	if (!o->eval && !engine_file(w->fmt) && (buf = mk_mem_alloc(
	    sizeof(int64_t) * (size_t)o->cfg.E * (size_t)plan->X)) == NULL)
		err(MK_EXIT_DATA, NULL);
	/* a row for every input layer: a plan's row is the model's layer */
	if (buf != NULL && ld->L < ld->L0 && mk_eplb_out_every_layer(&pb,
	    plan, ld->layer, ld->L0, &all, &e) < 0)
		mk_fail(NULL, &e);
	for (i = 0; i < n && buf != NULL; i++)
		put(w, order[i], &o->cfg, ld->L < ld->L0 ? &all : plan, buf);
	if (buf != NULL && ld->L < ld->L0)
		mk_eplb_out_free(&all);
	if ((o->eval || o->stats) && mk_eplb_report(o->eval && n == 0 ? w->fp :
	    rep ? rep->fp : stderr, &pb, plan, &(struct mk_eplb_table){
	    .layer = ld->layer, .noeplb = o->eval != NULL, .expert_bytes =
	    o->expert_bytes, .traffic = traffic, .row_is_index =
	    o->eval_by_index }, &e) < 0)
		mk_fail(NULL, &e);
	if (pic != NULL) {
		plot(o, ld, pic->fp, plan, p);
		mk_out_close(pic);
	}
	if (xf != NULL) {
		if (mk_eplb_xfer_write(xf->fp, &(struct mk_eplb_xfer_table){
		    .old = p->old, .new_ = plan->phy2log, .L = ld->L, .R_old =
		    p->R_old, .G_old = p->G_old, .id = p->id, .R = o->cfg.R,
		    .G = o->cfg.G, .E = o->cfg.E, .layer = ld->layer,
		    .expert_bytes = o->expert_bytes }, &e) < 0)
			mk_fail(NULL, &e);
		mk_out_close(xf);
	}
	if (rep != NULL)
		mk_out_close(rep);
	mk_out_close(w);
	/* a swapped -G/-g plans another machine: name the one planned for,
	 * once all is written */
	if (o->stats || o->eval)
		mk_note("%s for %d GPUs (%d node%s of %d), %d slots (%d a "
		    "GPU), %d experts in %d group%s, %s policy%s",
		    o->eval ? "evaluated" : "planned",
		    o->cfg.G, o->cfg.N, o->cfg.N > 1 ? "s" : "",
		    o->cfg.G / o->cfg.N, o->cfg.R, o->cfg.R / o->cfg.G,
		    o->cfg.E, o->cfg.K, o->cfg.K > 1 ? "s" : "",
		    mk_eplb_policy_name(o->cfg.hier), o->eval_spread ?
		    " (the plan spreads expert groups over nodes)" : "");
	mk_mem_free(buf);
	free(traffic);
}

int
mk_eplb_plan_run(struct mk_eplb_plan_job *o)
{
	struct mk_eplb_out plan;
	struct mk_eplb_prevs prev = { 0 };
	struct mk_loads ld;
	struct mk_err e;
	double t0;
	char note[1024];
	int fmt, i;

	mode_rules(o);
	for (i = 0; i < o->nfiles; i++)
		mk_eplb_input(o->files[i]);
	mk_out_input(o->prev);
	mk_out_input(o->eval);
	mk_out_input(o->routing);
	t0 = mk_seconds();
	if (mk_loads_read_all(o->files, o->nfiles, &(struct mk_loads_want){
	    .window = o->window, .history = o->history, .skip = o->skip_zero },
	    &ld, &fmt, &e) < 0)
		mk_fail(NULL, &e);
	if (o->c.verbose)
		fprintf(stderr, "%s: read in %.3f ms\n", mk_progname(),
		    mk_ms_since(t0));
	mk_eplb_slot_counts(o->nfiles ? o->files[0] : "stdin", &ld, &o->cfg.R,
	    o->cfg.R > 0, o->redundant >= 0);
	engine_file_rules(o, &ld);
	if (o->eval)
		eval_plan(o, &ld, &plan);
	else
		make_plan(o, &ld, &plan, &prev);
	write_all(o, &ld, fmt, &plan, &prev);
	/* once all went well: a run that fails says one thing */
	if (prev.note_policy[0] != '\0')
		mk_note("%s", prev.note_policy);
	if (prev.note[0] != '\0')
		mk_note("%s", prev.note);
	if (mk_loads_note(&ld, note, sizeof(note)))
		mk_note("%s", note);
	if (mk_loads_steps_note(&ld, note, sizeof(note)))
		mk_note("%s", note);
	mk_eplb_prevs_free(&prev);
	mk_eplb_out_free(&plan);
	mk_loads_free(&ld);
	return MK_EXIT_OK;
}
