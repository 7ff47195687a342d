/*
 * tensor.h - the one tensor type every tool reads and writes.
 *
 * A tensor is a C-order array of one dtype.  Its data lives in a struct
 * mk_buf, a reference-counted block that is either heap memory or a
 * read-only mapping of an input file, so that tensors read from a large
 * regular file are never copied (mdecode reads gigabytes this way).
 * Data is always aligned to the element size.
 */
#ifndef MK_TENSOR_H
#define MK_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"
#include "base/errmsg.h"

#define MK_MAXDIM	32	/* NumPy 1.x's limit */

/* Shared storage: heap memory or a file mapping. */
struct mk_buf {
	int	 refs;
	int	 mapped;	/* MK_BUF_HEAP: free(base); MK_BUF_FILE (a
				 * file's pages) or MK_BUF_ANON: munmap */
	void	*base;
	size_t	 len;
};

enum { MK_BUF_HEAP, MK_BUF_FILE, MK_BUF_ANON };

struct mk_tensor {
	char		*name;		/* owned; NULL when the input had none */
	enum mk_dtype	 dtype;
	int		 ndim;
	int64_t		 shape[MK_MAXDIM];
	size_t		 nelem;
	void		*data;		/* points into buf (or is NULL if empty) */
	struct mk_buf	*buf;		/* owned reference, may be NULL */
	char		**cols;		/* CSV header names (owned), or NULL */
	int		 ncols;
};

/* A tensor with no data, no name, dtype f32, rank 0. */
void	mk_tensor_init(struct mk_tensor *t);

/* Release what t owns and re-initialise it. */
void	mk_tensor_free(struct mk_tensor *t);

/*
 * Give t fresh zeroed heap storage for the given dtype and shape (which may
 * contain zeros).  Shapes whose byte size overflows are refused.  Returns 0,
 * or -1 with e filled.  Any previous content of t is freed first; the name
 * is kept.
 */
int	mk_tensor_alloc(struct mk_tensor *t, enum mk_dtype dtype, int ndim,
	    const int64_t *shape, struct mk_err *e);

/*
 * Number of elements of a shape, or -1 if it overflows SIZE_MAX when
 * multiplied by itemsize.
 */
int64_t	mk_shape_nelem(int ndim, const int64_t *shape, size_t itemsize);

/* Bytes of data: nelem * itemsize. */
size_t	mk_tensor_nbytes(const struct mk_tensor *t);

/* Replace t's name by a copy of name (NULL clears it). Returns 0 or -1. */
int	mk_tensor_set_name(struct mk_tensor *t, const char *name);

/*
 * Write the shape as "58,256,33" ("" for rank 0) into buf.
 * Returns buf.
 */
char	*mk_shape_str(char *buf, size_t size, int ndim, const int64_t *shape);

/*
 * Convert src to dtype into dst (which is freed first; the name is copied).
 * Floats round to nearest even.  A conversion that would change a value is
 * an error: a float that is not an integer or out of range for an integer
 * target, an integer out of range, or a value other than 0 and 1 for bool.
 * what names the tensor in the message ("stdin: tensor 2").  Returns 0, or
 * -1 with e filled.
 */
int	mk_tensor_convert(struct mk_tensor *dst, const struct mk_tensor *src,
	    enum mk_dtype dtype, const char *what, struct mk_err *e);

/*
 * Element i of t as a double (exact for every dtype except i64/u64 beyond
 * 2^53).
 */
double	mk_tensor_get_f64(const struct mk_tensor *t, size_t i);

/*
 * Element i of an integer or bool tensor as int64 (u64 values above
 * INT64_MAX are clamped); floats are truncated towards zero.
 */
int64_t	mk_tensor_get_i64(const struct mk_tensor *t, size_t i);

/* One element in its widest exact form. */
struct mk_value {
	int		kind;	/* MK_KIND_FLOAT, MK_KIND_INT or MK_KIND_UINT */
	double		f;	/* MK_KIND_FLOAT */
	int64_t		i;	/* MK_KIND_INT (bools too) */
	uint64_t	u;	/* MK_KIND_UINT: above INT64_MAX */
};

/* Element i of data p of dtype t. */
struct mk_value	mk_value_load(const void *p, enum mk_dtype t, size_t i);

/*
 * Store v as element i of data p of dtype t, with the rules of
 * mk_tensor_convert.  Returns 0, or -1 (nothing stored) if v does not fit.
 */
int	mk_value_store(void *p, enum mk_dtype t, size_t i, struct mk_value v);

/* v as text ("%.17g" for floats) in buf; returns buf. */
char	*mk_value_str(char *buf, size_t size, struct mk_value v);

/* New heap buffer of len bytes (zeroed), with one reference. NULL on ENOMEM. */
struct mk_buf	*mk_buf_new(size_t len);

/* Drop one reference; the last one frees or unmaps. NULL is ignored. */
void		 mk_buf_unref(struct mk_buf *b);

/*
 * Make b hold at least len bytes, its first b->len kept, the rest zero.
 * Megabytes live in anonymous memory advised for 2 MiB pages and grow by
 * mremap: no copy, and a fault per 2 MiB rather than per 4 KiB (which
 * cost more than reading the data).  Returns 0, or -1 if memory ran out
 * or b holds a file's pages (b unchanged).
 */
int		 mk_buf_reserve(struct mk_buf *b, size_t len);

/*
 * Note that b (MK_BUF_FILE) maps the file called name, until its last
 * reference goes: a SIGBUS handler can then say which file shrank under
 * a mapping.  Returns 0, or -1 if memory ran out or MK_MAX_MAPS files are
 * noted already (b is then simply not named).
 */
#define MK_MAX_MAPS	32
int		 mk_buf_note_file(struct mk_buf *b, const char *name);

/*
 * The name of the noted file mapped at addr, or NULL.  Async-signal-safe:
 * it only reads a table of pointers.
 */
const char	*mk_mapped_file_at(const void *addr);

#endif
