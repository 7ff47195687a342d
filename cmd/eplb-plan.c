/*
 * eplb-plan - read expert loads (NPY, CSV, SGLang or vLLM/ADRS JSON,
 * SGLang's torch .pt dump), one scenario per input or per window, and
 * write an expert placement - phy2log [L, R], log2phy [L, E, X], logcnt
 * [L, E] (i64) as one tensor stream, or SGLang's JSON - or, with --eval,
 * score a placement on the loads.
 */
#include <stdlib.h>

#include "moekit.h"
#include "cli/opt.h"
#include "eplb/eplb_run.h"

enum { O_OBJ = MK_EPLB_O_OWN, O_WIDTH, O_PREV, O_EVAL, O_ROUTING, O_STATS,
	O_REPORT, O_PLOT, O_XFER, O_LOST, O_PGPUS, O_FIRST, O_EFFORT, O_UPD,
	O_FILES, NOPT };

static struct mk_opt opts[NOPT] = {
	[O_OBJ] = { MK_OPT_VALUE, NULL, "objective", "mean|worst", "best's, "
	    "over scenarios (default mean)", NULL },
	[O_WIDTH] = { MK_OPT_VALUE, NULL, "log2phy-width", "full|max",
	    "R-E+1 or the largest count", NULL },
	[O_PREV] = { MK_OPT_PATH, NULL, "prev", "PLAN", "previous phy2log: "
	    "move the fewest experts", NULL },
	[O_EVAL] = { MK_OPT_PATH, NULL, "eval", "PLAN", "score PLAN on the "
	    "loads", NULL },
	[O_ROUTING] = { MK_OPT_PATH, NULL, "routing", "FILE", "routing "
	    "records: the plan's inter-node share (--stats, --eval)", NULL },
	[O_STATS] = { MK_OPT_FLAG, NULL, "stats", NULL, "statistics on stderr "
	    "(CSV)", NULL },
	[O_REPORT] = { MK_OPT_PATH, NULL, "report", "FILE", "the statistics to "
	    "FILE", NULL },
	[O_PLOT] = { MK_OPT_PATH, NULL, "plot", "FILE.svg", "a picture: GPU "
	    "loads per layer, before and after", NULL },
	[O_XFER] = { MK_OPT_PATH, NULL, "transfers", "FILE", "with --prev: "
	    "per layer, the expert transfers, their batches and bytes (CSV)",
	    NULL },
	[O_LOST] = { MK_OPT_VALUE, NULL, "lost-gpus", "LIST", "with --prev: "
	    "its GPUs gone (-r, -G describe it); plan on the survivors", NULL },
	[O_PGPUS] = { MK_OPT_VALUE, NULL, "prev-gpus", "N", "with --prev: "
	    "its GPUs, where -r, -G describe another group", NULL },
	[O_FIRST] = { MK_OPT_VALUE, NULL, "first-moe-layer", "N", "the "
	    "model's layer of the loads' first row (vLLM's records: MoE "
	    "layers only)", NULL },
	[O_EFFORT] = { MK_OPT_VALUE, NULL, "effort", "N", "best's search steps "
	    "(default 64)", NULL },
	[O_UPD] = { MK_OPT_VALUE, NULL, "layer-updates-per-iter", "K",
	    "-f trtllm: K layers re-planned an iteration (default 0: static)",
	    NULL },
	[O_FILES] = { MK_OPT_OPERANDS, NULL, NULL, "FILE", "loads, a scenario "
	    "each (default: stdin)", NULL },
};

static const struct mk_usage usage = {
	"-r R | --num-redundant-experts N -G G [-n N] [-g K] "
	    "[--policy auto|hierarchical|global] [-a deepseek|waterfill|best] "
	    "[--window N [--history K]] [--max-moves M] [--min-gain X] "
	    "[--expert-bytes B] [--skip-zero-layers] "
	    "[--objective mean|worst] [--log2phy-width full|max] "
	    "[--prev PLAN] [--eval PLAN] [--routing FILE] [--stats] "
	    "[--report FILE] [--plot FILE.svg] [--transfers FILE] "
	    "[--lost-gpus LIST] [--prev-gpus N] [--first-moe-layer N] "
	    "[--effort N] "
	    "[--layer-updates-per-iter K] "
	    "[-f csv|npy|npz|sglang|vllm|trtllm] [--emit LIST] [-o FILE] [--threads N] "
	    "[--quiet] [-hVv] [FILE ...]",
	"Plan where expert replicas live from expert load logs.",
	"Outputs, in order: phy2log [L,R], log2phy [L,E,X], logcnt [L,E] (i64);\n"
	    "-f sglang|vllm|trtllm: the file that engine loads (SGLang's\n"
	    "--init-expert-location JSON, vLLM's initial mapping JSON line,\n"
	    "TensorRT-LLM's load-balancer YAML).  --eval: the table, or\n"
	    "gpu_load [S,L,G] (f64).  FILE: loads [E], [L,E] or [T,L,E] "
	    "(NPY/CSV),\na layer,expert,load CSV, SGLang's {\"logical_count\"} "
	    "JSON or .pt dump,\nvLLM's eplb_load_stats JSON lines, "
	    "TensorRT-LLM's statistics directory,\nor the ADRS "
	    "{\"load_history\"} JSON; several FILEs are several scenarios;\n"
	    "none or -: stdin.\n",
};

