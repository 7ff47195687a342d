/*
 * src.h - byte sources: where tensors are read from.
 *
 * A source is a file or standard input ("-" or NULL).  A regular file (or
 * stdin redirected from one) is mapped once, read-only, and tensors read
 * from it point straight into the mapping; anything else (pipes,
 * terminals, character devices) is read through a buffer that grows as
 * bytes arrive.  The struct is opaque outside lib/tensor/: readers of
 * other layers go through stream.h (tensors), slab.h (an array's payload
 * a step at a time) and mk_src_slurp (JSON).
 */
#ifndef MK_SRC_H
#define MK_SRC_H

#include <stddef.h>

#include "base/errmsg.h"

struct mk_src;

/*
 * Open path for reading (NULL or "-": standard input, named "stdin" in
 * messages).  Regular files are memory-mapped.  Returns the source, or NULL
 * with e filled ("FILE: No such file or directory").  Close with
 * mk_src_close.
 */
struct mk_src	*mk_src_open(const char *path, struct mk_err *e);

/*
 * A source over n bytes of memory at p (which must outlive it), named name.
 * With drip 0 it behaves like a mapped file; with drip > 0 it hands out at
 * most drip bytes per read, like a slow pipe.  For tests and fuzzers.
 * Returns NULL when memory runs out.
 */
struct mk_src	*mk_src_mem(const void *p, size_t n, const char *name,
		    size_t drip);

/* The name used in messages. */
const char	*mk_src_name(const struct mk_src *s);

/*
 * The rest of the input as one block (for JSON): *p stays valid until
 * mk_src_close.  Returns 0, or -1 with e filled.
 */
int	mk_src_slurp(struct mk_src *s, const unsigned char **p, size_t *n,
	    struct mk_err *e);

/*
 * Close the source, freeing its reader state; tensors read from it stay
 * valid.  NULL is ignored.
 */
void	mk_src_close(struct mk_src *s);

#endif
