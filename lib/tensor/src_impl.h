/*
 * src_impl.h - the byte source as the readers of lib/tensor/ see it
 * (private to that folder: make check-layers refuses it elsewhere).
 *
 * Mapped or buffered, the readers see the same interface: a window
 * p[pos..len) of bytes that src_fill() extends.  A format reader that
 * keeps state between tensors (CSV) hangs it on the source with
 * src_set_reader(); the source frees it through the hook when it closes,
 * so the byte layer knows no reader.
 */
#ifndef MK_SRC_IMPL_H
#define MK_SRC_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "base/errmsg.h"
#include "tensor/src.h"
#include "tensor/tensor.h"

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
	void		*reader;	/* a format reader's state, or NULL */
	void		(*reader_free)(void *);	/* frees it at close */
	const unsigned char *mem;	/* memory input (tests, fuzzers) */
	size_t		 memlen, mempos;
	size_t		 drip;		/* bytes per read from mem, or 0 */
	int		 borrowed;	/* p is the caller's memory */
	struct src_stream *stream;	/* bytes from a callback, or NULL */
};

/*
 * A source whose bytes come from read(ctx, dst, n, e) (0 at the end, or
 * -1 with e filled); done(ctx) runs at close.  For a zip member read as
 * it is inflated.
 */
struct src_stream {
	int64_t	(*read)(void *ctx, void *dst, size_t n, struct mk_err *e);
	void	(*done)(void *ctx);
	void	*ctx;
};

/* A source named name over the stream (copied).  NULL: out of memory. */
struct mk_src	*src_stream_new(const char *name, const struct src_stream *st);

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

/*
 * Hang a reader's state on s, freed by free_fn at close (or when another
 * state replaces it).
 */
void	src_set_reader(struct mk_src *s, void *state, void (*free_fn)(void *));

#endif
