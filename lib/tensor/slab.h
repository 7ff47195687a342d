/*
 * slab.h - the payload of one NPY array read a slab at a time, for arrays
 * too large to hold at once (a routing trace [S, R, T, K] is read a step
 * at a time).  netpbm's pnm_readpamrow has the same shape: the header
 * first, then the rows as the caller wants them.
 *
 * After mk_npy_read_header(), mk_slab_open() takes that array's payload:
 *   - in a mapped file it lies in place (mk_slab_map), any thread may read
 *     any range of it with mk_slab_pread, and pages already used can be
 *     given back (mk_slab_release); the source moves past the payload at
 *     once, so what follows it in the stream can be read next;
 *   - from a pipe (or a memory source) it is read in order by
 *     mk_slab_next, into a buffer the slab owns that grows as bytes
 *     arrive, never on the header's word.
 * Offsets are bytes from the start of the payload.  Nothing outside
 * lib/tensor/ sees the source's position, mapping or descriptor.
 */
#ifndef MK_SLAB_H
#define MK_SLAB_H

#include <stddef.h>
#include <stdint.h>

#include "base/errmsg.h"
#include "tensor/npy.h"
#include "tensor/src.h"

struct mk_slab;

/*
 * Take the payload of the array whose header h was just read from s.  A
 * mapped file that holds less than the payload is an error ("FILE: data
 * ends after N of M bytes").  Returns the slab (close it before s), or
 * NULL with e filled.
 */
struct mk_slab	*mk_slab_open(struct mk_src *s, const struct mk_npy_hdr *h,
		    struct mk_err *e);

/* The payload in place in the file's mapping, or NULL when streamed. */
const unsigned char	*mk_slab_map(const struct mk_slab *sl);

/*
 * Read n bytes at offset off of a payload in place into dst (pread: any
 * thread, any order).  Returns the bytes read, fewer than n only if the
 * file shrank under us, or -1 with e filled.
 */
int64_t	mk_slab_pread(const struct mk_slab *sl, void *dst, uint64_t off,
	    size_t n, struct mk_err *e);

/*
 * Give back the pages of a payload in place from the one holding byte
 * `from` up to the one before the page holding byte `to` (the page at
 * `to` may still be in use; to = the payload's size ends at the last
 * byte).  Contiguous calls thus tile without overlap.  Any thread; a no-op
 * when streamed.
 */
void	mk_slab_release(const struct mk_slab *sl, uint64_t from, uint64_t to);

/*
 * The next n bytes of a streamed payload, in order, into the slab's
 * buffer: *p points at them until the next call.  Returns the bytes read,
 * fewer than n only at the end of the input, or -1 with e filled.
 */
int64_t	mk_slab_next(struct mk_slab *sl, size_t n, const unsigned char **p,
	    struct mk_err *e);

/*
 * A buffer of n bytes, in 2 MiB pages where the kernel has them, owned by
 * the slab (the target of mk_slab_pread; n must not exceed the payload,
 * which the file is known to hold).  Returns it, or NULL with e filled.
 */
unsigned char	*mk_slab_buffer(struct mk_slab *sl, size_t n,
		    struct mk_err *e);

/* Free the slab and its buffer.  NULL is ignored. */
void	mk_slab_close(struct mk_slab *sl);

#endif
