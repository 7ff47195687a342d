/*
 * mdecode - masked flash-decoding attention on CPUs: read q, k, v and a
 * mask, write lse and out (SPEC §6); or, with --bench, time every kernel
 * path on the seed's shapes against the machine's read bandwidth.
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <argtable2.h>

#include "moekit.h"
#include "mdec.h"

#define MAXLIST	32

struct bench {
	int	 bsz[MAXLIST], nbsz;
	int	 threads[MAXLIST], nthreads;
	int	 isa[MK_NISA], nisa;
	int	 QH, KH, D, reps;
	int64_t	 M, V;
	double	 density;
	uint64_t seed;
};

struct opts {
	struct mk_opts	 c;
	const char	*file, *path[4];	/* FILE, or -q -k -v -m */
	struct mk_mdec_in in;
	int		 out_dtype;		/* -1: q's */
	int		 threads;
	int		 bench;
	struct bench	 b;
};

static const char *const tname[4] = { "q", "k", "v", "mask" };

static const struct mk_usage usage = {
	"[-q FILE -k FILE -v FILE [-m FILE]] [--kv-heads KH] "
	    "[--valid-length V] [--scale S] [--dtype f16|bf16|f32] "
	    "[--out-dtype f16|bf16|f32] [-f csv|npy] [--emit LIST] [-o FILE] "
	    "[--threads N] [--verbose] [-hV] [FILE]\n"
	    "       mdecode --bench [--bsz LIST] [--q-heads N] [--kv-heads N] "
	    "[--max-length M] [--valid-length V] [--dim D] [--dtype T] "
	    "[--mask-density X] [--isa LIST] [--threads LIST] [--reps N] "
	    "[--seed N] [-o FILE]",
	"Masked flash-decoding attention (one query token) on the CPU.",
	"FILE: the tensor stream q, k, v[, mask] (none or -: stdin); or -q, -k,\n"
	    "-v, -m with one tensor each.  Outputs: lse [B,QH,1] f32, out "
	    "[B,QH,1,D].\n",
};

/* A comma-separated list of integers in [min, max]; returns the count. */
static int
int_list(const char *s, int64_t min, int64_t max, int *v, const char *what)
{
	char buf[512], *tok, *save;
	int n = 0;

	if (strlen(s) >= sizeof(buf))
		mk_usage_error("%s: list too long", what);
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if (n == MAXLIST)
			mk_usage_error("%s: at most %d values", what, MAXLIST);
		v[n++] = (int)mk_opt_int(tok, min, max, what);
	}
	if (n == 0)
		mk_usage_error("%s: '%s' is an empty list", what, s);
	return n;
}

static int
parse_dtype(const char *s, const char *what)
{
	if (strcmp(s, "f16") == 0)
		return MK_F16;
	if (strcmp(s, "bf16") == 0)
		return MK_BF16;
	if (strcmp(s, "f32") == 0)
		return MK_F32;
	mk_usage_error("%s: '%s' is not f16, bf16 or f32", what, s);
}

static void
bench_args(struct opts *o, struct arg_str *bsz, struct arg_str *qh,
    struct arg_str *maxlen, struct arg_str *dim, struct arg_str *dens,
    struct arg_str *isa, struct arg_str *reps, struct arg_str *seed,
    struct arg_str *threads)
{
	struct bench *b = &o->b;
	char buf[256], *tok, *save;
	int i;

