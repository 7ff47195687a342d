/*
 * mdecode - masked flash-decoding attention on CPUs: read q, k, v and a
 * mask, write lse and out (mdecode(1)); or, with --bench, time every kernel
 * path on a grouped-query decode shape (32 q heads, 8 kv heads, 128
 * dims) against the machine's read bandwidth.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "moekit.h"
#include "base/fp8.h"
#include "cli/opt.h"
#include "mdec/mdec_run.h"



#define O(x)	[MK_MDECODE_O_##x]

static struct mk_opt opts[MK_MDECODE_NOPT] = {
	O(Q) = { MK_OPT_PATH, "q", "query", "FILE", "q [B,QH,Q,D] (Q <= 16) "
	    "alone in FILE", NULL },
	O(K) = { MK_OPT_PATH, "k", "keys", "FILE", "k: a KV cache [B,KH,M,D], "
	    "[B,M,KH,D], paged [blocks,bs,KH,D] or flat", NULL },
	O(V) = { MK_OPT_PATH, "v", "values", "FILE", "v, shaped as k", NULL },
	O(M) = { MK_OPT_PATH, "m", "mask", "FILE", "mask [B,KH,M] or flat, "
	    "bool/u8, true = masked out", NULL },
	O(LAYOUT) = { MK_OPT_VALUE, NULL, "kv-layout", "bhmd|bmhd|paged", "how "
	    "a 4-D cache is laid out (default: from the shapes; bench: a "
	    "list, default bhmd)", NULL },
	O(TABLE) = { MK_OPT_PATH, NULL, "block-table", "FILE", "paged cache: "
	    "block ids [B,blocks per sequence], integers", NULL },
	O(LENS) = { MK_OPT_PATH, NULL, "seq-lens", "FILE", "paged cache: the "
	    "sequences' lengths [B] (default --valid-length or all)", NULL },
	O(KVH) = { MK_OPT_VALUE, NULL, "kv-heads", "KH", "kv heads (flat k/v; "
	    "bench default 8)", NULL },
	O(VALID) = { MK_OPT_VALUE, NULL, "valid-length", "V", "positions per "
	    "row that take part (default all; bench max/2)", NULL },
	O(SCALE) = { MK_OPT_VALUE, NULL, "scale", "S", "score scale (default "
	    "D^-0.5; required with --v-dim)", NULL },
	O(DTYPE) = { MK_OPT_VALUE, NULL, "dtype",
	    "f16|bf16|f32|fp8_e4m3|fp8_e5m2", "k/v dtype (bf16: u16 inputs "
	    "hold bf16 bits; fp8: u8 inputs hold FP8 bytes; bench: a list, "
	    "default f16)", NULL },
	O(KSCALE) = { MK_OPT_VALUE, NULL, "k-scale", "S", "fp8: k's "
	    "per-tensor scale, real = fp8 x S (default 1)", NULL },
	O(VSCALE) = { MK_OPT_VALUE, NULL, "v-scale", "S", "fp8: v's "
	    "per-tensor scale (default 1)", NULL },
	O(VDIM) = { MK_OPT_VALUE, NULL, "v-dim", "DV", "MLA: no v; V is the "
	    "first DV elements of each K row (DeepSeek: 512 of 576)", NULL },
	O(ODT) = { MK_OPT_VALUE, NULL, "out-dtype", "f16|bf16|f32", "dtype of "
	    "out (default q's)", NULL },
	O(THREADS) = { MK_OPT_VALUE, NULL, "threads", "N", "threads (default: "
	    "all usable CPUs; bench: a list)", NULL },
	O(BENCH) = { MK_OPT_FLAG, NULL, "bench", NULL, "time every kernel path "
	    "on the Triton kernel's shapes against the read bandwidth and "
	    "against reading only the rows it uses", NULL },
	O(PLOT) = { MK_OPT_PATH, NULL, "plot", "FILE.svg", "--bench: a picture "
	    "of each path's GB/s beside the read probe", NULL },
	O(BKERN) = { MK_OPT_FLAG, NULL, "bench-kernel", NULL, "time every "
	    "kernel path on one row in cache (ns per position and kv head)",
	    NULL },
	O(BSZ) = { MK_OPT_VALUE, NULL, "bsz", "LIST", "bench batch sizes "
	    "(default 1,2,4,8)", NULL },
	O(QH) = { MK_OPT_VALUE, NULL, "q-heads", "N", "bench q heads (default "
	    "32)", NULL },
	O(MAXLEN) = { MK_OPT_VALUE, NULL, "max-length", "M", "bench cache "
	    "length (default 131072)", NULL },
	O(DIM) = { MK_OPT_VALUE, NULL, "dim", "D", "bench head size (default "
	    "128)", NULL },
	O(DENS) = { MK_OPT_VALUE, NULL, "mask-density", "LIST", "bench shares "
	    "of masked positions (default 0,0.5)", NULL },
	O(BSIZE) = { MK_OPT_VALUE, NULL, "block-size", "N", "bench paged "
	    "cache's positions per block (default 16)", NULL },
	O(ISA) = { MK_OPT_VALUE, NULL, "isa", "LIST", "bench kernel paths "
	    "(default: all this CPU has)", NULL },
	O(REPS) = { MK_OPT_VALUE, NULL, "reps", "N", "bench rounds per row, "
	    "median (default 11)", NULL },
	O(SEED) = { MK_OPT_VALUE, NULL, "seed", "N", "bench random seed "
	    "(default 0)", NULL },
	O(QTOK) = { MK_OPT_VALUE, NULL, "q-tokens", "LIST", "bench query "
	    "tokens a sequence, 1 to 16 (default 1)", NULL },
	O(FILE) = { MK_OPT_OPERAND, NULL, NULL, "FILE", "tensor stream q, k, "
	    "v[, mask] (default: stdin)", NULL },
};

static const struct mk_usage usage = {
	"[-q FILE -k FILE -v FILE [-m FILE]] [--kv-layout bhmd|bmhd|paged] "
	    "[--block-table FILE [--seq-lens FILE]] [--kv-heads KH] "
	    "[--valid-length V] [--scale S] "
	    "[--dtype f16|bf16|f32|fp8_e4m3|fp8_e5m2 [--k-scale S] [--v-scale S]] "
	    "[--v-dim DV] "
	    "[--out-dtype f16|bf16|f32] [-f csv|npy|npz] [--emit LIST] [-o FILE] "
	    "[--threads N] [--verbose] [--quiet] [-hV] [FILE]\n"
	    "       mdecode --bench [--plot FILE.svg]|--bench-kernel [--bsz LIST] "
	    "[--q-heads N] "
	    "[--kv-heads N] [--max-length M] [--valid-length V] [--dim D] "
	    "[--dtype LIST] [--v-dim DV] [--q-tokens LIST] [--mask-density LIST] "
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

#define OPT(x)	(&t[MK_MDECODE_O_##x])

static const char *const dtypes[] = { "f16", "bf16", "f32", "fp8_e4m3",
    "fp8_e5m2" };
static const int dtype_of[] = { MK_F16, MK_BF16, MK_F32, MK_U8, MK_U8 };

/* --bench's and --bench-kernel's own options. */
static void
bench_args(const struct mk_opt *t, struct mk_mdecode_job *o)
{
	struct mk_mdec_bench *b = &o->b;
	int i, d[5];

	b->nbsz = mk_opt_ints(OPT(BSZ), 1, 1 << 16, b->bsz,
	    MK_MDEC_BENCH_LIST, 1);
	for (i = 0; !mk_opt_given(OPT(BSZ)) && i < 4; i++)
		b->bsz[i] = 1 << i;
	b->nbsz = mk_opt_given(OPT(BSZ)) ? b->nbsz : 4;
	b->QH = (int)mk_opt_int_in(OPT(QH), 1, 1 << 16, 32);
	b->KH = o->in.kv_heads ? o->in.kv_heads : 8;
	b->M = mk_opt_int_in(OPT(MAXLEN), 1, (int64_t)1 << 40, 131072);
	b->V = o->in.valid ? o->in.valid : (b->M + 1) / 2;
	b->D = (int)mk_opt_int_in(OPT(DIM), 1, 65536, 128);
	b->ndens = mk_opt_reals(OPT(DENS), 0, 1, b->dens, MK_MDEC_BENCH_LIST,
	    0);
	if (!mk_opt_given(OPT(DENS))) {
		b->dens[1] = 0.5;
		b->ndens = 2;
	}
	b->reps = (int)mk_opt_int_in(OPT(REPS), 1, 1000, 11);
	b->seed = (uint64_t)mk_opt_int_in(OPT(SEED), 0, INT64_MAX, 0);
	b->nthreads = mk_opt_ints(OPT(THREADS), 1, 1024, b->threads,
	    MK_MDEC_BENCH_LIST, mk_usable_cpus());
	b->ndtype = mk_opt_picks(OPT(DTYPE), dtypes, 5, d);
	for (i = 0; i < b->ndtype; i++) {
		b->dtype[i] = dtype_of[d[i]];
		b->fp8[i] = d[i] == 3 ? MK_FP8_E4M3 : d[i] == 4 ? MK_FP8_E5M2 :
		    MK_FP8_NONE;
	}
	if (b->ndtype == 0) {
		b->dtype[0] = MK_F16;
		b->fp8[0] = MK_FP8_NONE;
		b->ndtype = 1;
	}
	b->nisa = mk_arg_isa_list(mk_opt_str(OPT(ISA)), b->isa, "--isa");
	if ((b->nlayout = mk_opt_picks(OPT(LAYOUT), mk_mdec_layout_names,
	    MK_MDEC_NLAYOUT, b->layout)) == 0) {
		b->layout[0] = 0;
		b->nlayout = 1;
	}
	b->bs = (int)mk_opt_int_in(OPT(BSIZE), 1, 1 << 20, 16);
	b->nqtok = mk_opt_ints(OPT(QTOK), 1, MK_MDEC_MAX_Q, b->qtok,
	    MK_MDEC_BENCH_LIST, 1);
	/* MLA: V is K's rows, the first DV of out wanted */
	b->mla = o->in.v_dim;
}

