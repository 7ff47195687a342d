/*
 * stream.h - reading tensor streams from byte sources (src.h).
 *
 * An input's format is recognised from its first bytes: "\x93NUMPY" is
 * an NPY stream, "PK\x03\x04" a zip archive, '{' or '[' (after blanks)
 * JSON, anything else CSV.
 * mk_src_next() returns the tensors of an NPY or CSV stream one after
 * another.
 */
#ifndef MK_STREAM_H
#define MK_STREAM_H

#include <stddef.h>

#include "base/errmsg.h"
#include "tensor/src.h"
#include "tensor/tensor.h"

/*
 * Formats: of an input (MK_FMT_ZIP: a torch .pt or numpy .npz archive),
 * or of an output (MK_FMT_SGLANG, _VLLM, _TRTLLM: eplb-plan's placement
 * files of the engines, moe/plan.h).
 */
enum mk_fmt { MK_FMT_AUTO, MK_FMT_NPY, MK_FMT_CSV, MK_FMT_JSON, MK_FMT_EMPTY,
	MK_FMT_ZIP, MK_FMT_SGLANG, MK_FMT_NPZ, MK_FMT_VLLM, MK_FMT_TRTLLM };

/*
 * The format of the input, from its first bytes (reading them if needed):
 * MK_FMT_NPY, MK_FMT_ZIP, MK_FMT_CSV, MK_FMT_JSON, or MK_FMT_EMPTY for no
 * bytes at all.
 * Returns -1 with e filled on a read error.
 */
int	mk_src_format(struct mk_src *s, struct mk_err *e);

/*
 * Read the next tensor of an NPY or CSV stream into t (freed first).
 * Returns 1 with t filled, 0 at the end of the stream, or -1 with e
 * filled.  An input without a single tensor is an error ("FILE: empty
 * input"), and so is JSON.
 */
int	mk_src_next(struct mk_src *s, struct mk_tensor *t, struct mk_err *e);

#endif
