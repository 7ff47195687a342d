/* errmsg.c - filling struct mk_err; see errmsg.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errmsg.h"

static int
vset(struct mk_err *e, int status, const char *fmt, va_list ap)
{
	if (e == NULL)
		return -1;
	e->status = status;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	return -1;
}

int
mk_err_data(struct mk_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(e, MK_EXIT_DATA, fmt, ap);
	va_end(ap);
	return -1;
}

int
mk_err_usage(struct mk_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(e, MK_EXIT_USAGE, fmt, ap);
	va_end(ap);
	return -1;
}

int
mk_err_sys(struct mk_err *e, const char *what)
{
	return mk_err_data(e, "%s: %s", what, strerror(errno));
}

const char *
mk_excerpt(char *buf, size_t size, const char *s, size_t n, size_t max)
{
	size_t i, o = 0;
	unsigned char c;

	for (i = 0; i < n && i < max && o + 5 < size; i++) {
		c = (unsigned char)s[i];
		if (c < 0x80 && isprint(c))
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
	}
	if (i < n && o + 4 < size) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

int
mk_env_word(const char *name, const char *const *w, struct mk_err *e)
{
	const char *v = getenv(name);
	char list[256] = "";
	size_t o = 0;
	int i;

	if (v == NULL || *v == '\0')
		return 0;
	for (i = 0; w[i] != NULL; i++)
		if (strcmp(v, w[i]) == 0)
			return 1 + i;
	for (i = 0; w[i] != NULL && o < sizeof(list); i++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s",
		    i == 0 ? "" : w[i + 1] == NULL ? " or " : ", ", w[i]);
	return mk_err_usage(e, "%s=%s: %s", name, v, list);
}
