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
#include "eplb.h"
#include "loads.h"

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

static int
pick(const char *v, const char *const *names, int n, const char *opt)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0)
			return i;
	mk_usage_error("%s: '%s' is not one of %s%s%s%s%s", opt, v, names[0],
	    n > 1 ? ", " : "", n > 1 ? names[1] : "", n > 2 ? ", " : "",
	    n > 2 ? names[2] : "");
}

static void
parse_args(int argc, char **argv, struct opts *o)
{
	static const char *const policies[] = { "auto", "hierarchical",
	    "global" };
	static const char *const algos[] = { "deepseek", "waterfill", "best" };
	static const char *const widths[] = { "seed", "max" };
	struct mk_common c;
	struct arg_str *r, *g, *n, *k, *policy, *algo, *window, *width,
	    *effort;
	struct arg_lit *skip, *stats;
	struct arg_file *prev, *report, *file;
	struct arg_end *end;
	struct mk_err e;

	mk_common_args(&c, MK_OPT_FORMAT | MK_OPT_EMIT | MK_OPT_OUTPUT |
	    MK_OPT_THREADS);
	r = arg_str1("r", "replicas", "R", "physical expert slots per layer "
	    "(required)");
	g = arg_str1("G", "gpus", "G", "GPUs (required; R/G slots each)");
	n = arg_str0("n", "nodes", "N", "nodes (default 1)");
	k = arg_str0("g", "groups", "K", "expert groups (default 1)");
	policy = arg_str0(NULL, "policy", "auto|hierarchical|global",
	    "placement policy (auto: hierarchical when K %% N == 0)");
	algo = arg_str0("a", "algo", "deepseek|waterfill|best",
	    "algorithm (default best)");
	window = arg_str0(NULL, "window", "N", "sum the last N steps of a "
	    "[T,L,E] log (default all)");
	skip = arg_lit0(NULL, "skip-zero-layers", "drop layers whose loads "
	    "are all zero (dense layers)");
	width = arg_str0(NULL, "log2phy-width", "seed|max", "log2phy width: "
	    "R-E+1 (seed) or the largest count (max)");
	prev = arg_file0(NULL, "prev", "PLAN", "previous phy2log: relabel to "
	    "move the fewest experts");
	stats = arg_lit0(NULL, "stats", "per-layer statistics on stderr "
	    "(CSV)");
	report = arg_file0(NULL, "report", "FILE", "write the statistics to "
	    "FILE instead");
	effort = arg_str0(NULL, "effort", "N", "best: search steps per node "
	    "and layer (default 64)");
	file = arg_file0(NULL, NULL, "FILE", "loads (default: stdin)");
	end = arg_end(20);
	void *argtable[] = { r, g, n, k, policy, algo, window, skip, width,
	    prev, stats, report, effort, c.format, c.emit, c.output,
	    c.threads, c.verbose, c.help, c.version, file, end };

	mk_cli_parse(argc, argv, argtable, &c, &usage, &o->c);
	memset(&o->cfg, 0, sizeof(o->cfg));
	o->cfg.R = (int)mk_opt_int(r->sval[0], 1, 1 << 24, "--replicas");
	o->cfg.G = (int)mk_opt_int(g->sval[0], 1, 1 << 24, "--gpus");
	o->cfg.N = n->count ? (int)mk_opt_int(n->sval[0], 1, 1 << 24,
	    "--nodes") : 1;
	o->cfg.K = k->count ? (int)mk_opt_int(k->sval[0], 1, 1 << 24,
	    "--groups") : 1;
	o->cfg.algo = algo->count ? pick(algo->sval[0], algos, 3, "--algo") :
	    MK_EPLB_BEST;
	o->cfg.effort = effort->count ? (int)mk_opt_int(effort->sval[0], 1,
	    1 << 30, "--effort") : 0;
	o->policy = policy->count ? pick(policy->sval[0], policies, 3,
	    "--policy") : MK_EPLB_AUTO;
	o->window = window->count ? (int)mk_opt_int(window->sval[0], 1,
	    1 << 30, "--window") : 0;
	o->skip_zero = skip->count > 0;
	o->width_max = width->count ? pick(width->sval[0], widths, 2,
	    "--log2phy-width") : 0;
	o->stats = stats->count > 0 || report->count > 0;
	o->report = report->count ? report->filename[0] : NULL;
	o->prev = prev->count ? prev->filename[0] : NULL;
	o->input = file->count ? file->filename[0] : NULL;
	if (o->prev && o->input && strcmp(o->prev, o->input) == 0 &&
	    strcmp(o->prev, "-") == 0)
		mk_usage_error("--prev - and the loads cannot both be stdin");
	if (o->prev && !o->input && strcmp(o->prev, "-") == 0)
		mk_usage_error("--prev -: the loads are on stdin already; "
		    "give the loads as FILE");
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
	struct mk_tensor t;
	struct mk_src *s;
	struct mk_err e;
	int64_t *p, v;
	size_t i;
	char sb[sizeof(e.msg)];

	if ((s = mk_src_open(path, &e)) == NULL)
		mk_fail(NULL, &e);
	mk_tensor_init(&t);
	if (mk_src_next(s, &t, &e) < 0) {
		snprintf(sb, sizeof(sb), "%s", e.msg);
		mk_err_data(&e, "--prev %s", sb);
		mk_fail(s, &e);
	}
	if (mk_dtype_kind(t.dtype) == MK_KIND_FLOAT ||
	    t.nelem != (size_t)L * (size_t)c->R ||
	    (t.ndim != 2 && !(t.ndim == 1 && L == 1)) ||
	    t.shape[t.ndim - 1] != c->R) {
		mk_err_data(&e, "--prev %s: shape (%s) of %s is not a phy2log "
		    "of %d layers x %d slots (integers)", mk_src_name(s),
		    mk_shape_str(sb, sizeof(sb), t.ndim, t.shape),
		    mk_dtype_name(t.dtype), L, c->R);
		mk_tensor_free(&t);
		mk_fail(s, &e);
	}
	if ((p = malloc(sizeof(int64_t) * t.nelem)) == NULL)
		err(MK_EXIT_DATA, NULL);
	for (i = 0; i < t.nelem; i++) {
		v = mk_tensor_get_i64(&t, i);
		if (v < 0 || v >= c->E) {
			mk_err_data(&e, "--prev %s: layer %zu, slot %zu: expert "
			    "%lld is not in [0, %d)", mk_src_name(s),
			    i / (size_t)c->R, i % (size_t)c->R, (long long)v,
			    c->E);
			free(p);
			mk_tensor_free(&t);
			mk_fail(s, &e);
		}
		p[i] = v;
	}
	mk_tensor_free(&t);
	mk_src_close(s);
	return p;
}