	b->nbsz = bsz->count ? int_list(bsz->sval[0], 1, 1 << 16, b->bsz,
	    "--bsz") : 4;
	if (!bsz->count)
		for (i = 0; i < 4; i++)
			b->bsz[i] = 1 << i;
	b->QH = qh->count ? (int)mk_opt_int(qh->sval[0], 1, 1 << 16,
	    "--q-heads") : 32;
	b->KH = o->in.kv_heads ? o->in.kv_heads : 8;
	b->M = maxlen->count ? mk_opt_int(maxlen->sval[0], 1, (int64_t)1 << 40,
	    "--max-length") : 131072;
	b->V = o->in.valid ? o->in.valid : (b->M + 1) / 2;
	if (b->V > b->M)
		mk_usage_error("--valid-length %lld is larger than --max-length "
		    "%lld", (long long)b->V, (long long)b->M);
	b->D = dim->count ? (int)mk_opt_int(dim->sval[0], 1, 65536, "--dim") :
	    128;
	if (b->QH % b->KH != 0)
		mk_usage_error("--q-heads %d is not a multiple of --kv-heads %d",
		    b->QH, b->KH);
	b->density = dens->count ? mk_opt_double(dens->sval[0],
	    "--mask-density") : 0.5;
	if (b->density < 0 || b->density > 1)
		mk_usage_error("--mask-density %s: not in [0, 1]", dens->sval[0]);
	b->reps = reps->count ? (int)mk_opt_int(reps->sval[0], 1, 1000,
	    "--reps") : 5;
	b->seed = seed->count ? (uint64_t)mk_opt_int(seed->sval[0], 0,
	    INT64_MAX, "--seed") : 0;
	b->nthreads = threads->count ? int_list(threads->sval[0], 1, 1024,
	    b->threads, "--threads") : 1;
	if (!threads->count)
		b->threads[0] = mk_online_cpus();
	b->nisa = 0;
	/* default: every path up to the selected one (MOEKIT_ISA) */
	snprintf(buf, sizeof(buf), "%s", isa->count ? isa->sval[0] :
	    mk_kern_isa() == MK_ISA_AVX512 ? "generic,avx2,avx512" :
	    mk_kern_isa() == MK_ISA_AVX2 ? "generic,avx2" : "generic");
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		int k = mk_isa_parse(tok);

		if (k < 0)
			mk_usage_error("--isa: '%s' is not generic, avx2 or "
			    "avx512", tok);
		if (!mk_isa_supported((enum mk_isa)k)) {
			if (isa->count)
				mk_usage_error("--isa %s: not supported by "
				    "this CPU (cpu: %s)", tok,
				    mk_isa_name(mk_isa_best()));
			continue;
		}
		for (i = 0; i < b->nisa; i++)
			if (b->isa[i] == k)
				break;
		if (i == b->nisa && b->nisa < MK_NISA)
			b->isa[b->nisa++] = k;
	}
}

