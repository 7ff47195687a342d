/*
 * csvio.h - tensors as CSV text (tensor-cat(1), "CSV format"), parsed with libcsv.
 *
 * Dialect read:
 *   - RFC 4180, comma-separated; fields may be quoted; spaces and tabs
 *     around unquoted fields are ignored; "\r\n" and "\n" line ends.
 *   - Blank lines are skipped.  A line whose first non-blank character is
 *     '#' is a comment, ignored unless it is a tensor line:
 *         # name=log2phy shape=58,256,33 dtype=i64
 *     (its first word is name=, shape= or dtype=; unknown keys are
 *     ignored).  A tensor line starts a new tensor; shape= (empty for a
 *     scalar) restores the rank, dtype= the element type.
 *   - Data fields are numbers: decimal integers, decimal floats with an
 *     optional exponent, nan, inf, infinity (any case, optional sign), and
 *     true/false (as 1/0, for pandas booleans).  Hex is refused.
 *   - Blank-separated rows (np.savetxt's default): a tensor whose first
 *     data row has no comma or quote and two or more words, all numbers,
 *     splits every row on runs of spaces and tabs (a header line before
 *     it too).  A UTF-8 byte order mark opening the input is skipped.
 *   - The first data row of a tensor with a field that is not a number is
 *     a header of column names; it is kept in the tensor's cols and not
 *     counted as data.  A later non-number is an error (FILE:LINE).
 *   - Every data row of a tensor has the same number of fields.
 *   - Without a tensor line, one column reads as a 1-D tensor [rows] and
 *     several as [rows, cols]; the dtype is i64 if every field is an
 *     integer that fits, else f64.
 *   - With dtype= every value must fit that dtype exactly (integers in
 *     range, bools 0/1); floats round to nearest even.
 *
 * Dialect written: each tensor starts with its tensor line (name, shape,
 * dtype), then rows of the last dimension (one column for rank 0 and 1),
 * leading dimensions flattened.  Floats use %.17g (f64), %.9g (f32), %.5g
 * (f16) and %.4g (bf16) - each reads back to the same value - and nan,
 * inf, -inf; integers are decimal; bools are 0/1.  No locale is consulted
 * (moekit never calls setlocale, so the C locale is in force).
 */
#ifndef MK_CSVIO_H
#define MK_CSVIO_H

#include <stdio.h>

#include "base/errmsg.h"
#include "tensor/tensor.h"

struct mk_src;

/*
 * Read the next tensor of a CSV stream into t (freed first).  Returns 1
 * with t filled, 0 at the end of input, or -1 with e filled
 * ("FILE:LINE: ...").
 */
int	mk_csv_read(struct mk_src *s, struct mk_tensor *t, struct mk_err *e);

/*
 * Write t to fp in the dialect above.  name is used when t has no name
 * (NULL: "tensor").  Returns 0, or -1 with e filled on a write error.
 */
int	mk_csv_write(FILE *fp, const struct mk_tensor *t, const char *name,
	    struct mk_err *e);

/* The tensor line "# name=... shape=... dtype=..." (name NULL: none). */
int	mk_csv_write_head(FILE *fp, const char *name, enum mk_dtype dtype,
	    int ndim, const int64_t *shape, struct mk_err *e);

/*
 * Write n elements of data (dtype) as CSV rows of `cols` values; *pos
 * counts the elements of the tensor written so far (for line breaks).
 * Returns 0 or -1 with e filled on a write error.
 */
int	mk_csv_write_values(FILE *fp, enum mk_dtype dtype, const void *data,
	    size_t n, size_t cols, size_t *pos, struct mk_err *e);

/*
 * Parse one CSV number (see the dialect) from s[0..n) into v: integers as
 * MK_KIND_INT (or MK_KIND_UINT above INT64_MAX), everything else as
 * MK_KIND_FLOAT.  Spaces around the number are allowed.  Returns 0, or -1
 * if s is not a number.
 */
int	mk_csv_parse_number(const char *s, size_t n, struct mk_value *v);

#endif
