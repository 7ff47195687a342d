/*
 * a2a_layout_run.c - a2a-layout's story (a2a_run.h): the plan and the
 * trace read, each step laid out, the outputs stacked and written (while
 * the steps are laid out where that pays), the report, the picture and
 * the warnings.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/threads.h"
#include "cli/io.h"
#include "cli/progress.h"
#include "cli/stack.h"
#include "a2a/a2a_job.h"
#include "a2a/a2a_outputs.h"
#include "a2a/a2a_plot.h"
#include "a2a/a2a_report.h"
#include "a2a/a2a_run.h"
#include "moe/plan.h"
#include "tensor/src.h"

/*
 * A JSON-lines trace (routing records) made into an NPY trace in memory;
 * s is replaced by a source over it.  Returns the bytes (free them).
 */
static void *
jsonl_input(const struct mk_a2a_layout_job *o, struct mk_src **s, int *infmt)
{
	struct mk_moe_jsonl fields = o->jsonl;
	struct mk_err e;
	struct mk_src *m;
	void *npy;
	size_t n;

	if (o->job.R < 1)
		mk_usage_error("%s: routing records (JSON lines): give --ranks "
		    "R, the ranks to deal each step's tokens to",
		    mk_src_name(*s));
	fields.R = o->job.R;
	if (mk_moe_jsonl_trace(*s, &fields, &npy, &n, &e) < 0)
		mk_fail(*s, &e);
	if ((m = mk_src_mem(npy, n, mk_src_name(*s), 0)) == NULL)
		err(MK_EXIT_DATA, NULL);
	mk_src_close(*s);
	*s = m;
	*infmt = MK_FMT_NPY;
	return npy;
}

void *
mk_a2a_open_trace(const struct mk_a2a_layout_job *o, const char *path,
    struct mk_src **s, int *infmt)
{
	struct mk_err e;

	if ((*s = mk_src_open(path, &e)) == NULL ||
	    (*infmt = mk_src_format(*s, &e)) < 0)
		mk_fail(*s, &e);
	return *infmt == MK_FMT_JSON ? jsonl_input(o, s, infmt) : NULL;
}

void
mk_a2a_read_plan(struct mk_a2a_layout_job *o, struct mk_phy2log *pl)
{
	struct mk_a2a_job_opts *j = &o->job;
	const char *name = strcmp(o->phy2log, "-") ? o->phy2log : "stdin";
	struct mk_err e;
	int l;

	if (mk_phy2log_read(o->phy2log, "--phy2log", pl, &e) < 0)
		mk_fail(NULL, &e);
	if (o->layer >= pl->L)
		mk_usage_error("--layer %d: %s has %d layers", o->layer, name,
		    pl->L);
	/* TensorRT-LLM's YAML keys its rows by layer: the ones used given */
	for (l = o->per_step ? 0 : o->layer; pl->has != NULL && l < (o->per_step
	    ? pl->L : o->layer + 1); l++)
		if (!pl->has[l])
			mk_usage_error("--layer %d: %s has no row for layer %d",
			    o->layer, name, l);
	j->plan = pl->p + (size_t)o->layer * (size_t)pl->R;
	j->plan_rows = o->per_step ? pl->L : 1;
	j->plan_slots = pl->R;
	j->plan_experts = j->cfg.E > 0 ? j->cfg.E : pl->max < INT32_MAX ?
	    (int)pl->max + 1 : 0;
	j->plan_name = pl->what;
}

/* The outputs --emit selects, by index into out[]; returns how many. */
static int
select_outputs(const struct mk_a2a_layout_job *o, const struct mk_a2a_output *out,
    int nout, int *order)
{
	const char *names[MK_A2A_MAX_OUTPUTS];
	int i;

	for (i = 0; i < nout; i++)
		names[i] = out[i].name;
	return mk_arg_emit(o->c.emit, names, nout, order, MK_A2A_MAX_OUTPUTS);
}

/* One output: its stack of steps, or the data of the step (or rank). */
static void
emit(struct mk_out *w, const struct mk_a2a_output *x, struct mk_stack *st,
    const struct mk_a2a_view *v)
{
	if (st != NULL) {
		mk_stack_write(st, w);
		return;
	}
	mk_out_begin(w, x->name, x->dtype, x->ndim, x->shape);
	mk_out_data(w, mk_a2a_output_data(x, v->g, v->pr, v->rows),
	    mk_a2a_output_nelem(x));
	mk_out_end(w);
}

