/*
 * a2a-layout - read a routing trace (topk ids of every rank of an EP
 * group) and write what DeepEP or Triton-distributed compute before an
 * all-to-all dispatch: counts, prefix matrices, receive offsets, per-token
 * heads, and (--report) the buffer sizes to allocate.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <argtable2.h>

#include "moekit.h"
#include "a2a/a2a_job.h"
#include "moe/jsonl.h"
#include "a2a/a2a_plot.h"
#include "a2a/a2a_outputs.h"
#include "a2a/a2a_report.h"
#include "a2a/a2a_scan.h"
#include "cli/progress.h"
#include "cli/stack.h"
#include "moe/plan.h"

struct opts {
	struct mk_opts	 c;
	struct mk_a2a_job_opts job;	/* the plan is filled in by run() */
	struct mk_a2a_sizing sz;
	const char	*phy2log, *input, *plot;
	struct mk_moe_jsonl jsonl;	/* a JSON-lines trace's fields */
	char		 fieldbuf[256];
	int		 layer, layer_given;
	int		 per_step;	/* --layer-per-step */
	int		 hidden_default;	/* --hidden left at 7168 */
};

/* The options of the table, by name. */
struct args {
	struct arg_str	*E, *R, *style, *sms, *rank, *step, *layer, *hidden,
			*hb, *dtype, *align, *config, *maxtok, *idxbits,
			*lws, *scaleup;
	struct arg_lit	*lenient, *report, *per_step, *ll;
	struct arg_file	*plan, *file, *plot;
	struct arg_str	*fields;
};

static const struct mk_usage usage = {
	"-E E [-R R] [--style deepep|triton-dist] [--num-sms N] [--rank r] "
	    "[--step s] [--phy2log PLAN [--layer L | --layer-per-step]] "
	    "[--local-world-size L] [--hidden H] "
	    "[--hidden-bytes B] [--dtype bf16|fp8] [--expert-alignment A] "
	    "[--config NS,NR,RS,RR] [--topk-idx-bits 64|32] [--scaleup-ranks N] "
	    "[--max-tokens M] [--low-latency] "
	    "[--lenient] [--report] "
	    "[--plot FILE.svg] [--fields S,Q,T,E] [-f csv|npy|npz] "
	    "[--emit LIST] [-o FILE] "
	    "[--threads N] [-hVv] [FILE]",
	"Compute expert-parallel all-to-all dispatch layouts and buffer sizes "
	    "from routing traces.",
	"FILE: topk ids [R,T,K], one [T_r,K] per rank, or [S,R,T,K] (i32/i64;\n"
	    "NPY, CSV or .npz), or routing records as JSON lines (with -R: a "
	    "step per layer);\nnone or -: stdin.  With --phy2log, PLAN or FILE "
	    "(not both) may be -.\nMOEKIT_A2A_READ=pread|map: how a trace file "
	    "is read (default: timed both ways).\nMOEKIT_STACK_DRAIN=1|0: a "
	    "trace's outputs written to -o FILE by a thread of\ntheir own as "
	    "it is laid out, or after (default: as it is laid out; by a\n"
	    "thread of their own for large outputs on hosts of 8 CPUs or "
	    "more).\nMOEKIT_PROGRESS=always|off: the progress line on any "
	    "stderr, or never.\n",
};

