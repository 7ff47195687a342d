/*
 * eplb-plan - read expert loads (NPY, CSV, SGLang or vLLM JSON) and write
 * an expert placement: phy2log [L, R], log2phy [L, E, X] and logcnt
 * [L, E], all i64, as one tensor stream.
 */
#include <err.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include <argtable2.h>

#include "moekit.h"
#include "eplb/eplb.h"
#include "eplb/eplb_plan.h"
#include "eplb/loads.h"

static const char *const outputs[] = { "phy2log", "log2phy", "logcnt" };

struct opts {
	struct mk_opts	 c;
	struct mk_eplb_cfg cfg;
	int		 policy;
	int		 window;
	int		 skip_zero;
	int		 width_max;
	int		 stats;
	const char	*report;
	const char	*prev;
	const char	*input;
	int		 emit[8], nemit;
};

static const struct mk_usage usage = {
	"-r R -G G [-n N] [-g K] [--policy auto|hierarchical|global] "
	    "[-a deepseek|waterfill|best] [--window N] [--skip-zero-layers] "
	    "[--log2phy-width seed|max] [--prev PLAN] [--stats] "
	    "[--report FILE] [--effort N] [-f csv|npy] [--emit LIST] "
	    "[-o FILE] [--threads N] [-hVv] [FILE]",
	"Plan where expert replicas live from expert load logs.",
	"Outputs, in order: phy2log [L,R], log2phy [L,E,X], logcnt [L,E] (i64).\n"
	    "FILE: loads [E], [L,E] or [T,L,E] (NPY/CSV), a layer,expert,load "
	    "CSV,\nan SGLang {\"logical_count\"} or vLLM {\"load_history\"} "
	    "JSON; none or -: stdin.\n",
};

/* The options of the table, by name. */
struct args {
	struct arg_str	*r, *g, *n, *k, *policy, *algo, *window, *width,
			*effort;
	struct arg_lit	*skip, *stats;
	struct arg_file	*prev, *report, *file;
};

static void
make_args(struct args *a)
{
	a->r = arg_str1("r", "replicas", "R", "physical expert slots per "
	    "layer (required)");
	a->g = arg_str1("G", "gpus", "G", "GPUs (required; R/G slots each)");
	a->n = arg_str0("n", "nodes", "N", "nodes (default 1)");
	a->k = arg_str0("g", "groups", "K", "expert groups (default 1)");
	a->policy = arg_str0(NULL, "policy", "auto|hierarchical|global",
	    "placement policy (auto: hierarchical when K %% N == 0)");
	a->algo = arg_str0("a", "algo", "deepseek|waterfill|best",
	    "algorithm (default best)");
	a->window = arg_str0(NULL, "window", "N", "sum the last N steps of a "
	    "[T,L,E] log (default all)");
	a->skip = arg_lit0(NULL, "skip-zero-layers", "drop layers whose "
	    "loads are all zero (dense layers)");
	a->width = arg_str0(NULL, "log2phy-width", "seed|max", "log2phy "
	    "width: R-E+1 (seed) or the largest count (max)");
	a->prev = arg_file0(NULL, "prev", "PLAN", "previous phy2log: relabel "
	    "to move the fewest experts");
	a->stats = arg_lit0(NULL, "stats", "per-layer statistics on stderr "
	    "(CSV)");
	a->report = arg_file0(NULL, "report", "FILE", "write the statistics "
	    "to FILE instead");
	a->effort = arg_str0(NULL, "effort", "N", "best: search steps per "
	    "node and layer (default 64)");
	a->file = arg_file0(NULL, NULL, "FILE", "loads (default: stdin)");
}

