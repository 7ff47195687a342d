/*
 * src.h - a byte source under the tensor readers (private to lib/).
 *
 * A regular file (or stdin redirected from one) is mapped once, read-only,
 * and tensors point straight into the mapping.  Anything else (pipes,
 * terminals, character devices) is read through a growing buffer.  The
 * readers see the same interface either way: a window p[pos..len) of bytes
 * that src_fill() extends.
 */
#ifndef MK_SRC_H
#define MK_SRC_H

#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "tensor.h"

struct mk_csvstate;

struct mk_src {
	char		*name;		/* for messages: the path, or "stdin" */
	int		 fd;
	int		 close_fd;
	struct mk_buf	*map;		/* the whole mapped file, or NULL */
	unsigned char	*p;		/* window start */
	size_t		 len;		/* valid bytes at p */
	size_t		 pos;		/* read position in p */
	size_t		 cap;		/* allocation of p (buffered mode) */
	uint64_t	 base;		/* input offset of p[0] */
	int		 eof;		/* no more bytes beyond len */
	int		 fmt;		/* enum mk_fmt once detected */
	int		 index;		/* tensors returned so far */
	struct mk_csvstate *csv;	/* CSV reader state, created lazily */
	const unsigned char *mem;	/* memory input (tests, fuzzers) */
	size_t		 memlen, mempos;
	size_t		 drip;		/* bytes per read from mem, or 0 */
	int		 borrowed;	/* p is the caller's memory */
};

/*
 * Make at least want bytes available at p + pos, reading if needed.
 * Returns the number available (less than want only at end of input), or
 * -1 with e filled on a read error.
 */
int64_t	src_fill(struct mk_src *s, size_t want, struct mk_err *e);

/* Input offset of the read position, for messages. */
uint64_t	src_offset(const struct mk_src *s);

/*
 * Read exactly n bytes into dst, first from the window, then straight from
 * the file.  Returns the number of bytes read (short only at end of input),
 * or -1 with e filled.
 */
int64_t	src_read(struct mk_src *s, void *dst, size_t n, struct mk_err *e);

#endif