/* The output of the tensors: -o FILE or stdout, as -f or the input. */
static struct mk_out *
open_output(const struct mk_a2a_layout_job *o, int infmt)
{
	return mk_out_open(o->c.output, o->c.format != MK_FMT_AUTO ?
	    o->c.format : infmt == MK_FMT_CSV ? MK_FMT_CSV : MK_FMT_NPY);
}

/*
 * The outputs beside the tensors: --plot FILE, and the report on stdout
 * where -o takes the tensors.  Opened with the tensors' output, before
 * anything is written, so that one that cannot be written (a directory,
 * a second output on stdout) fails the run before any output.
 */
struct sides {
	struct mk_out	*pic, *rep;
};

static void
open_sides(const struct mk_a2a_layout_job *o, struct sides *sd)
{
	if (o->plot != NULL)
		sd->pic = mk_out_open(o->plot, MK_FMT_CSV);
	if (o->job.report)	/* the tensors go to -o (a2a-layout.c) */
		sd->rep = mk_out_open(NULL, MK_FMT_CSV);
}

/*
 * Write the selected outputs to w (opened now, after the sides, if NULL;
 * none if they were drained already), and the report beside them.
 */
static void
write_all(const struct mk_a2a_layout_job *o, struct mk_a2a_job *j, int infmt,
    struct mk_out *w, struct sides *sd, int drained, const int *order,
    int nsel, struct mk_stack **st, const struct mk_a2a_view *v,
    const struct mk_a2a_series *ser)
{
	const struct mk_a2a_cfg *c = mk_a2a_job_cfg(j);
	struct mk_a2a_output out[MK_A2A_MAX_OUTPUTS];
	struct mk_out *rep, *pic;
	struct mk_err e;
	char title[300];
	int i;

	/* stdout opened after the sides is held till all are done */
	if (w == NULL) {
		open_sides(o, sd);
		w = open_output(o, infmt);
	}
	rep = sd->rep;
	pic = sd->pic;
	/* per-token shapes are known now */
	mk_a2a_outputs(c, v->pr, out);
	if (pic != NULL) {
		snprintf(title, sizeof(title), "a2a-layout: %s",
		    o->input ? o->input : "stdin");
		mk_a2a_plot(pic->fp, c, ser, mk_a2a_token_bytes(&o->sz),
		    mk_a2a_job_tally(j)->max_worst, title);
	}
	for (i = 0; !drained && i < nsel; i++)
		emit(w, &out[order[i]], st[order[i]], v);
	if (rep != NULL && mk_a2a_report_write(rep->fp,
	    &o->sz, c, mk_a2a_job_tally(j), &e) < 0)
		mk_fail(NULL, &e);
	if (rep != NULL)
		mk_out_close(rep);
	mk_out_close(w);
	/* last: every output of the run is committed together */
	if (pic != NULL)
		mk_out_close(pic);
}

/*
 * Once all went well: one line for each thing that ran as asked but
 * likely not as meant.  plan_rows: PLAN's layers (0: none).
 */
