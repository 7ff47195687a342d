/*
 * npy.c - the .npy reader and writer; the format is documented in npy.h.
 *
 * This is the most-fuzzed file of moekit: every length and every dimension
 * read from the input is checked before it is used, and nothing is
 * allocated from a size the input merely claims (pipes grow their buffer as
 * bytes actually arrive).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tensor/npy.h"
#include "tensor/src_impl.h"

/* Largest dimension accepted; keeps every product check simple. */
#define MAXDIM_VALUE	((int64_t)1 << 62)

/* Up to 40 bytes of s, printable, for a message. */
static const char *
excerpt(char *buf, size_t size, const char *s, size_t n)
{
	return mk_excerpt(buf, size, s, n, 40);
}

int
mk_npy_parse_prefix(const unsigned char *b, size_t len, struct mk_npy_hdr *h,
    struct mk_err *e)
{
	char ex[200];
	size_t need;

	if (len < MK_NPY_MAGIC_LEN + 2)
		need = MK_NPY_MAGIC_LEN + 2;
	else
		need = b[MK_NPY_MAGIC_LEN] == 1 ? 10 : 12;
	if (memcmp(b, MK_NPY_MAGIC, len < MK_NPY_MAGIC_LEN ? len :
	    MK_NPY_MAGIC_LEN) != 0)
		return mk_err_data(e, "not an NPY array: expected magic "
		    "\"\\x93NUMPY\", got \"%s\"", excerpt(ex, sizeof(ex),
		    (const char *)b, len < 8 ? len : 8));
	if (len < need)
		return 0;
	h->major = b[6];
	h->minor = b[7];
	if ((h->major != 1 && h->major != 2 && h->major != 3) || h->minor != 0)
		return mk_err_data(e, "unsupported NPY version %d.%d "
		    "(supported: 1.0, 2.0, 3.0)", h->major, h->minor);
	if (h->major == 1) {
		h->header_len = (size_t)b[8] | (size_t)b[9] << 8;
		h->prefix_len = 10;
	} else {
		h->header_len = (size_t)b[8] | (size_t)b[9] << 8 |
		    (size_t)b[10] << 16 | (size_t)b[11] << 24;
		h->prefix_len = 12;
	}
	if (h->header_len > MK_NPY_MAX_HEADER)
		return mk_err_data(e, "header length %zu exceeds the limit %u",
		    h->header_len, MK_NPY_MAX_HEADER);
	return 1;
}

/* A tiny cursor over the dict text. */
struct cur {
	const char	*s;
	size_t		 n, i;
};

static void
ws(struct cur *c)
{
	while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\t'))
		c->i++;
}

static int
eat(struct cur *c, char ch)
{
	ws(c);
	if (c->i < c->n && c->s[c->i] == ch) {
		c->i++;
		return 1;
	}
	return 0;
}

static int
unexpected(struct cur *c, const char *what, struct mk_err *e)
{
	char ex[200];

	if (c->i >= c->n)
		return mk_err_data(e, "header: expected %s, got the end of the "
		    "header", what);
	return mk_err_data(e, "header: expected %s at column %zu, got \"%s\"",
	    what, c->i + 1, excerpt(ex, sizeof(ex), c->s + c->i, c->n - c->i));
}

/* A quoted string without escapes, copied into out. */
static int
string(struct cur *c, char *out, size_t size, struct mk_err *e)
{
	char q;
	size_t j = 0;

	ws(c);
	if (c->i >= c->n || (c->s[c->i] != '\'' && c->s[c->i] != '"'))
		return unexpected(c, "a quoted string", e);
	q = c->s[c->i++];
	while (c->i < c->n && c->s[c->i] != q) {
		if (c->s[c->i] == '\\' || (unsigned char)c->s[c->i] < 0x20)
			return unexpected(c, "a plain string", e);
		if (j + 1 >= size)
			return unexpected(c, "a short string", e);
		out[j++] = c->s[c->i++];
	}
	if (c->i >= c->n)
		return unexpected(c, "a closing quote", e);
	c->i++;
	out[j] = '\0';
	return 0;
}