static void
make_args(struct args *a)
{
	a->E = arg_str0("E", "experts", "E", "experts (required unless "
	    "--phy2log)");
	a->R = arg_str0("R", "ranks", "R", "ranks (default: from the input)");
	a->style = arg_str0(NULL, "style", "deepep|triton-dist",
	    "whose layout (default deepep)");
	a->sms = arg_str0(NULL, "num-sms", "N", "SMs of the dispatch; "
	    "channels = N/2 (default 20)");
	a->rank = arg_str0(NULL, "rank", "r", "also write the per-token "
	    "tensors of rank r");
	a->step = arg_str0(NULL, "step", "s", "the step of a [S,R,T,K] trace "
	    "whose per-token tensors --rank writes");
	a->plan = arg_file0(NULL, "phy2log", "PLAN", "route logical ids "
	    "through this eplb-plan phy2log");
	a->layer = arg_str0(NULL, "layer", "L", "the model layer of PLAN "
	    "(default 0)");
	a->per_step = arg_lit0(NULL, "layer-per-step", "step s of the trace "
	    "goes through layer s of PLAN");
	a->lws = arg_str0(NULL, "local-world-size", "L", "ranks per node, "
	    "Triton-distributed (default 8, or R below 8)");
	a->hidden = arg_str0(NULL, "hidden", "H", "hidden size (default "
	    "7168)");
	a->hb = arg_str0(NULL, "hidden-bytes", "B", "bytes per token for the "
	    "hints (default H*2, bf16)");
	a->dtype = arg_str0(NULL, "dtype", "bf16|fp8", "dispatched data (fp8: "
	    "H/128 scales)");
	a->align = arg_str0(NULL, "expert-alignment", "A", "align per-expert "
	    "receive counts up to A (default 1)");
	a->config = arg_str0(NULL, "config", "NS,NR,RS,RR", "DeepEP chunk "
	    "sizes (default: DeepEP's table for R)");
	a->idxbits = arg_str0(NULL, "topk-idx-bits", "64|32", "DeepEP built "
	    "with TOPK_IDX_BITS=32 sizes its buffers for int32 ids");
	a->scaleup = arg_str0(NULL, "scaleup-ranks", "N", "EPv2 "
	    "ElasticBuffer: ranks per NVLink domain (default 8, or R below 8)");
	a->maxtok = arg_str0(NULL, "max-tokens,"
	    "num-max-dispatch-tokens-per-rank", "M", "low-latency M / "
	    "Triton-distributed max_tokens");
	a->ll = arg_lit0(NULL, "low-latency", "DeepEP's low-latency mode "
	    "alone: any R < 8 or 8n up to 512, its outputs only");
	a->lenient = arg_lit0(NULL, "lenient", "ignore ids out of range, as "
	    "DeepEP's get_dispatch_layout does");
	a->report = arg_lit0(NULL, "report", "write the buffer-size table "
	    "(CSV; stderr when tensors go to stdout)");
	a->plot = arg_file0(NULL, "plot", "FILE.svg", "a picture: tokens each "
	    "rank receives per step");
	a->fields = arg_str0(NULL, "fields", "STEP,SEQ,TOKEN,EXPERTS", "a JSON "
	    "lines trace's field names (default layer,problem_id,token_idx,"
	    "experts; - for none)");
	a->file = arg_file0(NULL, NULL, "FILE", "routing trace (default: "
	    "stdin)");
}

/* --hidden, --hidden-bytes, --dtype, --num-sms, --config, --max-tokens. */
static void
sizing_args(const struct args *a, struct mk_a2a_sizing *sz)
{
	static const char *const dtypes[] = { "bf16", "fp8" };
	static const char *const bits[] = { "64", "32" };
	int v[4], n;

	memset(sz, 0, sizeof(*sz));
	sz->num_sms = (int)mk_arg_int(a->sms, 2, 1 << 16, 20, "--num-sms");
	if (sz->num_sms % 2 != 0)
		mk_usage_error("--num-sms %d is odd: DeepEP requires an even "
		    "number (one sender and one receiver SM per channel)",
		    sz->num_sms);
	sz->hidden = mk_arg_int(a->hidden, 1, (int64_t)1 << 24, 7168, "--hidden");
	sz->hidden_bytes = mk_arg_int(a->hb, 1, (int64_t)1 << 30, sz->hidden * 2,
	    "--hidden-bytes");
	sz->fp8 = mk_arg_choice(a->dtype, dtypes, 2, 0, "--dtype") == 1;
	if (sz->fp8 && sz->hidden % 128 != 0)
		mk_usage_error("--dtype fp8 needs --hidden %lld to be a multiple "
		    "of 128 (one scale per 128 values)", (long long)sz->hidden);
	sz->max_tokens = mk_arg_int(a->maxtok, 1, (int64_t)1 << 30, 0,
	    "--max-tokens");
	sz->scaleup = (int)mk_arg_int(a->scaleup, 1, MK_MOE_MAX_RANKS, 0,
	    "--scaleup-ranks");
	sz->idx_bytes = mk_arg_choice(a->idxbits, bits, 2, 0,
	    "--topk-idx-bits") == 1 ? 4 : 8;
	if ((sz->has_config = a->config->count > 0)) {
		if (sscanf(a->config->sval[0], "%d,%d,%d,%d%n", &v[0], &v[1],
		    &v[2], &v[3], &n) != 4 || a->config->sval[0][n] != '\0')
			mk_usage_error("--config: '%s' is not NS,NR,RS,RR "
			    "(nvl_send,nvl_recv,rdma_send,rdma_recv)",
			    a->config->sval[0]);
		sz->dcfg = (struct mk_a2a_dcfg){ sz->num_sms, v[0], v[1], v[2],
		    v[3], 0 };
	}
}

