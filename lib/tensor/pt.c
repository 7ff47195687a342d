/*
 * pt.c - torch .pt dicts of tensors and numbers; see pt.h.
 *
 * The pickle machine below knows only the values torch.save writes for
 * such a dict.  Values live in an arena freed at once; strings point into
 * the pickle's bytes.  Every count and length read from the input is
 * checked against what is left before it is used.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensor/npy.h"
#include "tensor/pt.h"

#define MAX_PICKLE	((size_t)64 << 20)	/* data.pkl */
#define MAX_STACK	4096
#define MAX_MEMO	(1 << 20)
#define MAX_VALUES	(1 << 20)

enum { V_MARK, V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_TUPLE, V_DICT,
	V_GLOBAL, V_STORAGE, V_TENSOR, V_ODICT };
enum { G_REBUILD, G_ODICT, G_STORAGE };

struct val {
	int		 kind;
	int64_t		 i;		/* int, bool; storage: numel */
	double		 f;
	const char	*s;		/* str (not NUL-terminated) */
	size_t		 n;		/* its length; tuple, dict: items */
	struct val	**items;	/* tuple; dict: key, value, ... */
	int		 g;		/* global: G_* */
	int		 dtype;		/* global and storage */
	const struct val *key;		/* storage: its key (a str) */
	/* tensor */
	const struct val *storage;
	int64_t		 offset;
	int		 ndim;
	int64_t		 shape[MK_MAXDIM], stride[MK_MAXDIM];
};

struct vm {
	const unsigned char *p, *end, *start;
	const char	*file;
	struct mk_err	*e;
	struct val	*stack[MAX_STACK];
	int		 sp;
	struct val	**memo;
	size_t		 nmemo;		/* slots allocated */
	size_t		 nput;		/* slots filled (MEMOIZE's next) */
	struct val	**vals;		/* every value, to free */
	size_t		 nvals, cap;
};

