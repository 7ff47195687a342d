/*
 * a2a-layout - read a routing trace (topk ids of every rank of an EP
 * group) and write what DeepEP or Triton-distributed compute before an
 * all-to-all dispatch: counts, prefix matrices, receive offsets, per-token
 * heads, and (--report) the buffer sizes to allocate.
 */
#include <stdio.h>
#include <string.h>

#include "moekit.h"
#include "cli/opt.h"
#include "a2a/a2a_run.h"
#include "a2a/a2a_scan.h"

enum { O_E, O_R, O_STYLE, O_SMS, O_RANK, O_STEP, O_PLAN, O_LAYER,
	O_PER_STEP, O_NODES, O_LWS, O_HIDDEN, O_HB, O_DTYPE, O_ALIGN, O_CONFIG,
	O_IDXBITS, O_SCALEUP, O_MAXTOK, O_LL, O_LENIENT, O_REPORT, O_CAPACITY,
	O_EVAL, O_LINT, O_PLOT, O_FIELDS, O_FILE, NOPT };

static struct mk_opt opts[NOPT] = {
	[O_E] = { MK_OPT_VALUE, "E", "experts", "E", "experts (required unless "
	    "--phy2log)", NULL },
	[O_R] = { MK_OPT_VALUE, "R", "ranks", "R", "ranks (default: from the "
	    "input)", NULL },
	[O_STYLE] = { MK_OPT_VALUE, NULL, "style", "deepep|triton-dist",
	    "whose layout (default deepep)", NULL },
	[O_SMS] = { MK_OPT_VALUE, NULL, "num-sms", "N", "SMs of the dispatch; "
	    "channels = N/2 (default 20)", NULL },
	[O_RANK] = { MK_OPT_VALUE, NULL, "rank", "r", "also write the "
	    "per-token tensors of rank r", NULL },
	[O_STEP] = { MK_OPT_VALUE, NULL, "step", "s", "the step of a [S,R,T,K] "
	    "trace whose per-token tensors --rank writes", NULL },
	[O_PLAN] = { MK_OPT_PATH, NULL, "phy2log", "PLAN", "route logical ids "
	    "through this eplb-plan phy2log", NULL },
	[O_LAYER] = { MK_OPT_VALUE, NULL, "layer", "L", "the model layer of "
	    "PLAN (default 0)", NULL },
	[O_PER_STEP] = { MK_OPT_FLAG, NULL, "layer-per-step", NULL, "step s of "
	    "the trace goes through layer s of PLAN", NULL },
	[O_NODES] = { MK_OPT_VALUE, NULL, "num-nodes", "N", "nodes the ranks "
	    "span (default: DeepEP's nodes of 8; --local-world-size)", NULL },
	[O_LWS] = { MK_OPT_VALUE, NULL, "local-world-size", "L", "ranks per "
	    "node, Triton-distributed (default R/N, or 8)", NULL },
	[O_HIDDEN] = { MK_OPT_VALUE, NULL, "hidden", "H", "hidden size "
	    "(default 7168)", NULL },
	[O_HB] = { MK_OPT_VALUE, NULL, "hidden-bytes", "B", "bytes per token "
	    "for the hints (default H*2, bf16)", NULL },
	[O_DTYPE] = { MK_OPT_VALUE, NULL, "dtype", "bf16|fp8", "dispatched "
	    "data (fp8: H/128 scales)", NULL },
	[O_ALIGN] = { MK_OPT_VALUE, NULL, "expert-alignment", "A", "align "
	    "per-expert receive counts up to A (default 1)", NULL },
	[O_CONFIG] = { MK_OPT_VALUE, NULL, "config", "NS,NR,RS,RR", "DeepEP "
	    "chunk sizes (default: DeepEP's table for R)", NULL },
	[O_IDXBITS] = { MK_OPT_VALUE, NULL, "topk-idx-bits", "64|32", "DeepEP "
	    "built with TOPK_IDX_BITS=32 sizes its buffers for int32 ids",
	    NULL },
	[O_SCALEUP] = { MK_OPT_VALUE, NULL, "scaleup-ranks", "N", "EPv2 "
	    "ElasticBuffer: ranks per NVLink domain (default R/N, or 8)",
	    NULL },
	[O_MAXTOK] = { MK_OPT_VALUE, NULL, "max-tokens,"
	    "num-max-dispatch-tokens-per-rank", "M", "low-latency M / "
	    "Triton-distributed max_tokens", NULL },
	[O_LL] = { MK_OPT_FLAG, NULL, "low-latency", NULL, "DeepEP's "
	    "low-latency mode alone: any R < 8 or 8n up to 512, its outputs "
	    "only", NULL },
	[O_LENIENT] = { MK_OPT_FLAG, NULL, "lenient", NULL, "ignore ids out of "
	    "range, as DeepEP's get_dispatch_layout does", NULL },
	[O_REPORT] = { MK_OPT_FLAG, NULL, "report", NULL, "write the "
	    "buffer-size table (CSV) on stdout; the tensors then go to -o",
	    NULL },
	[O_CAPACITY] = { MK_OPT_VALUE, NULL, "capacity", "P[,P...]", "in place "
	    "of the tensors, each library's receive capacity knob at which a "
	    "share P of the steps overflows (CSV)", NULL },
	[O_EVAL] = { MK_OPT_PATH, NULL, "eval", "TRACE", "--capacity: the "
	    "steps of TRACE over the capacities fitted", NULL },
	[O_LINT] = { MK_OPT_FLAG, NULL, "lint", NULL, "in place of the "
	    "tensors, a line for each library limit the trace or the options "
	    "break (status 1 if any)", NULL },
	[O_PLOT] = { MK_OPT_PATH, NULL, "plot", "FILE.svg", "a picture: tokens "
	    "each rank receives per step (--capacity: their distribution)",
	    NULL },
	[O_FIELDS] = { MK_OPT_VALUE, NULL, "fields", "STEP,SEQ,TOKEN,EXPERTS",
	    "a JSON lines trace's field names (default layer,problem_id,"
	    "token_idx,experts; - for none)", NULL },
	[O_FILE] = { MK_OPT_OPERAND, NULL, NULL, "FILE", "routing trace "
	    "(default: stdin)", NULL },
};