/* The layout's own options into o->job. */
static void
job_args(const struct args *a, struct opts *o)
{
	static const char *const styles[] = { "deepep", "triton-dist" };
	struct mk_a2a_job_opts *j = &o->job;

	memset(j, 0, sizeof(*j));
	j->cfg.E = (int)mk_arg_int(a->E, 1, 1 << 24, 0, "--experts");
	if (!a->E->count && o->phy2log == NULL)
		mk_usage_error("--experts E is required (or --phy2log PLAN)");
	j->R = (int)mk_arg_int(a->R, 1, MK_MOE_MAX_RANKS, 0, "--ranks");
	j->cfg.style = mk_arg_choice(a->style, styles, 2, 0, "--style") == 1 ?
	    MK_A2A_TRITON : MK_A2A_DEEPEP;
	j->cfg.C = o->sz.num_sms / 2;
	j->rank = (int)mk_arg_int(a->rank, 0, MK_MOE_MAX_RANKS - 1, -1,
	    "--rank");
	j->step = (int)mk_arg_int(a->step, 0, INT32_MAX, -1, "--step");
	j->cfg.align = (int)mk_arg_int(a->align, 1, 1 << 20, 1,
	    "--expert-alignment");
	j->cfg.lenient = a->lenient->count > 0;
	if ((j->cfg.ll_only = a->ll->count > 0) && j->cfg.style == MK_A2A_TRITON)
		mk_usage_error("--low-latency is DeepEP's mode; Triton-"
		    "distributed's low-latency layer is in its --report");
	j->cfg.local = (int)mk_arg_int(a->lws, 1, MK_MOE_MAX_RANKS, 0,
	    "--local-world-size");
	j->cfg.max_tokens = o->sz.max_tokens;
	j->report = a->report->count > 0;
	j->max_tokens = o->sz.max_tokens;
	j->sizing = &o->sz;
}

/* --fields STEP,SEQ,TOKEN,EXPERTS for JSON-lines traces ("-": none). */
static void
fields_arg(const struct args *a, struct opts *o)
{
	struct mk_err e;

	if (mk_moe_jsonl_fields(a->fields->count ? a->fields->sval[0] : NULL,
	    &o->jsonl, o->fieldbuf, sizeof(o->fieldbuf), &e) < 0)
		mk_usage_error("%s", e.msg);
}

/*
 * A JSON-lines trace (routing records) made into an NPY trace in memory;
 * s is replaced by a source over it.  Returns the bytes (free them).
 */
