/*
 * eplb-replay - replay a per-step expert load log (or routing records)
 * through rebalancing policies and print, for every configuration of the
 * lists given, what balance it kept and what it moved: one CSV row each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moekit.h"
#include "cli/opt.h"
#include "eplb/eplb_run.h"
#include "moe/jsonl.h"

enum { O_INTERVAL = MK_EPLB_O_OWN, O_ENGINE, O_ASYNC, O_CHUNK, O_UPD,
	O_SCORE, O_SHARD, O_LINK, O_MOE, O_LOSE, O_E, O_TPS, O_FIELDS, O_PLOT,
	O_STEPS, O_FILE, NOPT };

static struct mk_opt opts[NOPT] = {
	[O_INTERVAL] = { MK_OPT_VALUE, NULL, "interval", "LIST", "steps "
	    "between re-plans (default 3000; sglang 1000)", NULL },
	[O_ENGINE] = { MK_OPT_VALUE, NULL, "engine", "LIST", "whose loop: "
	    "ideal|vllm|sglang|trtllm (default vllm)", NULL },
	[O_ASYNC] = { MK_OPT_VALUE, NULL, "async", "LIST", "vllm: on|off "
	    "(default on, vLLM's)", NULL },
	[O_CHUNK] = { MK_OPT_VALUE, NULL, "layers-per-chunk", "LIST", "sglang: "
	    "layers committed a pass (default all at once)", NULL },
	[O_UPD] = { MK_OPT_VALUE, NULL, "layer-updates-per-iter", "LIST",
	    "trtllm: layers re-planned an iteration (required)", NULL },
	[O_SCORE] = { MK_OPT_VALUE, NULL, "score-from", "STEP", "score every "
	    "row from STEP (default: the sweep's latest first window)", NULL },
	[O_SHARD] = { MK_OPT_VALUE, NULL, "shard", "I/N", "only the I-th of N "
	    "slices of the configurations (a job array)", NULL },
	[O_LINK] = { MK_OPT_VALUE, NULL, "link-gbps", "G", "a GPU's link in "
	    "Gbit/s: the move_s column (with --expert-bytes)", NULL },
	[O_MOE] = { MK_OPT_VALUE, NULL, "moe-ms", "MS", "a step's MoE at "
	    "perfect balance: the moe_s and speedup columns", NULL },
	[O_LOSE] = { MK_OPT_VALUE, NULL, "lose-gpu", "STEP:LIST", "GPUs lost "
	    "at STEP: the survivors' balance until the next re-plan", NULL },
	[O_E] = { MK_OPT_VALUE, "E", "experts", "E", "experts (routing "
	    "records)", NULL },
	[O_TPS] = { MK_OPT_VALUE, NULL, "tokens-per-step", "N", "routing: "
	    "tokens a step (default 1)", NULL },
	[O_FIELDS] = { MK_OPT_VALUE, NULL, "fields", "LAYER,SEQ,TOKEN,EXPERTS",
	    "routing records' fields", NULL },
	[O_PLOT] = { MK_OPT_PATH, NULL, "plot", "FILE.svg", "balancedness "
	    "against moves, the Pareto front", NULL },
	[O_STEPS] = { MK_OPT_PATH, NULL, "steps", "FILE", "one configuration's "
	    "per-step series (CSV)", NULL },
	[O_FILE] = { MK_OPT_OPERAND, NULL, NULL, "FILE", "the log (default: "
	    "stdin)", NULL },
};

static const struct mk_usage usage = {
	"-r LIST | --num-redundant-experts LIST -G LIST [-n LIST] [-g LIST] "
	    "[--policy LIST] [-a LIST] [--window LIST] [--history LIST] "
	    "[--max-moves LIST] [--min-gain LIST] [--expert-bytes LIST] "
	    "[--skip-zero-layers] [--interval LIST] [--engine LIST] "
	    "[--async LIST] [--layers-per-chunk LIST] "
	    "[--layer-updates-per-iter LIST] [--score-from STEP] [--shard I/N] "
	    "[--link-gbps G] [--moe-ms MS] [--lose-gpu STEP:LIST] "
	    "[-E E] "
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

/* --shard I/N: 1 <= I <= N <= 4096. */
static void
shard_of(const char *s, struct mk_eplb_replay_job *j)
{
	int i, n, k;

	j->shard = j->nshard = 1;
	if (s == NULL)
		return;
	if (sscanf(s, "%d/%d%n", &i, &n, &k) != 2 || s[k] != '\0' || n < 1 ||
	    n > 4096 || i < 1 || i > n)
		mk_usage_error("--shard %s: I/N, 1 <= I <= N <= 4096 (slice I "
		    "of N)", s);
	j->shard = i;
	j->nshard = n;
}

