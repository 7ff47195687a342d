/* src.c - byte sources: files, pipes and memory; see src.h and src_impl.h. */
#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tensor/src_impl.h"

/*
 * The read buffer starts at a page and doubles while reads fill it: a
 * small input touches one page (a first-touch fault costs 12-14 us on a
 * VM), a long stream soon reads in large pieces.
 */
#define FIRST_CAP	4096u

struct mk_src *
mk_src_open(const char *path, struct mk_err *e)
{
	struct mk_src *s;
	struct stat st;
	off_t start;
	void *m;

	if ((s = calloc(1, sizeof(*s))) == NULL) {
		mk_err_data(e, "out of memory");
		return NULL;
	}
	if (path == NULL || strcmp(path, "-") == 0) {
		s->name = strdup("stdin");
		s->fd = 0;
	} else {
		s->name = strdup(path);
		if ((s->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			mk_err_sys(e, path);
			free(s->name);
			free(s);
			return NULL;
		}
		s->close_fd = 1;
	}
	if (s->name == NULL) {
		mk_src_close(s);
		mk_err_data(e, "out of memory");
		return NULL;
	}
	if (fstat(s->fd, &st) < 0) {
		mk_err_sys(e, s->name);
		mk_src_close(s);
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		mk_err_sys(e, s->name);
		mk_src_close(s);
		return NULL;
	}
#ifdef F_SETPIPE_SZ
	/*
	 * A larger pipe: 64 KiB reads made reading a trace from a pipe cost
	 * 3 times the counting.  1 MiB is what Linux lets anyone ask for;
	 * a pipe its producer made larger is left as it is (setting the
	 * size also shrinks).
	 */
	if (S_ISFIFO(st.st_mode) && fcntl(s->fd, F_GETPIPE_SZ) < (1 << 20))
		(void)fcntl(s->fd, F_SETPIPE_SZ, 1 << 20);
#endif
	/* stdin redirected from a file may already be positioned inside it. */
	start = S_ISREG(st.st_mode) ? lseek(s->fd, 0, SEEK_CUR) : -1;
	if (S_ISREG(st.st_mode) && start >= 0 && st.st_size > start) {
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
		    s->fd, 0);
		if (m != MAP_FAILED) {
			if ((s->map = calloc(1, sizeof(*s->map))) == NULL) {
				munmap(m, (size_t)st.st_size);
				mk_src_close(s);
				mk_err_data(e, "out of memory");
				return NULL;
			}
			s->map->refs = 1;
			s->map->mapped = MK_BUF_FILE;
			s->map->base = m;
			s->map->len = (size_t)st.st_size;
			/* unnamed, a shrinking file is still caught */
			(void)mk_buf_note_file(s->map, s->name);
			s->p = m;
			s->len = (size_t)st.st_size;
			s->pos = (size_t)start;
			s->eof = 1;
			return s;
		}
	}
	if (S_ISREG(st.st_mode) && start >= 0 && st.st_size <= start)
		s->eof = 1;
	return s;
}

struct mk_src *
mk_src_mem(const void *p, size_t n, const char *name, size_t drip)
{
	struct mk_src *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	if ((s->name = strdup(name)) == NULL) {
		free(s);
		return NULL;
	}
	s->fd = -1;
	if (drip == 0) {
		s->p = (unsigned char *)(uintptr_t)p;
		s->len = n;
		s->eof = 1;
		s->borrowed = 1;
	} else {
		s->mem = p;
		s->memlen = n;
		s->drip = drip;
	}
	return s;
}

struct mk_src *
src_stream_new(const char *name, const struct src_stream *st)
{
	struct mk_src *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	if ((s->name = strdup(name)) == NULL ||
	    (s->stream = malloc(sizeof(*st))) == NULL) {
		free(s->name);
		free(s);
		return NULL;
	}
	*s->stream = *st;
	s->fd = -1;
	return s;
}

/*
 * read(2), the next drip of a memory source, or the stream's next bytes.
 * -1: errno says why, or (a stream) e does, and *filled is set.
 */
