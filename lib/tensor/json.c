/* json.c - a strict JSON cursor; see json.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensor/json.h"

void
mk_json_init(struct mk_json *j, const char *text, size_t n, const char *name,
    struct mk_err *e)
{
	memset(j, 0, sizeof(*j));
	j->start = j->p = text;
	j->end = text + n;
	j->name = name;
	j->e = e;
}

int
mk_json_fail(struct mk_json *j, const char *fmt, ...)
{
	char msg[400];
	const char *q;
	size_t line = 1, col = 1;
	va_list ap;

	for (q = j->start; q < j->p && q < j->end; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return mk_err_data(j->e, "%s:%zu:%zu: JSON: %s", j->name, line, col,
	    msg);
}

/* What is at the cursor, for messages. */
static const char *
seen(const struct mk_json *j)
{
	static const char *const what[256] = {
		['{'] = "'{'", ['}'] = "'}'", ['['] = "'['", [']'] = "']'",
		[','] = "','", [':'] = "':'", ['"'] = "a string",
	};
	unsigned char c;

	if (j->p >= j->end)
		return "the end of the input";
	c = (unsigned char)*j->p;
	if (what[c] != NULL)
		return what[c];
	return c == '-' || (c >= '0' && c <= '9') ? "a number" :
	    c >= 0x20 && c < 0x7f ? "a stray character" : "a control byte";
}

