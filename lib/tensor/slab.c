/* slab.c - an array's payload a slab at a time; see slab.h. */
#include <sys/mman.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tensor/slab.h"
#include "tensor/src_impl.h"

#define PAGE	((uintptr_t)4096)
#define HUGE	((size_t)2 << 20)
/* A streamed payload's buffer starts this large and doubles as it fills. */
#define FIRST	((size_t)16 << 20)

struct mk_slab {
	struct mk_src	*s;
	uint64_t	 nbytes;	/* the payload */
	const unsigned char *map;	/* in place, or NULL */
	uint64_t	 off;		/* its offset in the file */
	unsigned char	*buf;		/* the slab's buffer */
	size_t		 buf_len;	/* its mapping */
};

struct mk_slab *
mk_slab_open(struct mk_src *s, const struct mk_npy_hdr *h, struct mk_err *e)
{
	struct mk_slab *sl;

	if ((sl = calloc(1, sizeof(*sl))) == NULL) {
		mk_err_data(e, "%s: out of memory", s->name);
		return NULL;
	}
	sl->s = s;
	sl->nbytes = h->nbytes;
	if (s->map != NULL) {
		if (s->len - s->pos < h->nbytes) {
			mk_err_data(e, "%s: data ends after %zu of %llu bytes",
			    s->name, s->len - s->pos,
			    (unsigned long long)h->nbytes);
			free(sl);
			return NULL;
		}
		sl->off = src_offset(s);
		sl->map = s->p + s->pos;
		s->pos += h->nbytes;
	}
	return sl;
}

const unsigned char *
mk_slab_map(const struct mk_slab *sl)
{
	return sl->map;
}

int64_t
mk_slab_pread(const struct mk_slab *sl, void *dst, uint64_t off, size_t n,
    struct mk_err *e)
{
	size_t done = 0;
	ssize_t got;

	while (done < n) {
		got = pread(sl->s->fd, (char *)dst + done, n - done,
		    (off_t)(sl->off + off + done));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return mk_err_sys(e, sl->s->name);
		if (got == 0)
			break;
		done += (size_t)got;
	}
	return (int64_t)done;
}

void
mk_slab_release(const struct mk_slab *sl, uint64_t from, uint64_t to)
{
	uintptr_t a, b;

	if (sl->map == NULL || to <= from)
		return;
	a = (uintptr_t)(sl->map + from) & ~(PAGE - 1);
	b = (uintptr_t)(sl->map + to) & ~(PAGE - 1);
	if (b > a)
		(void)madvise((void *)a, b - a, MADV_DONTNEED);
}

/* Anonymous memory of at least n bytes, in 2 MiB pages where allowed. */
static unsigned char *
big(size_t n, size_t *len)
{
	void *p;

	*len = n < HUGE ? (n ? n : 1) : (n + HUGE - 1) / HUGE * HUGE;
	p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	/* faulting megabytes in 4 KiB at a time cost more than reading them */
	if (*len >= HUGE)
		(void)madvise(p, *len, MADV_HUGEPAGE);
#endif
	return p;
}

/* Make the buffer hold at least n bytes, keeping the first `keep`. */
static int
grow(struct mk_slab *sl, size_t n, size_t keep)
{
	unsigned char *p;
	size_t len;

	if (sl->buf != NULL && sl->buf_len >= n)
		return 0;
	if ((p = big(n, &len)) == NULL)
		return -1;
	if (keep > 0)
		memcpy(p, sl->buf, keep);
	if (sl->buf != NULL)
		munmap(sl->buf, sl->buf_len);
	sl->buf = p;
	sl->buf_len = len;
	return 0;
}

unsigned char *
mk_slab_buffer(struct mk_slab *sl, size_t n, struct mk_err *e)
{
	if (grow(sl, n, 0) < 0) {
		mk_err_data(e, "%s: out of memory for %zu bytes", sl->s->name,
		    n);
		return NULL;
	}
	return sl->buf;
}

int64_t
mk_slab_next(struct mk_slab *sl, size_t n, const unsigned char **p,
    struct mk_err *e)
{
	size_t have = 0, want;
	int64_t r;

	/* grow with what arrives: a header's claim alone allocates nothing */
	for (;;) {
		want = sl->buf_len < n ? sl->buf_len : n;
		if (sl->buf == NULL || (have == want && want < n)) {
			want = have ? have * 2 : FIRST;
			if (want > n)
				want = n;
			if (grow(sl, want, have) < 0)
				return mk_err_data(e, "%s: out of memory after "
				    "%zu bytes of a slab of %zu", sl->s->name,
				    have, n);
			want = sl->buf_len < n ? sl->buf_len : n;
		}
		if ((r = src_read(sl->s, sl->buf + have, want - have, e)) < 0)
			return -1;
		have += (size_t)r;
		if (have < want || have == n)
			break;
	}
	*p = sl->buf;
	return (int64_t)have;
}

void
mk_slab_close(struct mk_slab *sl)
{
	if (sl == NULL)
		return;
	if (sl->buf != NULL)
		munmap(sl->buf, sl->buf_len);
	free(sl);
}
