/*
 * plan.h - a plan read back: the phy2log [L, R] that eplb-plan writes
 * first (or [R] for one layer), as eplb-plan --prev and a2a-layout
 * --phy2log take it.  One reader for both, so that a plan means the same
 * to every tool.
 */
#ifndef MK_MOE_PLAN_H
#define MK_MOE_PLAN_H

#include <stdint.h>

#include "base/errmsg.h"

struct mk_phy2log {
	int	 L, R;		/* layers, physical slots */
	int64_t	*p;		/* [L][R] logical expert of each slot */
	int64_t	 max;		/* the largest expert id (-1: none) */
	int	 ndim;		/* the tensor read: 1 or 2 */
	int64_t	 shape[2];
	int	 dtype;		/* enum mk_dtype */
	char	 what[256];	/* "OPT FILE", naming the plan in messages */
};

/*
 * Read the first tensor of path (NULL or "-": stdin) as a phy2log: an
 * integer tensor [L, R] or [R].  opt names the option in messages
 * ("--prev FILE: ...").  Returns 0 with *pl filled (free with
 * mk_phy2log_free), or -1 with e filled.
 */
int	mk_phy2log_read(const char *path, const char *opt,
	    struct mk_phy2log *pl, struct mk_err *e);

/*
 * Check that layer l (-1: every layer) holds only experts in [0, E):
 * returns 0, or -1 with "OPT FILE: layer L, slot S: expert X is not in
 * [0, E)" in e (what = "OPT FILE").
 */
int	mk_phy2log_check(const struct mk_phy2log *pl, int l, int E,
	    const char *what, struct mk_err *e);

/*
 * The rows of pl (consumed) for a plan of L layers of R slots over E
 * experts: pl has those L rows, or a row for each of the input's L0
 * layers (SGLang's map of every layer), of which the input layers
 * layer[0..L) are taken.  Messages name the plan by pl->what.  Returns
 * the [L, R] rows (free them), or NULL with e filled.
 */
int64_t	*mk_phy2log_rows(struct mk_phy2log *pl, int L, int L0,
	    const int *layer, int R, int E, struct mk_err *e);

void	mk_phy2log_free(struct mk_phy2log *pl);

#endif