/*
 * --k-scale or --v-scale: finite and positive, for an FP8 cache only,
 * and small enough that the format's largest value times it stays in
 * f32's range, where the kernels compute (out is V's rows so scaled).
 */
static double
scale_arg(const struct mk_opt *a, int fp8)
{
	double v;

	if (!mk_opt_given(a))
		return 1;
	if (fp8 == MK_FP8_NONE)
		mk_usage_error("%s scales an FP8 cache: give --dtype fp8_e4m3 "
		    "or fp8_e5m2", mk_opt_name(a));
	v = mk_arg_double(mk_opt_str(a), mk_opt_name(a));
	if (!(v > 0) || isinf(v))
		mk_usage_error("%s %s: a scale is finite and positive",
		    mk_opt_name(a), mk_opt_str(a));
	if (v * MK_FP8_MAX(fp8) > FLT_MAX)
		mk_usage_error("%s %s: the format's largest value, %g, so "
		    "scaled passes f32's range (3.4e38), in which the kernels "
		    "compute", mk_opt_name(a), mk_opt_str(a), MK_FP8_MAX(fp8));
	return v;
}

/* Options that change how the inputs are read. */
static void
input_args(const struct mk_opt *t, struct mk_mdecode_job *o)
{
	const char *dt = mk_opt_str(OPT(DTYPE));
	int d;

	o->in.layout = o->bench ? -1 : mk_opt_pick(OPT(LAYOUT),
	    mk_mdec_layout_names, MK_MDEC_NLAYOUT, -1);
	o->in.kv_heads = (int)mk_opt_int_in(OPT(KVH), 1, INT32_MAX, 0);
	o->in.valid = mk_opt_int_in(OPT(VALID), 1, INT64_MAX, 0);
	o->in.has_scale = mk_opt_given(OPT(SCALE)) > 0;
	o->in.scale = o->in.has_scale ? mk_arg_double(mk_opt_str(OPT(SCALE)),
	    "--scale") : 0;
	/* --bench: a list, bench_args's */
	if (dt != NULL && !o->bench && strchr(dt, ','))
		mk_usage_error("--dtype %s: one dtype for the inputs (a list "
		    "is for --bench)", dt);
	d = o->bench ? -1 : mk_opt_pick(OPT(DTYPE), dtypes, 5, -1);
	o->in.dtype = d >= 0 && d < 3 ? dtype_of[d] : -1;
	o->in.bf16 = o->in.dtype == MK_BF16;
	o->in.fp8 = d == 3 ? MK_FP8_E4M3 : d == 4 ? MK_FP8_E5M2 : MK_FP8_NONE;
	o->in.kscale = o->bench ? 1 : scale_arg(OPT(KSCALE), o->in.fp8);
	o->in.vscale = o->bench ? 1 : scale_arg(OPT(VSCALE), o->in.fp8);
	o->in.v_dim = (int)mk_opt_int_in(OPT(VDIM), 1, 65536, 0);
	if (o->in.v_dim > 0 && mk_opt_given(OPT(VSCALE)) && !o->bench)
		mk_usage_error("--v-scale: with --v-dim, V is K's own bytes "
		    "and takes --k-scale");
	d = mk_opt_pick(OPT(ODT), dtypes, 3, -1);
	o->out_dtype = d >= 0 ? dtype_of[d] : -1;
}