static void
parse_args(int argc, char **argv, struct opts *o)
{
	struct mk_common c;
	struct arg_file *q, *k, *v, *m, *file;
	struct arg_str *kvh, *valid, *scale, *dtype, *odt, *bsz, *qh, *maxlen,
	    *dim, *dens, *isa, *threads, *reps, *seed;
	struct arg_lit *bench;
	struct arg_end *end;
	int i;

	mk_common_args(&c, MK_OPT_FORMAT | MK_OPT_EMIT | MK_OPT_OUTPUT |
	    MK_OPT_NO_SHORT_V);
	q = arg_file0("q", "query", "FILE", "q [B,QH,1,D] alone in FILE");
	k = arg_file0("k", "keys", "FILE", "k, a KV cache [B,KH,M,D] or flat");
	v = arg_file0("v", "values", "FILE", "v, shaped as k");
	m = arg_file0("m", "mask", "FILE", "mask [B,KH,M] or flat, bool/u8, "
	    "true = masked out");
	kvh = arg_str0(NULL, "kv-heads", "KH", "kv heads (flat k/v; bench "
	    "default 8)");
	valid = arg_str0(NULL, "valid-length", "V", "positions per row that "
	    "take part (default all; bench max/2)");
	scale = arg_str0(NULL, "scale", "S", "score scale (default D^-0.5)");
	dtype = arg_str0(NULL, "dtype", "f16|bf16|f32", "k/v dtype (bf16: "
	    "u16 inputs hold bf16 bits; bench default f16)");
	odt = arg_str0(NULL, "out-dtype", "f16|bf16|f32", "dtype of out "
	    "(default q's)");
	threads = arg_str0(NULL, "threads", "N", "threads (default: all "
	    "online CPUs; bench: a list)");
	bench = arg_lit0(NULL, "bench", "time every kernel path on the seed's "
	    "shapes");
	bsz = arg_str0(NULL, "bsz", "LIST", "bench batch sizes (default "
	    "1,2,4,8)");
	qh = arg_str0(NULL, "q-heads", "N", "bench q heads (default 32)");
	maxlen = arg_str0(NULL, "max-length", "M", "bench cache length "
	    "(default 131072)");
	dim = arg_str0(NULL, "dim", "D", "bench head size (default 128)");
	dens = arg_str0(NULL, "mask-density", "X", "bench share of masked "
	    "positions (default 0.5)");
	isa = arg_str0(NULL, "isa", "LIST", "bench kernel paths (default: all "
	    "this CPU has)");
	reps = arg_str0(NULL, "reps", "N", "bench timed runs per row, median "
	    "(default 5)");
	seed = arg_str0(NULL, "seed", "N", "bench random seed (default 0)");
	file = arg_file0(NULL, NULL, "FILE", "tensor stream q, k, v[, mask] "
	    "(default: stdin)");
	end = arg_end(20);
	void *argtable[] = { q, k, v, m, kvh, valid, scale, dtype, odt,
	    c.format, c.emit, c.output, threads, bench, bsz, qh, maxlen, dim,
	    dens, isa, reps, seed, c.verbose, c.help, c.version, file, end };

	mk_cli_parse(argc, argv, argtable, &c, &usage, &o->c);
	o->file = file->count ? file->filename[0] : NULL;
	o->path[0] = q->count ? q->filename[0] : NULL;
	o->path[1] = k->count ? k->filename[0] : NULL;
	o->path[2] = v->count ? v->filename[0] : NULL;
	o->path[3] = m->count ? m->filename[0] : NULL;
	o->in.kv_heads = kvh->count ? (int)mk_opt_int(kvh->sval[0], 1,
	    INT32_MAX, "--kv-heads") : 0;
	o->in.valid = valid->count ? mk_opt_int(valid->sval[0], 1, INT64_MAX,
	    "--valid-length") : 0;
	o->in.has_scale = scale->count > 0;
	o->in.scale = scale->count ? mk_opt_double(scale->sval[0], "--scale") :
	    0;
	o->in.dtype = dtype->count ? parse_dtype(dtype->sval[0], "--dtype") :
	    -1;
	o->in.bf16 = o->in.dtype == MK_BF16;
	o->out_dtype = odt->count ? parse_dtype(odt->sval[0], "--out-dtype") :
	    -1;
	o->bench = bench->count > 0;
	if (o->bench) {
		if (o->file || q->count || k->count || v->count || m->count)
			mk_usage_error("--bench makes its own inputs: give no "
			    "FILE, -q, -k, -v or -m");
		if (odt->count || scale->count || c.emit->count ||
		    c.format->count)
			mk_usage_error("--bench writes a CSV table: --out-dtype, "
			    "--scale, --emit and -f do not apply");
		bench_args(o, bsz, qh, maxlen, dim, dens, isa, reps, seed,
		    threads);
		return;
	}
	if (bsz->count || qh->count || maxlen->count || dim->count ||
	    dens->count || isa->count || reps->count || seed->count)
		mk_usage_error("--bsz, --q-heads, --max-length, --dim, "
		    "--mask-density, --isa, --reps and --seed need --bench");
	o->threads = threads->count ? (int)mk_opt_int(threads->sval[0], 1,
	    1024, "--threads") : o->c.threads;
	if (q->count || k->count || v->count || m->count) {
		if (!q->count || !k->count || !v->count)
			mk_usage_error("-q, -k and -v go together (-m is "
			    "optional)");
		if (o->file)
			mk_usage_error("give the inputs either as FILE (a "
			    "stream) or as -q -k -v [-m], not both");
		for (i = 0; i < 4; i++) {
			int j;

			for (j = i + 1; j < 4; j++)
				if (o->path[i] && o->path[j] &&
				    strcmp(o->path[i], "-") == 0 &&
				    strcmp(o->path[j], "-") == 0)
					mk_usage_error("-%c - and -%c -: only "
					    "one input can be stdin",
					    "qkvm"[i], "qkvm"[j]);
		}
	}
}

