/*
 * eplb-replay - replay a per-step expert load log (or routing records)
 * through rebalancing policies and print, for every configuration of the
 * lists given, what balance it kept and what it moved: one CSV row each.
 */
#include <stdlib.h>

#include "moekit.h"
#include "cli/opt.h"
#include "eplb/eplb_run.h"
#include "moe/jsonl.h"

enum { O_INTERVAL = MK_EPLB_O_OWN, O_E, O_TPS, O_FIELDS, O_PLOT, O_STEPS,
	O_FILE, NOPT };

static struct mk_opt opts[NOPT] = {
	[O_INTERVAL] = { MK_OPT_VALUE, NULL, "interval", "LIST", "steps "
	    "between re-plans (default 3000)", NULL },
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
	    "[--skip-zero-layers] [--interval LIST] [-E E] "
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

int
main(int argc, char *argv[])
{
	struct mk_eplb_replay_job j = { 0 };
	struct mk_moe_jsonl fields;
	struct mk_err e;
	char buf[256];

	mk_init(argc, argv);
	mk_eplb_opts_declare(opts, 1);
	mk_opts_parse(argc, argv, opts, NOPT, MK_OPT_OUTPUT | MK_OPT_THREADS,
	    &usage, &j.c);
	mk_eplb_opts_read(opts, 0, 1000, &j.l);
	j.nitv = mk_opt_ints(&opts[O_INTERVAL], 1, 1 << 30, j.itv,
	    MK_EPLB_LIST, 3000);
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
