/*
 * zip.h - zip archives as the tensor formats hold them (read with
 * Debian's libzip): torch's .pt files (pt.h) and numpy's .npz (npz.h).
 * An archive is read from the bytes of a source (mapped, or read whole
 * from a pipe); an entry is read into memory that grows with what it
 * actually holds, never on the archive's word alone.
 */
#ifndef MK_ZIP_H
#define MK_ZIP_H

#include <stddef.h>
#include <stdint.h>

#include "base/errmsg.h"
#include "tensor/src.h"

#define MK_ZIP_MAGIC		"PK\x03\x04"
#define MK_ZIP_MAGIC_LEN	4

struct mk_zip;

/*
 * Open the rest of s as a zip archive (s must outlive it).  Returns it,
 * or NULL with e filled ("FILE: not a zip archive: ...").
 */
struct mk_zip	*mk_zip_open(struct mk_src *s, struct mk_err *e);

/* The number of entries, and the name of entry i ("" if it has none). */
int		 mk_zip_count(const struct mk_zip *z);
const char	*mk_zip_name(const struct mk_zip *z, int i);

/*
 * Whether entry i's name is its bytes: libzip shows a NUL in a name as a
 * space, so a name with a space that the archive's bytes do not hold
 * verbatim had a NUL there.
 */
int	mk_zip_name_exact(const struct mk_zip *z, int i);

/* The index of the entry named name, or -1. */
int	mk_zip_find(const struct mk_zip *z, const char *name);

/*
 * Entry i whole into *p (malloc'd, 64-byte aligned, free with free()),
 * *n its size: at most max bytes.  Returns 0, or -1 with e filled (the
 * archive's name and the entry's).
 */
int	mk_zip_read(struct mk_zip *z, int i, size_t max, void **p, size_t *n,
	    struct mk_err *e);

/*
 * Entry i as a source named name, inflated as it is read: memory follows
 * what the reader takes, and reading to its end checks its CRC.  Returns
 * it (close it before z), or NULL with e filled.
 */
struct mk_src	*mk_zip_member(struct mk_zip *z, int i, const char *name,
		    struct mk_err *e);

/* The archive's name in messages (the source's). */
const char	*mk_zip_file(const struct mk_zip *z);

/* Close the archive.  NULL is ignored. */
void	mk_zip_close(struct mk_zip *z);

#endif
