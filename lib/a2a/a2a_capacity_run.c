/*
 * a2a_capacity_run.c - a2a-layout --capacity and --lint (a2a_run.h): every
 * step of the trace laid out for its demands, the held-out trace's too
 * (--eval), and the table of each library's knob at each p, the notes and
 * the picture; or the libraries' limits the trace breaks.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/io.h"
#include "cli/progress.h"
#include "a2a/a2a_capacity.h"
#include "a2a/a2a_capacity_plot.h"
#include "a2a/a2a_job.h"
#include "a2a/a2a_lint.h"
#include "a2a/a2a_run.h"
#include "moe/plan.h"
#include "tensor/src.h"

/* One trace's pass: its demands and its group (R, E, K). */
struct pass {
	struct mk_a2a_demands	 dm;
	struct mk_a2a_cfg	 c;
	char			 name[256];
};

static void
demands_of(const struct mk_a2a_layout_job *o, const char *path,
    struct pass *ps)
{
	struct mk_moe_trace_shape sh;
	struct mk_a2a_view v;
	struct mk_progress pg;
	struct mk_a2a_job *j;
	struct mk_src *s;
	struct mk_err e;
	void *jsonl;
	int r, infmt;

	jsonl = mk_a2a_open_trace(o, path, &s, &infmt);
	snprintf(ps->name, sizeof(ps->name), "%s", mk_src_name(s));
	if ((j = mk_a2a_job_open(&o->job, s, &e)) == NULL)
		mk_fail(s, &e);
	sh = mk_a2a_job_shape(j);
	ps->c = *mk_a2a_job_cfg(j);
	mk_progress_start(&pg, "steps", sh.S, o->c.quiet);
	while ((r = mk_a2a_job_next(j, &v, &e)) > 0) {
		mk_progress_set(&pg, v.step + 1, (double)(v.step + 1) *
		    (double)sh.R * (double)sh.T * (double)sh.K *
		    (double)sh.elem);
		if (mk_a2a_demands_add(&ps->dm, &ps->c, v.g, sh.max_T, &e) < 0)
			mk_fail(s, &e);
	}
	mk_progress_end(&pg);
	if (r < 0)
		mk_fail(s, &e);
	mk_a2a_job_close(j);
	mk_src_close(s);
	free(jsonl);
}

/* The held-out trace is of the same group: R, E and K (T may differ). */
static void
same_group(const struct pass *a, const struct pass *b)
{
	if (a->c.R != b->c.R || a->c.E != b->c.E || a->c.K != b->c.K)
		errx(MK_EXIT_DATA, "--eval %s: %d ranks, %d experts, top-%d; %s "
		    "has %d, %d, top-%d: a capacity carries over to the same "
		    "group only", b->name, b->c.R, b->c.E, b->c.K, a->name,
		    a->c.R, a->c.E, a->c.K);
}

/* Once all went well: each p whose held-out overflow share exceeds it. */
static void
held_out_notes(const struct mk_a2a_capacity_in *in)
{
	struct mk_a2a_knob_row r;
	struct mk_err e;
	int i;

	for (i = 0; in->eval != NULL && i < in->np; i++) {
		if (mk_a2a_knob_row(in, 0, in->p[i], &r, &e) < 0)
			mk_fail(NULL, &e);
		if (in->eval->S > 0 && (double)r.eval_over / in->eval->S >
		    in->p[i])
			mk_note("p %g: %d of the %d held-out steps (%.3g) "
			    "overflow the capacity fitted (%lld tokens, scaled "
			    "to the held-out tokens a rank)", in->p[i],
			    r.eval_over, in->eval->S, (double)r.eval_over /
			    in->eval->S, (long long)r.capacity);
	}
}

/* --lint: a line for each limit broken, on the output; status 1 if any. */
static int
lint(const struct mk_a2a_layout_job *o, struct mk_out *w, const struct pass *ps)
{
	int64_t rows = 0;
	int s, n;

	for (s = 0; s < ps->dm.S; s++)
		if (ps->dm.d[MK_A2A_D_ROWS][s] > rows)
			rows = ps->dm.d[MK_A2A_D_ROWS][s];
	n = mk_a2a_lint(w->fp, &(struct mk_a2a_lint_in){ &ps->c, &o->sz,
	    ps->dm.T, rows });
	mk_out_close(w);
	return n > 0 ? MK_EXIT_DATA : MK_EXIT_OK;
}

int
mk_a2a_capacity_run(struct mk_a2a_layout_job *o)
{
	struct pass fit, held;
	struct mk_phy2log pl = { 0 };
	struct mk_out *w, *pic = NULL;
	struct mk_err e;
	struct mk_a2a_capacity_in in;
	int r;

	memset(&fit, 0, sizeof(fit));
	memset(&held, 0, sizeof(held));
	mk_out_input(o->input);
	mk_out_input(o->eval);
	mk_out_input(o->phy2log);
	if (o->phy2log != NULL)
		mk_a2a_read_plan(o, &pl);
	/* the outputs first: one that cannot be written fails the run
	 * before the passes */
	pic = o->plot ? mk_out_open(o->plot, MK_FMT_CSV) : NULL;
	w = mk_out_open(o->c.output, MK_FMT_CSV);
	demands_of(o, o->input, &fit);
	if (o->lint) {
		r = lint(o, w, &fit);
		mk_a2a_demands_free(&fit.dm);
		mk_phy2log_free(&pl);
		return r;
	}
	if (o->eval != NULL) {
		demands_of(o, o->eval, &held);
		same_group(&fit, &held);
	}
	in = (struct mk_a2a_capacity_in){ &fit.c, &o->sz, &fit.dm,
	    o->eval ? &held.dm : NULL, o->cap_p, o->ncap };
	if (mk_a2a_capacity_write(w->fp, &in, &e) < 0)
		mk_fail(NULL, &e);
	if (pic != NULL) {
		if (mk_a2a_capacity_plot(pic->fp, &in, fit.name, o->eval ?
		    held.name : NULL, &e) < 0)
			mk_fail(NULL, &e);
		mk_out_close(pic);
	}
	mk_out_close(w);
	if (o->hidden_default)
		mk_note("--hidden not given; the bytes are for hidden 7168 "
		    "(DeepSeek-V3)");
	held_out_notes(&in);
	mk_a2a_demands_free(&fit.dm);
	mk_a2a_demands_free(&held.dm);
	mk_phy2log_free(&pl);
	return MK_EXIT_OK;
}