static int
word(struct cur *c, const char *w)
{
	size_t l = strlen(w);

	ws(c);
	if (c->n - c->i >= l && memcmp(c->s + c->i, w, l) == 0 &&
	    (c->n - c->i == l || !isalnum((unsigned char)c->s[c->i + l]) )) {
		c->i += l;
		return 1;
	}
	return 0;
}

static int
shape(struct cur *c, struct mk_npy_hdr *h, struct mk_err *e)
{
	int64_t v;
	int comma = 1;

	h->ndim = 0;
	if (!eat(c, '('))
		return unexpected(c, "'(' starting the shape tuple", e);
	for (;;) {
		if (eat(c, ')'))
			break;
		if (!comma)
			return unexpected(c, "',' or ')' in the shape", e);
		ws(c);
		if (c->i >= c->n || !isdigit((unsigned char)c->s[c->i]))
			return unexpected(c, "a dimension", e);
		v = 0;
		while (c->i < c->n && isdigit((unsigned char)c->s[c->i])) {
			if (v > MAXDIM_VALUE / 10)
				return mk_err_data(e, "header: dimension %d is "
				    "larger than %lld", h->ndim,
				    (long long)MAXDIM_VALUE);
			v = v * 10 + (c->s[c->i++] - '0');
		}
		if (v > MAXDIM_VALUE)
			return mk_err_data(e, "header: dimension %d (%lld) is "
			    "larger than %lld", h->ndim, (long long)v,
			    (long long)MAXDIM_VALUE);
		if (h->ndim == MK_MAXDIM)
			return mk_err_data(e, "header: shape has more than %d "
			    "dimensions", MK_MAXDIM);
		h->shape[h->ndim++] = v;
		comma = eat(c, ',');
	}
	/* (5) is the integer 5 in Python, not a tuple. */
	if (h->ndim == 1 && !comma)
		return mk_err_data(e, "header: shape (%lld) is not a tuple "
		    "(a one-element tuple is written (%lld,))",
		    (long long)h->shape[0], (long long)h->shape[0]);
	return 0;
}

int
mk_npy_parse_dict(const char *s, size_t n, struct mk_npy_hdr *h,
    struct mk_err *e)
{
	struct cur c = { s, n, 0 };
	char key[32], descr[32], sbuf[256], ex[200];
	int seen_descr = 0, seen_order = 0, seen_shape = 0, big, dt;
	int64_t nel;

