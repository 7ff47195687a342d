/*
 * pt.h - torch .pt files as torch.save writes a dict of tensors and
 * numbers (SGLang's expert-distribution recorder dumps one:
 * dict(rank, logical_count, average_utilization_rate_over_window)).
 *
 * The file is a zip archive: NAME/data.pkl holds the pickle (protocol 2
 * to 4), NAME/data/KEY each tensor storage's bytes, NAME/byteorder
 * ("little" or "big", absent from older files: little) and NAME/version.
 * The pickle is read strictly for what torch.save writes for such a dict:
 *   opcodes  PROTO FRAME EMPTY_DICT EMPTY_TUPLE MARK BINUNICODE
 *            SHORT_BINUNICODE BININT1 BININT2 BININT LONG1 BINFLOAT
 *            NEWTRUE NEWFALSE NONE GLOBAL STACK_GLOBAL TUPLE TUPLE1..3
 *            BINPUT LONG_BINPUT MEMOIZE BINGET LONG_BINGET BINPERSID
 *            REDUCE SETITEM SETITEMS STOP;
 *   globals  torch._utils._rebuild_tensor_v2, torch.<Type>Storage (Float
 *            Double Half BFloat16 Long Int Short Char Byte Bool),
 *            collections.OrderedDict (the empty backward hooks);
 *   values   the top level is a dict of string keys; each value a tensor
 *            (C-contiguous, within its storage), an integer, a float, a
 *            bool or None.
 * Anything else is refused with the opcode or name and its byte offset:
 * the pickle is data here, never code.
 */
#ifndef MK_PT_H
#define MK_PT_H

#include <stdint.h>

#include "base/errmsg.h"
#include "tensor/src.h"
#include "tensor/tensor.h"
#include "tensor/zip.h"

enum mk_pt_kind { MK_PT_TENSOR, MK_PT_INT, MK_PT_FLOAT, MK_PT_BOOL,
	MK_PT_NONE };

struct mk_pt_item {
	char		*key;
	int		 kind;		/* enum mk_pt_kind */
	int64_t		 i;		/* MK_PT_INT, MK_PT_BOOL */
	double		 f;		/* MK_PT_FLOAT */
	struct mk_tensor t;		/* MK_PT_TENSOR (its own copy) */
};

struct mk_pt {
	struct mk_pt_item *items;
	int		 n;
};

/*
 * Whether archive z is a torch file (it has an entry NAME/data.pkl).
 * Returns the entry's index, or -1.
 */
int	mk_pt_find(const struct mk_zip *z);

/*
 * Read the dict of the torch file z (whose data.pkl is entry `pkl`) into
 * pt.  Returns 0, or -1 with e filled ("FILE: data.pkl, byte 133: ...");
 * free pt with mk_pt_free either way.
 */
int	mk_pt_read(struct mk_zip *z, int pkl, struct mk_pt *pt,
	    struct mk_err *e);

/* The item named key, or NULL. */
const struct mk_pt_item *mk_pt_get(const struct mk_pt *pt, const char *key);

void	mk_pt_free(struct mk_pt *pt);

#endif
