/*
 * a2a_trace.h - routing traces as a2a-layout reads them.
 *
 * Forms (A2A.md): one tensor [R, T, K] (one step); a stream of R tensors
 * [T_r, K] (one step, ranks with different token counts); one tensor
 * [S, R, T, K] (S steps).  Ids are i32 or i64.  An NPY [S, R, T, K] or
 * [R, T, K] tensor is read a step at a time, so a trace on a pipe needs
 * memory for one step only.  A file's step is either read with pread,
 * each piece of a rank by the thread that counts it (a loader, struct
 * mk_a2a_step), or used in place in the file's mapping, whose earlier
 * steps are unmapped in rounds (UNMAP_BYTES in a2a_trace.c) by the
 * loaders.  Which is faster depends on the machine (a
 * virtual machine measured pread 3 times faster, a larger host mapping 10
 * times faster), so long traces time a few steps each way, keep the
 * faster and time the other again now and then (a2a_trace.c, RETRY).
 */
#ifndef MK_A2A_TRACE_H
#define MK_A2A_TRACE_H

#include "a2a.h"
#include "tensor.h"

struct mk_src;

struct mk_a2a_trace {
	struct mk_src		*s;
	int			 S, R, K, elem;	/* S = 0: no step dimension */
	int64_t			 T;		/* tokens per rank (dense forms) */
	int64_t			 max_T;		/* largest T_r */
	int			 step;		/* steps handed out */
	const unsigned char	*mapped;	/* a file's [S, R, T, K] payload
						 * in its mapping, else NULL */
	int64_t			 off;		/* its offset in the file */
	int64_t			 cur_off;	/* the current step's offset */
	int			 method;	/* how the last step was read */
#define MK_A2A_BY_PREAD		0
#define MK_A2A_BY_MAP		1
#define MK_A2A_TRIAL_STEPS	4	/* steps timed each way */
	int			 read_as;	/* 0: time both ways on long
						 * traces, else 1 + the method
						 * for every step (files whose
						 * ids need no byte swap) */
	double			 t_prev;	/* when it was handed out */
	double			 fastest[2];	/* seconds of the fastest trial
						 * step, by method (0: none) */
	uintptr_t		 unmap[2];	/* pages of steps read in place
						 * that this step's loaders drop,
						 * [from, to) */
	uintptr_t		 held[2];	/* the pages of such steps that
						 * are still mapped */
	int			 pend[2];	/* steps read in place and handed
						 * out since a batch began */
	unsigned char		*buf;		/* one step, read (pipe, file) */
	size_t			 buf_len;	/* its mapping */
	int			 swap;		/* big-endian payload */
	struct mk_tensor	*t;		/* tensors read whole */
	int			 nt;
};

/*
 * Open the trace on s (left open; close it after mk_a2a_trace_close).
 * R, if not 0, is the number of ranks the user gave, checked against the
 * input.  Returns 0 or -1 with e filled.
 */
int	mk_a2a_trace_open(struct mk_a2a_trace *tr, struct mk_src *s, int R,
	    struct mk_err *e);

/* The next step into st.  Returns 1, 0 after the last, or -1 with e. */
int	mk_a2a_trace_next(struct mk_a2a_trace *tr, struct mk_a2a_step *st,
	    struct mk_err *e);

/*
 * The next steps into st[0..]: one, or up to nmax of a file read in place
 * (for mk_a2a_layout_steps).  They stay valid until the next call.
 * Returns how many, 0 after the last, or -1 with e.
 */
int	mk_a2a_trace_next_steps(struct mk_a2a_trace *tr,
	    struct mk_a2a_step *st, int nmax, struct mk_err *e);

/*
 * The most steps worth asking mk_a2a_trace_next_steps for (1 to
 * MK_A2A_MAX_STEPS), to size the groups they are laid out into.
 */
int	mk_a2a_trace_batch(const struct mk_a2a_trace *tr);

void	mk_a2a_trace_close(struct mk_a2a_trace *tr);

/*
 * Logical -> physical routing through an eplb-plan phy2log row of P
 * slots, with vLLM's rule: slot (t, j) of a rank uses replica
 * (t*K + j) mod count of its expert, replicas in ascending slot order.
 */
struct mk_a2a_phys {
	int	 P, E;		/* physical slots, logical experts */
	int	*first, *cnt;	/* [E] where each expert's replicas start */
	int	*slots;		/* [P] slots grouped by expert, ascending */
};

/* Build from a phy2log row.  Returns 0 or -1 with e filled. */
int	mk_a2a_phys_init(struct mk_a2a_phys *m, const int64_t *row, int P,
	    int E, const char *what, struct mk_err *e);
void	mk_a2a_phys_free(struct mk_a2a_phys *m);

/*
 * Map step in (logical ids, loaded: mk_a2a_step_load) to out (physical
 * ids, i32) into bufs[r]
 * (at least T_r*K each).  -1 stays -1; other ids outside [0, E) are an
 * error, or -1 with lenient.  Returns 0 or -1 with e filled.
 */
int	mk_a2a_phys_map(const struct mk_a2a_phys *m, const struct mk_a2a_step *in,
	    struct mk_a2a_step *out, int32_t **bufs, int lenient,
	    const char *where, struct mk_err *e);

#endif