static void
warnings(const struct mk_a2a_layout_job *o, struct mk_a2a_job *j, int plan_rows)
{
	const struct mk_a2a_tally *t = mk_a2a_job_tally(j);
	const struct mk_a2a_cfg *c = mk_a2a_job_cfg(j);

	/* 7168 is DeepSeek-V3's; a Mixtral trace needs 4096 */
	if ((o->job.report || o->plot != NULL) && o->hidden_default)
		mk_note("--hidden not given; the sizes are for hidden 7168 "
		    "(DeepSeek-V3)");
	/*
	 * DeepEP's normal mode runs up to 8 ranks as one node (more, as
	 * nodes of 8): say so where they might be more nodes, and what a
	 * 0 means
	 */
	if (o->job.report && c->style == MK_A2A_DEEPEP && !c->ll_only &&
	    c->nodes == 0 && c->R <= c->local && c->R > 1)
		mk_note("sized for one node of %d ranks, as DeepEP's normal "
		    "mode runs them (--num-nodes to say so)", c->R);
	if (o->job.report && c->style == MK_A2A_DEEPEP && !c->ll_only &&
	    c->R <= c->local && o->job.max_tokens == 0)
		mk_note("recommended_num_rdma_bytes is 0: one node's normal "
		    "mode needs no RDMA buffer; low-latency mode does "
		    "(--max-tokens sizes it)");
	/* -E 16 on an 8-expert trace leaves half the ranks without tokens */
	if (o->phy2log == NULL && t->steps > 0 && c->E >= 2 && t->used > 0 &&
	    t->used <= c->E / 2)
		mk_warning("the ids use experts 0..%d of -E %d, the ranks of "
		    "the rest get no token: is -E the model's routed experts?",
		    t->used - 1, c->E);
	if (plan_rows > 1 && !o->per_step && !o->layer_given &&
	    t->steps == plan_rows)
		mk_warning("the trace has %d steps, as many as %s has layers, "
		    "and all went through layer 0; --layer-per-step routes "
		    "step s through layer s", t->steps, o->phy2log);
}

/* How the stacked outputs go to -o FILE. */
enum drain { DRAIN_AFTER, DRAIN_SELF, DRAIN_THREAD };

/*
 * How the stacked outputs go to -o FILE (MOEKIT_STACK_DRAIN, else): while
 * the steps are laid out, by a thread and a CPU of their own on hosts of
 * MK_THREADS_HOST_CPUS CPUs or more for outputs of 4 MiB or more and of
 * 1/256 of the ids or more, else by the thread that pushes them; after the
 * last step when MOEKIT_STACK_DRAIN=0 says so.  On the 16-core host a
 * CPU fewer for the layout cost it little, and outputs written after it
 * nearly doubled the run; on the 2-CPU virtual machine a CPU is half the
 * layout's.
 */
static enum drain
drain_mode(const struct mk_a2a_output *out, const int *order, int nsel,
    const struct mk_moe_trace_shape *sh)
{
	double obytes = 0, ibytes = (double)sh->S * sh->R * (double)sh->max_T *
	    sh->K * sh->elem;
	int i, w = mk_stack_drain_wanted();

	if (w >= 0)
		return w ? DRAIN_THREAD : DRAIN_AFTER;
	for (i = 0; i < nsel; i++)
		obytes += (double)mk_a2a_output_nelem(&out[order[i]]) *
		    (double)mk_dtype_size(out[order[i]].dtype) * sh->S;
	return mk_usable_cpus() >= MK_THREADS_HOST_CPUS && obytes >= 4 << 20 &&
	    obytes * 256 >= ibytes ? DRAIN_THREAD : DRAIN_SELF;
}

/*
 * Where every selected output is a stack of a trace whose steps are in
 * hand (never on a header's word): they are written to w (opened now)
 * while the steps are laid out, drain_mode says how; a thread of their
 * own is left a CPU by the layout.  Returns the drain, or NULL (*w may be
 * open).
 */
static struct mk_stack_drain *
start_drain(const struct mk_a2a_layout_job *o, struct mk_a2a_job *j, int infmt,
    const struct mk_a2a_output *out, const int *order, int nsel,
    struct mk_stack **st, struct mk_out **w)
{
	struct mk_moe_trace_shape sh = mk_a2a_job_shape(j);
	struct mk_stack *ds[MK_A2A_MAX_OUTPUTS];
	struct mk_stack_drain *d;
	enum drain mode;
	int i;

	/* the environment checked first: a wrong value is an error anyway */
	if ((mode = drain_mode(out, order, nsel, &sh)) == DRAIN_AFTER ||
	    !sh.in_hand || nsel == 0)
		return NULL;
	for (i = 0; i < nsel; i++)
		if ((ds[i] = st[order[i]]) == NULL)
			return NULL;
	*w = open_output(o, infmt);
	if ((d = mk_stack_drain_start(ds, nsel, sh.S, mode == DRAIN_THREAD,
	    *w)) != NULL && mode == DRAIN_THREAD)
		mk_a2a_job_spare_cpu(j);
	return d;
}

