/*
 * csvio.c - the CSV tensor reader and writer; the dialect is in csvio.h.
 *
 * The reader hands libcsv one line at a time, so it always knows the line
 * number for messages and can recognise comment lines (which libcsv has no
 * notion of) before they reach the parser.  A quoted field that spans lines
 * simply keeps the record open across calls.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <csv.h>

#include "tensor/csvio.h"
#include "base/half.h"
#include "tensor/src_impl.h"

#define NAME_MAX_LEN	255

/* What a tensor line said. */
struct meta {
	int		present;
	char		name[NAME_MAX_LEN + 1];
	int		has_name, has_shape, has_dtype;
	int		ndim;
	int64_t		shape[MK_MAXDIM];
	enum mk_dtype	dtype;
	size_t		line;
};

struct mk_csvstate {
	struct csv_parser p;
	size_t		 blk;		/* libcsv's growth step, bytes */
	int		 init;
	size_t		 line;		/* number of the line being handled */
	int		 in_record;	/* a record spans lines (open quote) */
	int		 failed;	/* a callback recorded an error */
	struct mk_err	 err;

	/* the row being collected: field texts in an arena */
	char		*arena;
	size_t		 alen, acap;
	size_t		*foff;		/* offsets of fields in arena */
	size_t		 nf, fcap;

	/* the tensor being built */
	struct meta	 meta, next;	/* next: a tensor line already seen */
	int		 rows_seen;	/* data or header rows so far */
	int		 header_done;
	int		 ws;		/* fields split on blanks (np.savetxt's
					 * default) rather than commas */
	char		**cols;
	int		 ncols_hdr;
	int64_t		 ncols;		/* -1 until the first data row */
	int64_t		 nrows;
	int		 infer_float;	/* inference mode went to f64 */
	unsigned char	*vals;		/* values: meta dtype, or 8-byte i64/f64 */
	size_t		 nvals;
	size_t		 vbytes;	/* allocated bytes (tensors differ in size) */
	size_t		 first_line;	/* first line of the tensor */
};