static void
parse_args(int argc, char **argv, struct opts *o)
{
	static const char *const policies[] = { "auto", "hierarchical",
	    "global" };
	static const char *const algos[] = { "deepseek", "waterfill", "best" };
	static const char *const widths[] = { "seed", "max" };
	static const char *const inputs[] = { "--prev", "FILE" };
	struct mk_common c;
	struct mk_err e;
	struct args a;

	mk_common_args(&c, MK_OPT_FORMAT | MK_OPT_EMIT | MK_OPT_OUTPUT |
	    MK_OPT_THREADS);
	make_args(&a);
	void *argtable[] = { a.r, a.g, a.n, a.k, a.policy, a.algo, a.window,
	    a.skip, a.width, a.prev, a.stats, a.report, a.effort, c.format,
	    c.emit, c.output, c.threads, c.verbose, c.help, c.version, a.file,
	    arg_end(20) };

	mk_cli_parse(argc, argv, argtable, &c, &usage, &o->c);
	memset(&o->cfg, 0, sizeof(o->cfg));
	o->cfg.R = (int)mk_arg_int(a.r, 1, 1 << 24, 0, "--replicas");
	o->cfg.G = (int)mk_arg_int(a.g, 1, 1 << 24, 0, "--gpus");
	o->cfg.N = (int)mk_arg_int(a.n, 1, 1 << 24, 1, "--nodes");
	o->cfg.K = (int)mk_arg_int(a.k, 1, 1 << 24, 1, "--groups");
	o->cfg.algo = mk_arg_choice(a.algo, algos, 3, MK_EPLB_BEST, "--algo");
	o->cfg.effort = (int)mk_arg_int(a.effort, 1, 1 << 30, 0, "--effort");
	o->policy = mk_arg_choice(a.policy, policies, 3, MK_EPLB_AUTO,
	    "--policy");
	o->window = (int)mk_arg_int(a.window, 1, 1 << 30, 0, "--window");
	o->skip_zero = a.skip->count > 0;
	o->width_max = mk_arg_choice(a.width, widths, 2, 0, "--log2phy-width");
	o->stats = a.stats->count > 0 || a.report->count > 0;
	o->report = mk_arg_file(a.report);
	o->prev = mk_arg_file(a.prev);
	o->input = mk_arg_file(a.file);
	if (o->prev != NULL)
		mk_opt_one_stdin(2, (const char *[]){ o->prev, o->input },
		    inputs, 1);
	o->nemit = 3;
	o->emit[0] = 0;
	o->emit[1] = 1;
	o->emit[2] = 2;
	if (o->c.emit && (o->nemit = mk_select(o->c.emit, outputs, 3,
	    o->emit, 8, &e)) < 0)
		mk_usage_error("%s", e.msg);
}

/* The previous plan: its first tensor, [L, R] (or [R] for one layer). */
static int64_t *
read_prev(const char *path, const struct mk_eplb_cfg *c, int L)
{
	struct mk_phy2log pl;
	struct mk_err e;
	char what[300], sb[64];
	int64_t *p;

	if (mk_phy2log_read(path, "--prev", &pl, &e) < 0)
		mk_fail(NULL, &e);
	snprintf(what, sizeof(what), "--prev %s", strcmp(path, "-") ? path :
	    "stdin");
	if (pl.L != L || pl.R != c->R || (pl.ndim == 1 && L != 1)) {
		mk_err_data(&e, "%s: shape (%s) of %s is not a phy2log of %d "
		    "layers x %d slots (integers)", what, mk_shape_str(sb,
		    sizeof(sb), pl.ndim, pl.shape), mk_dtype_name(pl.dtype), L,
		    c->R);
		mk_fail(NULL, &e);
	}
	if (mk_phy2log_check(&pl, -1, c->E, what, &e) < 0)
		mk_fail(NULL, &e);
	p = pl.p;
	pl.p = NULL;
	mk_phy2log_free(&pl);
	return p;
}

/* Write one output of the plan; log2phy is built a layer at a time. */
static void
put(struct mk_out *w, int which, const struct mk_eplb_cfg *c,
    const struct mk_eplb_out *plan)
{
	int64_t shape[3] = { plan->L, which == 0 ? c->R : c->E, plan->X };
	int64_t *buf;
	int l;

	mk_out_begin(w, outputs[which], MK_I64, which == 1 ? 3 : 2, shape);
	if (which == 0) {
		mk_out_data(w, plan->phy2log, (size_t)plan->L * (size_t)c->R);
	} else if (which == 2) {
		mk_out_data(w, plan->cnt, (size_t)plan->L * (size_t)c->E);
	} else {
		buf = malloc(sizeof(int64_t) * (size_t)c->E * (size_t)plan->X);
		if (buf == NULL)
			err(MK_EXIT_DATA, NULL);
		for (l = 0; l < plan->L; l++) {
			mk_eplb_log2phy(c, plan, l, buf);
			mk_out_data(w, buf, (size_t)c->E * (size_t)plan->X);
		}
		free(buf);
	}
	mk_out_end(w);
}