int
mk_a2a_layout_run(struct mk_a2a_layout_job *o)
{
	struct mk_a2a_output out[MK_A2A_MAX_OUTPUTS];
	struct mk_stack *st[MK_A2A_MAX_OUTPUTS] = { NULL };
	struct mk_a2a_rank none;
	struct mk_a2a_view v = { 0 };
	const struct mk_a2a_rank *pr = NULL;
	struct mk_phy2log pl = { 0 };
	struct mk_a2a_series ser = { 0 };
	void *jsonl = NULL;
	struct mk_moe_trace_shape sh;
	struct mk_progress pg;
	struct mk_a2a_job *j;
	struct mk_src *s;
	struct mk_err e;
	int order[MK_A2A_MAX_OUTPUTS], nsel, nout, i, r, infmt;
	struct mk_stack_drain *drain;
	struct mk_out *w = NULL;
	struct sides sd = { NULL, NULL };
	char how[300], dhow[120] = "";

	if (o->ncap > 0 || o->lint)
		return mk_a2a_capacity_run(o);
	mk_out_input(o->input);
	mk_out_input(o->phy2log);
	if (o->phy2log != NULL)
		mk_a2a_read_plan(o, &pl);
	jsonl = mk_a2a_open_trace(o, o->input, &s, &infmt);
	if ((j = mk_a2a_job_open(&o->job, s, &e)) == NULL)
		mk_fail(s, &e);
	memset(&none, 0, sizeof(none));
	nout = mk_a2a_outputs(mk_a2a_job_cfg(j), o->job.rank >= 0 ? &none :
	    NULL, out);
	nsel = select_outputs(o, out, nout, order);
	sh = mk_a2a_job_shape(j);
	for (i = 0; sh.stepped && i < nsel; i++)
		if (!out[order[i]].per_token)
			st[order[i]] = mk_stack_new(out[order[i]].name,
			    out[order[i]].dtype, out[order[i]].ndim,
			    out[order[i]].shape);
	drain = start_drain(o, j, infmt, out, order, nsel, st, &w);
	if (w != NULL)		/* the tensors' output open: the rest now */
		open_sides(o, &sd);
	if (drain != NULL)
		mk_stack_drain_describe(drain, dhow, sizeof(dhow));
	/* else held till the end; never reserved on a header's word */
	for (i = 0; drain == NULL && sh.in_hand && i < nsel; i++)
		if (st[order[i]] != NULL)
			(void)mk_stack_reserve(st[order[i]], sh.S);
	mk_progress_start(&pg, "steps", sh.S, o->c.quiet);
	while ((r = mk_a2a_job_next(j, &v, &e)) > 0) {
		mk_progress_set(&pg, v.step + 1, (double)(v.step + 1) *
		    (double)sh.R * (double)sh.T * (double)sh.K *
		    (double)sh.elem);
		for (i = 0; i < nout; i++)
			if (st[i] != NULL)
				mk_stack_push(st[i], mk_a2a_output_data(&out[i],
				    v.g, v.pr, v.rows));
		if (drain != NULL)
			mk_stack_drain_step(drain);
		if (v.pr != NULL)
			pr = v.pr;	/* the job keeps it */
		if (o->plot != NULL && mk_a2a_series_add(&ser,
		    mk_a2a_job_cfg(j), v.g, &e) < 0)
			mk_fail(s, &e);
	}
	mk_progress_end(&pg);
	if (r < 0)
		mk_fail(s, &e);
	v.pr = pr;
	if (drain != NULL) {
		mk_stack_drain_end(drain);	/* it freed the stacks */
		for (i = 0; i < nsel; i++)
			st[order[i]] = NULL;
	}
	write_all(o, j, infmt, w, &sd, drain != NULL, order, nsel, st, &v,
	    &ser);
	warnings(o, j, o->phy2log != NULL ? pl.L : 0);
	mk_a2a_series_free(&ser);
	if (o->c.verbose > 0 && *mk_a2a_job_describe(j, how, sizeof(how)))
		fprintf(stderr, "%s: %s\n", mk_progname(), how);
	if (o->c.verbose > 0 && *dhow)
		fprintf(stderr, "%s: outputs written %s\n", mk_progname(), dhow);
	mk_a2a_job_close(j);
	mk_src_close(s);
	free(jsonl);
	mk_phy2log_free(&pl);
	return MK_EXIT_OK;
}
