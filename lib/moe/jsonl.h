/*
 * jsonl.h - routing traces as people record them: JSON lines, one
 * record per routed token, e.g. vLLM/Mixtral captures
 *	{"problem_id": 0, "layer": 3, "token_idx": 17, "experts": [7, 0]}
 * made into the [S, R, T, K] trace a2a-layout lays out: a step per
 * distinct step value (ascending: a trace of layers lays each layer out),
 * its tokens in (sequence, token) order dealt over R ranks in contiguous
 * blocks of T = ceil(N / R) (the last ones padded with -1), K the longest
 * expert list (shorter ones padded with -1).
 */
#ifndef MK_MOE_JSONL_H
#define MK_MOE_JSONL_H

#include <stddef.h>

#include "moe/step.h"
#include "base/errmsg.h"
#include "tensor/src.h"

/* The record's field names; seq and token may be NULL (file order). */
struct mk_moe_jsonl {
	const char	*step, *seq, *token, *experts;
	int		 R;		/* ranks to deal each step's tokens to */
	int		 named;		/* by --fields: seq and token must occur */
};

/* One record: its step, sequence and token values, its expert ids. */
struct mk_moe_rec {
	int64_t		 step, seq, tok;
	size_t		 line;		/* file order breaks ties */
	int32_t		 ids[MK_MOE_MAX_TOPK];
	int		 k;
};

/*
 * Read the JSON lines of s into *recs (malloc'd, free it), *n of them,
 * sorted by (step, seq, token, line).  Returns 0, or -1 with e filled
 * ("FILE:LINE: ..." for a bad record).
 */
int	mk_moe_jsonl_read(struct mk_src *s, const struct mk_moe_jsonl *o,
	    struct mk_moe_rec **recs, size_t *n, struct mk_err *e);

/*
 * Read the JSON lines of s and make the trace as NPY bytes (i32) into
 * *npy (malloc'd, free it), *n their length.  Returns 0, or -1 with e
 * filled ("FILE:LINE: ..." for a bad record).
 */
int	mk_moe_jsonl_trace(struct mk_src *s, const struct mk_moe_jsonl *o,
	    void **npy, size_t *n, struct mk_err *e);

/*
 * --fields STEP,SEQ,TOKEN,EXPERTS (NULL: the default,
 * layer,problem_id,token_idx,experts; SEQ and TOKEN may be "-") into o,
 * pointing into buf.  Returns 0, or -1 with a usage error in e.
 */
int	mk_moe_jsonl_fields(const char *spec, struct mk_moe_jsonl *o,
	    char *buf, size_t size, struct mk_err *e);

#endif
