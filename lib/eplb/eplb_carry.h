/*
 * eplb_carry.h - a previous plan carried onto another group of GPUs: the
 * survivors of lost GPUs (eplb-plan --lost-gpus, vLLM's fault-tolerance
 * RFC #41204) or a group scaled to another size (--prev-gpus, SGLang's
 * elastic EP #30553).
 *
 * Old GPU g becomes new GPU id[g] (-1: gone) and keeps its first slots,
 * as many as a new GPU has; a new GPU no old one becomes starts empty.
 * The carried rows hold -1 in every empty slot and may lack experts whose
 * every copy was on a GPU gone.  mk_eplb_repair makes them a plan again,
 * changing the fewest slots: each expert without a copy takes an empty
 * slot, else a slot of an expert with copies to spare, and the empty
 * slots left take the experts whose replicas carry the most load, every
 * choice the one that leaves the busiest GPU least loaded.
 */
#ifndef MK_EPLB_CARRY_H
#define MK_EPLB_CARRY_H

#include <stdint.h>

#include "base/errmsg.h"
#include "eplb/eplb.h"

struct mk_eplb_carry {
	int		 R_old, G_old;	/* the old plan's slots and GPUs */
	const int	*id;		/* [G_old] each old GPU's new index,
					 * or -1 */
	int		 R, G;		/* the new plan's */
};

/*
 * GPUs lost[0..nlost) of G gone: id[g] the survivor GPU g becomes, in
 * order (-1: gone).  Returns how many survive.
 */
int	mk_eplb_survivors(int G, const int *lost, int nlost, int *id);

/* rows [L][R] from old [L][R_old], as above. */
void	mk_eplb_carry_rows(const struct mk_eplb_carry *k, const int64_t *old,
	    int L, int64_t *rows);

/*
 * The experts of E that row [R] holds nowhere (-1 slots aside) into
 * out[] (ascending; room for E); returns how many, or -1 (memory).
 */
int	mk_eplb_missing(const int64_t *row, int R, int E, int *out);

/*
 * Every layer of rows [L][c->R] (carried) made a plan on loads w
 * [S][L][E] (their sum over scenarios weighs the choices), changing the
 * fewest slots: the empty ones, and one a missing expert where the empty
 * ones are too few.  least[l]: the slots layer l changed (the fewest any
 * plan must).  Returns 0, or -1 with e filled (R < E: the slots cannot
 * hold every expert; memory).
 */
int	mk_eplb_repair(const struct mk_eplb_cfg *c, const double *w, int S,
	    int L, int64_t *rows, int64_t *least, struct mk_err *e);

#endif
