/*
 * stream.h - opening inputs and reading tensor streams from them.
 *
 * An input is a file or standard input ("-" or NULL).  Its format is
 * recognised from its first bytes: "\x93NUMPY" is an NPY stream, '{' or
 * '[' (after blanks) is JSON, anything else is CSV.  mk_src_next() returns
 * the tensors of an NPY or CSV stream one after another.
 */
#ifndef MK_STREAM_H
#define MK_STREAM_H

#include <stddef.h>

#include "errmsg.h"
#include "tensor.h"

enum mk_fmt { MK_FMT_AUTO, MK_FMT_NPY, MK_FMT_CSV, MK_FMT_JSON, MK_FMT_EMPTY };

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
 */
struct mk_src	*mk_src_mem(const void *p, size_t n, const char *name,
		    size_t drip);

/* The name used in messages. */
const char	*mk_src_name(const struct mk_src *s);

/*
 * The format of the input, from its first bytes (reading them if needed):
 * MK_FMT_NPY, MK_FMT_CSV, MK_FMT_JSON, or MK_FMT_EMPTY for no bytes at all.
 * Returns -1 with e filled on a read error.
 */
int	mk_src_format(struct mk_src *s, struct mk_err *e);

/*
 * Read the next tensor of an NPY or CSV stream into t (freed first).
 * Returns 1 with t filled, 0 at the end of the stream, or -1 with e
 * filled.  An input without a single tensor is an error ("FILE: empty
 * input"), and so is JSON.
 */
int	mk_src_next(struct mk_src *s, struct mk_tensor *t, struct mk_err *e);

/*
 * The rest of the input as one block (for JSON): *p stays valid until
 * mk_src_close.  Returns 0, or -1 with e filled.
 */
int	mk_src_slurp(struct mk_src *s, const unsigned char **p, size_t *n,
	    struct mk_err *e);

/* Close the source; tensors read from it stay valid. NULL is ignored. */
void	mk_src_close(struct mk_src *s);

#endif