/* Read the tensors q, k, v (and mask, if given) into t[]; sets names. */
static int
read_inputs(const struct opts *o, struct mk_tensor t[4], char name[4][300])
{
	struct mk_tensor extra;
	struct mk_src *s;
	struct mk_err e;
	int i, n = 0, r;

	mk_tensor_init(&extra);
	if (o->path[0] == NULL) {	/* one stream */
		if ((s = mk_src_open(o->file, &e)) == NULL)
			mk_fail(NULL, &e);
		for (n = 0; n < 4; n++) {
			if ((r = mk_src_next(s, &t[n], &e)) < 0)
				mk_fail(s, &e);
			if (r == 0)
				break;
			snprintf(name[n], 300, "%s: tensor %d (%s)",
			    mk_src_name(s), n, tname[n]);
		}
		if (n < 3) {
			mk_err_data(&e, "%s: %d tensor%s: mdecode reads q, k, "
			    "v and an optional mask", mk_src_name(s), n,
			    n == 1 ? "" : "s");
			mk_fail(s, &e);
		}
		if (n == 4 && (r = mk_src_next(s, &extra, &e)) != 0) {
			if (r > 0)
				mk_err_data(&e, "%s: a fifth tensor: mdecode "
				    "reads q, k, v and an optional mask",
				    mk_src_name(s));
			mk_tensor_free(&extra);
			mk_fail(s, &e);
		}
		mk_src_close(s);
		return n;
	}
	for (i = 0; i < 4; i++) {
		if (o->path[i] == NULL)
			continue;
		if ((s = mk_src_open(o->path[i], &e)) == NULL)
			mk_fail(NULL, &e);
		if (mk_src_next(s, &t[i], &e) < 0)
			mk_fail(s, &e);
		snprintf(name[i], 300, "%s", mk_src_name(s));
		if ((r = mk_src_next(s, &extra, &e)) != 0) {
			if (r > 0)
				mk_err_data(&e, "%s: more than one tensor: -%c "
				    "takes a file holding %s alone",
				    mk_src_name(s), "qkvm"[i], tname[i]);
			mk_tensor_free(&extra);
			mk_fail(s, &e);
		}
		mk_src_close(s);
		n = i + 1;
	}
	return n;
}

/* out f32 -> the output dtype, in place where it shrinks. */
static void *
out_as(float *out, size_t n, int dtype)
{
	uint16_t *h;

	if (dtype == MK_F32)
		return out;
	if ((h = malloc(n * 2 + 2)) == NULL)
		err(MK_EXIT_DATA, "out");
	if (dtype == MK_F16)
		mk_kern()->f32_to_f16(h, out, n);
	else
		mk_kern()->f32_to_bf16(h, out, n);
	return h;
}