static void *
jsonl_input(struct opts *o, struct mk_src **s, int *infmt)
{
	struct mk_err e;
	struct mk_src *m;
	void *npy;
	size_t n;

	if (o->job.R < 1)
		mk_usage_error("%s: routing records (JSON lines): give --ranks "
		    "R, the ranks to deal each step's tokens to",
		    mk_src_name(*s));
	o->jsonl.R = o->job.R;
	if (mk_moe_jsonl_trace(*s, &o->jsonl, &npy, &n, &e) < 0)
		mk_fail(*s, &e);
	if ((m = mk_src_mem(npy, n, mk_src_name(*s), 0)) == NULL)
		err(MK_EXIT_DATA, NULL);
	mk_src_close(*s);
	*s = m;
	*infmt = MK_FMT_NPY;
	return npy;
}

static void
parse_args(int argc, char **argv, struct opts *o)
{
	static const char *const inputs[] = { "--phy2log", "FILE" };
	struct mk_common c;
	struct args a;
	char desc[64];

	mk_common_args(&c, MK_OPT_FORMAT | MK_OPT_EMIT | MK_OPT_OUTPUT |
	    MK_OPT_THREADS);
	make_args(&a);
	void *argtable[] = { a.E, a.R, a.style, a.sms, a.rank, a.step, a.plan,
	    a.layer, a.per_step, a.lws, a.hidden, a.hb, a.dtype, a.align,
	    a.config, a.idxbits, a.scaleup, a.maxtok, a.ll,
	    a.lenient, a.report, a.plot, a.fields, c.format, c.emit, c.output,
	    c.threads,
	    c.verbose, c.quiet, c.help, c.version, a.file, arg_end(20) };

	mk_cli_parse(argc, argv, argtable, &c, &usage, &o->c);
	if (o->c.verbose > 1)
		fprintf(stderr, "%s: kernels %s\n", mk_progname(),
		    mk_a2a_kern_describe(desc, sizeof(desc)));
	o->phy2log = mk_arg_file(a.plan);
	o->plot = mk_arg_file(a.plot);
	fields_arg(&a, o);
	o->input = mk_arg_file(a.file);
	o->layer = (int)mk_arg_int(a.layer, 0, INT32_MAX, 0, "--layer");
	o->layer_given = a.layer->count > 0;
	if (a.layer->count && o->phy2log == NULL)
		mk_usage_error("--layer needs --phy2log");
	if ((o->per_step = a.per_step->count > 0) && o->phy2log == NULL)
		mk_usage_error("--layer-per-step needs --phy2log");
	if (o->per_step && a.layer->count)
		mk_usage_error("--layer and --layer-per-step: give one");
	sizing_args(&a, &o->sz);
	o->hidden_default = a.hidden->count == 0 && a.hb->count == 0;
	job_args(&a, o);
	if (o->phy2log != NULL)
		mk_opt_one_stdin(2, (const char *[]){ o->phy2log, o->input },
		    inputs, 1);
}

/* --phy2log: the plan's layer, routing the trace's logical ids. */
static void
read_plan(struct opts *o, struct mk_phy2log *pl)
{
	struct mk_a2a_job_opts *j = &o->job;
	const char *name = strcmp(o->phy2log, "-") ? o->phy2log : "stdin";
	struct mk_err e;

	if (mk_phy2log_read(o->phy2log, "--phy2log", pl, &e) < 0)
		mk_fail(NULL, &e);
	if (o->layer >= pl->L)
		mk_usage_error("--layer %d: %s has %d layers", o->layer, name,
		    pl->L);
	j->plan = pl->p + (size_t)o->layer * (size_t)pl->R;
	j->plan_rows = o->per_step ? pl->L : 1;
	j->plan_slots = pl->R;
	j->plan_experts = j->cfg.E > 0 ? j->cfg.E : pl->max < INT32_MAX ?
	    (int)pl->max + 1 : 0;
	j->plan_name = pl->what;
}

/* The outputs --emit selects, by index into out[]; returns how many. */
static int
select_outputs(const struct opts *o, const struct mk_a2a_output *out,
    int nout, int *order)
{
	const char *names[MK_A2A_MAX_OUTPUTS];
	int i;

	for (i = 0; i < nout; i++)
		names[i] = out[i].name;
	return mk_opt_emit(o->c.emit, names, nout, order, MK_A2A_MAX_OUTPUTS);
}