/*
 * --lost-gpus and --prev-gpus: both describe the plan before, so need
 * --prev; the GPUs named lost are OLD's (-G), each once, not all.
 */
static void
lost_of(struct mk_eplb_plan_job *j)
{
	int i, k;

	j->prev_gpus = (int)mk_opt_int_in(&opts[O_PGPUS], 1, 1 << 24, 0);
	if (mk_opt_given(&opts[O_LOST]))
		j->nlost = mk_opt_ints(&opts[O_LOST], 0, j->cfg.G - 1, j->lost,
		    MK_EPLB_LOST_MAX, 0);
	if ((j->nlost > 0 || j->prev_gpus > 0) && j->prev == NULL)
		mk_usage_error("--%s: the GPUs of the plan before: give --prev "
		    "PLAN", j->nlost > 0 ? "lost-gpus" : "prev-gpus");
	if (j->nlost > 0 && j->prev_gpus > 0)
		mk_usage_error("--lost-gpus and --prev-gpus: give one (with "
		    "--lost-gpus, -r and -G describe the plan before)");
	for (i = 0; i < j->nlost; i++)
		for (k = 0; k < i; k++)
			if (j->lost[k] == j->lost[i])
				mk_usage_error("--lost-gpus: GPU %d named twice",
				    j->lost[i]);
	if (j->nlost >= j->cfg.G)
		mk_usage_error("--lost-gpus: all %d GPUs lost: nothing to plan "
		    "on", j->cfg.G);
}

/* The job from the parsed table. */
static void
job_of(struct mk_eplb_plan_job *j)
{
	static const char *const widths[] = { "full", "max" };
	static const char *const objs[] = { "mean", "worst" };
	struct mk_eplb_lists l;

	mk_eplb_opts_read(opts, 1, 0, &l);
	j->cfg.R = l.nr ? l.r[0] : 0;
	j->redundant = l.nred ? l.red[0] : -1;
	j->cfg.G = l.g[0];
	j->cfg.N = l.n[0];
	j->cfg.K = l.k[0];
	j->policy = l.pol[0];
	j->cfg.algo = l.algo[0];
	j->window = l.win[0];
	j->history = l.his[0];
	j->max_moves = l.mov[0];
	j->min_gain = l.gain[0];
	j->expert_bytes = l.bytes[0];
	j->skip_zero = l.skip;
	j->cfg.objective = mk_opt_pick(&opts[O_OBJ], objs, 2, MK_EPLB_MEAN);
	j->cfg.effort = (int)mk_opt_int_in(&opts[O_EFFORT], 1, 1 << 30, 0);
	j->width_max = mk_opt_pick(&opts[O_WIDTH], widths, 2, 0) == 1;
	j->prev = mk_opt_path(&opts[O_PREV]);
	j->eval = mk_opt_path(&opts[O_EVAL]);
	j->routing = mk_opt_path(&opts[O_ROUTING]);
	j->report = mk_opt_path(&opts[O_REPORT]);
	j->plot = mk_opt_path(&opts[O_PLOT]);
	j->transfers = mk_opt_path(&opts[O_XFER]);
	if (j->transfers != NULL && j->prev == NULL)
		mk_usage_error("--transfers %s: what a change sends needs the "
		    "plan before it: give --prev PLAN", j->transfers);
	lost_of(j);
	j->first_moe = (int)mk_opt_int_in(&opts[O_FIRST], 0, 1 << 20, -1);
	j->stats = mk_opt_given(&opts[O_STATS]) > 0 || j->report != NULL;
	j->updates = (int)mk_opt_int_in(&opts[O_UPD], 0, 1 << 20, 0);
	j->files = mk_opt_paths(&opts[O_FILES], &j->nfiles);
}

int
main(int argc, char *argv[])
{
	struct mk_eplb_plan_job j = { 0 };

	mk_init(argc, argv);
	mk_eplb_opts_declare(opts, 0);
	mk_opts_parse(argc, argv, opts, NOPT, MK_OPT_FORMAT | MK_OPT_EMIT |
	    MK_OPT_OUTPUT | MK_OPT_THREADS | MK_OPT_PLANS, &usage, &j.c);
	job_of(&j);
	return mk_eplb_plan_run(&j);
}
