/*
 * mdecode - masked flash-decoding attention on CPUs: read q, k, v and a
 * mask, write lse and out (mdecode(1)); or, with --bench, time every kernel
 * path on a grouped-query decode shape (32 q heads, 8 kv heads, 128
 * dims) against the machine's read bandwidth.
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <argtable2.h>

#include "moekit.h"
#include "base/clock.h"
#include "mdec/mdec.h"
#include "mdec/mdec_bench.h"
#include "cli/progress.h"

struct opts {
	struct mk_opts	 c;
	const char	*file, *path[MK_MDEC_NIN];	/* FILE, or -q -k -v -m;
						 * --block-table, --seq-lens */
	struct mk_mdec_in in;
	int		 out_dtype;		/* -1: q's */
	int		 bench;		/* 1: --bench, 2: --bench-kernel */
	const char	*plot;		/* --bench --plot FILE.svg */
	struct mk_mdec_bench b;
};

/* The options of the table, by name. */
struct args {
	struct arg_file	*q, *k, *v, *m, *file, *table, *lens, *plot;
	struct arg_str	*kvh, *valid, *scale, *dtype, *odt, *bsz, *qh, *maxlen,
			*dim, *dens, *isa, *threads, *reps, *seed, *layout, *bsize,
			*kscale, *vscale, *vdim;
	struct arg_lit	*bench, *bkern;
};

static const char *const dtypes[] = { "f16", "bf16", "f32", "fp8_e4m3",
    "fp8_e5m2" };
static const int dtype_of[] = { MK_F16, MK_BF16, MK_F32, MK_U8, MK_U8 };
static const char *const layouts[] = { "bhmd", "bmhd", "paged" };	/* as
					 * enum mk_mdec_layout */

static const struct mk_usage usage = {
	"[-q FILE -k FILE -v FILE [-m FILE]] [--kv-layout bhmd|bmhd|paged] "
	    "[--block-table FILE [--seq-lens FILE]] [--kv-heads KH] "
	    "[--valid-length V] [--scale S] "
	    "[--dtype f16|bf16|f32|fp8_e4m3|fp8_e5m2 [--k-scale S] [--v-scale S]] "
	    "[--v-dim DV] "
	    "[--out-dtype f16|bf16|f32] [-f csv|npy|npz] [--emit LIST] [-o FILE] "
	    "[--threads N] [--verbose] [-hV] [FILE]\n"
	    "       mdecode --bench [--plot FILE.svg]|--bench-kernel [--bsz LIST] "
	    "[--q-heads N] "
	    "[--kv-heads N] [--max-length M] [--valid-length V] [--dim D] "
	    "[--dtype LIST] [--v-dim DV] [--mask-density LIST] "
	    "[--kv-layout LIST] "
	    "[--block-size N] [--isa LIST] [--threads LIST] "
	    "[--reps N] [--seed N] [-o FILE]",
	"Masked flash-decoding attention (up to 16 query tokens) on the CPU.",
	"FILE: the tensor stream q, k, v[, mask] (none or -: stdin); or -q, -k,\n"
	    "-v, -m with one tensor each.  Outputs: lse [B,QH,Q] f32, out "
	    "[B,QH,Q,D].\n"
	    "MOEKIT_PAGED_L2=0|1: a paged cache's next pages into L2 or left "
	    "to the CPU\n(default: into L2 on AMD CPUs only).\n",
};

