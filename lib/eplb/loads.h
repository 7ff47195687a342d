/*
 * loads.h - expert load logs, as eplb-plan reads them.
 *
 * Forms accepted (SPEC §4), all reduced to a matrix w[L][E] of doubles:
 *   - a tensor [E] (one layer), [L, E], or a load log [T, L, E] whose last
 *     `window` steps are summed (default: all), from NPY or CSV;
 *   - the long CSV form: a header naming the columns layer,expert,load
 *     (optionally step first); duplicate (layer, expert) rows are summed,
 *     missing ones are 0, and the window counts the last distinct steps;
 *   - SGLang's expert-distribution dump {"logical_count": [[...]]}, [L, E]
 *     or [T, L, E];
 *   - the vLLM/ADRS load history {"load_history": [{"logical_expert_load":
 *     [[...]]}, ...]}, [T, L, E].
 * Loads must be finite and >= 0.  Layers whose loads are all zero (dense
 * layers in SGLang dumps) can be dropped; their original indices are kept.
 */
#ifndef MK_LOADS_H
#define MK_LOADS_H

#include "base/errmsg.h"

struct mk_src;

#define MK_LOADS_MAX_CELLS	(1 << 26)	/* L * E, and T * L * E read */

struct mk_loads {
	int	 L, E;
	double	*w;		/* L * E, row-major */
	int	*layer;		/* original index of each row */
	int	 T;		/* steps in the log (0: no step dimension) */
	int	 used;		/* steps summed */
	int	 nzero;		/* all-zero layers seen */
	int	*zero;		/* their original indices */
	int	 skipped;	/* 1 if they were dropped from w */
};

/*
 * Read the loads of s (any form above).  window: steps to sum (0: all;
 * more than the log holds: all).  skip_zero: drop all-zero layers (at
 * least one layer must remain).  Returns 0 with *out filled (free with
 * mk_loads_free), or -1 with e filled (file, place, value).
 */
int	mk_loads_read(struct mk_src *s, int window, int skip_zero,
	    struct mk_loads *out, struct mk_err *e);

void	mk_loads_free(struct mk_loads *l);

#endif