static void
write_stats(const struct opts *o, const struct mk_loads *ld,
    const struct mk_eplb_stat *st)
{
	struct mk_out *out = NULL;
	FILE *fp = stderr;
	double smax = 0, smean = 0, slb = 0, sgap = 0, somax = 0;
	int64_t sch = 0, scp = 0;
	int l, other = ld->L > 0 && st[0].has_other;

	if (o->report != NULL) {
		out = mk_out_open(o->report, MK_FMT_CSV);
		fp = out->fp;
	}
	fprintf(fp, "layer,max_load,mean_load,balancedness,lower_bound,gap,"
	    "other_policy,other_max_load,other_balancedness%s\n",
	    o->prev ? ",slots_changed,experts_copied" : "");
	for (l = 0; l < ld->L; l++) {
		const struct mk_eplb_stat *s = &st[l];
		fprintf(fp, "%d,%.10g,%.10g,%.6f,%.10g,%.6f,", ld->layer[l],
		    s->max, s->mean, s->balancedness, s->lower_bound, s->gap);
		if (s->has_other)
			fprintf(fp, "%s,%.10g,%.6f", o->cfg.hier ? "global" :
			    "hierarchical", s->other_max, s->other_balancedness);
		else
			fprintf(fp, ",,");
		if (o->prev)
			fprintf(fp, ",%lld,%lld", (long long)s->changed,
			    (long long)s->copies);
		fputc('\n', fp);
		smax += s->max;
		smean += s->mean;
		slb += s->lower_bound;
		sgap += s->gap;
		somax += s->other_max;
		sch += s->changed;
		scp += s->copies;
	}
	/* totals: sums, vLLM's balancedness, and the mean gap of layers */
	fprintf(fp, "total,%.10g,%.10g,%.6f,%.10g,%.6f,", smax, smean,
	    smax > 0 ? smean / smax : 1, slb, ld->L ? sgap / ld->L : 1);
	if (other)
		fprintf(fp, "%s,%.10g,%.6f", o->cfg.hier ? "global" :
		    "hierarchical", somax, somax > 0 ? smean / somax : 1);
	else
		fprintf(fp, ",,");
	if (o->prev)
		fprintf(fp, ",%lld,%lld", (long long)sch, (long long)scp);
	fputc('\n', fp);
	if (out != NULL)
		mk_out_close(out);
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

static int
run(struct opts *o)
{
	struct mk_loads ld;
	struct mk_eplb_out plan;
	struct mk_eplb_stat *st = NULL;
	struct mk_src *s;
	struct mk_out *w;
	struct mk_err e;
	struct timespec t0, t1;
	int64_t *prev = NULL;
	int fmt, i, l;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((s = mk_src_open(o->input, &e)) == NULL)
		mk_fail(NULL, &e);
	if ((fmt = mk_src_format(s, &e)) < 0 ||
	    mk_loads_read(s, o->window, o->skip_zero, &ld, &e) < 0)
		mk_fail(s, &e);
	mk_src_close(s);
	if (ld.skipped) {
		fprintf(stderr, "%s: --skip-zero-layers: dropped %d all-zero "
		    "layer%s (", mk_progname(), ld.nzero, ld.nzero > 1 ? "s" :
		    "");
		for (l = 0; l < ld.nzero; l++)
			fprintf(stderr, "%s%d", l ? " " : "", ld.zero[l]);
		fprintf(stderr, "); planning %d\n", ld.L);
	}
	o->cfg.E = ld.E;
	if (mk_eplb_config(&o->cfg, o->policy, &e) < 0) {
		mk_loads_free(&ld);
		mk_usage_error("%s", e.msg);
	}
	if (o->c.verbose)
		fprintf(stderr, "%s: %d layers x %d experts -> %d slots on %d "
		    "GPUs, %d nodes, %d groups, %s policy%s\n", mk_progname(),
		    ld.L, ld.E, o->cfg.R, o->cfg.G, o->cfg.N, o->cfg.K,
		    o->cfg.hier ? "hierarchical" : "global", ld.T ?
		    ", steps summed" : "");
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
	if (o->stats) {
		if ((st = calloc((size_t)ld.L, sizeof(*st))) == NULL)
			err(MK_EXIT_DATA, NULL);
		if (mk_eplb_stats(&o->cfg, ld.w, &plan, prev, st, &e) < 0)
			errx(e.status, "%s", e.msg);
	}
	w = mk_out_open(o->c.output, o->c.format != MK_FMT_AUTO ?
	    o->c.format : fmt == MK_FMT_CSV ? MK_FMT_CSV : MK_FMT_NPY);
	for (i = 0; i < o->nemit; i++)
		put(w, o->emit[i], &o->cfg, &plan);
	if (st != NULL)
		write_stats(o, &ld, st);
	mk_out_close(w);
	free(st);
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