static void
make_args(struct args *a)
{
	a->q = arg_file0("q", "query", "FILE", "q [B,QH,Q,D] (Q <= 16) alone in FILE");
	a->k = arg_file0("k", "keys", "FILE", "k: a KV cache [B,KH,M,D], "
	    "[B,M,KH,D], paged [blocks,bs,KH,D] or flat");
	a->v = arg_file0("v", "values", "FILE", "v, shaped as k");
	a->m = arg_file0("m", "mask", "FILE", "mask [B,KH,M] or flat, bool/u8, "
	    "true = masked out");
	a->layout = arg_str0(NULL, "kv-layout", "bhmd|bmhd|paged", "how a 4-D "
	    "cache is laid out (default: from the shapes; bench: a list, "
	    "default bhmd)");
	a->bsize = arg_str0(NULL, "block-size", "N", "bench paged cache's "
	    "positions per block (default 16)");
	a->table = arg_file0(NULL, "block-table", "FILE", "paged cache: block "
	    "ids [B,blocks per sequence], integers");
	a->lens = arg_file0(NULL, "seq-lens", "FILE", "paged cache: the "
	    "sequences' lengths [B] (default --valid-length or all)");
	a->kvh = arg_str0(NULL, "kv-heads", "KH", "kv heads (flat k/v; bench "
	    "default 8)");
	a->valid = arg_str0(NULL, "valid-length", "V", "positions per row "
	    "that take part (default all; bench max/2)");
	a->scale = arg_str0(NULL, "scale", "S", "score scale (default "
	    "D^-0.5)");
	a->dtype = arg_str0(NULL, "dtype", "f16|bf16|f32|fp8_e4m3|fp8_e5m2",
	    "k/v dtype (bf16: u16 inputs hold bf16 bits; fp8: u8 inputs hold "
	    "FP8 bytes; bench: a list, default f16)");
	a->kscale = arg_str0(NULL, "k-scale", "S", "fp8: k's per-tensor "
	    "scale, real = fp8 x S (default 1)");
	a->vscale = arg_str0(NULL, "v-scale", "S", "fp8: v's per-tensor "
	    "scale (default 1)");
	a->vdim = arg_str0(NULL, "v-dim", "DV", "MLA: no v; V is the first DV "
	    "elements of each K row (DeepSeek: 512 of 576)");
	a->odt = arg_str0(NULL, "out-dtype", "f16|bf16|f32", "dtype of out "
	    "(default q's)");
	a->threads = arg_str0(NULL, "threads", "N", "threads (default: all "
	    "usable CPUs; bench: a list)");
	a->bench = arg_lit0(NULL, "bench", "time every kernel path on the "
	    "Triton kernel's shapes against the read bandwidth and against "
	    "reading only the rows it uses");
	a->plot = arg_file0(NULL, "plot", "FILE.svg", "--bench: a picture of "
	    "each path's GB/s beside the read probe");
	a->bkern = arg_lit0(NULL, "bench-kernel", "time every kernel path on "
	    "one row in cache (ns per position and kv head)");
	a->bsz = arg_str0(NULL, "bsz", "LIST", "bench batch sizes (default "
	    "1,2,4,8)");
	a->qh = arg_str0(NULL, "q-heads", "N", "bench q heads (default 32)");
	a->maxlen = arg_str0(NULL, "max-length", "M", "bench cache length "
	    "(default 131072)");
	a->dim = arg_str0(NULL, "dim", "D", "bench head size (default 128)");
	a->dens = arg_str0(NULL, "mask-density", "LIST", "bench shares of "
	    "masked positions (default 0,0.5)");
	a->isa = arg_str0(NULL, "isa", "LIST", "bench kernel paths (default: "
	    "all this CPU has)");
	a->reps = arg_str0(NULL, "reps", "N", "bench rounds per row, median "
	    "(default 11)");
	a->seed = arg_str0(NULL, "seed", "N", "bench random seed (default 0)");
	a->file = arg_file0(NULL, NULL, "FILE", "tensor stream q, k, v[, mask] "
	    "(default: stdin)");
}

