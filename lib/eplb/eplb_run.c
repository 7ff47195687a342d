/*
 * eplb_run.c - what eplb-plan and eplb-replay share: their options,
 * declared once (eplb_run.h), one table, eplb-replay's taking lists; and
 * their inputs, which no output may replace.
 */
#include <string.h>

#include "cli/io.h"
#include "eplb/eplb_run.h"
#include "moe/loads.h"

void
mk_eplb_input(const char *path)
{
	mk_out_input(path);
	if (mk_loads_is_trtllm_dir(path))
		mk_out_input_dir(path, mk_loads_trtllm_reads);
}

/* An option of both: its names, and each tool's datatype and help. */
struct shared {
	enum mk_opt_kind kind;
	const char	*shortopts, *longopts;
	const char	*one, *list;		/* datatypes */
	const char	*plan, *replay;		/* help lines */
};

static const struct shared shared[MK_EPLB_O_OWN] = {
	[MK_EPLB_O_R] = { MK_OPT_VALUE, "r", "replicas", "R", "LIST",
	    "slots per layer", "slots per layer" },
	[MK_EPLB_O_NRED] = { MK_OPT_VALUE, NULL, "num-redundant-experts", "N",
	    "LIST", "R = E + N", "R = E + N" },
	[MK_EPLB_O_G] = { MK_OPT_REQUIRED, "G", "gpus,num-gpus", "G", "LIST",
	    "GPUs (R/G slots each)", "GPUs" },
	[MK_EPLB_O_N] = { MK_OPT_VALUE, "n", "nodes,num-nodes", "N", "LIST",
	    "nodes (default 1)", "nodes (default 1)" },
	[MK_EPLB_O_K] = { MK_OPT_VALUE, "g", "groups,num-groups", "K", "LIST",
	    "expert groups (default 1)", "expert groups (default 1)" },
	[MK_EPLB_O_POLICY] = { MK_OPT_VALUE, NULL, "policy",
	    "auto|hierarchical|global", "LIST", "(auto: hierarchical when "
	    "N > 1, K % N == 0)", "auto|hierarchical|global (default auto)" },
	[MK_EPLB_O_ALGO] = { MK_OPT_VALUE, "a", "algo",
	    "deepseek|waterfill|best", "LIST", "(default best)",
	    "deepseek|waterfill|best (default: deepseek; best with "
	    "--history > 1)" },
	[MK_EPLB_O_WINDOW] = { MK_OPT_VALUE, NULL, "window", "N", "LIST",
	    "the last N steps of a [T,L,E] log (default all)", "steps a "
	    "re-plan sees (default 1000)" },
	[MK_EPLB_O_HISTORY] = { MK_OPT_VALUE, NULL, "history", "K", "LIST",
	    "K windows: K scenarios", "windows as scenarios (default 1)" },
	[MK_EPLB_O_MOVES] = { MK_OPT_VALUE, NULL, "max-moves", "M", "LIST",
	    "change at most M (layer, slot) pairs of PLAN", "slots a re-plan "
	    "may change, or none (default)" },
	[MK_EPLB_O_GAIN] = { MK_OPT_VALUE, NULL, "min-gain", "X", "LIST",
	    "keep PLAN unless the gain is X (0.02: 2%)", "re-plan only for "
	    "this gain, or none (default)" },
	[MK_EPLB_O_BYTES] = { MK_OPT_VALUE, NULL, "expert-bytes", "B", "LIST",
	    "an expert's weights, bytes (--stats: bytes moved)", "an expert's "
	    "weights (44M: DeepSeek-V3 in FP8)" },
	[MK_EPLB_O_SKIP] = { MK_OPT_FLAG, NULL, "skip-zero-layers", NULL, NULL,
	    "drop all-zero (dense) layers", "drop all-zero (dense) layers" },
};

void
mk_eplb_opts_declare(struct mk_opt *t, int lists)
{
	const struct shared *s;
	int i;

	for (i = 0; i < MK_EPLB_O_OWN; i++) {
		s = &shared[i];
		t[i] = (struct mk_opt){ s->kind, s->shortopts, s->longopts,
		    lists ? s->list : s->one, lists ? s->replay : s->plan,
		    NULL };
	}
}

/* eplb-plan takes one value where eplb-replay sweeps a list. */
static int
one(const struct mk_opt *t, int n, int one_value)
{
	if (one_value && n > 1)
		mk_usage_error("%s %s: one value (eplb-replay sweeps a list)",
		    mk_opt_name(t), mk_opt_str(t));
	return n;
}

