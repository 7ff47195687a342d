/*
 * a2a_plot.h - a2a-layout --plot: how many tokens each rank receives at
 * each step (and, internode, over RDMA), the worst step marked, and the
 * buffer it sizes.
 */
#ifndef MK_A2A_PLOT_H
#define MK_A2A_PLOT_H

#include <stdint.h>
#include <stdio.h>

#include "a2a/a2a.h"
#include "base/errmsg.h"

/* The per-step counts, gathered as the steps go by. */
struct mk_a2a_series {
	int	 S, cap, R;
	int32_t	*recv;		/* [S][R] tokens received */
	int32_t	*rdma;		/* [S][R] over RDMA (internode), or NULL */
};

/* Add a step's group result.  Returns 0 or -1 (memory) with e filled. */
int	mk_a2a_series_add(struct mk_a2a_series *ser, const struct mk_a2a_cfg *c,
	    const struct mk_a2a_group *g, struct mk_err *e);
void	mk_a2a_series_free(struct mk_a2a_series *ser);

/*
 * The picture to fp: steps (rows, binned to at most 240, each bin showing
 * its largest count) by ranks (columns), the worst cell framed; the
 * heading names it and, for DeepEP's normal mode, num_worst_tokens and
 * the receive buffer of bytes_per_token a token (the most tokens a rank
 * receives for the others).  Write errors are fp's.
 */
void	mk_a2a_plot(FILE *fp, const struct mk_a2a_cfg *c,
	    const struct mk_a2a_series *ser, uint64_t bytes_per_token,
	    int64_t num_worst, const char *title);

#endif
