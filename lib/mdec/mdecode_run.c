/*
 * mdecode_run.c - mdecode's story (mdec_run.h): a decode's inputs read
 * and its lse and out written, or the benchmarks' tables and picture.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/threads.h"
#include "cli/io.h"
#include "cli/progress.h"
#include "mdec/mdec_run.h"
#include "simd/kern.h"


#define GIVEN(x)	(o->given[MK_MDECODE_O_##x])

/* The rules between options of one mode and the other. */
static void
mode_rules(const struct mk_mdecode_job *o)
{
	const struct mk_opts *c = &o->c;
	static const char *const names[] = { "-q", "-k", "-v", "-m",
	    "--block-table", "--seq-lens" };
	int files = GIVEN(Q) || GIVEN(K) || GIVEN(V) || GIVEN(M);

	if (GIVEN(BENCH) && GIVEN(BKERN))
		mk_usage_error("--bench or --bench-kernel, not both");
	if (GIVEN(PLOT) && !GIVEN(BENCH))
		mk_usage_error("--plot draws --bench's table: it needs --bench");
	if (o->bench && (o->file || files))
		mk_usage_error("--bench makes its own inputs: give no FILE, "
		    "-q, -k, -v or -m");
	if (o->bench && (GIVEN(TABLE) || GIVEN(LENS)))
		mk_usage_error("--bench makes its own caches: --block-table and "
		    "--seq-lens do not apply (--kv-layout paged times one)");
	if (!o->bench && GIVEN(BSIZE))
		mk_usage_error("--block-size needs --bench (a paged cache's "
		    "block size is its k's dimension 1)");
	if (GIVEN(LENS) && !GIVEN(TABLE))
		mk_usage_error("--seq-lens needs --block-table (the lengths of "
		    "a paged cache's sequences)");
	if (o->bench && (GIVEN(ODT) || GIVEN(SCALE) ||
	    GIVEN(KSCALE) || GIVEN(VSCALE) ||
	    c->emit_given || c->format_given))
		mk_usage_error("--bench writes a CSV table: --out-dtype, "
		    "--scale, --k-scale, --v-scale, --emit and -f do not "
		    "apply");
	if (!o->bench && (GIVEN(BSZ) || GIVEN(QH) ||
	    GIVEN(MAXLEN) || GIVEN(DIM) ||
	    GIVEN(DENS) || GIVEN(ISA) ||
	    GIVEN(REPS) || GIVEN(SEED) ||
	    GIVEN(QTOK)))
		mk_usage_error("--bsz, --q-heads, --max-length, --dim, "
		    "--mask-density, --isa, --reps, --seed and --q-tokens need "
		    "--bench");
	if (o->bench)
		return;
	/* MLA's scale is its query-key head size's, not the latent row's */
	if (o->in.v_dim > 0 && !o->in.has_scale)
		mk_usage_error("--v-dim %d: give --scale (MLA scores with its "
		    "query-key head size, not the %s's: DeepSeek-V3 and R1 "
		    "take 192^-0.5 x mscale^2 = 0.1352)", o->in.v_dim,
		    "cache row");
	if (!files) {
		/* the stream is stdin unless FILE names a file */
		if ((o->file == NULL || strcmp(o->file, "-") == 0) &&
		    ((o->path[4] && strcmp(o->path[4], "-") == 0) ||
		    (o->path[5] && strcmp(o->path[5], "-") == 0)))
			mk_usage_error("the stream q, k, v[, mask] is read from "
			    "stdin: --block-table and --seq-lens need files");
		mk_arg_one_stdin(MK_MDEC_NIN, o->path, names, -1);
		return;
	}
	if (GIVEN(VDIM) && GIVEN(V))
		mk_usage_error("--v-dim takes V from K's rows: give no -v");
	if (!GIVEN(Q) || !GIVEN(K) ||
	    (!GIVEN(V) && !GIVEN(VDIM)))
		mk_usage_error("-q, -k and -v go together (-m is optional; "
		    "--v-dim: no -v)%s", GIVEN(Q) ||
		    GIVEN(K) ? "" : mk_arg_v_hint());
	if (o->file)
		mk_usage_error("give the inputs either as FILE (a stream) or as "
		    "-q -k -v [-m], not both");
	mk_arg_one_stdin(MK_MDEC_NIN, o->path, names, -1);
}

/* --bench's values against each other. */
static void
bench_rules(const struct mk_mdecode_job *o)
{
	const struct mk_mdec_bench *b = &o->b;
	int i;

	if (b->V > b->M)
		mk_usage_error("--valid-length %lld is larger than --max-length "
		    "%lld", (long long)b->V, (long long)b->M);
	if (b->QH % b->KH != 0)
		mk_usage_error("--q-heads %d is not a multiple of --kv-heads %d",
		    b->QH, b->KH);
	if (o->bench == 2 && GIVEN(QTOK))
		mk_usage_error("--q-tokens: --bench-kernel times one kv head's "
		    "row for its query rows: give them as --q-heads (heads x "
		    "tokens)");
	for (i = 0; i < b->nqtok; i++)
		if (b->qtok[i] > b->V)
			mk_usage_error("--q-tokens %d: more than the %lld valid "
			    "positions", b->qtok[i], (long long)b->V);
	if (o->in.v_dim > b->D)
		mk_usage_error("--v-dim %d: larger than --dim %d", o->in.v_dim,
		    b->D);
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
	    io->t[1].ndim == 4 ? mk_mdec_layout_name(p->layout) : "flat",
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
decode(const struct mk_mdecode_job *o)
{
	static const char *const onames[2] = { "lse", "out" };
	struct mk_mdec_io io;
	struct mk_out *w;
	struct mk_err e;
	double t0;
	int64_t shape[4];
	int i, order[2], nsel, threads;
	double read_ms, team_ms;

	nsel = mk_arg_emit(o->c.emit, onames, 2, order, 2);
	t0 = mk_seconds();
	if (mk_mdec_load(&io, o->file, o->path, &o->in, &e) < 0)
		mk_fail(NULL, &e);
	read_ms = mk_ms_since(t0);
	if (io.t[0].dtype == MK_U16 && !o->in.bf16)
		mk_note("q's u16 read as bf16 bits beside the FP8 cache (out "
		    "is bf16 too, as u16)");
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
bench(const struct mk_mdecode_job *o)
{
	struct mk_mdec_bench run = o->b;	/* with the plot's and the
					 * progress line's hooks */
	const struct mk_mdec_bench *b = &run;
	const int nrows = b->nisa * b->ndens * b->ndtype * (o->bench == 1 ?
	    b->nthreads * b->nbsz * b->nlayout * b->nqtok : 1);
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
	mk_out_close(w);
	if (pic != NULL) {
		snprintf(title, sizeof(title), "mdecode --bench: QH %d, KH %d, "
		    "D %d, %lld positions, %s", b->QH, b->KH, b->D,
		    (long long)b->V, dts);
		mk_mdec_bench_plot(pic->fp, &rows, title);
		mk_out_close(pic);
		free(rows.row);
	}
	/* once all is written: a run that fails says one thing */
	if (unkept > 0)
		mk_warning("%d of %d rows kept no round (kept 0/N): other "
		    "processes preempted every one, so their figures do not "
		    "measure the kernels", unkept, nrows);
	return 0;
}

int
mk_mdecode_run(const struct mk_mdecode_job *o)
{
	int i;

	mode_rules(o);
	if (o->bench)
		bench_rules(o);
	mk_out_input(o->file);
	for (i = 0; i < MK_MDEC_NIN; i++)
		mk_out_input(o->path[i]);
	return o->bench ? bench(o) : decode(o);
}