static void
job_of(const struct mk_opt *t, const struct mk_opts *c,
    struct mk_mdecode_job *o)
{
	struct mk_err e;
	char desc[256];
	int i;

	memset(o, 0, sizeof(*o));
	o->c = *c;
	if (c->verbose > 1)
		fprintf(stderr, "%s: kernels %s\n", mk_progname(),
		    mk_mdec_kern_describe(desc, sizeof(desc)));
	if (mk_mdec_paged_l2(&e) < 0)
		mk_usage_error("%s", e.msg);
	o->file = mk_opt_path(OPT(FILE));
	for (i = 0; i < MK_MDEC_NIN; i++)
		o->path[i] = mk_opt_path(&t[i == 4 ? MK_MDECODE_O_TABLE :
		    i == 5 ? MK_MDECODE_O_LENS : MK_MDECODE_O_Q + i]);
	o->bench = mk_opt_given(OPT(BENCH)) ? 1 : mk_opt_given(OPT(BKERN)) ?
	    2 : 0;
	o->plot = mk_opt_path(OPT(PLOT));
	for (i = 0; i < MK_MDECODE_NOPT; i++)
		o->given[i] = mk_opt_given(&t[i]) > 0;
	input_args(t, o);
	if (o->bench)
		bench_args(t, o);
	else if (mk_opt_given(OPT(THREADS)))
		mk_threads_set((int)mk_opt_int_in(OPT(THREADS), 1, 1024, 0));
}

int
main(int argc, char *argv[])
{
	struct mk_mdecode_job j;
	struct mk_opts c;

	mk_init(argc, argv);
	mk_opts_parse(argc, argv, opts, MK_MDECODE_NOPT, MK_OPT_FORMAT |
	    MK_OPT_EMIT | MK_OPT_OUTPUT | MK_OPT_NO_SHORT_V, &usage, &c);
	job_of(opts, &c, &j);
	return mk_mdecode_run(&j);
}
