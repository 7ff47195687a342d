/*
 * a2a_outputs.h - the named outputs of a2a-layout (a2a-layout(1), "Outputs"), in
 * stream order for a style and topology, and where each one's data lives
 * in the results of a step (a group result, the per-token result of one
 * rank, or the Triton-distributed row capacity).
 *
 * Adding an output: a value in enum mk_a2a_data, its row in the list of
 * a2a_outputs.c (name, shape, dtype), its case in mk_a2a_output_data, the
 * man page's list, and the numpy model of tests/interop/a2a_check.py.
 */
#ifndef MK_A2A_OUTPUTS_H
#define MK_A2A_OUTPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "a2a/a2a.h"
#include "base/dtype.h"

#define MK_A2A_MAX_OUTPUTS	24

struct mk_a2a_output {
	const char	*name;		/* DeepEP's or Triton-distributed's */
	int		 data;		/* enum mk_a2a_data */
	int		 per_token;	/* a --rank output (one step's) */
	int		 ndim;		/* without a step axis */
	int64_t		 shape[3];
	enum mk_dtype	 dtype;
};

/*
 * The outputs of c's style and topology into out[] (MK_A2A_MAX_OUTPUTS
 * at most), per-token ones only when pr is not NULL, sized by its rows
 * (pr may be a zeroed struct to learn the names).  Returns how many.
 */
int	mk_a2a_outputs(const struct mk_a2a_cfg *c, const struct mk_a2a_rank *pr,
	    struct mk_a2a_output *out);

/* Elements of one step of output x. */
size_t	mk_a2a_output_nelem(const struct mk_a2a_output *x);

/*
 * The data of output x in a step's results: the group g, the per-token
 * result pr (for per-token outputs) and the row capacities rows[R]
 * (dispatch_output_rows).
 */
const void	*mk_a2a_output_data(const struct mk_a2a_output *x,
		    const struct mk_a2a_group *g, const struct mk_a2a_rank *pr,
		    const int64_t *rows);

#endif