	if (!eat(&c, '{'))
		return unexpected(&c, "'{' starting the header dict", e);
	for (;;) {
		if (eat(&c, '}'))
			break;
		if (string(&c, key, sizeof(key), e) < 0)
			return -1;
		if (!eat(&c, ':'))
			return unexpected(&c, "':' after a key", e);
		if (strcmp(key, "descr") == 0 && !seen_descr) {
			seen_descr = 1;
			ws(&c);
			if (c.i < c.n && c.s[c.i] == '[')
				return mk_err_data(e, "header: structured "
				    "dtypes are not supported");
			if (string(&c, descr, sizeof(descr), e) < 0)
				return -1;
			if ((dt = mk_dtype_from_descr(descr, &big)) < 0)
				return mk_err_data(e, "header: unsupported "
				    "dtype '%s' (supported: f2 f4 f8 i1 i2 i4 "
				    "i8 u1 u2 u4 u8 b1)", excerpt(ex, sizeof(ex),
				    descr, strlen(descr)));
			h->dtype = dt;
			h->big_endian = big;
		} else if (strcmp(key, "fortran_order") == 0 && !seen_order) {
			seen_order = 1;
			if (word(&c, "True"))
				h->fortran = 1;
			else if (word(&c, "False"))
				h->fortran = 0;
			else
				return unexpected(&c, "True or False", e);
		} else if (strcmp(key, "shape") == 0 && !seen_shape) {
			seen_shape = 1;
			if (shape(&c, h, e) < 0)
				return -1;
		} else if (strcmp(key, "descr") == 0 ||
		    strcmp(key, "fortran_order") == 0 ||
		    strcmp(key, "shape") == 0) {
			return mk_err_data(e, "header: key '%s' appears twice",
			    key);
		} else {
			return mk_err_data(e, "header: unexpected key '%s' "
			    "(expected descr, fortran_order, shape)",
			    excerpt(ex, sizeof(ex), key, strlen(key)));
		}
		if (!eat(&c, ',')) {
			if (!eat(&c, '}'))
				return unexpected(&c, "',' or '}'", e);
			break;
		}
	}
	/* Only padding may follow the dict. */
	while (c.i < c.n && (c.s[c.i] == ' ' || c.s[c.i] == '\t' ||
	    c.s[c.i] == '\n' || c.s[c.i] == '\r'))
		c.i++;
	if (c.i < c.n)
		return unexpected(&c, "only padding after the header dict", e);
	if (!seen_descr || !seen_order || !seen_shape)
		return mk_err_data(e, "header: missing key '%s'",
		    !seen_descr ? "descr" : !seen_order ? "fortran_order" :
		    "shape");
	nel = mk_shape_nelem(h->ndim, h->shape, mk_dtype_size(h->dtype));
	if (nel < 0)
		return mk_err_data(e, "header: shape (%s) of %s is too large "
		    "(more than %llu bytes)", mk_shape_str(sbuf, sizeof(sbuf),
		    h->ndim, h->shape), mk_dtype_name(h->dtype),
		    (unsigned long long)INT64_MAX);
	h->nelem = (uint64_t)nel;
	h->nbytes = h->nelem * mk_dtype_size(h->dtype);
	return 0;
}

size_t
mk_npy_format_header(char *buf, size_t cap, enum mk_dtype dtype, int ndim,
    const int64_t *shape)
{
	char dict[MK_MAXDIM * 24 + 128];
	size_t dl, total, prefix, hl;
	int i, n;

	n = snprintf(dict, sizeof(dict), "{'descr': '%s', 'fortran_order': "
	    "False, 'shape': (", mk_dtype_descr(dtype));
	dl = (size_t)n;
	for (i = 0; i < ndim; i++) {
		n = snprintf(dict + dl, sizeof(dict) - dl, "%lld,%s",
		    (long long)shape[i], ndim == 1 ? "" : " ");
		dl += (size_t)n;
	}
	/* Python prints (2, 3) and (5,): drop the last ", " when rank > 1. */
	if (ndim > 1)
		dl -= 2;
	n = snprintf(dict + dl, sizeof(dict) - dl, "), }");
	dl += (size_t)n;

	prefix = 10;
	total = (prefix + dl + 1 + MK_NPY_ALIGN - 1) / MK_NPY_ALIGN *
	    MK_NPY_ALIGN;
	if (total - prefix > 65535) {
		prefix = 12;
		total = (prefix + dl + 1 + MK_NPY_ALIGN - 1) / MK_NPY_ALIGN *
		    MK_NPY_ALIGN;
	}
	if (total > cap)
		return 0;
	hl = total - prefix;
	memcpy(buf, MK_NPY_MAGIC, MK_NPY_MAGIC_LEN);
	buf[6] = prefix == 10 ? 1 : 2;
	buf[7] = 0;
	buf[8] = (char)(hl & 0xff);
	buf[9] = (char)((hl >> 8) & 0xff);
	if (prefix == 12) {
		buf[10] = (char)((hl >> 16) & 0xff);
		buf[11] = (char)((hl >> 24) & 0xff);
	}
	memcpy(buf + prefix, dict, dl);
	memset(buf + prefix + dl, ' ', hl - dl - 1);
	buf[total - 1] = '\n';
	return total;
}

