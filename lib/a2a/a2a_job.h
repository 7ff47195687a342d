/*
 * a2a_job.h - one pass of a2a-layout over a routing trace: the trace read
 * a step (or a batch of steps read in place) at a time, routed through a
 * plan if one is given, laid out, tallied for the report, and handed out
 * a step at a time with the per-token outputs of one rank where asked.
 * The command only decides where the results go.
 *
 *	j = mk_a2a_job_open(&opts, src, &e);
 *	while ((r = mk_a2a_job_next(j, &v, &e)) > 0)
 *		... v.g, v.rows, v.pr ...
 *	mk_a2a_job_tally(j), mk_a2a_job_close(j);
 */
#ifndef MK_A2A_JOB_H
#define MK_A2A_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "a2a/a2a.h"
#include "a2a/a2a_report.h"
#include "moe/trace.h"
#include "base/errmsg.h"
#include "tensor/src.h"

/* What the user asked for. */
struct mk_a2a_job_opts {
	struct mk_a2a_cfg cfg;		/* E (0 with a plan: its slots), C,
					 * style, align, lenient; R and K come
					 * from the trace */
	int		 R;		/* --ranks, or 0 */
	int		 rank;		/* per-token outputs of this rank, or
					 * -1 */
	int		 step;		/* ... at this step of a stepped trace
					 * (needed there), or -1 */
	int64_t		 max_tokens;	/* low-latency M, or 0 */
	const struct mk_a2a_sizing *sizing;	/* the buffer sizes' options:
					 * their configs are checked */
	int		 report;	/* sizes will be reported: R needs a
					 * config */
	const int64_t	*plan;		/* a phy2log row (logical ids in the
					 * trace), or NULL */
	int		 plan_rows;	/* rows at plan: 1, or one a step
					 * (--layer-per-step: step s goes
					 * through row s) */
	int		 plan_slots;	/* its physical slots */
	int		 plan_experts;	/* logical experts it places */
	const char	*plan_name;	/* for messages ("--phy2log FILE") */
};

/*
 * One step's results: g and rows until the next call that hands out a
 * step, pr until the job is closed.
 */
struct mk_a2a_view {
	int				 step;
	const struct mk_a2a_group	*g;
	const int64_t			*rows;	/* [R] Triton-distributed output
						 * rows after this step */
	const struct mk_a2a_rank	*pr;	/* --rank's outputs at this
						 * step, else NULL */
};

struct mk_a2a_job;

/*
 * Open the trace on s (left open: close it after the job) and check the
 * options against it (DeepEP's and Triton-distributed's rules, --rank,
 * --step: usage errors).  Returns the job, or NULL with e filled.
 */
struct mk_a2a_job	*mk_a2a_job_open(const struct mk_a2a_job_opts *o,
			    struct mk_src *s, struct mk_err *e);

/* The group's configuration (R, K, E resolved) and the trace's shape. */
const struct mk_a2a_cfg	*mk_a2a_job_cfg(const struct mk_a2a_job *j);
struct mk_moe_trace_shape mk_a2a_job_shape(const struct mk_a2a_job *j);

/*
 * Leave a CPU to another thread of the caller (one that writes outputs
 * while steps are laid out): the team that lays out steps takes one
 * thread fewer when it would take every CPU.  Beside a writing thread, a
 * team of 16 on 16 CPUs ran twice as slow as one of 15 (its waits for the
 * slowest thread waited for preempted ones).
 */
void	mk_a2a_job_spare_cpu(struct mk_a2a_job *j);

/*
 * The next step into v.  Returns 1, 0 after the last step, or -1 with e
 * filled (the earliest bad step of a batch is the one named).
 */
int	mk_a2a_job_next(struct mk_a2a_job *j, struct mk_a2a_view *v,
	    struct mk_err *e);

/* The worst case over the steps handed out so far (for the report). */
const struct mk_a2a_tally	*mk_a2a_job_tally(const struct mk_a2a_job *j);

/* -v: how the trace was read (mk_moe_trace_describe). Returns buf. */
char	*mk_a2a_job_describe(const struct mk_a2a_job *j, char *buf,
	    size_t size);

/* Free the job.  NULL is ignored. */
void	mk_a2a_job_close(struct mk_a2a_job *j);

#endif