static int
decode(struct opts *o)
{
	static const char *const onames[2] = { "lse", "out" };
	struct mk_tensor t[4];
	const struct mk_tensor *tp[4];
	char name[4][300];
	const char *np[4];
	struct mk_mdec p;
	struct mk_out *w;
	struct mk_err e;
	struct timespec t0;
	int64_t shape[4];
	float *lse, *out;
	void *odata;
	size_t bh, n;
	int i, order[2], nsel = 2, odt;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 4; i++) {
		mk_tensor_init(&t[i]);
		name[i][0] = '\0';
	}
	order[0] = 0;
	order[1] = 1;
	if (o->c.emit && (nsel = mk_select(o->c.emit, onames, 2, order, 2,
	    &e)) < 0)
		mk_fail(NULL, &e);
	n = (size_t)read_inputs(o, t, name);
	for (i = 0; i < 4; i++) {
		tp[i] = i < 3 || (n == 4 || o->path[3]) ? &t[i] : NULL;
		np[i] = name[i];
	}
	if (mk_mdec_setup(&p, tp, np, &o->in, &e) < 0) {
		for (i = 0; i < 4; i++)
			mk_tensor_free(&t[i]);
		mk_fail(NULL, &e);
	}
	if (o->c.verbose)
		fprintf(stderr, "%s: B %d, QH %d, KH %d, D %d, V %lld, %s k/v, "
		    "%s layout, %s, read in %.3f ms\n", mk_progname(), p.B,
		    p.QH, p.KH, p.D, (long long)p.V,
		    mk_dtype_name((enum mk_dtype)p.dtype), t[1].ndim == 4 ?
		    "KV cache" : "flat", p.mask ? "masked" : "no mask",
		    mk_ms_since(&t0));
	bh = (size_t)p.B * (size_t)p.QH;
	if ((lse = malloc(bh * sizeof(float))) == NULL ||
	    (out = malloc(bh * (size_t)p.D * sizeof(float))) == NULL)
		err(MK_EXIT_DATA, "out of memory for the outputs");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (mk_mdec_run(&p, NULL, o->threads, lse, out, &e) < 0)
		mk_fail(NULL, &e);
	if (o->c.verbose) {
		double ms = mk_ms_since(&t0);

		fprintf(stderr, "%s: attention on %d threads in %.3f ms "
		    "(%.2f GB/s of K, V and mask)\n", mk_progname(),
		    o->threads, ms, ((double)bh / (double)p.QH * (double)p.KH *
		    (double)p.V * (2.0 * (double)p.D * (double)mk_dtype_size(
		    (enum mk_dtype)p.dtype) + (p.mask != NULL))) / (ms * 1e6));
	}
	odt = o->out_dtype >= 0 ? o->out_dtype : p.qdtype;
	odata = out_as(out, bh * (size_t)p.D, odt);
	w = mk_out_open(o->c.output, o->c.format != MK_FMT_AUTO ? o->c.format :
	    MK_FMT_NPY);
	for (i = 0; i < nsel; i++) {
		shape[0] = p.B;
		shape[1] = p.QH;
		shape[2] = 1;
		shape[3] = p.D;
		if (order[i] == 0) {
			mk_out_begin(w, "lse", MK_F32, 3, shape);
			mk_out_data(w, lse, bh);
		} else {
			mk_out_begin(w, "out", (enum mk_dtype)odt, 4, shape);
			mk_out_data(w, odata, bh * (size_t)p.D);
		}
		mk_out_end(w);
	}
	mk_out_close(w);
	if (odata != out)
		free(odata);
	free(out);
	free(lse);
	free((void *)p.q);
	for (i = 0; i < 4; i++)
		mk_tensor_free(&t[i]);
	return 0;
}

/* The bench's problem at batch size B: the flat prefix of the buffers. */
static struct mk_mdec
bench_problem(const struct bench *b, int B, int dtype, const float *q,
    const void *k, const void *v, const uint8_t *mask)
{
	struct mk_mdec p;

	memset(&p, 0, sizeof(p));
	p.B = B;
	p.QH = b->QH;
	p.KH = b->KH;
	p.D = b->D;
	p.V = b->V;
	p.dtype = dtype;
	p.qdtype = dtype;
	p.scale = 1.0 / sqrt((double)b->D);
	p.q = q;
	p.k = k;
	p.v = v;
	p.mask = mask;
	p.row = b->V;
	p.mrow = b->V;
	return p;
}

static void *
big_alloc(size_t n, const char *what)
{
	void *p;

	if (posix_memalign(&p, 4096, n ? n : 1) != 0)
		errx(MK_EXIT_DATA, "--bench: out of memory for %s (%.2f GB)",
		    what, (double)n / 1e9);
	return p;
}

/* Each path against generic on every batch size, before any timing. */
static void
bench_check(const struct bench *b, const struct mk_kern *tab, int dtype,
    const float *q, const void *k, const void *v, const uint8_t *mask,
    float *lse, float *out, float *glse, float *gout, int threads)
{
	struct mk_mdec p;
	struct mk_err e;
	int i, j;

	for (i = 0; i < b->nbsz; i++) {
		p = bench_problem(b, b->bsz[i], dtype, q, k, v, mask);
		if (mk_mdec_run(&p, &tab[MK_ISA_GENERIC], threads, glse, gout,
		    &e) < 0)
			mk_fail(NULL, &e);
		for (j = 0; j < b->nisa; j++) {
			if (b->isa[j] == MK_ISA_GENERIC)
				continue;
			if (mk_mdec_run(&p, &tab[b->isa[j]], threads, lse, out,
			    &e) < 0)
				mk_fail(NULL, &e);
			if (mk_mdec_agree(&p, lse, out, glse, gout, 1e-4,
			    &e) < 0)
				errx(MK_EXIT_DATA, "--bench: %s disagrees with "
				    "generic at bsz %d: %s",
				    mk_isa_name((enum mk_isa)b->isa[j]),
				    b->bsz[i], e.msg);
		}
	}
}