void
mk_byteswap(void *data, size_t nelem, size_t size)
{
	unsigned char *p = data, t;
	size_t i, j;

	for (i = 0; i < nelem; i++, p += size)
		for (j = 0; j < size / 2; j++) {
			t = p[j];
			p[j] = p[size - 1 - j];
			p[size - 1 - j] = t;
		}
}

/*
 * Fortran-order data is a C-order array of the reversed shape; write it out
 * in C order of the real shape by walking the output with an odometer.
 */
static void
fortran_to_c(void *dst, const void *src, const struct mk_npy_hdr *h)
{
	size_t size = mk_dtype_size(h->dtype), stride[MK_MAXDIM], idx[MK_MAXDIM];
	size_t off = 0, i, k;
	unsigned char *d = dst;
	const unsigned char *s = src;
	int a;

	stride[0] = 1;
	for (a = 1; a < h->ndim; a++)
		stride[a] = stride[a - 1] * (size_t)h->shape[a - 1];
	memset(idx, 0, sizeof(idx));
	for (i = 0; i < h->nelem; i++) {
		memcpy(d + i * size, s + off * size, size);
		for (a = h->ndim - 1; a >= 0; a--) {
			k = ++idx[a];
			off += stride[a];
			if (k < (size_t)h->shape[a])
				break;
			off -= stride[a] * k;
			idx[a] = 0;
		}
	}
}

/*
 * The payload of a non-mapped source: read it into a buffer that grows as
 * data arrives, so a header that claims terabytes on a pipe costs nothing
 * until the bytes exist.
 */
static struct mk_buf *
read_payload(struct mk_src *s, uint64_t nbytes, uint64_t *got,
    struct mk_err *e)
{
	struct mk_buf *b;
	size_t have = 0, want, cap;
	int64_t r;

	cap = nbytes < (1u << 24) ? (size_t)nbytes : (1u << 24);
	if ((b = mk_buf_new(cap)) == NULL) {
		mk_err_data(e, "out of memory");
		return NULL;
	}
	while (have < nbytes) {
		if (have == cap) {
			cap = cap * 2 < nbytes ? cap * 2 : (size_t)nbytes;
			if (mk_buf_reserve(b, cap) < 0) {
				mk_buf_unref(b);
				mk_err_data(e, "%s: out of memory for %llu bytes "
				    "(%zu arrived)", s->name,
				    (unsigned long long)cap, have);
				return NULL;
			}
		}
		want = cap - have;
		if ((r = src_read(s, (char *)b->base + have, want, e)) < 0) {
			mk_buf_unref(b);
			return NULL;
		}
		have += (size_t)r;
		if ((size_t)r < want)
			break;
	}
	*got = have;
	return b;
}

int
mk_npy_read_header(struct mk_src *s, struct mk_npy_hdr *h, struct mk_err *e)
{
	struct mk_err pe;
	uint64_t start = src_offset(s);
	int64_t avail;
	int r;

	memset(h, 0, sizeof(*h));
	h->start = start;
	if ((avail = src_fill(s, 12, e)) < 0)
		return -1;
	if (avail == 0)
		return 0;
	r = mk_npy_parse_prefix(s->p + s->pos, (size_t)avail, h, &pe);
	if (r == 0)
		pe.status = MK_EXIT_DATA, snprintf(pe.msg, sizeof(pe.msg),
		    "truncated NPY preamble (%lld bytes)", (long long)avail);
	if (r <= 0)
		return mk_err_data(e, "%s: array %d at byte %llu: %s", s->name,
		    s->index, (unsigned long long)start, pe.msg);
	if ((avail = src_fill(s, h->prefix_len + h->header_len, e)) < 0)
		return -1;
	if ((size_t)avail < h->prefix_len + h->header_len)
		return mk_err_data(e, "%s: array %d at byte %llu: truncated "
		    "header (%lld of %zu bytes)", s->name, s->index,
		    (unsigned long long)start, (long long)avail,
		    h->prefix_len + h->header_len);
	if (mk_npy_parse_dict((const char *)s->p + s->pos + h->prefix_len,
	    h->header_len, h, &pe) < 0)
		return mk_err_data(e, "%s: array %d at byte %llu: %s", s->name,
		    s->index, (unsigned long long)start, pe.msg);
	s->pos += h->prefix_len + h->header_len;
	return 1;
}

