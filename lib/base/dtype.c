/* dtype.c - the dtype table; see dtype.h. */
#include <stdint.h>
#include <string.h>

#include "base/dtype.h"

static const struct {
	const char	*name;		/* short name */
	const char	*npname;	/* NumPy's name */
	const char	*descr;		/* what we write */
	const char	*code;		/* type code without byte order */
	size_t		 size;
	int		 kind;
} table[MK_NDTYPE] = {
	[MK_F16]  = { "f16",  "float16", "<f2", "f2", 2, MK_KIND_FLOAT },
	[MK_BF16] = { "bf16", "bfloat16", "<u2", NULL, 2, MK_KIND_FLOAT },
	[MK_F32]  = { "f32",  "float32", "<f4", "f4", 4, MK_KIND_FLOAT },
	[MK_F64]  = { "f64",  "float64", "<f8", "f8", 8, MK_KIND_FLOAT },
	[MK_I8]   = { "i8",   "int8",    "|i1", "i1", 1, MK_KIND_INT },
	[MK_I16]  = { "i16",  "int16",   "<i2", "i2", 2, MK_KIND_INT },
	[MK_I32]  = { "i32",  "int32",   "<i4", "i4", 4, MK_KIND_INT },
	[MK_I64]  = { "i64",  "int64",   "<i8", "i8", 8, MK_KIND_INT },
	[MK_U8]   = { "u8",   "uint8",   "|u1", "u1", 1, MK_KIND_UINT },
	[MK_U16]  = { "u16",  "uint16",  "<u2", "u2", 2, MK_KIND_UINT },
	[MK_U32]  = { "u32",  "uint32",  "<u4", "u4", 4, MK_KIND_UINT },
	[MK_U64]  = { "u64",  "uint64",  "<u8", "u8", 8, MK_KIND_UINT },
	[MK_BOOL] = { "bool", "bool",    "|b1", "b1", 1, MK_KIND_BOOL },
};

const char *
mk_dtype_name(enum mk_dtype t)
{
	return (unsigned)t < MK_NDTYPE ? table[t].name : "?";
}

size_t
mk_dtype_size(enum mk_dtype t)
{
	return (unsigned)t < MK_NDTYPE ? table[t].size : 0;
}

int
mk_dtype_kind(enum mk_dtype t)
{
	return (unsigned)t < MK_NDTYPE ? table[t].kind : 0;
}

const char *
mk_dtype_descr(enum mk_dtype t)
{
	return (unsigned)t < MK_NDTYPE ? table[t].descr : "?";
}

int
mk_dtype_parse(const char *name)
{
	int i;

	for (i = 0; i < MK_NDTYPE; i++)
		if (strcmp(name, table[i].name) == 0 ||
		    strcmp(name, table[i].npname) == 0)
			return i;
	return -1;
}

int
mk_dtype_from_descr(const char *descr, int *big_endian)
{
	int i;

	if (descr[0] != '<' && descr[0] != '>' && descr[0] != '|' &&
	    descr[0] != '=')
		return -1;
	for (i = 0; i < MK_NDTYPE; i++) {
		if (table[i].code == NULL || strcmp(descr + 1, table[i].code))
			continue;
		/* '|' (not applicable) only makes sense for one-byte types. */
		if (descr[0] == '|' && table[i].size != 1)
			return -1;
		*big_endian = descr[0] == '>' && table[i].size > 1;
		return i;
	}
	return -1;
}

const char *
mk_dtype_list(void)
{
	return "f16 bf16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 bool";
}

int
mk_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}
