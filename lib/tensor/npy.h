/*
 * npy.h - NumPy's .npy format, read and written.
 *
 * Read: versions 1.0, 2.0 and 3.0.
 *   magic   "\x93NUMPY", then major and minor version bytes;
 *   length  little-endian u16 (1.0) or u32 (2.0, 3.0) header length;
 *   header  a Python dict literal with exactly the keys 'descr',
 *           'fortran_order' and 'shape' (any order, each once, optional
 *           trailing comma), followed by spaces/newlines.  Strings take ' or
 *           " without escapes; shape is a tuple of decimal integers (a
 *           one-element tuple needs its comma, as in Python).  The header
 *           may be at most MK_NPY_MAX_HEADER bytes.
 *   descr   one byte-order character (<, >, |, =) and a code among f2 f4
 *           f8 i1 i2 i4 i8 u1 u2 u4 u8 b1.  '>' data is byte-swapped;
 *           structured, complex, string, object and datetime types are
 *           refused.
 *   fortran_order True is read correctly: the data is transposed into C
 *           order (so it is copied, never mapped).
 *   data    exactly prod(shape) * itemsize bytes; a short payload is an
 *           error.  Arrays follow each other with nothing between them (a
 *           tensor stream); np.load(f) called repeatedly reads them.
 *
 * Written: version 1.0 ({'descr': '<f4', 'fortran_order': False, 'shape':
 * (2, 3), } padded with spaces and a final newline so the data starts at a
 * multiple of 64 bytes), or 2.0 when the header would not fit in 65535
 * bytes.  bf16 is written as '<u2' (raw bits).
 */
#ifndef MK_NPY_H
#define MK_NPY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/errmsg.h"
#include "tensor/tensor.h"

#define MK_NPY_MAGIC		"\x93NUMPY"
#define MK_NPY_MAGIC_LEN	6
#define MK_NPY_MAX_HEADER	(1u << 20)
#define MK_NPY_ALIGN		64

struct mk_npy_hdr {
	int		major, minor;
	size_t		prefix_len;	/* magic + version + length field */
	size_t		header_len;	/* the dict text and its padding */
	int		dtype;		/* enum mk_dtype */
	int		big_endian;
	int		fortran;
	int		ndim;
	int64_t		shape[MK_MAXDIM];
	uint64_t	nelem;
	uint64_t	nbytes;		/* payload size */
	uint64_t	start;		/* input offset of the magic (read) */
};

/*
 * Parse the fixed prefix (magic, version, header length) from buf[0..len).
 * Returns 1 and fills major, minor, prefix_len and header_len; 0 if more
 * bytes are needed; -1 with e filled ("message" without a file name) if
 * the bytes cannot start an NPY array.
 */
int	mk_npy_parse_prefix(const unsigned char *buf, size_t len,
	    struct mk_npy_hdr *h, struct mk_err *e);

/*
 * Parse the header dict text s[0..n) into h (dtype, order, shape, nelem,
 * nbytes).  Returns 0, or -1 with e filled (no file name in the message).
 */
int	mk_npy_parse_dict(const char *s, size_t n, struct mk_npy_hdr *h,
	    struct mk_err *e);

/*
 * Format a complete version 1.0 (or 2.0 if needed) preamble and header for
 * a C-order array into buf.  Returns its length (a multiple of 64), or 0 if
 * cap is too small (MK_NPY_MAX_HEADER always suffices).
 */
size_t	mk_npy_format_header(char *buf, size_t cap, enum mk_dtype dtype,
	    int ndim, const int64_t *shape);

struct mk_src;

/*
 * Read only the preamble and header of the next array, leaving the source
 * at its payload (h->nbytes bytes).  Returns 1, 0 at a clean end of input,
 * or -1 with e filled.  For readers that stream the payload themselves.
 */
int	mk_npy_read_header(struct mk_src *s, struct mk_npy_hdr *h,
	    struct mk_err *e);

/*
 * Read the payload of the array whose header h mk_npy_read_header just
 * read into t (freed first), as mk_npy_read does.  Returns 1, or -1 with
 * e filled.
 */
int	mk_npy_read_payload(struct mk_src *s, const struct mk_npy_hdr *h,
	    struct mk_tensor *t, struct mk_err *e);

/*
 * Read the next array of an NPY stream into t (freed first).  Large arrays
 * from mapped files are not copied.  Returns 1 with t filled, 0 at a clean
 * end of input, or -1 with e filled ("FILE: array I at byte N: ...").
 */
int	mk_npy_read(struct mk_src *s, struct mk_tensor *t, struct mk_err *e);

/*
 * Write t as one .npy array to fp.  Returns 0, or -1 with e filled if fp
 * reports an error.
 */
int	mk_npy_write(FILE *fp, const struct mk_tensor *t, struct mk_err *e);

/* Reverse the bytes of each of nelem elements of size bytes, in place. */
void	mk_byteswap(void *data, size_t nelem, size_t size);

#endif
