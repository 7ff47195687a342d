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
 * else nothing.  For a stack whose length is known (the steps of a
 * trace): grown a slice at a time, the first touch of every page (the
 * kernel zeroing it) fell to the one thread that pushes.
 */
void	mk_stack_reserve(struct mk_stack *st, int64_t n);

/* Append one slice (its whole shape of elements). */
void	mk_stack_push(struct mk_stack *st, const void *slice);

/* Write the stack as one tensor [slices, shape...] to w, and free it. */
void	mk_stack_write(struct mk_stack *st, struct mk_out *w);

#endif