static void
ws(struct mk_json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
	    *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* The byte at the cursor after blanks, or -1 at the end. */
static int
next(struct mk_json *j)
{
	ws(j);
	return j->p < j->end ? (unsigned char)*j->p : -1;
}

int
mk_json_peek(struct mk_json *j)
{
	switch (next(j)) {
	case '{':	return MK_JSON_OBJECT;
	case '[':	return MK_JSON_ARRAY;
	case '"':	return MK_JSON_STRING;
	case 't':	return MK_JSON_TRUE;
	case 'f':	return MK_JSON_FALSE;
	case 'n':	return MK_JSON_NULL;
	case '-': case '0': case '1': case '2': case '3': case '4': case '5':
	case '6': case '7': case '8': case '9':
		return MK_JSON_NUMBER;
	default:
		return mk_json_fail(j, "expected a value, got %s", seen(j));
	}
}

static int
push(struct mk_json *j, char kind)
{
	if (j->depth == MK_JSON_DEPTH)
		return mk_json_fail(j, "nested deeper than %d", MK_JSON_DEPTH);
	j->kind[j->depth] = (unsigned char)kind;
	j->first[j->depth] = 1;
	j->depth++;
	j->p++;
	return 0;
}

/*
 * Enter the container at the cursor, or go on in the open one: returns 1
 * if a member follows (cursor on it), 0 after the closing bracket, -1.
 */
static int
member(struct mk_json *j, char open, char close)
{
	int c = next(j);

	if (c == open) {
		if (push(j, open) < 0)
			return -1;
		if (next(j) == close) {
			j->p++;
			j->depth--;
			return 0;
		}
		j->first[j->depth - 1] = 0;
		return 1;
	}
	if (j->depth == 0 || j->kind[j->depth - 1] != (unsigned char)open)
		return mk_json_fail(j, "expected '%c', got %s", open, seen(j));
	if (c == close) {
		j->p++;
		j->depth--;
		return 0;
	}
	if (c != ',')
		return mk_json_fail(j, "expected ',' or '%c', got %s", close,
		    seen(j));
	j->p++;
	if (next(j) == close)
		return mk_json_fail(j, "a trailing ',' before '%c'", close);
	return 1;
}

int
mk_json_item(struct mk_json *j)
{
	return member(j, '[', ']');
}

int
mk_json_key(struct mk_json *j, char *key, size_t size)
{
	int r;

	if ((r = member(j, '{', '}')) <= 0)
		return r;
	if (next(j) != '"')
		return mk_json_fail(j, "expected a key (a string), got %s",
		    seen(j));
	if (mk_json_string(j, key, size) < 0)
		return -1;
	if (next(j) != ':')
		return mk_json_fail(j, "expected ':' after a key, got %s",
		    seen(j));
	j->p++;
	return 1;
}

/* Four hex digits at the cursor. */
static int
hex4(struct mk_json *j, unsigned *u)
{
	int i, c;

	if (j->end - j->p < 4)
		return mk_json_fail(j, "a \\u escape needs four hex digits");
	for (*u = 0, i = 0; i < 4; i++) {
		c = (unsigned char)j->p[i];
		*u <<= 4;
		if (c >= '0' && c <= '9')
			*u |= (unsigned)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			*u |= (unsigned)((c | 0x20) - 'a' + 10);
		else
			return mk_json_fail(j, "a \\u escape needs four hex "
			    "digits");
	}
	j->p += 4;
	return 0;
}

/* Append code point u as UTF-8 to buf (cut at size - 1). */
static void
put_utf8(char *buf, size_t size, size_t *n, unsigned u)
{
	unsigned char b[4];
	int k = 0, i;

	if (u < 0x80) {
		b[k++] = (unsigned char)u;
	} else if (u < 0x800) {
		b[k++] = (unsigned char)(0xc0 | u >> 6);
		b[k++] = (unsigned char)(0x80 | (u & 0x3f));
	} else if (u < 0x10000) {
		b[k++] = (unsigned char)(0xe0 | u >> 12);
		b[k++] = (unsigned char)(0x80 | (u >> 6 & 0x3f));
		b[k++] = (unsigned char)(0x80 | (u & 0x3f));
	} else {
		b[k++] = (unsigned char)(0xf0 | u >> 18);
		b[k++] = (unsigned char)(0x80 | (u >> 12 & 0x3f));
		b[k++] = (unsigned char)(0x80 | (u >> 6 & 0x3f));
		b[k++] = (unsigned char)(0x80 | (u & 0x3f));
	}
	for (i = 0; i < k && *n + 1 < size; i++)
		buf[(*n)++] = (char)b[i];
}

/* An escape after '\' at the cursor, into buf. */
static int
escape(struct mk_json *j, char *buf, size_t size, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k;
	unsigned u, lo;

	if (j->p >= j->end)
		return mk_json_fail(j, "an unterminated string");
	if (*j->p != 'u') {
		if ((k = strchr(from, *j->p)) == NULL || *j->p == '\0')
			return mk_json_fail(j, *j->p > 0x20 && *j->p < 0x7f ?
			    "an unknown escape '\\%c'" : "an unknown escape: "
			    "'\\' and byte 0x%02x", (unsigned char)*j->p);
		if (*n + 1 < size)
			buf[(*n)++] = to[k - from];
		j->p++;
		return 0;
	}
	j->p++;
	if (hex4(j, &u) < 0)
		return -1;
	if (u >= 0xdc00 && u < 0xe000)
		return mk_json_fail(j, "a lone low surrogate \\u%04x", u);
	if (u >= 0xd800 && u < 0xdc00) {
		if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
			return mk_json_fail(j, "a high surrogate \\u%04x "
			    "without its pair", u);
		j->p += 2;
		if (hex4(j, &lo) < 0)
			return -1;
		if (lo < 0xdc00 || lo >= 0xe000)
			return mk_json_fail(j, "a high surrogate \\u%04x "
			    "without its pair", u);
		u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
	}
	put_utf8(buf, size, n, u);
	return 0;
}

/*
 * The continuation bytes of a UTF-8 sequence whose lead byte c was just
 * taken (RFC 8259 8.1: JSON text is UTF-8; RFC 3629's table): no
 * overlong form, no surrogate, nothing above U+10FFFF.  The cursor stays
 * at the lead byte's successor; returns how many follow it, or -1.
 */
static int
utf8(struct mk_json *j, unsigned char c)
{
	const unsigned char *q = (const unsigned char *)j->p;
	unsigned char lo = 0x80, hi = 0xbf;
	int k, more;

	if (c >= 0xc2 && c <= 0xdf)
		more = 1;
	else if (c >= 0xe0 && c <= 0xef) {
		more = 2;
		lo = c == 0xe0 ? 0xa0 : 0x80;	/* overlong */
		hi = c == 0xed ? 0x9f : 0xbf;	/* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		more = 3;
		lo = c == 0xf0 ? 0x90 : 0x80;	/* overlong */
		hi = c == 0xf4 ? 0x8f : 0xbf;	/* above U+10FFFF */
	} else {
		j->p--;
		return mk_json_fail(j, "byte 0x%02x is not UTF-8 (JSON text "
		    "is UTF-8)", c);
	}
	for (k = 0; k < more; k++, lo = 0x80, hi = 0xbf)
		if ((const char *)q + k >= j->end || q[k] < lo || q[k] > hi) {
			j->p--;
			return mk_json_fail(j, "a malformed UTF-8 sequence "
			    "(JSON text is UTF-8)");
		}
	return more;
}

int
mk_json_string(struct mk_json *j, char *buf, size_t size)
{
	size_t n = 0;
	unsigned char c;
	int more = 0;

	if (next(j) != '"')
		return mk_json_fail(j, "expected a string, got %s", seen(j));
	j->p++;
	for (;;) {
		if (j->p >= j->end)
			return mk_json_fail(j, "an unterminated string");
		c = (unsigned char)*j->p++;
		if (c == '"')
			break;
		if (c < 0x20) {
			j->p--;
			return mk_json_fail(j, "a control byte 0x%02x in a "
			    "string", c);
		}
		if (c == '\\') {
			if (escape(j, buf, size, &n) < 0)
				return -1;
			continue;
		}
		if (c >= 0x80 && (more = utf8(j, c)) < 0)
			return -1;
		if (n + 1 < size)
			buf[n++] = (char)c;
		for (; c >= 0x80 && more > 0; more--, j->p++)
			if (n + 1 < size)
				buf[n++] = *j->p;
	}
	if (size > 0)
		buf[n] = '\0';
	return 0;
}

/* Digits at the cursor: how many. */
static size_t
digits(struct mk_json *j)
{
	const char *q = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return (size_t)(j->p - q);
}

int
mk_json_number(struct mk_json *j, double *v)
{
	const char *q;
	char buf[64], *endp;
	size_t nint, nfrac = 0, nexp = 0, i;
	int zeros = 1, neg, k;
	double x = 0;

	if ((k = mk_json_peek(j)) < 0)
		return -1;
	if (k != MK_JSON_NUMBER)
		return mk_json_fail(j, "expected a number, got %s", seen(j));
	q = j->p;
	neg = *j->p == '-';
	j->p += neg;
	if ((nint = digits(j)) == 0)
		return mk_json_fail(j, "a '-' without digits");
	if (nint > 1 && q[neg] == '0')
		return mk_json_fail(j, "a number with a leading zero");
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if ((nfrac = digits(j)) == 0)
			return mk_json_fail(j, "a '.' without digits");
		for (i = 0; i < nfrac; i++)
			zeros &= j->p[-1 - (ptrdiff_t)i] == '0';
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if ((nexp = digits(j)) == 0)
			return mk_json_fail(j, "an exponent without digits");
	}
	/* integers (and 12.0, as SGLang writes them) exactly and fast */
	if (nint <= 15 && nexp == 0 && (nfrac == 0 || zeros)) {
		for (i = 0; i < nint; i++)
			x = x * 10 + (q[neg + i] - '0');
		*v = neg ? -x : x;
		return 0;
	}
	if ((size_t)(j->p - q) >= sizeof(buf))
		return mk_json_fail(j, "a number longer than %zu characters",
		    sizeof(buf) - 1);
	memcpy(buf, q, (size_t)(j->p - q));
	buf[j->p - q] = '\0';
	*v = strtod(buf, &endp);
	return 0;
}

