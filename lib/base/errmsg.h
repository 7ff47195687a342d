/*
 * errmsg.h - how library code reports failure.
 *
 * Library functions never print and never exit.  They return a negative
 * value (or NULL) and fill a struct mk_err with one line of text that already
 * names the file and the place: "FILE: message" for binary input,
 * "FILE:LINE: message" for text input.  The command prefixes its own name and
 * prints it; the status says which exit code the command should use.
 */
#ifndef MK_ERRMSG_H
#define MK_ERRMSG_H

#include <stddef.h>

/* Exit statuses, shared by every tool and listed in every man page. */
#define MK_EXIT_OK	0	/* success */
#define MK_EXIT_DATA	1	/* bad data, I/O or system error */
#define MK_EXIT_USAGE	2	/* usage error (options, MOEKIT_ISA) */

struct mk_err {
	int	status;		/* MK_EXIT_DATA or MK_EXIT_USAGE */
	char	msg[768];
};

/*
 * Fill e (which may be NULL) with a formatted message and the status of a
 * data error (MK_EXIT_DATA).  Returns -1 so that callers can write
 * "return mk_err_data(e, ...)".
 */
int	mk_err_data(struct mk_err *e, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* The same for a usage error (MK_EXIT_USAGE). Returns -1. */
int	mk_err_usage(struct mk_err *e, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/*
 * Copy up to max bytes of s[0..n) into buf as printable text for a
 * message: other bytes become \xNN, and "..." marks a cut.  Returns buf.
 */
const char	*mk_excerpt(char *buf, size_t size, const char *s, size_t n,
		    size_t max);

/* Fill e with "what: strerror(errno)" as a data error. Returns -1. */
int	mk_err_sys(struct mk_err *e, const char *what);

/*
 * The environment variable name as one of the words of the NULL-ended
 * list w: 0 when it is unset or empty, 1 + the word's index, or -1 with a
 * usage error in e ("NAME=value: w0 or w1"; never a silent default).
 */
int	mk_env_word(const char *name, const char *const *w, struct mk_err *e);

#endif
