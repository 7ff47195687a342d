/*
 * npz.h - numpy's .npz archives (np.savez, np.savez_compressed): a zip of
 * NAME.npy members, read in the archive's order as a tensor stream whose
 * tensors carry the names NAME.
 */
#ifndef MK_NPZ_H
#define MK_NPZ_H

#include "base/errmsg.h"
#include "tensor/tensor.h"

struct mk_src;

/*
 * Read the next member of the zip archive s into t (named, freed first).
 * Returns 1, 0 after the last member, or -1 with e filled (an archive
 * with a member that is not NAME.npy is not an .npz: a torch .pt file is
 * named as such).
 */
int	mk_npz_read(struct mk_src *s, struct mk_tensor *t, struct mk_err *e);

/*
 * Member i (NAME.npy) of an open archive into t, named NAME.  Returns 1,
 * or -1 with e filled ("FILE:NAME.npy: ...").
 */
struct mk_zip;
int	mk_npz_member(struct mk_zip *z, int i, struct mk_tensor *t,
	    struct mk_err *e);

#endif