void
mk_eplb_slot_counts(const char *file, const struct mk_loads *ld,
    const int *r, int nr, int red_given)
{
	int i;

	for (i = 0; ld->trtllm && !red_given && i < nr; i++)
		if (r[i] == ld->E)
			mk_usage_error("%s: %d counts a layer, as many as -r's "
			    "%d slots: TensorRT-LLM counts by slot, not by "
			    "expert, when its load balancer is on (meta_info."
			    "json's num_experts is then the slots). Record "
			    "with the load balancer off; for a model of %d "
			    "experts and none redundant, give "
			    "--num-redundant-experts 0", file, ld->E, r[i],
			    ld->E);
}

void
mk_eplb_opts_read(const struct mk_opt *t, int one_value, int win_def,
    struct mk_eplb_lists *l)
{
	const struct mk_opt *o = t;
	double v[MK_EPLB_LIST];
	int i, b = one_value;

	memset(l, 0, sizeof(*l));
	l->nr = mk_opt_given(&o[MK_EPLB_O_R]) ? one(&o[MK_EPLB_O_R],
	    mk_opt_ints(&o[MK_EPLB_O_R], 1, 1 << 24, l->r, MK_EPLB_LIST, 0),
	    b) : 0;
	l->nred = mk_opt_given(&o[MK_EPLB_O_NRED]) ? one(&o[MK_EPLB_O_NRED],
	    mk_opt_ints(&o[MK_EPLB_O_NRED], 0, 1 << 24, l->red, MK_EPLB_LIST,
	    0), b) : 0;
	l->ng = one(&o[MK_EPLB_O_G], mk_opt_ints(&o[MK_EPLB_O_G], 1, 1 << 24,
	    l->g, MK_EPLB_LIST, 0), b);
	l->nn = one(&o[MK_EPLB_O_N], mk_opt_ints(&o[MK_EPLB_O_N], 1, 1 << 24,
	    l->n, MK_EPLB_LIST, 1), b);
	l->nk = one(&o[MK_EPLB_O_K], mk_opt_ints(&o[MK_EPLB_O_K], 1, 1 << 24,
	    l->k, MK_EPLB_LIST, 1), b);
	if ((l->npol = one(&o[MK_EPLB_O_POLICY], mk_opt_picks(
	    &o[MK_EPLB_O_POLICY], mk_eplb_policy_names, MK_EPLB_NPOLICY,
	    l->pol), b)) == 0) {
		l->pol[0] = MK_EPLB_AUTO;
		l->npol = 1;
	} else {
		l->pol_given = 1;
	}
	if ((l->nalgo = one(&o[MK_EPLB_O_ALGO], mk_opt_picks(
	    &o[MK_EPLB_O_ALGO], mk_eplb_algo_names, MK_EPLB_NALGO, l->algo),
	    b)) == 0) {
		l->algo[0] = MK_EPLB_BEST;
		l->nalgo = 1;
	} else {
		l->algo_given = 1;
	}
	l->nwin = one(&o[MK_EPLB_O_WINDOW], mk_opt_ints(&o[MK_EPLB_O_WINDOW],
	    1, 1 << 30, l->win, MK_EPLB_LIST, win_def), b);
	l->nhis = one(&o[MK_EPLB_O_HISTORY], mk_opt_ints(
	    &o[MK_EPLB_O_HISTORY], 1, MK_EPLB_MAX_SCENARIOS, l->his,
	    MK_EPLB_LIST, 1), b);
	l->nmov = one(&o[MK_EPLB_O_MOVES], mk_opt_nums(&o[MK_EPLB_O_MOVES],
	    MK_NUM_COUNT, v, MK_EPLB_LIST, -1), b);
	for (i = 0; i < l->nmov; i++)
		l->mov[i] = (int64_t)v[i];
	l->ngain = one(&o[MK_EPLB_O_GAIN], mk_opt_nums(&o[MK_EPLB_O_GAIN],
	    MK_NUM_FRACTION, l->gain, MK_EPLB_LIST, -1), b);
	l->nbytes = one(&o[MK_EPLB_O_BYTES], mk_opt_nums(&o[MK_EPLB_O_BYTES],
	    MK_NUM_BYTES, l->bytes, MK_EPLB_LIST, 0), b);
	l->skip = mk_opt_given(&o[MK_EPLB_O_SKIP]) > 0;
}