/* --lose-gpu STEP:LIST: a step, then GPUs each once. */
static void
lose_of(const char *s, struct mk_eplb_replay_job *j)
{
	const char *colon;
	char step[32];
	int i, k;

	if (s == NULL)
		return;
	if ((colon = strchr(s, ':')) == NULL || colon == s || (size_t)(colon -
	    s) >= sizeof(step) || colon[1] == '\0')
		mk_usage_error("--lose-gpu %s: not STEP:LIST (the step, then the "
		    "GPUs lost, as 500:3,7)", s);
	memcpy(step, s, (size_t)(colon - s));
	step[colon - s] = '\0';
	j->lose_step = (int)mk_arg_int(step, 0, 1 << 30,
	    "--lose-gpu");
	j->nlose = mk_arg_int_list(colon + 1, 0, (1 << 24) - 1, j->lose,
	    MK_EPLB_LOST_MAX, "--lose-gpu");
	for (i = 0; i < j->nlose; i++)
		for (k = 0; k < i; k++)
			if (j->lose[k] == j->lose[i])
				mk_usage_error("--lose-gpu: GPU %d named twice",
				    j->lose[i]);
}

int
main(int argc, char *argv[])
{
	static const char *const off_on[] = { "off", "on" };
	struct mk_eplb_replay_job j = { 0 };
	struct mk_moe_jsonl fields;
	struct mk_err e;
	char buf[256];
	int i;

	mk_init(argc, argv);
	mk_eplb_opts_declare(opts, 1);
	mk_opts_parse(argc, argv, opts, NOPT, MK_OPT_OUTPUT | MK_OPT_THREADS,
	    &usage, &j.c);
	mk_eplb_opts_read(opts, 0, 0, &j.l);
	for (i = 0; i < MK_EPLB_O_OWN; i++)
		j.given[i] = mk_opt_given(&opts[i]) > 0;
	j.nitv = mk_opt_ints(&opts[O_INTERVAL], 1, 1 << 30, j.itv,
	    MK_EPLB_LIST, 0);
	if ((j.neng = mk_opt_picks(&opts[O_ENGINE], mk_eplb_engine_names,
	    MK_NENGINE, j.eng)) == 0) {
		j.eng[0] = MK_ENGINE_VLLM;
		j.neng = 1;
	}
	if ((j.nasync = mk_opt_picks(&opts[O_ASYNC], off_on, 2, j.async)) ==
	    0) {
		j.async[0] = 1;
		j.nasync = 1;
	}
	j.async_given = mk_opt_given(&opts[O_ASYNC]) > 0;
	j.interval_given = mk_opt_given(&opts[O_INTERVAL]) > 0;
	j.chunk_given = mk_opt_given(&opts[O_CHUNK]) > 0;
	j.nchunk = mk_opt_ints(&opts[O_CHUNK], 1, 1 << 20, j.chunk,
	    MK_EPLB_LIST, 0);
	j.nupd = mk_opt_ints(&opts[O_UPD], 1, 1 << 20, j.upd, MK_EPLB_LIST,
	    0);
	j.score_from = (int)mk_opt_int_in(&opts[O_SCORE], 0, 1 << 30, -1);
	shard_of(mk_opt_str(&opts[O_SHARD]), &j);
	j.link_gbps = mk_opt_real_in(&opts[O_LINK], 1e-9, 1e9, 0);
	j.moe_ms = mk_opt_real_in(&opts[O_MOE], 1e-9, 1e9, 0);
	if (j.link_gbps > 0 && !j.given[MK_EPLB_O_BYTES])
		mk_usage_error("--link-gbps %g: a move's time needs what an "
		    "expert weighs: give --expert-bytes", j.link_gbps);
	lose_of(mk_opt_str(&opts[O_LOSE]), &j);
	j.E = (int)mk_opt_int_in(&opts[O_E], 1, 1 << 20, 0);
	j.tps = (int)mk_opt_int_in(&opts[O_TPS], 1, 1 << 30, 1);
	if (mk_moe_jsonl_fields(mk_opt_str(&opts[O_FIELDS]), &fields, buf,
	    sizeof(buf), &e) < 0)
		mk_usage_error("%s", e.msg);
	j.fields = &fields;
	j.plot = mk_opt_path(&opts[O_PLOT]);
	j.steps = mk_opt_path(&opts[O_STEPS]);
	j.file = mk_opt_path(&opts[O_FILE]);
	return mk_eplb_replay_run(&j);
}