static const struct mk_usage usage = {
	"-E E [-R R] [--style deepep|triton-dist] [--num-sms N] [--rank r] "
	    "[--step s] [--phy2log PLAN [--layer L | --layer-per-step]] "
	    "[--num-nodes N] [--local-world-size L] [--hidden H] "
	    "[--hidden-bytes B] [--dtype bf16|fp8] [--expert-alignment A] "
	    "[--config NS,NR,RS,RR] [--topk-idx-bits 64|32] [--scaleup-ranks N] "
	    "[--max-tokens M] [--low-latency] "
	    "[--lenient] [--report | --capacity P[,P...] [--eval TRACE] | "
	    "--lint] "
	    "[--plot FILE.svg] [--fields S,Q,T,E] [-f csv|npy|npz] "
	    "[--emit LIST] [-o FILE] "
	    "[--threads N] [--quiet] [-hVv] [FILE]",
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

/* --hidden, --hidden-bytes, --dtype, --num-sms, --config, --max-tokens. */
static void
sizing_of(struct mk_a2a_sizing *sz)
{
	static const char *const dtypes[] = { "bf16", "fp8" };
	static const char *const bits[] = { "64", "32" };
	const char *cfg = mk_opt_str(&opts[O_CONFIG]);
	int v[4], n;

	memset(sz, 0, sizeof(*sz));
	sz->num_sms = (int)mk_opt_int_in(&opts[O_SMS], 2, 1 << 16, 20);
	if (sz->num_sms % 2 != 0)
		mk_usage_error("--num-sms %d is odd: DeepEP requires an even "
		    "number (one sender and one receiver SM per channel)",
		    sz->num_sms);
	sz->hidden = mk_opt_int_in(&opts[O_HIDDEN], 1, (int64_t)1 << 24, 7168);
	sz->hidden_bytes = mk_opt_int_in(&opts[O_HB], 1, (int64_t)1 << 30,
	    sz->hidden * 2);
	sz->fp8 = mk_opt_pick(&opts[O_DTYPE], dtypes, 2, 0) == 1;
	if (sz->fp8 && sz->hidden % 128 != 0)
		mk_usage_error("--dtype fp8 needs --hidden %lld to be a multiple "
		    "of 128 (one scale per 128 values)", (long long)sz->hidden);
	sz->max_tokens = mk_opt_int_in(&opts[O_MAXTOK], 1, (int64_t)1 << 30,
	    0);
	sz->scaleup = (int)mk_opt_int_in(&opts[O_SCALEUP], 1, MK_MOE_MAX_RANKS,
	    0);
	sz->idx_bytes = mk_opt_pick(&opts[O_IDXBITS], bits, 2, 0) == 1 ? 4 : 8;
	if ((sz->has_config = cfg != NULL)) {
		if (sscanf(cfg, "%d,%d,%d,%d%n", &v[0], &v[1], &v[2], &v[3],
		    &n) != 4 || cfg[n] != '\0')
			mk_usage_error("--config: '%s' is not NS,NR,RS,RR "
			    "(nvl_send,nvl_recv,rdma_send,rdma_recv)", cfg);
		sz->dcfg = (struct mk_a2a_dcfg){ sz->num_sms, v[0], v[1], v[2],
		    v[3], 0 };
	}
}

/* The layout's own options into o->job. */
static void
job_of(struct mk_a2a_layout_job *o)
{
	static const char *const styles[] = { "deepep", "triton-dist" };
	struct mk_a2a_job_opts *j = &o->job;

	memset(j, 0, sizeof(*j));
	j->cfg.E = (int)mk_opt_int_in(&opts[O_E], 1, 1 << 24, 0);
	if (!mk_opt_given(&opts[O_E]) && o->phy2log == NULL)
		mk_usage_error("--experts E is required (or --phy2log PLAN)");
	j->R = (int)mk_opt_int_in(&opts[O_R], 1, MK_MOE_MAX_RANKS, 0);
	j->cfg.style = mk_opt_pick(&opts[O_STYLE], styles, 2, 0) == 1 ?
	    MK_A2A_TRITON : MK_A2A_DEEPEP;
	j->cfg.C = o->sz.num_sms / 2;
	j->rank = (int)mk_opt_int_in(&opts[O_RANK], 0, MK_MOE_MAX_RANKS - 1,
	    -1);
	j->step = (int)mk_opt_int_in(&opts[O_STEP], 0, INT32_MAX, -1);
	j->cfg.align = (int)mk_opt_int_in(&opts[O_ALIGN], 1, 1 << 20, 1);
	j->cfg.lenient = mk_opt_given(&opts[O_LENIENT]) > 0;
	if ((j->cfg.ll_only = mk_opt_given(&opts[O_LL]) > 0) &&
	    j->cfg.style == MK_A2A_TRITON)
		mk_usage_error("--low-latency is DeepEP's mode; Triton-"
		    "distributed's low-latency layer is in its --report");
	j->cfg.local = (int)mk_opt_int_in(&opts[O_LWS], 1, MK_MOE_MAX_RANKS, 0);
	j->cfg.nodes = (int)mk_opt_int_in(&opts[O_NODES], 1, MK_MOE_MAX_RANKS,
	    0);
	j->cfg.max_tokens = o->sz.max_tokens;
	j->report = mk_opt_given(&opts[O_REPORT]) > 0;
	j->max_tokens = o->sz.max_tokens;
	j->sizing = &o->sz;
}

/*
 * --capacity P,... (each in [0, 1), once) and --eval: a table in place of
 * the tensors, so what selects or places tensors does not go with it.
 */
static void
capacity_of(struct mk_a2a_layout_job *o)
{
	static const int apart[] = { O_RANK, O_STEP, O_REPORT };
	const char *s = mk_opt_str(&opts[O_CAPACITY]);
	double v[64];
	int n, i, k;

	o->eval = mk_opt_path(&opts[O_EVAL]);
	if ((o->lint = mk_opt_given(&opts[O_LINT]) > 0)) {
		if (s != NULL || o->eval != NULL || o->plot != NULL)
			mk_usage_error("--lint writes the limits broken in place "
			    "of the tensors: %s does not go with it", s ?
			    "--capacity" : o->eval ? "--eval" : "--plot");
		s = "0";	/* what else does not apply is as for it */
	} else if (s == NULL) {
		if (o->eval != NULL)
			mk_usage_error("--eval TRACE scores --capacity's "
			    "capacities: give --capacity");
		return;
	}
	n = mk_opt_reals(&opts[O_CAPACITY], 0, 1, v, 64, 0);
	for (i = 0; i < n; i++) {
		if (v[i] >= 1)
			mk_usage_error("--capacity %s: a share of the steps "
			    "allowed to overflow is in [0, 1)", s);
		for (k = 0; k < i; k++)
			if (v[k] == v[i])
				mk_usage_error("--capacity %s: %g twice", s,
				    v[i]);
	}
	for (i = 0; i < (int)(sizeof(apart) / sizeof(apart[0])); i++)
		if (mk_opt_given(&opts[apart[i]]))
			mk_usage_error("%s in place of the tensors: %s does "
			    "not apply", o->lint ? "--lint writes its lines" :
			    "--capacity writes a table",
			    mk_opt_name(&opts[apart[i]]));
	if (o->c.emit != NULL || (o->c.format_given && o->c.format !=
	    MK_FMT_CSV))
		mk_usage_error("%s in place of the tensors: %s does not "
		    "apply", o->lint ? "--lint writes its lines" : "--capacity "
		    "writes a CSV table", o->c.emit ? "--emit" : "-f");
	if (o->lint)
		return;
	memcpy(o->cap_p, v, sizeof(double) * (size_t)n);
	o->ncap = n;
}

static void
parse_args(int argc, char **argv, struct mk_a2a_layout_job *o)
{
	static const char *const inputs[] = { "--phy2log", "FILE" };
	struct mk_err e;
	char desc[64];

	mk_opts_parse(argc, argv, opts, NOPT, MK_OPT_FORMAT | MK_OPT_EMIT |
	    MK_OPT_OUTPUT | MK_OPT_THREADS, &usage, &o->c);
	if (o->c.verbose > 1)
		fprintf(stderr, "%s: kernels %s\n", mk_progname(),
		    mk_a2a_kern_describe(desc, sizeof(desc)));
	o->phy2log = mk_opt_path(&opts[O_PLAN]);
	o->plot = mk_opt_path(&opts[O_PLOT]);
	capacity_of(o);
	if (mk_opt_given(&opts[O_REPORT]) && (o->c.output == NULL ||
	    strcmp(o->c.output, "-") == 0))
		mk_usage_error("--report is written on standard output, where "
		    "the tensors would go too: give -o FILE for them (-o "
		    "/dev/null: the report alone)");
	if (mk_moe_jsonl_fields(mk_opt_str(&opts[O_FIELDS]), &o->jsonl,
	    o->fieldbuf, sizeof(o->fieldbuf), &e) < 0)
		mk_usage_error("%s", e.msg);
	o->input = mk_opt_path(&opts[O_FILE]);
	o->layer = (int)mk_opt_int_in(&opts[O_LAYER], 0, INT32_MAX, 0);
	o->layer_given = mk_opt_given(&opts[O_LAYER]);
	if (o->layer_given && o->phy2log == NULL)
		mk_usage_error("--layer needs --phy2log");
	if ((o->per_step = mk_opt_given(&opts[O_PER_STEP]) > 0) &&
	    o->phy2log == NULL)
		mk_usage_error("--layer-per-step needs --phy2log");
	if (o->per_step && o->layer_given)
		mk_usage_error("--layer and --layer-per-step: give one");
	sizing_of(&o->sz);
	o->hidden_default = !mk_opt_given(&opts[O_HIDDEN]) &&
	    !mk_opt_given(&opts[O_HB]);
	job_of(o);
	if (o->phy2log != NULL)
		mk_arg_one_stdin(2, (const char *[]){ o->phy2log, o->input },
		    inputs, 1);
}

int
main(int argc, char *argv[])
{
	struct mk_a2a_layout_job o;

	mk_init(argc, argv);
	memset(&o, 0, sizeof(o));
	parse_args(argc, argv, &o);
	return mk_a2a_layout_run(&o);
}
