/*
 * a2a_capacity_plot.h - a2a-layout --capacity --plot: the busiest rank's
 * received tokens, step by step, sorted as an exceedance curve (the share
 * of steps that needed at least so many), the capacity at each p and the
 * libraries' default beside it, the held-out trace's curve when given.
 */
#ifndef MK_A2A_CAPACITY_PLOT_H
#define MK_A2A_CAPACITY_PLOT_H

#include <stdio.h>

#include "a2a/a2a_capacity.h"
#include "base/errmsg.h"

/*
 * Draw in into fp (fit and eval: the traces' names, eval NULL without
 * one).  Returns 0, or -1 with e filled (out of memory).  Write errors are
 * fp's (ferror).
 */
int	mk_a2a_capacity_plot(FILE *fp, const struct mk_a2a_capacity_in *in,
	    const char *fit, const char *eval, struct mk_err *e);

#endif
