/*
 * a2a_lint.h - a2a-layout --lint: the hard limits of the all-to-all
 * libraries that a trace, or the sizes asked of it, breaks; a line each
 * naming the library, the limit, where it is from, and the option value
 * that fixes it (a2a-layout(1), "LINT").
 */
#ifndef MK_A2A_LINT_H
#define MK_A2A_LINT_H

#include <stdint.h>
#include <stdio.h>

#include "a2a/a2a.h"
#include "a2a/a2a_report.h"

/* What the limits are judged on. */
struct mk_a2a_lint_in {
	const struct mk_a2a_cfg		*c;	/* R, E, K */
	const struct mk_a2a_sizing	*sz;	/* hidden, --max-tokens, ... */
	int64_t				 T;	/* tokens a rank, at most */
	int64_t				 rows;	/* Triton-distributed rows a rank
						 * needed, at most */
};

/*
 * Write a line on fp for each limit broken.  Returns how many.  Write
 * errors are fp's (ferror).
 */
int	mk_a2a_lint(FILE *fp, const struct mk_a2a_lint_in *in);

#endif
