/*
 * phys.h - logical -> physical routing through an eplb-plan phy2log
 * row of P slots, with vLLM's rule: slot (t, j) of a rank uses replica
 * (t*K + j) mod count of its expert, replicas in ascending slot order.
 */
#ifndef MK_MOE_PHYS_H
#define MK_MOE_PHYS_H

#include <stdint.h>

#include "moe/step.h"
#include "base/errmsg.h"

struct mk_moe_phys {
	int	 P, E;		/* physical slots, logical experts */
	int	*first, *cnt;	/* [E] where each expert's replicas start */
	int	*slots;		/* [P] slots grouped by expert, ascending */
};

/*
 * Build from a phy2log row of P slots over E experts; what names the
 * plan in messages.  Every expert needs a replica.  Returns 0, or -1 with
 * e filled (m is then empty).  Free with mk_moe_phys_free.
 */
int	mk_moe_phys_init(struct mk_moe_phys *m, const int64_t *row, int P,
	    int E, const char *what, struct mk_err *e);
void	mk_moe_phys_free(struct mk_moe_phys *m);

/*
 * Map step in (logical ids, loaded: mk_moe_step_load) to out (physical
 * ids, i32) into bufs[r] (at least T_r*K each).  -1 stays -1; other ids
 * outside [0, E) are an error, or -1 with lenient.  where prefixes
 * messages, separator included.  Returns 0 or -1 with e filled.
 */
int	mk_moe_phys_map(const struct mk_moe_phys *m,
	    const struct mk_moe_step *in, struct mk_moe_step *out,
	    int32_t **bufs, int lenient, const char *where, struct mk_err *e);

/*
 * Step in (i64 ids, loaded) to out (i32 ids in bufs[r]) as DeepEP reads
 * int64 topk ids: static_cast<int> keeps the low 32 bits, so 2^32 + 3 is
 * expert 3 and 2^31 is negative (then out of range).  Only --lenient
 * runs see ids that differ; without it such ids are refused first.
 */
void	mk_moe_step_narrow(const struct mk_moe_step *in,
	    struct mk_moe_step *out, int32_t **bufs);

#endif
