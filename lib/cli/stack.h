/*
 * stack.h - an output written a slice at a time: each step's slice is
 * kept as it is computed, and the whole [S, ...] tensor is written when S
 * is known.  Slices are kept in memory up to 256 MiB over all stacks,
 * then in unlinked temporary files (in $TMPDIR, else /tmp), so memory
 * stays bounded however long the run; nothing is left behind on any
 * exit.  Part of the CLI layer: errors end the program (status 1).
 */
#ifndef MK_STACK_H
#define MK_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"
#include "cli/io.h"

struct mk_stack;

/* A stack of slices of the given dtype and shape (ndim <= 3). */
struct mk_stack	*mk_stack_new(const char *name, enum mk_dtype dtype,
		    int ndim, const int64_t *shape);

/*
 * Room for n slices in memory, its pages touched now by several threads
 * (base/threads.h), when they fit in what memory is left of the budget;
 * else nothing.  Returns whether it reserved.  For a stack whose length
 * is known (the steps of a trace): grown a slice at a time, the first
 * touch of every page (the kernel zeroing it) fell to the one thread that
 * pushes.
 */
int	mk_stack_reserve(struct mk_stack *st, int64_t n);

/* Append one slice (its whole shape of elements). */
void	mk_stack_push(struct mk_stack *st, const void *slice);

/*
 * Whether to drain stacks: MOEKIT_STACK_DRAIN=1 whenever they allow it (1),
 * 0 never (0); unset, the caller decides (-1).  Another value is a usage
 * error.
 */
int	mk_stack_drain_wanted(void);

/*
 * Stacks drained while they fill: the n empty stacks st[] (not reserved;
 * w claimable: mk_out_claimable) are written to w in order now, as
 * tensors [total, shape...] whose data is then written slice by slice as
 * they are pushed (mk_stack_drain_step after each slice of every stack),
 * so that the outputs need memory for a few MiB of slices, not for the
 * whole run, and go out while the work that makes them goes on.  With
 * threaded, a thread of its own writes them (the pushes wait only when
 * it falls a ring behind); else the pushing thread writes each ring full.
 * Returns NULL, with nothing written, when that cannot be (push and write
 * them as usual).
 */
struct mk_stack_drain;
struct mk_stack_drain	*mk_stack_drain_start(struct mk_stack **st, int n,
			    int64_t total, int threaded, struct mk_out *w);

/*
 * -v: how the drain writes ("while the steps are laid out, 27 steps at a
 * time, by a thread of their own").  Returns buf.
 */
char	*mk_stack_drain_describe(const struct mk_stack_drain *d, char *buf,
	    size_t size);

/* Every stack has one more slice. */
void	mk_stack_drain_step(struct mk_stack_drain *d);

/*
 * Write what is left, wait for the thread and free the stacks and d.
 * Exits with status 1 on a write error or if a stack is not total long.
 */
void	mk_stack_drain_end(struct mk_stack_drain *d);

/* Write the stack as one tensor [slices, shape...] to w, and free it. */
void	mk_stack_write(struct mk_stack *st, struct mk_out *w);

#endif
