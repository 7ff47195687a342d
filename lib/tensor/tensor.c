/* tensor.c - tensor storage and dtype conversion; see tensor.h. */
#include <sys/mman.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/half.h"
#include "simd/kern.h"
#include "tensor/tensor.h"

#define HUGE	((size_t)2 << 20)

/* Zeroed anonymous memory of len bytes, advised for 2 MiB pages. */
static void *
anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, len, MADV_HUGEPAGE);
#endif
	return p;
}

struct mk_buf *
mk_buf_new(size_t len)
{
	struct mk_buf *b;

	if ((b = calloc(1, sizeof(*b))) == NULL)
		return NULL;
	b->refs = 1;
	if (mk_buf_reserve(b, len) < 0) {
		free(b);
		return NULL;
	}
	return b;
}

int
mk_buf_reserve(struct mk_buf *b, size_t len)
{
	void *p;

	if (b->base != NULL && len <= b->len)
		return 0;
	if (b->mapped == MK_BUF_FILE)	/* a file's pages do not grow */
		return -1;
	if (len < HUGE) {
		/* 64-byte alignment keeps every dtype and SIMD load happy */
		if (posix_memalign(&p, 64, len ? len : 1) != 0)
			return -1;
		memset(p, 0, len);
		if (b->base != NULL)
			memcpy(p, b->base, b->len);
		free(b->base);
	} else if (b->mapped == MK_BUF_ANON) {
		p = mremap(b->base, b->len, len, MREMAP_MAYMOVE);
		if (p == MAP_FAILED)
			return -1;
#ifdef MADV_HUGEPAGE
		(void)madvise(p, len, MADV_HUGEPAGE);
#endif
	} else {
		if ((p = anon(len)) == NULL)
			return -1;
		if (b->base != NULL)
			memcpy(p, b->base, b->len);
		free(b->base);
		b->mapped = MK_BUF_ANON;
	}
	b->base = p;
	b->len = len;
	return 0;
}

/*
 * The noted file mappings.  A slot is filled (name first, then base) or
 * emptied (base first) so that a signal handler reading it between two
 * stores sees either no entry or a whole one.
 */
static struct {
	const unsigned char *volatile base;
	size_t		 len;
	char		*name;
} maps[MK_MAX_MAPS];

int
mk_buf_note_file(struct mk_buf *b, const char *name)
{
	char *copy;
	int i;

	for (i = 0; i < MK_MAX_MAPS && maps[i].base != NULL; i++)
		;
	if (i == MK_MAX_MAPS || (copy = strdup(name)) == NULL)
		return -1;
	maps[i].name = copy;
	maps[i].len = b->len;
	__atomic_store_n(&maps[i].base, b->base, __ATOMIC_RELEASE);
	return 0;
}

static void
forget_file(const void *base)
{
	char *name;
	int i;

	for (i = 0; i < MK_MAX_MAPS; i++)
		if (maps[i].base == base) {
			name = maps[i].name;
			__atomic_store_n(&maps[i].base, NULL,
			    __ATOMIC_RELEASE);
			free(name);
		}
}

const char *
mk_mapped_file_at(const void *addr)
{
	const unsigned char *a = addr, *base;
	int i;

	for (i = 0; i < MK_MAX_MAPS; i++) {
		base = __atomic_load_n(&maps[i].base, __ATOMIC_ACQUIRE);
		if (base != NULL && a >= base && a < base + maps[i].len)
			return maps[i].name;
	}
	return NULL;
}

void
mk_buf_unref(struct mk_buf *b)
{
	if (b == NULL || --b->refs > 0)
		return;
	if (b->mapped == MK_BUF_FILE)
		forget_file(b->base);
	if (b->mapped)
		munmap(b->base, b->len);
	else
		free(b->base);
	free(b);
}

void
mk_tensor_init(struct mk_tensor *t)
{
	memset(t, 0, sizeof(*t));
	t->dtype = MK_F32;
}