/* true, false or null at the cursor. */
static int
literal(struct mk_json *j)
{
	static const char *const words[] = { "true", "false", "null" };
	size_t i, n;

	for (i = 0; i < 3; i++) {
		n = strlen(words[i]);
		if ((size_t)(j->end - j->p) >= n &&
		    memcmp(j->p, words[i], n) == 0) {
			j->p += n;
			return 0;
		}
	}
	return mk_json_fail(j, "expected a value, got %s", seen(j));
}

int
mk_json_skip(struct mk_json *j)
{
	char key[8];
	double v;
	int r;

	switch (mk_json_peek(j)) {
	case MK_JSON_OBJECT:
		while ((r = mk_json_key(j, key, sizeof(key))) > 0)
			if (mk_json_skip(j) < 0)
				return -1;
		return r;
	case MK_JSON_ARRAY:
		while ((r = mk_json_item(j)) > 0)
			if (mk_json_skip(j) < 0)
				return -1;
		return r;
	case MK_JSON_STRING:
		return mk_json_string(j, key, 0);
	case MK_JSON_NUMBER:
		return mk_json_number(j, &v);
	case -1:
		return -1;
	default:
		return literal(j);
	}
}

int
mk_json_end(struct mk_json *j)
{
	if (next(j) >= 0)
		return mk_json_fail(j, "%s after the value", seen(j));
	return 0;
}

