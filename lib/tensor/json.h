/*
 * json.h - a small strict JSON reader (RFC 8259) for the load files,
 * plans and routing records the tools read.  It walks the text in place,
 * as a cursor, building no tree: a 154 KB SGLang dump is read in a
 * fraction of the time libjansson's tree took (tests/bench/RESULTS.md).
 *
 * Accepted: objects, arrays, strings (every escape, \u with surrogate
 * pairs; no raw control characters), numbers (the JSON grammar exactly:
 * no leading zeros, no '+', no NaN or Infinity), true, false, null;
 * blanks are space, tab, CR and LF.  Nesting deeper than MK_JSON_DEPTH
 * is refused.  Every error is one line naming the file, line and column
 * ("FILE:3:17: JSON: expected ',' or ']'").
 *
 * Use: mk_json_init, then for an object
 *	while ((r = mk_json_key(j, key, sizeof(key))) > 0)
 *		... read or mk_json_skip the value ...
 * and for an array
 *	while ((r = mk_json_item(j)) > 0)
 *		... read the element ...
 * where r < 0 is an error (in j's mk_err), 0 the end.
 */
#ifndef MK_JSON_H
#define MK_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "base/errmsg.h"

#define MK_JSON_DEPTH	64

enum mk_json_kind {
	MK_JSON_OBJECT, MK_JSON_ARRAY, MK_JSON_STRING, MK_JSON_NUMBER,
	MK_JSON_TRUE, MK_JSON_FALSE, MK_JSON_NULL
};

struct mk_json {
	const char	*start, *p, *end;
	const char	*name;		/* the file, for messages */
	struct mk_err	*e;
	int		 depth;
	/* one state per open container: 0 before the first member */
	unsigned char	 first[MK_JSON_DEPTH];
	unsigned char	 kind[MK_JSON_DEPTH];	/* '{' or '[' */
};

/* A cursor over text[0..n), named name in messages, errors into e. */
void	mk_json_init(struct mk_json *j, const char *text, size_t n,
	    const char *name, struct mk_err *e);

/* The kind of the next value, or -1 with the error set. */
int	mk_json_peek(struct mk_json *j);

/*
 * Inside an object (entered by the first call on its '{'): the next key
 * into key (cut to size, NUL-terminated; at most size - 1 bytes count
 * towards a comparison) and the ':' after it.  Returns 1, 0 after the
 * closing '}', or -1.
 */
int	mk_json_key(struct mk_json *j, char *key, size_t size);

/*
 * Inside an array (entered by the first call on its '['): whether another
 * element follows.  Returns 1, 0 after the closing ']', or -1.
 */
int	mk_json_item(struct mk_json *j);

/* The next value as a number (exact for integers below 2^53). 0 or -1. */
int	mk_json_number(struct mk_json *j, double *v);

/* The next value as a string into buf (cut to size). 0 or -1. */
int	mk_json_string(struct mk_json *j, char *buf, size_t size);

/* Skip the next value, whatever it is (checked all the same). 0 or -1. */
int	mk_json_skip(struct mk_json *j);

/* Only blanks may remain.  Returns 0, or -1 naming what follows. */
int	mk_json_end(struct mk_json *j);

/*
 * Fail at the cursor: "FILE:LINE:COL: what".  Returns -1.  For readers
 * that find a well-formed value they cannot use.
 */
int	mk_json_fail(struct mk_json *j, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/*
 * A nested array of numbers, regular (every array at one depth of the
 * same length): its rank (1 to maxdims), dims and the numbers in row-major
 * order, in a buffer grown as they are read (at most max numbers).
 * Returns 0 with *v malloc'd (free it), or -1 naming the first irregular
 * or non-numeric element by what and its index path
 * ("logical_count[3][17]").
 */
int	mk_json_numbers(struct mk_json *j, const char *what, int maxdims,
	    size_t max, int *ndim, size_t *dims, double **v);

/* Whether a line of n bytes (not NUL-terminated) holds blanks only: JSON
 * lines' readers skip it. */
int	mk_json_blank_line(const char *p, size_t n);

#endif