static int
fail(struct mk_csvstate *c, struct mk_src *s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(struct mk_csvstate *c, struct mk_src *s, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->failed = 1;
	return mk_err_data(&c->err, "%s:%zu: %s", s->name, c->line, msg);
}

int
mk_csv_parse_number(const char *s, size_t n, struct mk_value *v)
{
	char buf[128], *end;
	size_t i = 0, j;
	int digits = 1;

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	s += i;
	n -= i;
	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (strcasecmp(buf, "true") == 0 || strcasecmp(buf, "false") == 0) {
		v->kind = MK_KIND_INT;
		v->i = buf[0] == 't' || buf[0] == 'T';
		return 0;
	}
	for (j = buf[0] == '-' || buf[0] == '+'; j < n; j++)
		if (!isdigit((unsigned char)buf[j]))
			digits = 0;
	if (digits && n > (size_t)(buf[0] == '-' || buf[0] == '+')) {
		errno = 0;
		v->i = strtoll(buf, &end, 10);
		if (errno == 0 && *end == '\0') {
			v->kind = MK_KIND_INT;
			return 0;
		}
		if (buf[0] != '-') {
			errno = 0;
			v->u = strtoull(buf, &end, 10);
			if (errno == 0 && *end == '\0') {
				v->kind = MK_KIND_UINT;
				return 0;
			}
		}
	}
	/* strtod would take hex ("0x1p3"); the dialect does not. */
	if (strchr(buf, 'x') != NULL || strchr(buf, 'X') != NULL)
		return -1;
	errno = 0;
	v->f = strtod(buf, &end);
	if (end != buf + n || end == buf)
		return -1;
	/* Overflow gives inf, as np.loadtxt does; underflow gives 0. */
	v->kind = MK_KIND_FLOAT;
	return 0;
}

static void state_free(void *p);

/* The reader's state on s, created on first use. */
static struct mk_csvstate *
state(struct mk_src *s)
{
	struct mk_csvstate *c;

	if (s->reader != NULL && s->reader_free == state_free)
		return s->reader;
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	if (csv_init(&c->p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL)
	    != 0) {
		free(c);
		return NULL;
	}
	c->blk = 128;		/* libcsv's default */
	c->init = 1;
	c->ncols = -1;
	src_set_reader(s, c, state_free);
	return c;
}

static void
state_free(void *p)
{
	struct mk_csvstate *c = p;
	int i;

	if (c->init)
		csv_free(&c->p);
	free(c->arena);
	free(c->foff);
	for (i = 0; i < c->ncols_hdr; i++)
		free(c->cols[i]);
	free(c->cols);
	free(c->vals);
	free(c);
}

/* Forget the tensor being built (after handing it out, or on error). */
static void
reset_tensor(struct mk_csvstate *c)
{
	int i;

	for (i = 0; i < c->ncols_hdr; i++)
		free(c->cols[i]);
	free(c->cols);
	c->cols = NULL;
	c->ncols_hdr = 0;
	c->rows_seen = 0;
	c->header_done = 0;
	c->ws = 0;
	c->ncols = -1;
	c->nrows = 0;
	c->infer_float = 0;
	c->nvals = 0;
	memset(&c->meta, 0, sizeof(c->meta));
}

/* libcsv field callback: append the field text to the row. */
static void
on_field(void *f, size_t len, void *data)
{
	struct mk_src *s = data;
	struct mk_csvstate *c = s->reader;
	size_t need;
	void *p;

	if (c->failed)
		return;
	need = c->alen + len + 1;
	if (need > c->acap) {
		size_t cap = c->acap ? c->acap : 256;
		while (cap < need)
			cap *= 2;
		if ((p = realloc(c->arena, cap)) == NULL) {
			fail(c, s, "out of memory");
			return;
		}
		c->arena = p;
		c->acap = cap;
	}
	if (c->nf == c->fcap) {
		size_t cap = c->fcap ? c->fcap * 2 : 64;
		if ((p = realloc(c->foff, cap * sizeof(size_t))) == NULL) {
			fail(c, s, "out of memory");
			return;
		}
		c->foff = p;
		c->fcap = cap;
	}
	c->foff[c->nf++] = c->alen;
	if (len > 0)
		memcpy(c->arena + c->alen, f, len);
	c->arena[c->alen + len] = '\0';
	c->alen += len + 1;
}

static size_t
field_len(const struct mk_csvstate *c, size_t k)
{
	size_t end = k + 1 < c->nf ? c->foff[k + 1] : c->alen;
	return end - c->foff[k] - 1;
}

static int
grow_vals(struct mk_csvstate *c, struct mk_src *s, size_t more, size_t size)
{
	size_t need = (c->nvals + more) * size, cap;
	void *p;

	if (need <= c->vbytes)
		return 0;
	cap = c->vbytes ? c->vbytes : 8192;
	while (cap < need)
		cap *= 2;
	if ((p = realloc(c->vals, cap)) == NULL)
		return fail(c, s, "out of memory after %zu values", c->nvals);
	c->vals = p;
	c->vbytes = cap;
	return 0;
}

/* Store a header row's fields as column names. */
static int
take_header(struct mk_csvstate *c, struct mk_src *s)
{
	size_t k;

	if ((c->cols = calloc(c->nf, sizeof(char *))) == NULL)
		return fail(c, s, "out of memory");
	for (k = 0; k < c->nf; k++) {
		if ((c->cols[k] = strdup(c->arena + c->foff[k])) == NULL)
			return fail(c, s, "out of memory");
		c->ncols_hdr = (int)k + 1;
	}
	c->header_done = 1;
	return 0;
}

/* Inference mode: the values so far were i64; make them f64. */
static void
to_float(struct mk_csvstate *c)
{
	int64_t iv;
	double dv;
	size_t k;

	for (k = 0; k < c->nvals; k++) {
		memcpy(&iv, c->vals + 8 * k, 8);
		dv = (double)iv;
		memcpy(c->vals + 8 * k, &dv, 8);
	}
	c->infer_float = 1;
}

static double
as_double(struct mk_value v)
{
	return v.kind == MK_KIND_FLOAT ? v.f :
	    v.kind == MK_KIND_UINT ? (double)v.u : (double)v.i;
}

/* libcsv record callback: a complete row. */
static void
on_row(int term, void *data)
{
	struct mk_src *s = data;
	struct mk_csvstate *c = s->reader;
	struct mk_value v;
	char vb[64], ex[200];
	size_t k;
	double dv;

	(void)term;
	c->in_record = 0;
	if (c->failed)
		goto out;
	if (c->rows_seen++ == 0 && !c->header_done) {
		for (k = 0; k < c->nf; k++)
			if (mk_csv_parse_number(c->arena + c->foff[k],
			    field_len(c, k), &v) < 0) {
				take_header(c, s);
				goto out;
			}
	}
	if (c->ncols < 0 && c->header_done && (int)c->nf != c->ncols_hdr) {
		fail(c, s, "expected %d fields as in the header row, got %zu",
		    c->ncols_hdr, c->nf);
		goto out;
	}
	if (c->ncols < 0) {
		c->ncols = (int64_t)c->nf;
	} else if ((int64_t)c->nf != c->ncols) {
		fail(c, s, "expected %lld fields, got %zu (rows must all have "
		    "the same length)", (long long)c->ncols, c->nf);
		goto out;
	}
	if (grow_vals(c, s, c->nf, c->meta.has_dtype ?
	    mk_dtype_size(c->meta.dtype) : 8) < 0)
		goto out;
	for (k = 0; k < c->nf; k++) {
		const char *f = c->arena + c->foff[k];
		if (mk_csv_parse_number(f, field_len(c, k), &v) < 0) {
			fail(c, s, "field %zu: '%s' is not a number", k + 1,
			    mk_excerpt(ex, sizeof(ex), f, field_len(c, k), 40));
			goto out;
		}
		if (c->meta.has_dtype) {
			if (mk_value_store(c->vals, c->meta.dtype, c->nvals, v)
			    < 0) {
				fail(c, s, "field %zu: %s does not fit %s", k + 1,
				    mk_value_str(vb, sizeof(vb), v),
				    mk_dtype_name(c->meta.dtype));
				goto out;
			}
		} else {
			if (v.kind != MK_KIND_INT && !c->infer_float)
				to_float(c);
			if (c->infer_float) {
				dv = as_double(v);
				memcpy(c->vals + 8 * c->nvals, &dv, 8);
			} else {
				memcpy(c->vals + 8 * c->nvals, &v.i, 8);
			}
		}
		c->nvals++;
	}
	c->nrows++;
out:
	c->nf = 0;
	c->alen = 0;
}

/* Parse "58,256,33" (or "") into a shape. */
static int
parse_shape(const char *v, struct meta *m)
{
	const char *p = v;
	char *end;
	long long d;

	m->ndim = 0;
	if (*p == '\0')
		return 0;
	for (;;) {
		if (!isdigit((unsigned char)*p) || m->ndim == MK_MAXDIM)
			return -1;
		errno = 0;
		d = strtoll(p, &end, 10);
		if (errno != 0 || d > ((int64_t)1 << 62))
			return -1;
		m->shape[m->ndim++] = d;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return -1;
		p = end + 1;
	}
}

/*
 * Is this comment a tensor line?  Returns 1 and fills m if so, 0 if it is
 * an ordinary comment, -1 (with the error set) if it is a malformed one.
 */
static int
parse_meta(struct mk_csvstate *c, struct mk_src *s, const char *line,
    size_t n, struct meta *m)
{
	char buf[4096], ex[300], *tok, *save, *eq;
	int first = 1, dt;

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, line, n);
	buf[n] = '\0';
	memset(m, 0, sizeof(*m));
	for (tok = strtok_r(buf + 1, " \t", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t", &save), first = 0) {
		if ((eq = strchr(tok, '=')) == NULL) {
			if (first)
				return 0;
			continue;
		}
		*eq++ = '\0';
		if (strcmp(tok, "name") == 0) {
			if (strlen(eq) > NAME_MAX_LEN)
				return fail(c, s, "tensor name longer than %d "
				    "characters", NAME_MAX_LEN);
			strcpy(m->name, eq);
			m->has_name = 1;
		} else if (strcmp(tok, "shape") == 0) {
			if (parse_shape(eq, m) < 0)
				return fail(c, s, "bad shape '%s' (expected "
				    "up to %d comma-separated sizes)",
				    mk_excerpt(ex, sizeof(ex), eq, strlen(eq),
				    60), MK_MAXDIM);
			m->has_shape = 1;
		} else if (strcmp(tok, "dtype") == 0) {
			if ((dt = mk_dtype_parse(eq)) < 0)
				return fail(c, s, "unknown dtype '%s' "
				    "(supported: %s)", mk_excerpt(ex, sizeof(ex),
				    eq, strlen(eq), 40), mk_dtype_list());
			m->dtype = (enum mk_dtype)dt;
			m->has_dtype = 1;
		} else if (first) {
			return 0;
		}
	}
	if (!m->has_name && !m->has_shape && !m->has_dtype)
		return 0;
	m->present = 1;
	m->line = c->line;
	return 1;
}

/* Turn the collected rows into t. */
static int
finish(struct mk_csvstate *c, struct mk_src *s, struct mk_tensor *t,
    struct mk_err *e)
{
	char sb[256];
	enum mk_dtype dt;
	int64_t shape[MK_MAXDIM], want;
	int ndim;

	dt = c->meta.has_dtype ? c->meta.dtype :
	    c->infer_float || c->nvals == 0 ? MK_F64 : MK_I64;
	if (c->meta.has_shape) {
		ndim = c->meta.ndim;
		memcpy(shape, c->meta.shape, sizeof(shape));
		want = mk_shape_nelem(ndim, shape, mk_dtype_size(dt));
		if (want < 0)
			return mk_err_data(e, "%s:%zu: tensor %s: shape (%s) "
			    "holds more than 2^63 bytes of %s", s->name,
			    c->meta.line, c->meta.has_name ? c->meta.name : "",
			    mk_shape_str(sb, sizeof(sb), ndim, shape),
			    mk_dtype_name(dt));
		if ((uint64_t)want != c->nvals)
			return mk_err_data(e, "%s:%zu: tensor %s has %zu values, "
			    "but its shape (%s) needs %lld", s->name,
			    c->meta.line, c->meta.has_name ? c->meta.name : "",
			    c->nvals, mk_shape_str(sb, sizeof(sb), ndim, shape),
			    (long long)want);
		if (c->nvals > 0 && c->ncols != (ndim >= 2 ? shape[ndim - 1] :
		    1))
			return mk_err_data(e, "%s:%zu: tensor %s has %lld "
			    "columns, but its shape (%s) needs %lld", s->name,
			    c->meta.line, c->meta.has_name ? c->meta.name : "",
			    (long long)c->ncols, mk_shape_str(sb, sizeof(sb),
			    ndim, shape), ndim >= 2 ? (long long)shape[ndim - 1]
			    : 1LL);
	} else if (c->ncols == 1 || (c->ncols < 0 && c->ncols_hdr <= 1)) {
		ndim = 1;
		shape[0] = c->nrows;
	} else {
		ndim = 2;
		shape[0] = c->nrows;
		shape[1] = c->ncols >= 0 ? c->ncols : c->ncols_hdr;
	}
	if (mk_tensor_alloc(t, dt, ndim, shape, e) < 0)
		return -1;
	/* vals already hold the meta dtype, or 8-byte i64/f64 when inferred. */
	if (c->nvals > 0)
		memcpy(t->data, c->vals, c->nvals * mk_dtype_size(dt));
	if (c->meta.has_name && mk_tensor_set_name(t, c->meta.name) < 0)
		return mk_err_data(e, "out of memory");
	t->cols = c->cols;
	t->ncols = c->ncols_hdr;
	c->cols = NULL;
	c->ncols_hdr = 0;
	return 0;
}

/* Next line of input: [*lp, *lp + *ln), without its newline. 0 at EOF. */
static int
next_line(struct mk_src *s, const char **lp, size_t *ln, struct mk_err *e)
{
	unsigned char *nl;
	size_t want = 4096;
	int64_t have;

	for (;;) {
		if ((have = src_fill(s, want, e)) < 0)
			return -1;
		if (have == 0)
			return 0;
		nl = memchr(s->p + s->pos, '\n', (size_t)have);
		if (nl != NULL || (size_t)have < want || s->eof) {
			*lp = (const char *)s->p + s->pos;
			*ln = nl ? (size_t)(nl - (s->p + s->pos)) : (size_t)have;
			s->pos += *ln + (nl != NULL);
			return 1;
		}
		want *= 2;
	}
}

static int
blank(const char *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (l[i] != ' ' && l[i] != '\t')
			return 0;
	return 1;
}

/*
 * The next blank-separated word of l[0..n) at or after *at: its start
 * into *w and length into *len, *at past it.  Returns 0 at the end.
 */
static int
next_word(const char *l, size_t n, size_t *at, size_t *w, size_t *len)
{
	size_t i = *at, j;

	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	if (i == n)
		return 0;
	for (j = i; j < n && l[j] != ' ' && l[j] != '\t'; j++)
		;
	*w = i;
	*len = j - i;
	*at = j;
	return 1;
}

/* The blank-separated words of l as the fields of a row (on_field). */
static void
each_word(const char *l, size_t n, struct mk_src *s)
{
	size_t at = 0, w, len;

	while (next_word(l, n, &at, &w, &len))
		on_field((void *)(uintptr_t)(l + w), len, s);
}

/* Is every blank-separated word of l a number, and are there two or more? */
static int
numbers_by_blanks(const char *l, size_t n)
{
	struct mk_value v;
	size_t at = 0, w, len;
	int nw = 0;

	while (next_word(l, n, &at, &w, &len)) {
		if (mk_csv_parse_number(l + w, len, &v) < 0)
			return 0;
		nw++;
	}
	return nw >= 2;
}

/*
 * A header taken from a line without commas, now known to head blank-
 * separated columns: its one name becomes one name per word.
 */
static void
split_header(struct mk_csvstate *c, struct mk_src *s)
{
	char *line;

	if (!c->header_done || c->ncols_hdr != 1)
		return;
	line = c->cols[0];
	free(c->cols);
	c->cols = NULL;
	c->ncols_hdr = 0;
	c->nf = c->alen = 0;
	each_word(line, strlen(line), s);
	free(line);
	take_header(c, s);
	c->nf = c->alen = 0;
}

/*
 * Which separator a tensor's rows use, decided at its first data row:
 * blanks when that row has no comma and two or more words that are all
 * numbers (np.savetxt's default output), else commas.
 */
static void
pick_separator(struct mk_csvstate *c, struct mk_src *s, const char *l,
    size_t n)
{
	if (c->ncols >= 0 || c->ws || memchr(l, ',', n) != NULL ||
	    memchr(l, '"', n) != NULL || !numbers_by_blanks(l, n))
		return;
	c->ws = 1;
	split_header(c, s);
}

/* Does the tensor being built have anything in it yet? */
static int
started(const struct mk_csvstate *c)
{
	return c->meta.present || c->rows_seen > 0;
}

int
mk_csv_read(struct mk_src *s, struct mk_tensor *t, struct mk_err *e)
{
	struct mk_csvstate *c;
	const char *l, *z;
	size_t n, i;
	struct meta m;
	int r;

	mk_tensor_free(t);
	if ((c = state(s)) == NULL)
		return mk_err_data(e, "%s: out of memory", s->name);
	reset_tensor(c);
	if (c->next.present) {
		c->meta = c->next;
		c->next.present = 0;
	}
	c->first_line = c->line + 1;
	for (;;) {
		if ((r = next_line(s, &l, &n, e)) < 0)
			return -1;
		if (r == 0)
			break;
		c->line++;
		if (n > 0 && l[n - 1] == '\r')
			n--;
		/* a UTF-8 byte order mark (Excel, PowerShell) */
		if (c->line == 1 && n >= 3 && memcmp(l, "\xef\xbb\xbf", 3) == 0) {
			l += 3;
			n -= 3;
		}
		if ((z = memchr(l, '\0', n)) != NULL) {
			fail(c, s, "a NUL byte at column %zu: CSV is text",
			    (size_t)(z - l) + 1);
			goto bad;
		}
		if (!c->in_record) {
			if (blank(l, n))
				continue;
			for (i = 0; i < n && (l[i] == ' ' || l[i] == '\t'); i++)
				;
			if (l[i] == '#') {
				if ((r = parse_meta(c, s, l + i, n - i, &m)) < 0)
					goto bad;
				if (r == 0)
					continue;
				if (started(c)) {
					c->next = m;
					goto done;
				}
				c->meta = m;
				continue;
			}
		}
		pick_separator(c, s, l, n);
		if (c->failed)
			goto bad;
		if (c->ws) {
			c->in_record = 1;
			each_word(l, n, s);
			on_row(0, s);
			if (c->failed)
				goto bad;
			continue;
		}
		c->in_record = 1;
		/*
		 * libcsv grows a field's buffer by its block size (128 bytes:
		 * a 1 MB field took 40 s under ASan, copying quadratically);
		 * a line's length covers any field in it.
		 */
		if (n >= c->blk) {
			c->blk = n + 1;
			csv_set_blk_size(&c->p, c->blk);
		}
		if (csv_parse(&c->p, l, n, on_field, on_row, s) != n) {
			fail(c, s, "%s", csv_strerror(csv_error(&c->p)));
			goto bad;
		}
		csv_parse(&c->p, "\n", 1, on_field, on_row, s);
		if (c->failed)
			goto bad;
	}
	if (csv_fini(&c->p, on_field, on_row, s) != 0) {
		fail(c, s, "unterminated quoted field");
		goto bad;
	}
	if (c->failed)
		goto bad;
	if (!started(c))
		return 0;
	/* text without a number ("some text", a header alone) is no table;
	 * a "# shape=0,..." line says an empty one is meant */
	if (!c->meta.present && c->header_done && c->rows_seen == 1) {
		fail(c, s, "a line of text and no numbers: CSV input is rows of "
		    "numbers (a header row needs rows under it)");
		goto bad;
	}
done:
	if (finish(c, s, t, e) < 0)
		return -1;
	s->index++;
	return 1;
bad:
	*e = c->err;
	return -1;
}

/* Format element i of data (dtype) as CSV text. */
static int
format_value(char *buf, size_t size, enum mk_dtype dtype, const void *data,
    size_t i)
{
	struct mk_value v = mk_value_load(data, dtype, i);
	const char *fmt;

	if (v.kind == MK_KIND_UINT)
		return snprintf(buf, size, "%llu", (unsigned long long)v.u);
	if (v.kind == MK_KIND_INT)
		return snprintf(buf, size, "%lld", (long long)v.i);
	if (isnan(v.f))
		return snprintf(buf, size, "nan");
	if (isinf(v.f))
		return snprintf(buf, size, v.f < 0 ? "-inf" : "inf");
	/* "-0" would read back as the integer 0 and lose its sign. */
	if (v.f == 0 && signbit(v.f))
		return snprintf(buf, size, "-0.0");
	switch (dtype) {
	case MK_F16:	fmt = "%.5g"; break;
	case MK_BF16:	fmt = "%.4g"; break;
	case MK_F32:	fmt = "%.9g"; break;
	default:	fmt = "%.17g"; break;
	}
	return snprintf(buf, size, fmt, v.f);
}

/* A name for the tensor line: no blanks, nothing that ends the token. */
static void
clean_name(char *out, size_t size, const char *name)
{
	size_t i;

	for (i = 0; name[i] != '\0' && i + 1 < size; i++)
		out[i] = isspace((unsigned char)name[i]) ||
		    !isprint((unsigned char)name[i]) ? '_' : name[i];
	out[i] = '\0';
}

int
mk_csv_write_head(FILE *fp, const char *name, enum mk_dtype dtype, int ndim,
    const int64_t *shape, struct mk_err *e)
{
	char sb[MK_MAXDIM * 24], nb[NAME_MAX_LEN + 1];

	/* an unnamed tensor stays so: a reader then takes it by place */
	if (name != NULL)
		clean_name(nb, sizeof(nb), name);
	if (fprintf(fp, "#%s%s shape=%s dtype=%s\n", name ? " name=" : "",
	    name ? nb : "", mk_shape_str(sb, sizeof(sb), ndim, shape),
	    mk_dtype_name(dtype)) < 0)
		return mk_err_sys(e, "write");
	return 0;
}

int
mk_csv_write_values(FILE *fp, enum mk_dtype dtype, const void *data,
    size_t n, size_t cols, size_t *pos, struct mk_err *e)
{
	char vb[64];
	size_t i;
	int len;

	for (i = 0; i < n; i++) {
		len = format_value(vb, sizeof(vb) - 1, dtype, data, i);
		vb[len++] = (++*pos) % cols == 0 ? '\n' : ',';
		if (fwrite(vb, 1, (size_t)len, fp) != (size_t)len)
			return mk_err_sys(e, "write");
	}
	return 0;
}

int
mk_csv_write(FILE *fp, const struct mk_tensor *t, const char *name,
    struct mk_err *e)
{
	size_t pos = 0;

	if (mk_csv_write_head(fp, t->name ? t->name : name ? name : "tensor",
	    t->dtype, t->ndim, t->shape, e) < 0)
		return -1;
	return mk_csv_write_values(fp, t->dtype, t->data, t->nelem,
	    t->ndim >= 2 ? (size_t)t->shape[t->ndim - 1] : 1, &pos, e);
}