static void
bench_args(const struct args *a, struct opts *o)
{
	struct mk_mdec_bench *b = &o->b;
	int i, d[5];

	b->nbsz = a->bsz->count ? mk_opt_int_list(a->bsz->sval[0], 1, 1 << 16,
	    b->bsz, MK_MDEC_BENCH_LIST, "--bsz") : 4;
	for (i = 0; !a->bsz->count && i < 4; i++)
		b->bsz[i] = 1 << i;
	b->QH = (int)mk_arg_int(a->qh, 1, 1 << 16, 32, "--q-heads");
	b->KH = o->in.kv_heads ? o->in.kv_heads : 8;
	b->M = mk_arg_int(a->maxlen, 1, (int64_t)1 << 40, 131072, "--max-length");
	b->V = o->in.valid ? o->in.valid : (b->M + 1) / 2;
	if (b->V > b->M)
		mk_usage_error("--valid-length %lld is larger than --max-length "
		    "%lld", (long long)b->V, (long long)b->M);
	b->D = (int)mk_arg_int(a->dim, 1, 65536, 128, "--dim");
	if (b->QH % b->KH != 0)
		mk_usage_error("--q-heads %d is not a multiple of --kv-heads %d",
		    b->QH, b->KH);
	b->ndens = a->dens->count ? mk_opt_double_list(a->dens->sval[0], 0, 1,
	    b->dens, MK_MDEC_BENCH_LIST, "--mask-density") : 2;
	if (!a->dens->count) {
		b->dens[0] = 0;
		b->dens[1] = 0.5;
	}
	b->reps = (int)mk_arg_int(a->reps, 1, 1000, 11, "--reps");
	b->seed = (uint64_t)mk_arg_int(a->seed, 0, INT64_MAX, 0, "--seed");
	b->nthreads = a->threads->count ? mk_opt_int_list(a->threads->sval[0],
	    1, 1024, b->threads, MK_MDEC_BENCH_LIST, "--threads") : 1;
	if (!a->threads->count)
		b->threads[0] = mk_usable_cpus();
	b->ndtype = a->dtype->count ? mk_opt_choice_list(a->dtype->sval[0],
	    dtypes, 5, d, "--dtype") : 1;
	for (i = 0; i < b->ndtype; i++) {
		b->dtype[i] = a->dtype->count ? dtype_of[d[i]] : MK_F16;
		b->fp8[i] = !a->dtype->count ? MK_FP8_NONE : d[i] == 3 ?
		    MK_FP8_E4M3 : d[i] == 4 ? MK_FP8_E5M2 : MK_FP8_NONE;
	}
	b->nisa = mk_opt_isa_list(mk_arg_str(a->isa), b->isa, "--isa");
	b->nlayout = a->layout->count ? mk_opt_choice_list(a->layout->sval[0],
	    layouts, 3, b->layout, "--kv-layout") : 1;
	if (!a->layout->count)
		b->layout[0] = 0;
	b->bs = (int)mk_arg_int(a->bsize, 1, 1 << 20, 16, "--block-size");
	/* MLA: V is K's rows, the first DV of out wanted */
	b->mla = o->in.v_dim;
	if (o->in.v_dim > b->D)
		mk_usage_error("--v-dim %d: larger than --dim %d", o->in.v_dim,
		    b->D);
}

/* --k-scale or --v-scale: finite and positive, for an FP8 cache only. */
static double
scale_arg(const struct arg_str *a, const char *opt, int fp8)
{
	double v;

	if (!a->count)
		return 1;
	if (fp8 == MK_FP8_NONE)
		mk_usage_error("%s scales an FP8 cache: give --dtype fp8_e4m3 "
		    "or fp8_e5m2", opt);
	v = mk_opt_double(a->sval[0], opt);
	if (!(v > 0) || isinf(v))
		mk_usage_error("%s %s: a scale is finite and positive", opt,
		    a->sval[0]);
	return v;
}

/* Options that change how the inputs are read. */
static void
input_args(const struct args *a, struct opts *o)
{
	int d;

	o->in.layout = a->layout->count && !o->bench ? mk_arg_choice(a->layout,
	    layouts, 3, 0, "--kv-layout") : -1;
	o->in.kv_heads = (int)mk_arg_int(a->kvh, 1, INT32_MAX, 0, "--kv-heads");
	o->in.valid = mk_arg_int(a->valid, 1, INT64_MAX, 0, "--valid-length");
	o->in.has_scale = a->scale->count > 0;
	o->in.scale = a->scale->count ? mk_opt_double(a->scale->sval[0],
	    "--scale") : 0;
	/* --bench: a list, bench_args's */
	if (a->dtype->count && !o->bench && strchr(a->dtype->sval[0], ','))
		mk_usage_error("--dtype %s: one dtype for the inputs (a list "
		    "is for --bench)", a->dtype->sval[0]);
	d = a->dtype->count && !o->bench ? mk_arg_choice(a->dtype, dtypes, 5,
	    0, "--dtype") : -1;
	o->in.dtype = d >= 0 && d < 3 ? dtype_of[d] : -1;
	o->in.bf16 = o->in.dtype == MK_BF16;
	o->in.fp8 = d == 3 ? MK_FP8_E4M3 : d == 4 ? MK_FP8_E5M2 : MK_FP8_NONE;
	o->in.kscale = o->bench ? 1 : scale_arg(a->kscale, "--k-scale",
	    o->in.fp8);
	o->in.vscale = o->bench ? 1 : scale_arg(a->vscale, "--v-scale",
	    o->in.fp8);
	o->in.v_dim = (int)mk_arg_int(a->vdim, 1, 65536, 0, "--v-dim");
	if (o->in.v_dim > 0 && a->vscale->count && !o->bench)
		mk_usage_error("--v-scale: with --v-dim, V is K's own bytes "
		    "and takes --k-scale");
	o->out_dtype = a->odt->count ? dtype_of[mk_arg_choice(a->odt, dtypes,
	    3, 0, "--out-dtype")] : -1;
}