void
mk_tensor_free(struct mk_tensor *t)
{
	int i;

	free(t->name);
	mk_buf_unref(t->buf);
	for (i = 0; i < t->ncols; i++)
		free(t->cols[i]);
	free(t->cols);
	mk_tensor_init(t);
}

int64_t
mk_shape_nelem(int ndim, const int64_t *shape, size_t itemsize)
{
	uint64_t n = 1, limit;
	int i;

	/* Any zero dimension makes the array empty, whatever the others say. */
	for (i = 0; i < ndim; i++)
		if (shape[i] == 0)
			return 0;
	limit = (uint64_t)INT64_MAX / (itemsize ? itemsize : 1);
	if (limit > SIZE_MAX / (itemsize ? itemsize : 1))
		limit = SIZE_MAX / (itemsize ? itemsize : 1);
	for (i = 0; i < ndim; i++) {
		if (shape[i] < 0 || (uint64_t)shape[i] > limit / n)
			return -1;
		n *= (uint64_t)shape[i];
	}
	return (int64_t)n;
}

size_t
mk_tensor_nbytes(const struct mk_tensor *t)
{
	return t->nelem * mk_dtype_size(t->dtype);
}

int
mk_tensor_alloc(struct mk_tensor *t, enum mk_dtype dtype, int ndim,
    const int64_t *shape, struct mk_err *e)
{
	char sbuf[256];
	int64_t n;
	int i;

	if (ndim < 0 || ndim > MK_MAXDIM)
		return mk_err_data(e, "rank %d exceeds the limit %d", ndim,
		    MK_MAXDIM);
	n = mk_shape_nelem(ndim, shape, mk_dtype_size(dtype));
	if (n < 0)
		return mk_err_data(e, "shape (%s) of %s is too large",
		    mk_shape_str(sbuf, sizeof(sbuf), ndim, shape),
		    mk_dtype_name(dtype));
	mk_buf_unref(t->buf);
	t->buf = NULL;
	t->data = NULL;
	t->nelem = 0;
	if ((t->buf = mk_buf_new((size_t)n * mk_dtype_size(dtype))) == NULL)
		return mk_err_data(e, "out of memory for %lld elements of %s",
		    (long long)n, mk_dtype_name(dtype));
	t->data = t->buf->base;
	t->dtype = dtype;
	t->ndim = ndim;
	for (i = 0; i < ndim; i++)
		t->shape[i] = shape[i];
	t->nelem = (size_t)n;
	return 0;
}

int
mk_tensor_set_name(struct mk_tensor *t, const char *name)
{
	char *s = NULL;

	if (name != NULL && (s = strdup(name)) == NULL)
		return -1;
	free(t->name);
	t->name = s;
	return 0;
}