/* The loads, and the configuration checked against them. */
static void
read_loads(struct opts *o, struct mk_loads *ld, int *fmt)
{
	struct mk_src *s;
	struct mk_err e;
	int l;

	if ((s = mk_src_open(o->input, &e)) == NULL)
		mk_fail(NULL, &e);
	if ((*fmt = mk_src_format(s, &e)) < 0 ||
	    mk_loads_read(s, o->window, o->skip_zero, ld, &e) < 0)
		mk_fail(s, &e);
	mk_src_close(s);
	if (ld->skipped) {
		fprintf(stderr, "%s: --skip-zero-layers: dropped %d all-zero "
		    "layer%s (", mk_progname(), ld->nzero, ld->nzero > 1 ? "s" :
		    "");
		for (l = 0; l < ld->nzero; l++)
			fprintf(stderr, "%s%d", l ? " " : "", ld->zero[l]);
		fprintf(stderr, "); planning %d\n", ld->L);
	}
	o->cfg.E = ld->E;
	if (mk_eplb_config(&o->cfg, o->policy, &e) < 0)
		mk_usage_error("%s", e.msg);
	if (o->c.verbose)
		fprintf(stderr, "%s: %d layers x %d experts -> %d slots on %d "
		    "GPUs, %d nodes, %d groups, %s policy%s\n", mk_progname(),
		    ld->L, ld->E, o->cfg.R, o->cfg.G, o->cfg.N, o->cfg.K,
		    o->cfg.hier ? "hierarchical" : "global", ld->T ?
		    ", steps summed" : "");
}

/* The statistics table: to --report FILE (opened first), or stderr. */
static void
write_stats(const struct opts *o, struct mk_out *rep,
    const struct mk_loads *ld, const struct mk_eplb_out *plan,
    const int64_t *prev)
{
	struct mk_eplb_stat *st;
	struct mk_err e;

	if ((st = calloc((size_t)ld->L, sizeof(*st))) == NULL)
		err(MK_EXIT_DATA, NULL);
	if (mk_eplb_stats(&o->cfg, ld->w, plan, prev, st, &e) < 0)
		errx(e.status, "%s", e.msg);
	mk_eplb_stats_write(rep ? rep->fp : stderr, &o->cfg, ld->L, ld->layer,
	    st, prev != NULL);
	if (rep != NULL)
		mk_out_close(rep);
	free(st);
}

static int
run(struct opts *o)
{
	struct mk_loads ld;
	struct mk_eplb_out plan;
	struct mk_out *w, *rep = NULL;
	struct mk_err e;
	struct timespec t0, t1;
	int64_t *prev = NULL;
	int fmt, i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	read_loads(o, &ld, &fmt);
	if (o->prev != NULL)
		prev = read_prev(o->prev, &o->cfg, ld.L);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (mk_eplb_plan_all(&o->cfg, ld.w, ld.L, prev, o->width_max, &plan,
	    &e) < 0)
		errx(e.status, "%s", e.msg);
	if (o->c.verbose)
		fprintf(stderr, "%s: read in %.3f ms, planned in %.3f ms\n",
		    mk_progname(), (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6, mk_ms_since(&t1));
	/* files first: stdout opened after them is held till all are good */
	if (o->report != NULL)
		rep = mk_out_open(o->report, MK_FMT_CSV);
	w = mk_out_open(o->c.output, o->c.format != MK_FMT_AUTO ?
	    o->c.format : fmt == MK_FMT_CSV ? MK_FMT_CSV : MK_FMT_NPY);
	for (i = 0; i < o->nemit; i++)
		put(w, o->emit[i], &o->cfg, &plan);
	if (o->stats)
		write_stats(o, rep, &ld, &plan, prev);
	mk_out_close(w);
	free(prev);
	mk_eplb_out_free(&plan);
	mk_loads_free(&ld);
	return MK_EXIT_OK;
}

int
main(int argc, char *argv[])
{
	struct opts o;

	mk_init(argc, argv);
	parse_args(argc, argv, &o);
	return run(&o);
}