static int
fail(struct vm *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
fail(struct vm *m, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return mk_err_data(m->e, "%s: data.pkl, byte %zu: %s", m->file,
	    (size_t)(m->p - m->start), msg);
}

static struct val *
new_val(struct vm *m, int kind)
{
	struct val **nv, *v;
	size_t cap;

	if (m->nvals == MAX_VALUES)
		return fail(m, "more than %d values", MAX_VALUES), NULL;
	if (m->nvals == m->cap) {
		cap = m->cap ? m->cap * 2 : 64;
		if ((nv = realloc(m->vals, cap * sizeof(*nv))) == NULL)
			return fail(m, "out of memory"), NULL;
		m->vals = nv;
		m->cap = cap;
	}
	if ((v = calloc(1, sizeof(*v))) == NULL)
		return fail(m, "out of memory"), NULL;
	v->kind = kind;
	m->vals[m->nvals++] = v;
	return v;
}

static int
push(struct vm *m, struct val *v)
{
	if (v == NULL)
		return -1;
	if (m->sp == MAX_STACK)
		return fail(m, "the stack is deeper than %d", MAX_STACK);
	m->stack[m->sp++] = v;
	return 0;
}

static struct val *
pop(struct vm *m)
{
	if (m->sp == 0 || m->stack[m->sp - 1]->kind == V_MARK)
		return fail(m, "the stack is empty"), NULL;
	return m->stack[--m->sp];
}

/* The number of values above the topmost mark, or -1. */
static int
since_mark(struct vm *m)
{
	int k;

	for (k = m->sp - 1; k >= 0; k--)
		if (m->stack[k]->kind == V_MARK)
			return m->sp - 1 - k;
	return fail(m, "no mark on the stack");
}

/* n bytes of the pickle, or NULL if it ends first. */
static const unsigned char *
take(struct vm *m, size_t n)
{
	const unsigned char *q = m->p;

	if ((size_t)(m->end - m->p) < n)
		return fail(m, "the pickle ends inside an argument"), NULL;
	m->p += n;
	return q;
}

static uint64_t
le(const unsigned char *q, int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | q[n];
	return v;
}

/* A tuple of the top n values. */
static int
tuple(struct vm *m, int n)
{
	struct val *t;
	int k;

	if (n > m->sp)
		return fail(m, "a tuple of %d with %d values on the stack", n,
		    m->sp);
	if ((t = new_val(m, V_TUPLE)) == NULL)
		return -1;
	if (n > 0 && (t->items = malloc(sizeof(*t->items) * (size_t)n)) ==
	    NULL)
		return fail(m, "out of memory");
	for (k = 0; k < n; k++) {
		t->items[k] = m->stack[m->sp - n + k];
		if (t->items[k]->kind == V_MARK)
			return fail(m, "a mark inside a tuple");
	}
	t->n = (size_t)n;
	m->sp -= n;
	return push(m, t);
}

/* Pairs of the top 2n values into the dict below them. */
static int
setitems(struct vm *m, int n, int mark)
{
	struct val *d, **ni;
	int k;

	if (m->sp < 2 * n + mark + 1)
		return fail(m, "SETITEMS without a dict");
	d = m->stack[m->sp - 2 * n - mark - 1];
	if (d->kind != V_DICT)
		return fail(m, "items set on something other than a dict");
	if ((ni = realloc(d->items, sizeof(*ni) * (d->n + 2 * (size_t)n + 1)))
	    == NULL)
		return fail(m, "out of memory");
	d->items = ni;
	for (k = 0; k < 2 * n; k++)
		d->items[d->n + (size_t)k] = m->stack[m->sp - 2 * n + k];
	d->n += 2 * (size_t)n;
	m->sp -= 2 * n + mark;
	return 0;
}

static const struct {
	const char	*name;
	int		 dtype;
} storages[] = {
	{ "FloatStorage", MK_F32 }, { "DoubleStorage", MK_F64 },
	{ "HalfStorage", MK_F16 }, { "BFloat16Storage", MK_BF16 },
	{ "LongStorage", MK_I64 }, { "IntStorage", MK_I32 },
	{ "ShortStorage", MK_I16 }, { "CharStorage", MK_I8 },
	{ "ByteStorage", MK_U8 }, { "BoolStorage", MK_BOOL },
};

/* A global from its module and name (each len bytes). */
static int
global(struct vm *m, const char *mod, size_t ml, const char *name, size_t nl)
{
	char sm[200], sn[200];
	struct val *v;
	size_t k;

	if ((v = new_val(m, V_GLOBAL)) == NULL)
		return -1;
	if (ml == 12 && memcmp(mod, "torch._utils", 12) == 0 && nl == 18 &&
	    memcmp(name, "_rebuild_tensor_v2", 18) == 0) {
		v->g = G_REBUILD;
		return push(m, v);
	}
	if (ml == 11 && memcmp(mod, "collections", 11) == 0 && nl == 11 &&
	    memcmp(name, "OrderedDict", 11) == 0) {
		v->g = G_ODICT;
		return push(m, v);
	}
	for (k = 0; ml == 5 && memcmp(mod, "torch", 5) == 0 &&
	    k < sizeof(storages) / sizeof(storages[0]); k++)
		if (strlen(storages[k].name) == nl &&
		    memcmp(name, storages[k].name, nl) == 0) {
			v->g = G_STORAGE;
			v->dtype = storages[k].dtype;
			return push(m, v);
		}
	mk_excerpt(sm, sizeof(sm), mod, ml, 40);
	mk_excerpt(sn, sizeof(sn), name, nl, 40);
	if (ml == 5 && memcmp(mod, "torch", 5) == 0 && nl > 7 &&
	    memcmp(name + nl - 7, "Storage", 7) == 0)
		return fail(m, "tensors of torch.%s are not read (float, "
		    "integer and bool tensors are)", sn);
	return fail(m, "global '%s.%s' is not a tensor, a storage or a "
	    "number (only what torch.save writes for a dict of tensors and "
	    "numbers is read)", sm, sn);
}

/* GLOBAL: "module\nname\n". */
static int
op_global(struct vm *m)
{
	const unsigned char *a = m->p, *nl1, *nl2;

	nl1 = memchr(a, '\n', (size_t)(m->end - a));
	nl2 = nl1 ? memchr(nl1 + 1, '\n', (size_t)(m->end - nl1 - 1)) : NULL;
	if (nl2 == NULL)
		return fail(m, "GLOBAL without its two lines");
	m->p = nl2 + 1;
	return global(m, (const char *)a, (size_t)(nl1 - a),
	    (const char *)nl1 + 1, (size_t)(nl2 - nl1 - 1));
}

static int
op_stack_global(struct vm *m)
{
	struct val *name = pop(m), *mod = name ? pop(m) : NULL;

	if (mod == NULL)
		return -1;
	if (mod->kind != V_STR || name->kind != V_STR)
		return fail(m, "STACK_GLOBAL of something other than strings");
	return global(m, mod->s, mod->n, name->s, name->n);
}

static int
str(struct vm *m, int lenbytes)
{
	const unsigned char *q = take(m, (size_t)lenbytes);
	struct val *v;
	uint64_t n;

	if (q == NULL)
		return -1;
	n = le(q, lenbytes);
	if (n > (uint64_t)(m->end - m->p))
		return fail(m, "a string of %llu bytes where %zu are left",
		    (unsigned long long)n, (size_t)(m->end - m->p));
	if ((v = new_val(m, V_STR)) == NULL)
		return -1;
	v->s = (const char *)m->p;
	v->n = (size_t)n;
	m->p += n;
	return push(m, v);
}

static int
num(struct vm *m, int kind, int64_t i, double f)
{
	struct val *v = new_val(m, kind);

	if (v == NULL)
		return -1;
	v->i = i;
	v->f = f;
	return push(m, v);
}

/* LONG1: n bytes of two's complement, little-endian (n <= 8). */
static int
op_long1(struct vm *m)
{
	const unsigned char *q = take(m, 1), *d;
	int n;
	uint64_t u;

	if (q == NULL)
		return -1;
	if ((n = q[0]) > 8)
		return fail(m, "an integer of %d bytes (at most 8)", n);
	if ((d = take(m, (size_t)n)) == NULL)
		return -1;
	u = le(d, n);
	if (n > 0 && n < 8 && (d[n - 1] & 0x80))
		u |= ~(uint64_t)0 << (8 * n);
	return num(m, V_INT, (int64_t)u, 0);
}

static int
op_binfloat(struct vm *m)
{
	const unsigned char *q = take(m, 8);
	uint64_t u = 0;
	double f;
	int k;

	if (q == NULL)
		return -1;
	for (k = 0; k < 8; k++)		/* big-endian */
		u = u << 8 | q[k];
	memcpy(&f, &u, 8);
	return num(m, V_FLOAT, 0, f);
}

/* Memo slot idx gets the top of the stack. */
static int
memo_put(struct vm *m, uint64_t idx)
{
	struct val **nm;
	size_t n;

	if (m->sp == 0)
		return fail(m, "a memo put with an empty stack");
	if (idx >= MAX_MEMO)
		return fail(m, "memo index %llu (at most %d)",
		    (unsigned long long)idx, MAX_MEMO);
	if (idx >= m->nmemo) {
		n = (size_t)idx + 1 > m->nmemo * 2 ? (size_t)idx + 1 :
		    m->nmemo * 2;
		if ((nm = realloc(m->memo, n * sizeof(*nm))) == NULL)
			return fail(m, "out of memory");
		memset(nm + m->nmemo, 0, (n - m->nmemo) * sizeof(*nm));
		m->memo = nm;
		m->nmemo = n;
	}
	if (m->memo[idx] == NULL)
		m->nput++;
	m->memo[idx] = m->stack[m->sp - 1];
	return 0;
}

static int
memo_get(struct vm *m, uint64_t idx)
{
	if (idx >= m->nmemo || m->memo[idx] == NULL)
		return fail(m, "memo index %llu was never put",
		    (unsigned long long)idx);
	return push(m, m->memo[idx]);
}

/* BINPERSID: ('storage', type, key, location, numel) -> a storage. */
static int
op_persid(struct vm *m)
{
	struct val *t = pop(m), *v, **it;

	if (t == NULL)
		return -1;
	it = t->items;
	if (t->kind != V_TUPLE || t->n != 5 || it[0]->kind != V_STR ||
	    it[0]->n != 7 || memcmp(it[0]->s, "storage", 7) != 0 ||
	    it[1]->kind != V_GLOBAL || it[1]->g != G_STORAGE ||
	    it[2]->kind != V_STR || it[3]->kind != V_STR ||
	    it[4]->kind != V_INT || it[4]->i < 0)
		return fail(m, "a persistent id that is not a tensor storage");
	if ((v = new_val(m, V_STORAGE)) == NULL)
		return -1;
	v->dtype = it[1]->dtype;
	v->key = it[2];
	v->i = it[4]->i;
	return push(m, v);
}

/* A size or stride tuple of integers into out. */
static int
ints(struct vm *m, const struct val *t, int64_t *out, int *n)
{
	size_t k;

	if (t->kind != V_TUPLE || t->n > MK_MAXDIM)
		return fail(m, "a tensor's size is not a tuple of at most %d",
		    MK_MAXDIM);
	for (k = 0; k < t->n; k++) {
		if (t->items[k]->kind != V_INT || t->items[k]->i < 0)
			return fail(m, "a tensor's size or stride is not a "
			    "count");
		out[k] = t->items[k]->i;
	}
	*n = (int)t->n;
	return 0;
}

/* _rebuild_tensor_v2(storage, offset, size, stride, grad, hooks[, meta]) */
static int
rebuild(struct vm *m, const struct val *a)
{
	struct val *v, **it = a->items;
	int ns;

	if (a->n != 6 && a->n != 7)
		return fail(m, "_rebuild_tensor_v2 with %zu arguments", a->n);
	if (it[0]->kind != V_STORAGE || it[1]->kind != V_INT || it[1]->i < 0 ||
	    it[4]->kind != V_BOOL || it[5]->kind != V_ODICT ||
	    (a->n == 7 && it[6]->kind != V_NONE && it[6]->kind != V_ODICT &&
	    !(it[6]->kind == V_DICT && it[6]->n == 0)))
		return fail(m, "_rebuild_tensor_v2 with arguments it does not "
		    "take");
	if ((v = new_val(m, V_TENSOR)) == NULL)
		return -1;
	v->storage = it[0];
	v->offset = it[1]->i;
	if (ints(m, it[2], v->shape, &v->ndim) < 0 ||
	    ints(m, it[3], v->stride, &ns) < 0)
		return -1;
	if (ns != v->ndim)
		return fail(m, "a tensor of %d sizes and %d strides", v->ndim,
		    ns);
	return push(m, v);
}

static int
op_reduce(struct vm *m)
{
	struct val *a = pop(m), *f = a ? pop(m) : NULL;

	if (f == NULL)
		return -1;
	if (f->kind != V_GLOBAL || a->kind != V_TUPLE)
		return fail(m, "REDUCE of something other than a global");
	if (f->g == G_ODICT) {
		if (a->n != 0)
			return fail(m, "an OrderedDict with items (backward "
			    "hooks are not data)");
		return push(m, new_val(m, V_ODICT));
	}
	if (f->g == G_REBUILD)
		return rebuild(m, a);
	return fail(m, "a storage type called as a function");
}

/* One opcode.  Returns 1 at STOP, 0 to go on, -1. */
static int
step(struct vm *m)
{
	const unsigned char *q;
	int op, n;

	if ((q = take(m, 1)) == NULL)
		return -1;
	switch (op = q[0]) {
	case 0x80:	/* PROTO */
		if ((q = take(m, 1)) == NULL)
			return -1;
		return q[0] >= 2 && q[0] <= 5 ? 0 :
		    fail(m, "pickle protocol %d (2 to 5 are read)", q[0]);
	case 0x95:	/* FRAME: a hint of the next bytes' length */
		return take(m, 8) ? 0 : -1;
	case '}':	return push(m, new_val(m, V_DICT));
	case ')':	return tuple(m, 0);
	case '(':	return push(m, new_val(m, V_MARK));
	case 'X':	return str(m, 4);
	case 0x8c:	return str(m, 1);
	case 'K':	return (q = take(m, 1)) ? num(m, V_INT, q[0], 0) : -1;
	case 'M':	return (q = take(m, 2)) ? num(m, V_INT,
			    (int64_t)le(q, 2), 0) : -1;
	case 'J':	return (q = take(m, 4)) ? num(m, V_INT,
			    (int32_t)(uint32_t)le(q, 4), 0) : -1;
	case 0x8a:	return op_long1(m);
	case 'G':	return op_binfloat(m);
	case 0x88:	return num(m, V_BOOL, 1, 0);
	case 0x89:	return num(m, V_BOOL, 0, 0);
	case 'N':	return push(m, new_val(m, V_NONE));
	case 'c':	return op_global(m);
	case 0x93:	return op_stack_global(m);
	case 't':	return (n = since_mark(m)) < 0 || tuple(m, n) < 0 ? -1 :
			    (m->stack[m->sp - 2] = m->stack[m->sp - 1],
			    m->sp--, 0);
	case 0x85:	return tuple(m, 1);
	case 0x86:	return tuple(m, 2);
	case 0x87:	return tuple(m, 3);
	case 'q':	return (q = take(m, 1)) ? memo_put(m, q[0]) : -1;
	case 'r':	return (q = take(m, 4)) ? memo_put(m, le(q, 4)) : -1;
	case 0x94:	return memo_put(m, m->nput);
	case 'h':	return (q = take(m, 1)) ? memo_get(m, q[0]) : -1;
	case 'j':	return (q = take(m, 4)) ? memo_get(m, le(q, 4)) : -1;
	case 'Q':	return op_persid(m);
	case 'R':	return op_reduce(m);
	case 's':	return setitems(m, 1, 0);
	case 'u':	return (n = since_mark(m)) < 0 ? -1 : n % 2 ?
			    fail(m, "SETITEMS of an odd number of values") :
			    setitems(m, n / 2, 1);
	case '.':	return 1;
	default:
		m->p--;
		return fail(m, "unsupported pickle opcode 0x%02x (only what "
		    "torch.save writes for a dict of tensors and numbers is "
		    "read)", op);
	}
}

/* Run the pickle; the dict it builds into *out. */
static int
run(struct vm *m, struct val **out)
{
	int r;

	while ((r = step(m)) == 0)
		;
	if (r < 0)
		return -1;
	if (m->sp != 1 || m->stack[0]->kind != V_DICT)
		return fail(m, "the pickle is not one dict");
	*out = m->stack[0];
	return 0;
}

int
mk_pt_find(const struct mk_zip *z)
{
	const char *nm;
	size_t n;
	int i;

	for (i = 0; i < mk_zip_count(z); i++) {
		nm = mk_zip_name(z, i);
		n = strlen(nm);
		if (n >= 9 && strcmp(nm + n - 9, "/data.pkl") == 0 &&
		    memchr(nm, '/', n - 9) == NULL)
			return i;
	}
	return -1;
}

/* The entry PREFIX/what (prefix: data.pkl's directory), or -1. */
static int
entry(const struct mk_zip *z, int pkl, const char *what, size_t wl)
{
	const char *nm = mk_zip_name(z, pkl);
	char buf[512];
	size_t pl = strlen(nm) - 8;	/* "NAME/" */

	if (pl + wl + 1 > sizeof(buf))
		return -1;
	memcpy(buf, nm, pl);
	memcpy(buf + pl, what, wl);
	buf[pl + wl] = '\0';
	return mk_zip_find(z, buf);
}

/* "big" in NAME/byteorder: the storages are big-endian. */
static int
big_endian(struct mk_zip *z, int pkl, int *big, struct mk_err *e)
{
	char shown[17];
	unsigned char *p;
	size_t n, k;
	int i = entry(z, pkl, "byteorder", 9);

	*big = 0;
	if (i < 0)
		return 0;	/* older files: little-endian */
	if (mk_zip_read(z, i, 16, (void **)&p, &n, e) < 0)
		return -1;
	*big = n == 3 && memcmp(p, "big", 3) == 0;
	if (*big || (n == 6 && memcmp(p, "little", 6) == 0)) {
		free(p);
		return 0;
	}
	for (k = 0; k < n; k++)
		shown[k] = p[k] >= 0x20 && p[k] < 0x7f ? (char)p[k] : '?';
	shown[n] = '\0';
	free(p);
	return mk_err_data(e, "%s: byteorder is '%s', neither little nor big",
	    mk_zip_file(z), shown);
}

/* Tensor v, key name, into t: its storage's bytes, checked and copied. */
static int
tensor(struct mk_zip *z, int pkl, const struct val *v, const char *key,
    int big, struct mk_tensor *t, struct mk_err *e)
{
	const struct val *st = v->storage;
	size_t size = mk_dtype_size((enum mk_dtype)st->dtype), n, want;
	char path[300], name[300], shown[300];
	int64_t nel, expect;
	void *p;
	int k, i;

	mk_excerpt(name, sizeof(name), key, strlen(key), 60);

	nel = mk_shape_nelem(v->ndim, v->shape, size);
	if (nel < 0)
		return mk_err_data(e, "%s: %s: its shape is too large",
		    mk_zip_file(z), name);
	for (expect = 1, k = v->ndim - 1; k >= 0; k--) {
		if (v->shape[k] > 1 && v->stride[k] != expect)
			return mk_err_data(e, "%s: %s is not contiguous (strides "
			    "of a view); save tensor.contiguous()",
			    mk_zip_file(z), name);
		expect *= v->shape[k];
	}
	if (v->offset > st->i || nel > st->i - v->offset)
		return mk_err_data(e, "%s: %s: %lld elements at %lld do not fit "
		    "its storage of %lld", mk_zip_file(z), name, (long long)nel,
		    (long long)v->offset, (long long)st->i);
	snprintf(path, sizeof(path), "data/%.*s", (int)(st->key->n < 200 ?
	    st->key->n : 200), st->key->s);
	mk_excerpt(shown, sizeof(shown), path, strlen(path), 60);
	if ((i = entry(z, pkl, path, strlen(path))) < 0)
		return mk_err_data(e, "%s: %s: its storage %s is missing",
		    mk_zip_file(z), name, shown);
	/* numel is the pickle's word: its byte count may wrap */
	if (st->i < 0 || (uint64_t)st->i > SIZE_MAX / size)
		return mk_err_data(e, "%s: %s: storage %s of %lld elements is "
		    "too large", mk_zip_file(z), name, shown, (long long)st->i);
	want = (size_t)st->i * size;
	if (mk_zip_read(z, i, want, &p, &n, e) < 0)
		return -1;
	if (n != want) {
		free(p);
		return mk_err_data(e, "%s: %s: storage %s holds %zu bytes, its "
		    "%lld elements need %zu", mk_zip_file(z), name, shown, n,
		    (long long)st->i, want);
	}
	if (mk_tensor_alloc(t, (enum mk_dtype)st->dtype, v->ndim, v->shape,
	    e) < 0) {
		free(p);
		return -1;
	}
	memcpy(t->data, (char *)p + (size_t)v->offset * size, (size_t)nel *
	    size);
	free(p);
	if (big)
		mk_byteswap(t->data, (size_t)nel, size);
	return 0;
}

/* The dict's items into pt. */
static int
items(struct mk_zip *z, int pkl, const struct val *d, int big,
    struct mk_pt *pt, struct mk_err *e)
{
	const struct val *k, *v;
	struct mk_pt_item *it;
	char shown[300];
	size_t j;

	if ((pt->items = calloc(d->n / 2 + 1, sizeof(*pt->items))) == NULL)
		return mk_err_data(e, "%s: out of memory", mk_zip_file(z));
	for (j = 0; j < d->n; j += 2) {
		k = d->items[j];
		v = d->items[j + 1];
		if (k->kind != V_STR)
			return mk_err_data(e, "%s: a key of the dict is not a "
			    "string", mk_zip_file(z));
		it = &pt->items[pt->n];
		mk_tensor_init(&it->t);
		if ((it->key = strndup(k->s, k->n)) == NULL)
			return mk_err_data(e, "%s: out of memory",
			    mk_zip_file(z));
		pt->n++;
		switch (v->kind) {
		case V_TENSOR:
			it->kind = MK_PT_TENSOR;
			if (tensor(z, pkl, v, it->key, big, &it->t, e) < 0)
				return -1;
			break;
		case V_INT:	it->kind = MK_PT_INT; it->i = v->i; break;
		case V_BOOL:	it->kind = MK_PT_BOOL; it->i = v->i; break;
		case V_FLOAT:	it->kind = MK_PT_FLOAT; it->f = v->f; break;
		case V_NONE:	it->kind = MK_PT_NONE; break;
		default:
			return mk_err_data(e, "%s: '%s' is neither a tensor nor "
			    "a number", mk_zip_file(z), mk_excerpt(shown,
			    sizeof(shown), it->key, strlen(it->key), 60));
		}
	}
	return 0;
}

static void
vm_free(struct vm *m)
{
	size_t k;

	for (k = 0; k < m->nvals; k++) {
		free(m->vals[k]->items);
		free(m->vals[k]);
	}
	free(m->vals);
	free(m->memo);
}

int
mk_pt_read(struct mk_zip *z, int pkl, struct mk_pt *pt, struct mk_err *e)
{
	struct vm m;
	struct val *d = NULL;
	void *p;
	size_t n;
	int big, r = -1;

	memset(pt, 0, sizeof(*pt));
	if (big_endian(z, pkl, &big, e) < 0 ||
	    mk_zip_read(z, pkl, MAX_PICKLE, &p, &n, e) < 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.start = m.p = p;
	m.end = m.p + n;
	m.file = mk_zip_file(z);
	m.e = e;
	if (run(&m, &d) == 0)
		r = items(z, pkl, d, big, pt, e);
	vm_free(&m);
	free(p);
	return r;
}

const struct mk_pt_item *
mk_pt_get(const struct mk_pt *pt, const char *key)
{
	int i;

	for (i = 0; i < pt->n; i++)
		if (strcmp(pt->items[i].key, key) == 0)
			return &pt->items[i];
	return NULL;
}

void
mk_pt_free(struct mk_pt *pt)
{
	int i;

	for (i = 0; i < pt->n; i++) {
		free(pt->items[i].key);
		mk_tensor_free(&pt->items[i].t);
	}
	free(pt->items);
	memset(pt, 0, sizeof(*pt));
}