/* The rules between options of one mode and the other. */
static void
mode_rules(const struct args *a, const struct mk_common *c, struct opts *o)
{
	static const char *const names[] = { "-q", "-k", "-v", "-m",
	    "--block-table", "--seq-lens" };
	int files = a->q->count || a->k->count || a->v->count || a->m->count;

	if (a->bench->count && a->bkern->count)
		mk_usage_error("--bench or --bench-kernel, not both");
	if (a->plot->count && !a->bench->count)
		mk_usage_error("--plot draws --bench's table: it needs --bench");
	if (o->bench && (o->file || files))
		mk_usage_error("--bench makes its own inputs: give no FILE, "
		    "-q, -k, -v or -m");
	if (o->bench && (a->table->count || a->lens->count))
		mk_usage_error("--bench makes its own caches: --block-table and "
		    "--seq-lens do not apply (--kv-layout paged times one)");
	if (!o->bench && a->bsize->count)
		mk_usage_error("--block-size needs --bench (a paged cache's "
		    "block size is its k's dimension 1)");
	if (a->lens->count && !a->table->count)
		mk_usage_error("--seq-lens needs --block-table (the lengths of "
		    "a paged cache's sequences)");
	if (o->bench && (a->odt->count || a->scale->count ||
	    a->kscale->count || a->vscale->count || c->emit->count ||
	    c->format->count))
		mk_usage_error("--bench writes a CSV table: --out-dtype, "
		    "--scale, --k-scale, --v-scale, --emit and -f do not "
		    "apply");
	if (!o->bench && (a->bsz->count || a->qh->count || a->maxlen->count ||
	    a->dim->count || a->dens->count || a->isa->count ||
	    a->reps->count || a->seed->count))
		mk_usage_error("--bsz, --q-heads, --max-length, --dim, "
		    "--mask-density, --isa, --reps and --seed need --bench");
	if (o->bench)
		return;
	if (!files) {
		/* the stream is stdin unless FILE names a file */
		if ((o->file == NULL || strcmp(o->file, "-") == 0) &&
		    ((o->path[4] && strcmp(o->path[4], "-") == 0) ||
		    (o->path[5] && strcmp(o->path[5], "-") == 0)))
			mk_usage_error("the stream q, k, v[, mask] is read from "
			    "stdin: --block-table and --seq-lens need files");
		mk_opt_one_stdin(MK_MDEC_NIN, o->path, names, -1);
		return;
	}
	if (a->vdim->count && a->v->count)
		mk_usage_error("--v-dim takes V from K's rows: give no -v");
	if (!a->q->count || !a->k->count || (!a->v->count && !a->vdim->count))
		mk_usage_error("-q, -k and -v go together (-m is optional; "
		    "--v-dim: no -v)");
	if (o->file)
		mk_usage_error("give the inputs either as FILE (a stream) or as "
		    "-q -k -v [-m], not both");
	mk_opt_one_stdin(MK_MDEC_NIN, o->path, names, -1);
}