/* One output: its stack of steps, or the data of the step (or rank). */
static void
emit(struct mk_out *w, const struct mk_a2a_output *x, struct mk_stack *st,
    const struct mk_a2a_view *v)
{
	if (st != NULL) {
		mk_stack_write(st, w);
		return;
	}
	mk_out_begin(w, x->name, x->dtype, x->ndim, x->shape);
	mk_out_data(w, mk_a2a_output_data(x, v->g, v->pr, v->rows),
	    mk_a2a_output_nelem(x));
	mk_out_end(w);
}

/* The output of the tensors: -o FILE or stdout, as -f or the input. */
static struct mk_out *
open_output(const struct opts *o, int infmt)
{
	return mk_out_open(o->c.output, o->c.format != MK_FMT_AUTO ?
	    o->c.format : infmt == MK_FMT_CSV ? MK_FMT_CSV : MK_FMT_NPY);
}

/*
 * Write the selected outputs to w (opened now if NULL; none if they were
 * drained already), and the report beside them.
 */
static void
write_all(const struct opts *o, struct mk_a2a_job *j, int infmt,
    struct mk_out *w, int drained, const int *order, int nsel,
    struct mk_stack **st, const struct mk_a2a_view *v,
    const struct mk_a2a_series *ser)
{
	const struct mk_a2a_cfg *c = mk_a2a_job_cfg(j);
	struct mk_a2a_output out[MK_A2A_MAX_OUTPUTS];
	struct mk_out *rep = NULL, *pic = NULL;
	struct mk_err e;
	char title[300];
	int i;

	/* per-token shapes are known now */
	mk_a2a_outputs(c, v->pr, out);
	if (o->plot != NULL) {
		pic = mk_out_open(o->plot, MK_FMT_CSV);
		snprintf(title, sizeof(title), "a2a-layout: %s",
		    o->input ? o->input : "stdin");
		mk_a2a_plot(pic->fp, c, ser, mk_a2a_token_bytes(&o->sz),
		    mk_a2a_job_tally(j)->max_worst, title);
	}
	if (w == NULL)
		w = open_output(o, infmt);
	if (o->job.report && o->c.output != NULL)
		rep = mk_out_open(NULL, MK_FMT_CSV);	/* held till the end */
	for (i = 0; !drained && i < nsel; i++)
		emit(w, &out[order[i]], st[order[i]], v);
	if (o->job.report && mk_a2a_report_write(rep ? rep->fp : stderr,
	    &o->sz, c, mk_a2a_job_tally(j), &e) < 0)
		mk_fail(NULL, &e);
	if (rep != NULL)
		mk_out_close(rep);
	mk_out_close(w);
	/* last: every output of the run is committed together */
	if (pic != NULL)
		mk_out_close(pic);
}

/*
 * Once all went well: one line for each thing that ran as asked but
 * likely not as meant.  plan_rows: PLAN's layers (0: none).
 */
static void
warnings(const struct opts *o, struct mk_a2a_job *j, int plan_rows)
{
	const struct mk_a2a_tally *t = mk_a2a_job_tally(j);
	const struct mk_a2a_cfg *c = mk_a2a_job_cfg(j);

	/* 7168 is DeepSeek-V3's; a Mixtral trace needs 4096 */
	if ((o->job.report || o->plot != NULL) && o->hidden_default)
		fprintf(stderr, "%s: note: --hidden not given; the sizes are "
		    "for hidden 7168 (DeepSeek-V3)\n", mk_progname());
	/* -E 16 on an 8-expert trace leaves half the ranks without tokens */
	if (o->phy2log == NULL && t->steps > 0 && c->E >= 2 &&
	    t->used <= c->E / 2)
		fprintf(stderr, "%s: warning: the ids use experts 0..%d of -E "
		    "%d, the ranks of the rest get no token: is -E the model's "
		    "routed experts?\n", mk_progname(), t->used - 1, c->E);
	if (plan_rows > 1 && !o->per_step && !o->layer_given &&
	    t->steps == plan_rows)
		fprintf(stderr, "%s: warning: the trace has %d steps, as many "
		    "as %s has layers, and all went through layer 0; "
		    "--layer-per-step routes step s through layer s\n",
		    mk_progname(), t->steps, o->phy2log);
}