static ssize_t
rd(struct mk_src *s, void *dst, size_t n, struct mk_err *e, int *filled)
{
	size_t k;

	if (s->stream != NULL) {
		*filled = 1;
		return (ssize_t)s->stream->read(s->stream->ctx, dst, n, e);
	}
	if (s->mem == NULL)
		return read(s->fd, dst, n);
	k = s->memlen - s->mempos;
	if (k > n)
		k = n;
	if (k > s->drip)
		k = s->drip;
	memcpy(dst, s->mem + s->mempos, k);
	s->mempos += k;
	return (ssize_t)k;
}

const char *
mk_src_name(const struct mk_src *s)
{
	return s->name;
}

uint64_t
src_offset(const struct mk_src *s)
{
	return s->base + s->pos;
}

int64_t
src_fill(struct mk_src *s, size_t want, struct mk_err *e)
{
	size_t cap;
	ssize_t r;
	int filled = 0;
	void *np;

	while (s->len - s->pos < want && !s->eof) {
		/* Drop consumed bytes, then make room for the rest. */
		if (s->pos > 0) {
			memmove(s->p, s->p + s->pos, s->len - s->pos);
			s->base += s->pos;
			s->len -= s->pos;
			s->pos = 0;
		}
		if (s->cap - s->len < s->cap / 4 || s->cap < want) {
			cap = s->cap ? s->cap * 2 : FIRST_CAP;
			while (cap < want || cap - s->len < cap / 4)
				cap *= 2;
			if ((np = realloc(s->p, cap)) == NULL)
				return mk_err_data(e, "%s: out of memory",
				    s->name);
			s->p = np;
			s->cap = cap;
		}
		r = rd(s, s->p + s->len, s->cap - s->len, e, &filled);
		if (r < 0) {
			if (filled)
				return -1;
			if (errno == EINTR)
				continue;
			return mk_err_sys(e, s->name);
		}
		if (r == 0)
			s->eof = 1;
		s->len += (size_t)r;
	}
	return (int64_t)(s->len - s->pos);
}

int64_t
src_read(struct mk_src *s, void *dst, size_t n, struct mk_err *e)
{
	size_t got, take;
	ssize_t r;
	int filled = 0;

	take = s->len - s->pos < n ? s->len - s->pos : n;
	memcpy(dst, s->p + s->pos, take);
	s->pos += take;
	got = take;
	while (got < n && !s->eof) {
		r = rd(s, (char *)dst + got, n - got, e, &filled);
		if (r < 0) {
			if (filled)
				return -1;
			if (errno == EINTR)
				continue;
			return mk_err_sys(e, s->name);
		}
		if (r == 0)
			s->eof = 1;
		got += (size_t)r;
		/* Bytes read past the window still count towards offsets. */
		s->base += (size_t)r;
	}
	return (int64_t)got;
}

int
mk_src_slurp(struct mk_src *s, const unsigned char **p, size_t *n,
    struct mk_err *e)
{
	int64_t have;
	size_t want = FIRST_CAP;

	while ((have = src_fill(s, want, e)) >= 0 && (size_t)have >= want &&
	    !s->eof)
		want *= 2;
	if (have < 0)
		return -1;
	/* an empty file may have no buffer at all */
	*p = s->p != NULL ? s->p + s->pos : (const unsigned char *)"";
	*n = (size_t)have;
	s->pos += (size_t)have;
	return 0;
}

void
mk_src_close(struct mk_src *s)
{
	if (s == NULL)
		return;
	src_set_reader(s, NULL, NULL);
	if (s->map != NULL)
		mk_buf_unref(s->map);
	else if (!s->borrowed)
		free(s->p);
	if (s->close_fd)
		close(s->fd);
	if (s->stream != NULL && s->stream->done != NULL)
		s->stream->done(s->stream->ctx);
	free(s->stream);
	free(s->name);
	free(s);
}

void
src_set_reader(struct mk_src *s, void *state, void (*free_fn)(void *))
{
	if (s->reader != NULL && s->reader_free != NULL)
		s->reader_free(s->reader);
	s->reader = state;
	s->reader_free = free_fn;
}