char *
mk_shape_str(char *buf, size_t size, int ndim, const int64_t *shape)
{
	size_t off = 0;
	int i, n;

	buf[0] = '\0';
	for (i = 0; i < ndim && off < size; i++) {
		n = snprintf(buf + off, size - off, i ? ",%lld" : "%lld",
		    (long long)shape[i]);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	return buf;
}

struct mk_value
mk_value_load(const void *p, enum mk_dtype t, size_t i)
{
	struct mk_value v = { MK_KIND_INT, 0, 0, 0 };

	switch (t) {
	case MK_F16: case MK_BF16: case MK_F32: case MK_F64:
		v.kind = MK_KIND_FLOAT;
		break;
	case MK_U64:
		v.kind = MK_KIND_UINT;
		v.u = ((const uint64_t *)p)[i];
		return v;
	default:
		break;
	}
	switch (t) {
	case MK_F16:	v.f = mk_f16_to_f32(((const uint16_t *)p)[i]); break;
	case MK_BF16:	v.f = mk_bf16_to_f32(((const uint16_t *)p)[i]); break;
	case MK_F32:	v.f = ((const float *)p)[i]; break;
	case MK_F64:	v.f = ((const double *)p)[i]; break;
	case MK_I8:	v.i = ((const int8_t *)p)[i]; break;
	case MK_I16:	v.i = ((const int16_t *)p)[i]; break;
	case MK_I32:	v.i = ((const int32_t *)p)[i]; break;
	case MK_I64:	v.i = ((const int64_t *)p)[i]; break;
	case MK_U8:	v.i = ((const uint8_t *)p)[i]; break;
	case MK_U16:	v.i = ((const uint16_t *)p)[i]; break;
	case MK_U32:	v.i = ((const uint32_t *)p)[i]; break;
	case MK_BOOL:	v.i = ((const uint8_t *)p)[i] != 0; break;
	default:	break;
	}
	return v;
}

double
mk_tensor_get_f64(const struct mk_tensor *t, size_t i)
{
	struct mk_value v = mk_value_load(t->data, t->dtype, i);

	return v.kind == MK_KIND_FLOAT ? v.f :
	    v.kind == MK_KIND_UINT ? (double)v.u : (double)v.i;
}

int64_t
mk_tensor_get_i64(const struct mk_tensor *t, size_t i)
{
	struct mk_value v = mk_value_load(t->data, t->dtype, i);

	if (v.kind == MK_KIND_UINT)	/* past INT64_MAX: saturated */
		return v.u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v.u;
	if (v.kind == MK_KIND_INT)
		return v.i;
	if (!(v.f > -9.2233720368547758e18))
		return INT64_MIN;
	if (!(v.f < 9.2233720368547758e18))
		return INT64_MAX;
	return (int64_t)v.f;
}

/* Integer ranges of the integer targets, as [lo, hi]. */
static void
int_range(enum mk_dtype t, int64_t *lo, uint64_t *hi)
{
	switch (t) {
	case MK_I8:	*lo = INT8_MIN;  *hi = INT8_MAX; break;
	case MK_I16:	*lo = INT16_MIN; *hi = INT16_MAX; break;
	case MK_I32:	*lo = INT32_MIN; *hi = INT32_MAX; break;
	case MK_I64:	*lo = INT64_MIN; *hi = INT64_MAX; break;
	case MK_U8:	*lo = 0; *hi = UINT8_MAX; break;
	case MK_U16:	*lo = 0; *hi = UINT16_MAX; break;
	case MK_U32:	*lo = 0; *hi = UINT32_MAX; break;
	case MK_U64:	*lo = 0; *hi = UINT64_MAX; break;
	default:	*lo = 0; *hi = 1; break;	/* bool */
	}
}

/* Store v as an integer of type t at p[i] if it fits exactly; else -1. */
static int
store_int(void *p, enum mk_dtype t, size_t i, struct mk_value v)
{
	int64_t lo, s = 0;
	uint64_t hi, u = 0;
	int neg = 0;

	int_range(t, &lo, &hi);
	if (v.kind == MK_KIND_FLOAT) {
		if (!isfinite(v.f) || v.f != trunc(v.f))
			return -1;
		if (v.f < 0) {
			if (v.f < -9.2233720368547758e18)
				return -1;
			s = (int64_t)v.f;
			neg = 1;
		} else {
			if (v.f >= 1.8446744073709552e19)
				return -1;
			u = (uint64_t)v.f;
		}
	} else if (v.kind == MK_KIND_UINT) {
		u = v.u;
	} else if (v.i < 0) {
		s = v.i;
		neg = 1;
	} else {
		u = (uint64_t)v.i;
	}
	if (neg ? s < lo : u > hi)
		return -1;
	switch (t) {
	case MK_I8:	((int8_t *)p)[i] = (int8_t)(neg ? s : (int64_t)u); break;
	case MK_I16:	((int16_t *)p)[i] = (int16_t)(neg ? s : (int64_t)u); break;
	case MK_I32:	((int32_t *)p)[i] = (int32_t)(neg ? s : (int64_t)u); break;
	case MK_I64:	((int64_t *)p)[i] = neg ? s : (int64_t)u; break;
	case MK_U8:	((uint8_t *)p)[i] = (uint8_t)u; break;
	case MK_U16:	((uint16_t *)p)[i] = (uint16_t)u; break;
	case MK_U32:	((uint32_t *)p)[i] = (uint32_t)u; break;
	case MK_U64:	((uint64_t *)p)[i] = u; break;
	default:	((uint8_t *)p)[i] = (uint8_t)u; break;
	}
	return 0;
}

/* Store v as a float of type t at p[i], rounding to nearest even. */
static void
store_float(void *p, enum mk_dtype t, size_t i, struct mk_value v)
{
	double d = v.kind == MK_KIND_FLOAT ? v.f :
	    v.kind == MK_KIND_UINT ? (double)v.u : (double)v.i;

	switch (t) {
	case MK_F64:
		((double *)p)[i] = d;
		break;
	case MK_F32:
		/* Integers convert to f32 in one rounding, not via double. */
		((float *)p)[i] = v.kind == MK_KIND_FLOAT ? (float)v.f :
		    v.kind == MK_KIND_UINT ? (float)v.u : (float)v.i;
		break;
	case MK_F16:
		((uint16_t *)p)[i] = mk_f64_to_f16(d);
		break;
	default:
		((uint16_t *)p)[i] = mk_f64_to_bf16(d);
		break;
	}
}

int
mk_value_store(void *p, enum mk_dtype t, size_t i, struct mk_value v)
{
	if (mk_dtype_kind(t) == MK_KIND_FLOAT) {
		store_float(p, t, i, v);
		return 0;
	}
	return store_int(p, t, i, v);
}

char *
mk_value_str(char *buf, size_t size, struct mk_value v)
{
	if (v.kind == MK_KIND_FLOAT)
		snprintf(buf, size, "%.17g", v.f);
	else if (v.kind == MK_KIND_UINT)
		snprintf(buf, size, "%llu", (unsigned long long)v.u);
	else
		snprintf(buf, size, "%lld", (long long)v.i);
	return buf;
}

/* Kernel fast paths between f32 and the 16-bit floats. Returns 1 if taken. */
static int
convert_fast(void *d, enum mk_dtype dt, const void *s, enum mk_dtype st,
    size_t n)
{
	const struct mk_kern *k = mk_kern();

	if (st == MK_F16 && dt == MK_F32)
		k->f16_to_f32(d, s, n);
	else if (st == MK_F32 && dt == MK_F16)
		k->f32_to_f16(d, s, n);
	else if (st == MK_BF16 && dt == MK_F32)
		k->bf16_to_f32(d, s, n);
	else if (st == MK_F32 && dt == MK_BF16)
		k->f32_to_bf16(d, s, n);
	else
		return 0;
	return 1;
}

int
mk_tensor_convert(struct mk_tensor *dst, const struct mk_tensor *src,
    enum mk_dtype dtype, const char *what, struct mk_err *e)
{
	char vbuf[64];
	struct mk_value v;
	size_t i;

	mk_tensor_free(dst);
	if (mk_tensor_alloc(dst, dtype, src->ndim, src->shape, e) < 0)
		return -1;
	if (src->name != NULL && mk_tensor_set_name(dst, src->name) < 0)
		return mk_err_data(e, "out of memory");
	if (src->nelem == 0)
		return 0;
	if (dtype == src->dtype) {
		memcpy(dst->data, src->data, mk_tensor_nbytes(src));
		return 0;
	}
	if (convert_fast(dst->data, dtype, src->data, src->dtype, src->nelem))
		return 0;
	for (i = 0; i < src->nelem; i++) {
		v = mk_value_load(src->data, src->dtype, i);
		if (mk_value_store(dst->data, dtype, i, v) < 0) {
			mk_value_str(vbuf, sizeof(vbuf), v);
			mk_tensor_free(dst);
			return mk_err_data(e, "%s: element %zu: value %s does "
			    "not fit %s", what, i, vbuf, mk_dtype_name(dtype));
		}
	}
	return 0;
}
