/*
 * trace.h - routing traces as a2a-layout and eplb-replay read them.
 *
 * Forms (a2a-layout(1)): one tensor [R, T, K] (one step); a stream of R tensors
 * [T_r, K] (one step, ranks with different token counts); one tensor
 * [S, R, T, K] (S steps, possibly none).  Ids are i32 or i64.  An NPY
 * [S, R, T, K] or [R, T, K] tensor is read a step at a time (tensor/slab.h),
 * so a trace on a pipe needs memory for one step only.  A file's step is
 * either read with pread, each piece of a rank by the thread that counts
 * it (a loader, struct mk_moe_step), or used in place in the file's
 * mapping, whose earlier steps are given back in rounds (UNMAP_BYTES in
 * trace.c) by the loaders.  Which is faster depends on the machine (a
 * virtual machine measured pread 3 times faster, a larger host mapping 10
 * times faster), so long traces time a few steps each way, keep the
 * faster and time the other again now and then (trace.c, RETRY);
 * shorter ones are read in place on hosts of 8 CPUs or more, else with
 * pread (trace.c, SHORT_MAP_CPUS).
 * The environment variable MOEKIT_A2A_READ=pread|map fixes the choice.
 */
#ifndef MK_MOE_TRACE_H
#define MK_MOE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "moe/step.h"
#include "tensor/src.h"

struct mk_moe_trace;

/* Steps mk_moe_trace_next_steps hands out at once, at most. */
#define MK_MOE_MAX_STEPS	16

/* What a trace holds. */
struct mk_moe_trace_shape {
	int	 stepped;	/* it has a step axis ([S, R, T, K]) */
	int	 S;		/* steps (1 without a step axis; may be 0) */
	int	 R, K;
	int	 elem;		/* 4 or 8 bytes per id */
	int64_t	 T;		/* tokens per rank (dense forms) */
	int64_t	 max_T;		/* the largest T_r */
	int	 in_hand;	/* every step's bytes are there (a file, or an
				 * input read whole): S is more than a
				 * header's word, memory may be sized by it */
};

/*
 * Open the trace on s (left open; close it after mk_moe_trace_close).
 * R, if not 0, is the number of ranks the user gave, checked against the
 * input.  Reads MOEKIT_A2A_READ (an unknown value is a usage error).
 * Returns the trace, or NULL with e filled.
 */
struct mk_moe_trace	*mk_moe_trace_open(struct mk_src *s, int R,
			    struct mk_err *e);

/* Its shape. */
struct mk_moe_trace_shape mk_moe_trace_shape(const struct mk_moe_trace *tr);

/* The trace's name in messages (its file, or "stdin"). */
const char	*mk_moe_trace_name(const struct mk_moe_trace *tr);

/*
 * The next steps into st[0..]: one, or up to nmax of a file read in place
 * (for mk_a2a_layout_steps).  They stay valid until the next call.
 * Returns how many, 0 after the last, or -1 with e.  After the last step
 * a further tensor in the input is an error.
 */
int	mk_moe_trace_next_steps(struct mk_moe_trace *tr,
	    struct mk_moe_step *st, int nmax, struct mk_err *e);

/*
 * The most steps worth asking mk_moe_trace_next_steps for (1 to
 * MK_MOE_MAX_STEPS), to size the groups they are laid out into.
 */
int	mk_moe_trace_batch(const struct mk_moe_trace *tr);

/*
 * How the steps handed out so far were read, one line of text for -v
 * ("1000 steps; trial steps took ... the rest mapped"), into buf; "" for
 * input that was not a file read a step at a time.  Returns buf.
 */
char	*mk_moe_trace_describe(const struct mk_moe_trace *tr, char *buf,
	    size_t size);

/* Free the trace.  NULL is ignored. */
void	mk_moe_trace_close(struct mk_moe_trace *tr);

#endif
