/*
 * dtype.h - the element types moekit tensors carry (tensor-cat(1)).
 *
 * Adding a dtype: add the enum member here, its row in the table in dtype.c
 * (names, NumPy descr, size, kind), a load/store case in tensor.c, a CSV
 * print case in csvio.c, and a round-trip case in tests/unit/test_tensor.c
 * and tests/interop/numpy_interop.py.
 */
#ifndef MK_DTYPE_H
#define MK_DTYPE_H

#include <stddef.h>

enum mk_dtype {
	MK_F16, MK_BF16, MK_F32, MK_F64,
	MK_I8, MK_I16, MK_I32, MK_I64,
	MK_U8, MK_U16, MK_U32, MK_U64,
	MK_BOOL,
	MK_NDTYPE
};

/* Kinds, as in NumPy's dtype.kind. */
#define MK_KIND_FLOAT	'f'
#define MK_KIND_INT	'i'
#define MK_KIND_UINT	'u'
#define MK_KIND_BOOL	'b'

/* Short name ("f32", "bf16", "bool"), as used in options and CSV comments. */
const char	*mk_dtype_name(enum mk_dtype);

/* Size of one element in bytes. */
size_t		 mk_dtype_size(enum mk_dtype);

/* One of the MK_KIND_* letters. */
int		 mk_dtype_kind(enum mk_dtype);

/*
 * The NumPy descr written for this dtype ("<f4", "|b1"...).  bf16 has no
 * NumPy code and is written as "<u2" (raw bits).
 */
const char	*mk_dtype_descr(enum mk_dtype);

/*
 * Look up a dtype by short name ("f32") or NumPy name ("float32").
 * Returns the dtype, or -1 if the name is unknown.
 */
int		 mk_dtype_parse(const char *name);

/*
 * Look up a NumPy descr string of one byte-order character ('<', '>', '|'
 * or '=') and a type code ("f4", "i8", "b1", ...).  On success returns the
 * dtype and sets *big_endian; returns -1 for anything else (complex,
 * strings, objects, structured types, bf16).
 */
int		 mk_dtype_from_descr(const char *descr, int *big_endian);

/* A space-separated list of the short names, for error messages. */
const char	*mk_dtype_list(void);

/* qsort and bsearch order of int64_t values, ascending. */
int		 mk_cmp_i64(const void *a, const void *b);

#endif