static void
parse_args(int argc, char **argv, struct opts *o)
{
	struct mk_common c;
	struct mk_err e;
	struct args a;
	char desc[256];

	mk_common_args(&c, MK_OPT_FORMAT | MK_OPT_EMIT | MK_OPT_OUTPUT |
	    MK_OPT_NO_SHORT_V);
	make_args(&a);
	void *argtable[] = { a.q, a.k, a.v, a.m, a.layout, a.table, a.lens,
	    a.kvh, a.valid, a.scale, a.dtype, a.kscale, a.vscale, a.vdim,
	    a.odt, c.format, c.emit, c.output, a.threads, a.bench,
	    a.plot, a.bkern, a.bsz, a.qh, a.maxlen, a.dim, a.dens, a.bsize,
	    a.isa,
	    a.reps,
	    a.seed, c.verbose, c.quiet, c.help, c.version, a.file,
	    arg_end(20) };

	mk_cli_parse(argc, argv, argtable, &c, &usage, &o->c);
	if (o->c.verbose > 1)
		fprintf(stderr, "%s: kernels %s\n", mk_progname(),
		    mk_mdec_kern_describe(desc, sizeof(desc)));
	if (mk_mdec_paged_l2(&e) < 0)
		mk_usage_error("%s", e.msg);
	o->file = mk_arg_file(a.file);
	o->path[0] = mk_arg_file(a.q);
	o->path[1] = mk_arg_file(a.k);
	o->path[2] = mk_arg_file(a.v);
	o->path[3] = mk_arg_file(a.m);
	o->path[4] = mk_arg_file(a.table);
	o->path[5] = mk_arg_file(a.lens);
	o->bench = a.bench->count ? 1 : a.bkern->count ? 2 : 0;
	o->plot = mk_arg_file(a.plot);
	input_args(&a, o);
	mode_rules(&a, &c, o);
	if (o->bench)
		bench_args(&a, o);
	else if (a.threads->count)
		mk_threads_set((int)mk_opt_int(a.threads->sval[0], 1, 1024,
		    "--threads"));
}

/*
 * -v: what was read, how long the threads took to start, and how fast the
 * attention was computed once they had (file pages mapped in included).
 */
static void
say(const struct mk_mdec_io *io, int threads,
    double read_ms, double team_ms, double ms)
{
	const struct mk_mdec *p = &io->p;
	const int mla = mk_mdec_dv(p) < p->D;
	struct mk_err e;
	/* bytes of the cache read: one tensor for MLA (v is k's rows) */
	double bytes = (double)p->B * p->KH * (double)p->V * ((mla ? 1.0 :
	    2.0) * (double)p->D * (double)mk_dtype_size((enum mk_dtype)
	    p->dtype) + (p->mask != NULL));
	char extra[96] = "";

	if (p->Q > 1)
		snprintf(extra, sizeof(extra), ", %d query tokens", p->Q);
	if (mla)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
		    ", v = k's first %d columns", p->dv);
	fprintf(stderr, "%s: B %d, QH %d, KH %d, D %d, V %lld%s, %s k/v, %s "
	    "layout%s, %s, read in %.3f ms\n", mk_progname(), p->B, p->QH,
	    p->KH, p->D, (long long)p->V, extra,
	    mk_mdec_kvt_name(p->dtype, p->fp8),
	    io->t[1].ndim == 4 ? layouts[p->layout] : "flat",
	    p->layout != MK_MDEC_PAGED ? "" : mk_mdec_paged_l2(&e) > 0 ?
	    " (next pages into L2: MOEKIT_PAGED_L2=1)" :
	    " (next pages left to the CPU: MOEKIT_PAGED_L2=0)",
	    p->mask ? "masked" : "no mask", read_ms);
	fprintf(stderr, "%s: %d threads started in %.3f ms\n", mk_progname(),
	    threads, team_ms);
	fprintf(stderr, "%s: attention on %d threads in %.3f ms (%.2f GB/s of "
	    "%s)\n", mk_progname(), threads, ms, bytes / (ms * 1e6),
	    mla ? "K and mask" : "K, V and mask");
}

static int
decode(const struct opts *o)
{
	static const char *const onames[2] = { "lse", "out" };
	struct mk_mdec_io io;
	struct mk_out *w;
	struct mk_err e;
	double t0;
	int64_t shape[4];
	int i, order[2], nsel, threads;
	double read_ms, team_ms;

	nsel = mk_opt_emit(o->c.emit, onames, 2, order, 2);
	t0 = mk_seconds();
	if (mk_mdec_load(&io, o->file, o->path, &o->in, &e) < 0)
		mk_fail(NULL, &e);
	read_ms = mk_ms_since(t0);
	/* a thread reads about 10 GB/s of K and V */
	threads = mk_threads_for((double)io.p.B * io.p.KH * (double)io.p.V *
	    io.p.D * 4.0 / 1e7);
	t0 = mk_seconds();
	mk_mdec_team(threads);
	team_ms = mk_ms_since(t0);
	t0 = mk_seconds();
	if (mk_mdec_compute(&io, threads, o->out_dtype, &e) < 0)
		mk_fail(NULL, &e);
	if (o->c.verbose)
		say(&io, threads, read_ms, team_ms, mk_ms_since(t0));
	w = mk_out_open(o->c.output, o->c.format != MK_FMT_AUTO ? o->c.format :
	    MK_FMT_NPY);
	shape[0] = io.p.B;
	shape[1] = io.p.QH;
	shape[2] = io.p.Q > 1 ? io.p.Q : 1;
	shape[3] = mk_mdec_dv(&io.p);
	for (i = 0; i < nsel; i++) {
		mk_out_begin(w, onames[order[i]], order[i] ? (enum mk_dtype)
		    io.out_dtype : MK_F32, order[i] ? 4 : 3, shape);
		mk_out_data(w, order[i] ? io.odata : (const void *)io.lse,
		    (size_t)io.p.B * (size_t)io.p.QH * (size_t)shape[2] *
		    (order[i] ? (size_t)mk_mdec_dv(&io.p) : 1));
		mk_out_end(w);
	}
	mk_out_close(w);
	mk_mdec_io_free(&io);
	return 0;
}

