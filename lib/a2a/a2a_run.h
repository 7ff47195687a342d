/*
 * a2a_run.h - a2a-layout's story: from parsed options to written outputs.
 * Like cli/, this floor of the wing writes and exits: a run's outputs are
 * committed together or not at all (cli/io.h), a bad input ends it with
 * one line and status 1 or 2.
 */
#ifndef MK_A2A_RUN_H
#define MK_A2A_RUN_H

#include "cli/cli.h"
#include "a2a/a2a_job.h"
#include "a2a/a2a_report.h"
#include "moe/jsonl.h"

/* What a2a-layout was asked. */
struct mk_a2a_layout_job {
	struct mk_opts	 c;		/* the common options */
	struct mk_a2a_job_opts job;	/* the plan is filled in by the run */
	struct mk_a2a_sizing sz;
	const char	*phy2log, *input, *plot;
	struct mk_moe_jsonl jsonl;	/* a JSON-lines trace's fields */
	char		 fieldbuf[256];
	int		 layer, layer_given;
	int		 per_step;	/* --layer-per-step */
	int		 hidden_default;	/* --hidden left at 7168 */
	/* --capacity P,... over the trace, --eval TRACE held out */
	double		 cap_p[64];
	int		 ncap;
	const char	*eval;
	int		 lint;		/* --lint: the libraries' limits */
};

/*
 * a2a-layout: lay the trace out step by step, write the outputs --emit
 * selects, the report, the picture and the warnings (or, with
 * --capacity, the receive capacity table: mk_a2a_capacity_run).  Returns
 * 0; exits on an error (see above).
 */
int	mk_a2a_layout_run(struct mk_a2a_layout_job *o);
int	mk_a2a_capacity_run(struct mk_a2a_layout_job *o);

/* The story's steps both share. */
struct mk_phy2log;
struct mk_src;

/* --phy2log: the plan's layer into o->job, which routes logical ids. */
void	mk_a2a_read_plan(struct mk_a2a_layout_job *o, struct mk_phy2log *pl);

/*
 * Open the trace at path (NULL or "-": stdin) on *s, its format in
 * *infmt; routing records (JSON lines) are made an NPY trace in memory,
 * whose bytes are returned (free them after *s), else NULL.
 */
void	*mk_a2a_open_trace(const struct mk_a2a_layout_job *o,
	    const char *path, struct mk_src **s, int *infmt);

#endif