static int
bench(struct opts *o)
{
	const struct bench *b = &o->b;
	const int dtype = o->in.dtype >= 0 ? o->in.dtype : MK_F16;
	const size_t esz = mk_dtype_size((enum mk_dtype)dtype);
	struct mk_kern tab[MK_NISA];
	struct mk_mdec p;
	struct mk_out *w;
	struct mk_err e;
	size_t per, nkv, bh;
	void *k, *v;
	uint8_t *mask;
	float *q, *lse, *out, *glse, *gout;
	double ms, peak, bytes;
	int i, j, t, maxB = 1, maxT = 1;

	for (i = 0; i < MK_NISA; i++)
		mk_kern_build((enum mk_isa)i, &tab[i]);
	for (i = 0; i < b->nbsz; i++)
		maxB = b->bsz[i] > maxB ? b->bsz[i] : maxB;
	for (i = 0; i < b->nthreads; i++)
		maxT = b->threads[i] > maxT ? b->threads[i] : maxT;
	per = (size_t)b->KH * (size_t)b->V;		/* positions per batch */
	nkv = (size_t)maxB * per * (size_t)b->D;
	bh = (size_t)maxB * (size_t)b->QH;
	k = big_alloc(nkv * esz, "k");
	v = big_alloc(nkv * esz, "v");
	mask = big_alloc((size_t)maxB * per, "the mask");
	q = big_alloc(bh * (size_t)b->D * sizeof(float), "q");
	lse = big_alloc(bh * sizeof(float), "lse");
	glse = big_alloc(bh * sizeof(float), "lse");
	out = big_alloc(bh * (size_t)b->D * sizeof(float), "out");
	gout = big_alloc(bh * (size_t)b->D * sizeof(float), "out");
	mk_mdec_fill(k, nkv, dtype, b->seed * 4 + 1, maxT);
	mk_mdec_fill(v, nkv, dtype, b->seed * 4 + 2, maxT);
	mk_mdec_fill_mask(mask, (size_t)maxB * per, b->density,
	    b->seed * 4 + 3, maxT);
	mk_mdec_fill(q, bh * (size_t)b->D, MK_F32, b->seed * 4, maxT);
	if (o->c.verbose)
		fprintf(stderr, "%s: --bench: %.2f GB of K and V (%s), mask "
		    "density %g, checking every path against generic\n",
		    mk_progname(), 2.0 * (double)(nkv * esz) / 1e9,
		    mk_dtype_name((enum mk_dtype)dtype), b->density);
	bench_check(b, tab, dtype, q, k, v, mask, lse, out, glse, gout, maxT);
	w = mk_out_open(o->c.output, MK_FMT_CSV);
	fprintf(w->fp, "isa,threads,bsz,ms,gbps,peak_gbps,frac_peak\n");
	for (i = 0; i < b->nisa; i++)
		for (t = 0; t < b->nthreads; t++)
			for (j = 0; j < b->nbsz; j++) {
				p = bench_problem(b, b->bsz[j], dtype, q, k, v,
				    mask);
				if (mk_mdec_time(&p, &tab[b->isa[i]],
				    &tab[mk_isa_best()], b->threads[t],
				    b->reps, lse, out, &ms, &peak, &e) < 0)
					mk_fail(NULL, &e);
				bytes = (double)b->bsz[j] * (double)per *
				    (2.0 * (double)b->D * (double)esz + 1.0);
				fprintf(w->fp, "%s,%d,%d,%.3f,%.2f,%.2f,%.3f\n",
				    mk_isa_name((enum mk_isa)b->isa[i]),
				    b->threads[t], b->bsz[j], ms,
				    bytes / (ms * 1e6), peak,
				    bytes / (ms * 1e6) / peak);
				fflush(w->fp);
			}
	mk_out_close(w);
	free(k);
	free(v);
	free(mask);
	free(q);
	free(lse);
	free(glse);
	free(out);
	free(gout);
	return 0;
}


int
main(int argc, char *argv[])
{
	struct opts o;

	mk_init(argc, argv);
	memset(&o, 0, sizeof(o));
	parse_args(argc, argv, &o);
	return o.bench ? bench(&o) : decode(&o);
}