/* How the stacked outputs go to -o FILE. */
enum drain { DRAIN_AFTER, DRAIN_SELF, DRAIN_THREAD };

/*
 * How the stacked outputs go to -o FILE (MOEKIT_STACK_DRAIN, else): while
 * the steps are laid out, by a thread and a CPU of their own on hosts of
 * MK_THREADS_HOST_CPUS CPUs or more for outputs of 4 MiB or more and of
 * 1/256 of the ids or more, else by the thread that pushes them; after the
 * last step when MOEKIT_STACK_DRAIN=0 says so.  On the 16-core host the
 * layout of a 1000-step trace took 3-4% longer on 15 threads than on 16,
 * and its 156 MB of outputs (1/54 of the ids) added 70-100% to it when
 * written after it; on the 2-CPU virtual machine a CPU is half the
 * layout's.
 */
static enum drain
drain_mode(const struct mk_a2a_output *out, const int *order, int nsel,
    const struct mk_moe_trace_shape *sh)
{
	double obytes = 0, ibytes = (double)sh->S * sh->R * (double)sh->max_T *
	    sh->K * sh->elem;
	int i, w = mk_stack_drain_wanted();

	if (w >= 0)
		return w ? DRAIN_THREAD : DRAIN_AFTER;
	for (i = 0; i < nsel; i++)
		obytes += (double)mk_a2a_output_nelem(&out[order[i]]) *
		    (double)mk_dtype_size(out[order[i]].dtype) * sh->S;
	return mk_usable_cpus() >= MK_THREADS_HOST_CPUS && obytes >= 4 << 20 &&
	    obytes * 256 >= ibytes ? DRAIN_THREAD : DRAIN_SELF;
}

/*
 * Where every selected output is a stack of a trace whose steps are in
 * hand (never on a header's word): they are written to w (opened now)
 * while the steps are laid out, drain_mode says how; a thread of their
 * own is left a CPU by the layout.  Returns the drain, or NULL (*w may be
 * open).
 */
static struct mk_stack_drain *
start_drain(const struct opts *o, struct mk_a2a_job *j, int infmt,
    const struct mk_a2a_output *out, const int *order, int nsel,
    struct mk_stack **st, struct mk_out **w)
{
	struct mk_moe_trace_shape sh = mk_a2a_job_shape(j);
	struct mk_stack *ds[MK_A2A_MAX_OUTPUTS];
	struct mk_stack_drain *d;
	enum drain mode;
	int i;

	/* the environment checked first: a wrong value is an error anyway */
	if ((mode = drain_mode(out, order, nsel, &sh)) == DRAIN_AFTER ||
	    !sh.in_hand || nsel == 0)
		return NULL;
	for (i = 0; i < nsel; i++)
		if ((ds[i] = st[order[i]]) == NULL)
			return NULL;
	*w = open_output(o, infmt);
	if ((d = mk_stack_drain_start(ds, nsel, sh.S, mode == DRAIN_THREAD,
	    *w)) != NULL && mode == DRAIN_THREAD)
		mk_a2a_job_spare_cpu(j);
	return d;
}