/* What mk_json_numbers is building. */
struct nd {
	const char *what;	/* names the array in messages */
	int	 maxdims, ndim;	/* ndim 0: not known yet */
	size_t	 dims[8], at[8], max, n, cap;
	double	*v;
};

/* "[3][17]": where the walk is, for messages. */
static const char *
path(const struct nd *a, int level, char *buf, size_t size)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i <= level && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "[%zu]",
		    a->at[i]);
	return buf;
}

static int
nd_add(struct mk_json *j, struct nd *a, double x)
{
	double *nv;
	size_t cap;

	if (a->n == a->max)
		return mk_json_fail(j, "%s: more than %zu numbers", a->what,
		    a->max);
	if (a->n == a->cap) {
		cap = a->cap ? a->cap * 2 : 1024;
		if ((nv = realloc(a->v, cap * sizeof(double))) == NULL)
			return mk_json_fail(j, "out of memory after %zu "
			    "numbers", a->n);
		a->v = nv;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return 0;
}

/* One array at `level` (the cursor on its '['). */
static int
nd_walk(struct mk_json *j, struct nd *a, int level)
{
	char pb[128];
	size_t count = 0;
	double x;
	int r, k;

	while ((r = mk_json_item(j)) > 0) {
		a->at[level] = count++;
		k = mk_json_peek(j);
		if (k == MK_JSON_NUMBER && (a->ndim == 0 ||
		    a->ndim == level + 1)) {
			a->ndim = level + 1;
			if (mk_json_number(j, &x) < 0 || nd_add(j, a, x) < 0)
				return -1;
		} else if (k == MK_JSON_ARRAY && level + 1 < a->maxdims &&
		    (a->ndim == 0 || a->ndim > level + 1)) {
			if (nd_walk(j, a, level + 1) < 0)
				return -1;
		} else if (k >= 0) {
			return mk_json_fail(j, "%s%s is not %s", a->what,
			    path(a, level, pb, sizeof(pb)), a->ndim == 0 ?
			    "a number or an array of numbers" : a->ndim >
			    level + 1 ? "an array, as its siblings are" :
			    "a number, as its siblings are");
		} else {
			return -1;
		}
	}
	if (r < 0)
		return -1;
	if (a->ndim == 0)
		a->ndim = level + 1;	/* an empty array: its rank ends here */
	if (a->dims[level] == (size_t)-1)
		a->dims[level] = count;
	else if (a->dims[level] != count)
		return mk_json_fail(j, "%s%s has %zu elements, its siblings "
		    "%zu", a->what, level ? path(a, level - 1, pb, sizeof(pb)) :
		    "", count, a->dims[level]);
	return 0;
}

int
mk_json_numbers(struct mk_json *j, const char *what, int maxdims, size_t max,
    int *ndim, size_t *dims, double **v)
{
	struct nd a;
	int i, k;

	memset(&a, 0, sizeof(a));
	a.what = what;
	a.maxdims = maxdims < 8 ? maxdims : 8;
	a.max = max;
	for (i = 0; i < 8; i++)
		a.dims[i] = (size_t)-1;
	if ((k = mk_json_peek(j)) < 0)
		return -1;
	if (k != MK_JSON_ARRAY)
		return mk_json_fail(j, "%s: expected an array of numbers, got "
		    "%s", what, seen(j));
	if (nd_walk(j, &a, 0) < 0) {
		free(a.v);
		return -1;
	}
	*ndim = a.ndim;
	for (i = 0; i < a.ndim; i++)
		dims[i] = a.dims[i] == (size_t)-1 ? 0 : a.dims[i];
	*v = a.v;
	return 0;
}

int
mk_json_blank_line(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
			return 0;
	return 1;
}