int
mk_npy_read_payload(struct mk_src *s, const struct mk_npy_hdr *hp,
    struct mk_tensor *t, struct mk_err *e)
{
	const struct mk_npy_hdr h = *hp;
	struct mk_buf *b = NULL;
	uint64_t start = h.start, got;
	size_t size = mk_dtype_size(h.dtype);
	int64_t avail;
	int i;
	unsigned char *data;

	mk_tensor_free(t);
	if (s->map != NULL) {
		/* Mapped: the payload is already in memory, or it is short. */
		avail = (int64_t)(s->len - s->pos);
		if ((uint64_t)avail < h.nbytes)
			return mk_err_data(e, "%s: array %d at byte %llu: data "
			    "ends after %lld of %llu bytes", s->name, s->index,
			    (unsigned long long)start, (long long)avail,
			    (unsigned long long)h.nbytes);
		data = s->p + s->pos;
		s->pos += (size_t)h.nbytes;
		if (!h.big_endian && (!h.fortran || h.ndim < 2) &&
		    (uintptr_t)data % size == 0) {
			s->map->refs++;
			t->buf = s->map;
			t->data = h.nbytes ? data : NULL;
		} else {
			if ((b = mk_buf_new((size_t)h.nbytes)) == NULL)
				return mk_err_data(e, "%s: out of memory",
				    s->name);
			memcpy(b->base, data, (size_t)h.nbytes);
		}
	} else {
		if ((b = read_payload(s, h.nbytes, &got, e)) == NULL)
			return -1;
		if (got < h.nbytes) {
			mk_buf_unref(b);
			return mk_err_data(e, "%s: array %d at byte %llu: data "
			    "ends after %llu of %llu bytes", s->name, s->index,
			    (unsigned long long)start, (unsigned long long)got,
			    (unsigned long long)h.nbytes);
		}
	}
	if (b != NULL) {
		if (h.big_endian)
			mk_byteswap(b->base, (size_t)h.nelem, size);
		if (h.fortran && h.ndim >= 2 && h.nelem > 0) {
			struct mk_buf *c = mk_buf_new((size_t)h.nbytes);
			if (c == NULL) {
				mk_buf_unref(b);
				return mk_err_data(e, "%s: out of memory",
				    s->name);
			}
			fortran_to_c(c->base, b->base, &h);
			mk_buf_unref(b);
			b = c;
		}
		t->buf = b;
		t->data = b->base;
	}
	t->dtype = (enum mk_dtype)h.dtype;
	t->ndim = h.ndim;
	for (i = 0; i < h.ndim; i++)
		t->shape[i] = h.shape[i];
	t->nelem = (size_t)h.nelem;
	s->index++;
	return 1;
}

int
mk_npy_read(struct mk_src *s, struct mk_tensor *t, struct mk_err *e)
{
	struct mk_npy_hdr h;
	int r;

	mk_tensor_free(t);
	if ((r = mk_npy_read_header(s, &h, e)) <= 0)
		return r;
	return mk_npy_read_payload(s, &h, t, e);
}

int
mk_npy_write(FILE *fp, const struct mk_tensor *t, struct mk_err *e)
{
	char hdr[MK_MAXDIM * 24 + 256];
	size_t hl, nb = mk_tensor_nbytes(t);

	hl = mk_npy_format_header(hdr, sizeof(hdr), t->dtype, t->ndim,
	    t->shape);
	if (fwrite(hdr, 1, hl, fp) != hl ||
	    (nb > 0 && fwrite(t->data, 1, nb, fp) != nb))
		return mk_err_sys(e, "write");
	return 0;
}
