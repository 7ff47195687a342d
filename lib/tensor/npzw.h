/*
 * npzw.h - writing numpy's .npz as a stream: each tensor a stored (not
 * compressed) NAME.npy member, written as it comes with a data
 * descriptor after it, so no size is needed ahead and a pipe works.
 * Always Zip64 (members and archives past 4 GiB need it; Python's zipfile
 * and libzip read it at any size).  np.load("x.npz")["NAME"] reads it.
 *
 *	mk_npzw_begin(&z, fp, "phy2log", e); mk_npzw_data(...)...;
 *	mk_npzw_end(&z, fp, e); ... mk_npzw_finish(&z, fp, e);
 */
#ifndef MK_NPZW_H
#define MK_NPZW_H

#include <stdint.h>
#include <stdio.h>

#include "base/errmsg.h"

struct mk_npzw_entry;

struct mk_npzw {
	uint64_t		 off;	/* bytes written so far */
	struct mk_npzw_entry	*ent;	/* members, for the directory */
	int			 n, cap;
	uint32_t		 crc;	/* of the member being written */
	uint64_t		 size;
};

/* Start member NAME.npy.  Returns 0, or -1 (write error or memory). */
int	mk_npzw_begin(struct mk_npzw *z, FILE *fp, const char *name,
	    struct mk_err *e);

/* Its next n bytes.  Returns 0 or -1. */
int	mk_npzw_data(struct mk_npzw *z, FILE *fp, const void *p, size_t n,
	    struct mk_err *e);

/* End the member (its data descriptor).  Returns 0 or -1. */
int	mk_npzw_end(struct mk_npzw *z, FILE *fp, struct mk_err *e);

/* Write the central directory, and free z.  Returns 0 or -1. */
int	mk_npzw_finish(struct mk_npzw *z, FILE *fp, struct mk_err *e);

/*
 * The bytes mk_npzw_begin, n bytes of mk_npzw_data and mk_npzw_end write
 * for a member named name; the bytes mk_npzw_finish will write.  For
 * allocating a file's blocks before they are written.
 */
size_t	mk_npzw_member_size(const char *name, size_t n);
size_t	mk_npzw_finish_size(const struct mk_npzw *z);

/* Has a member NAME.npy been started? */
int	mk_npzw_has(const struct mk_npzw *z, const char *name);

/* Free z without finishing (an abandoned output). */
void	mk_npzw_free(struct mk_npzw *z);

#endif