static int
run(struct opts *o)
{
	struct mk_a2a_output out[MK_A2A_MAX_OUTPUTS];
	struct mk_stack *st[MK_A2A_MAX_OUTPUTS] = { NULL };
	struct mk_a2a_rank none;
	struct mk_a2a_view v = { 0 };
	const struct mk_a2a_rank *pr = NULL;
	struct mk_phy2log pl = { 0 };
	struct mk_a2a_series ser = { 0 };
	void *jsonl = NULL;
	struct mk_moe_trace_shape sh;
	struct mk_progress pg;
	struct mk_a2a_job *j;
	struct mk_src *s;
	struct mk_err e;
	int order[MK_A2A_MAX_OUTPUTS], nsel, nout, i, r, infmt;
	struct mk_stack_drain *drain;
	struct mk_out *w = NULL;
	char how[300], dhow[120] = "";

	if (o->phy2log != NULL)
		read_plan(o, &pl);
	if ((s = mk_src_open(o->input, &e)) == NULL ||
	    (infmt = mk_src_format(s, &e)) < 0)
		mk_fail(s, &e);
	if (infmt == MK_FMT_JSON)
		jsonl = jsonl_input(o, &s, &infmt);
	if ((j = mk_a2a_job_open(&o->job, s, &e)) == NULL)
		mk_fail(s, &e);
	memset(&none, 0, sizeof(none));
	nout = mk_a2a_outputs(mk_a2a_job_cfg(j), o->job.rank >= 0 ? &none :
	    NULL, out);
	nsel = select_outputs(o, out, nout, order);
	sh = mk_a2a_job_shape(j);
	for (i = 0; sh.stepped && i < nsel; i++)
		if (!out[order[i]].per_token)
			st[order[i]] = mk_stack_new(out[order[i]].name,
			    out[order[i]].dtype, out[order[i]].ndim,
			    out[order[i]].shape);
	drain = start_drain(o, j, infmt, out, order, nsel, st, &w);
	if (drain != NULL)
		mk_stack_drain_describe(drain, dhow, sizeof(dhow));
	/* else held till the end; never reserved on a header's word */
	for (i = 0; drain == NULL && sh.in_hand && i < nsel; i++)
		if (st[order[i]] != NULL)
			(void)mk_stack_reserve(st[order[i]], sh.S);
	mk_progress_start(&pg, "steps", sh.S, o->c.quiet);
	while ((r = mk_a2a_job_next(j, &v, &e)) > 0) {
		mk_progress_set(&pg, v.step + 1, (double)(v.step + 1) *
		    (double)sh.R * (double)sh.T * (double)sh.K *
		    (double)sh.elem);
		for (i = 0; i < nout; i++)
			if (st[i] != NULL)
				mk_stack_push(st[i], mk_a2a_output_data(&out[i],
				    v.g, v.pr, v.rows));
		if (drain != NULL)
			mk_stack_drain_step(drain);
		if (v.pr != NULL)
			pr = v.pr;	/* the job keeps it */
		if (o->plot != NULL && mk_a2a_series_add(&ser,
		    mk_a2a_job_cfg(j), v.g, &e) < 0)
			mk_fail(s, &e);
	}
	mk_progress_end(&pg);
	if (r < 0)
		mk_fail(s, &e);
	v.pr = pr;
	if (drain != NULL) {
		mk_stack_drain_end(drain);	/* it freed the stacks */
		for (i = 0; i < nsel; i++)
			st[order[i]] = NULL;
	}
	write_all(o, j, infmt, w, drain != NULL, order, nsel, st, &v, &ser);
	warnings(o, j, o->phy2log != NULL ? pl.L : 0);
	mk_a2a_series_free(&ser);
	if (o->c.verbose > 0 && *mk_a2a_job_describe(j, how, sizeof(how)))
		fprintf(stderr, "%s: %s\n", mk_progname(), how);
	if (o->c.verbose > 0 && *dhow)
		fprintf(stderr, "%s: outputs written %s\n", mk_progname(), dhow);
	mk_a2a_job_close(j);
	mk_src_close(s);
	free(jsonl);
	mk_phy2log_free(&pl);
	return MK_EXIT_OK;
}

int
main(int argc, char *argv[])
{
	struct opts o;

	mk_init(argc, argv);
	parse_args(argc, argv, &o);
	mk_out_input(o.input);
	mk_out_input(o.phy2log);
	return run(&o);
}