/* --bench's progress line: a row at a time. */
struct ticker {
	struct mk_progress pg;
	int64_t		 done;
};

static void
tick(void *ctx)
{
	struct ticker *tk = ctx;

	mk_progress_set(&tk->pg, ++tk->done, 0);
}

static int
bench(const struct opts *o)
{
	struct mk_mdec_bench run = o->b;	/* with the plot's and the
					 * progress line's hooks */
	const struct mk_mdec_bench *b = &run;
	const int nrows = b->nisa * b->ndens * b->ndtype * (o->bench == 1 ?
	    b->nthreads * b->nbsz * b->nlayout : 1);
	struct mk_mdec_bench_rows rows = { NULL, 0, 0 };
	struct ticker tk = { .done = 0 };
	struct mk_out *w, *pic;
	struct mk_err e;
	char title[200], dts[80] = "";
	double esz = 0;
	int i, unkept, maxB = 1;

	for (i = 0; i < b->nbsz; i++)
		maxB = b->bsz[i] > maxB ? b->bsz[i] : maxB;
	for (i = 0; i < b->ndtype; i++) {
		esz += (double)mk_dtype_size((enum mk_dtype)b->dtype[i]);
		snprintf(dts + strlen(dts), sizeof(dts) - strlen(dts), "%s%s",
		    i ? ", " : "", mk_mdec_kvt_name(b->dtype[i], b->fp8[i]));
	}
	if (o->c.verbose && o->bench == 1)
		fprintf(stderr, "%s: --bench: %.2f GB of K and V (%s), "
		    "checking every path against generic\n", mk_progname(),
		    (b->mla ? 1.0 : 2.0) * maxB * b->KH * (double)b->V * b->D *
		    esz / 1e9, dts);
	pic = o->plot ? mk_out_open(o->plot, MK_FMT_CSV) : NULL;
	w = mk_out_open(o->c.output, MK_FMT_CSV);
	if (pic != NULL) {
		rows.max = nrows;
		if ((rows.row = calloc((size_t)rows.max, sizeof(*rows.row)))
		    == NULL)
			err(MK_EXIT_DATA, NULL);
		run.keep = &rows;
	}
	mk_progress_start(&tk.pg, "rows timed", nrows, o->c.quiet ||
	    o->bench != 1);
	run.tick = tick;
	run.tick_ctx = &tk;
	if ((unkept = o->bench == 1 ? mk_mdec_bench_run(&run, w->fp, &e) :
	    mk_mdec_bench_kernel(&run, w->fp, &e)) < 0)
		mk_fail(NULL, &e);
	mk_progress_end(&tk.pg);
	if (unkept > 0)
		mk_warning("%d of %d rows kept no round (kept 0/N): other "
		    "processes preempted every one, so their figures do not "
		    "measure the kernels", unkept, nrows);
	mk_out_close(w);
	if (pic != NULL) {
		snprintf(title, sizeof(title), "mdecode --bench: QH %d, KH %d, "
		    "D %d, %lld positions, %s", b->QH, b->KH, b->D,
		    (long long)b->V, dts);
		mk_mdec_bench_plot(pic->fp, &rows, title);
		mk_out_close(pic);
		free(rows.row);
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	struct opts o;
	int i;

	mk_init(argc, argv);
	memset(&o, 0, sizeof(o));
	parse_args(argc, argv, &o);
	mk_out_input(o.file);
	for (i = 0; i < MK_MDEC_NIN; i++)
		mk_out_input(o.path[i]);
	return o.bench ? bench(&o) : decode(&o);
}
