/*
 * zip.c - reading zip archives with libzip; see zip.h.
 *
 * libzip is loaded when the first archive is opened, not at every start:
 * linking it pulls in libcrypto, whose relocations added to every
 * process more than a whole eplb-plan run on NPY loads takes.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <zip.h>

#include "tensor/src_impl.h"
#include "tensor/zip.h"

/* The libzip functions used, resolved once. */
#define ZIP_FUNCS(X)							\
	X(zip_error_init)						\
	X(zip_error_fini)						\
	X(zip_error_strerror)						\
	X(zip_source_buffer_create)					\
	X(zip_source_free)						\
	X(zip_open_from_source)						\
	X(zip_get_num_entries)						\
	X(zip_get_name)							\
	X(zip_name_locate)						\
	X(zip_fopen_index)						\
	X(zip_fread)							\
	X(zip_fclose)							\
	X(zip_strerror)							\
	X(zip_file_strerror)						\
	X(zip_discard)

#define ZIP_PTR(f)	__typeof__(f) *f;
static struct {
	void	*h;
	ZIP_FUNCS(ZIP_PTR)
} L;

/* Load libzip (once).  Returns 0, or -1 with e filled. */
static int
load(const char *file, struct mk_err *e)
{
	static const char *const names[] = { "libzip.so.4", "libzip.so" };
	size_t i;

	for (i = 0; L.h == NULL && i < sizeof(names) / sizeof(names[0]); i++)
		L.h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (L.h == NULL)
		return mk_err_data(e, "%s: reading a zip archive needs libzip "
		    "(Debian's libzip4): %s", file, dlerror());
#define ZIP_SYM(f)	if (L.f == NULL && (*(void **)&L.f = dlsym(L.h, #f)) == \
	    NULL) return mk_err_data(e, "%s: libzip lacks %s", file, #f);
	ZIP_FUNCS(ZIP_SYM)
	return 0;
}

struct mk_zip {
	zip_t		*z;
	const char	*file;		/* the source's name */
	const unsigned char *bytes;	/* the archive (the source's) */
	size_t		 len;
	int		 n;
};

struct mk_zip *
mk_zip_open(struct mk_src *s, struct mk_err *e)
{
	const unsigned char *p;
	struct mk_zip *mz;
	zip_source_t *zs;
	zip_error_t ze;
	zip_int64_t n;
	size_t len;

	if (load(mk_src_name(s), e) < 0 || mk_src_slurp(s, &p, &len, e) < 0)
		return NULL;
	if ((mz = calloc(1, sizeof(*mz))) == NULL) {
		mk_err_data(e, "%s: out of memory", mk_src_name(s));
		return NULL;
	}
	mz->file = mk_src_name(s);
	mz->bytes = p;
	mz->len = len;
	L.zip_error_init(&ze);
	if ((zs = L.zip_source_buffer_create(len ? (const void *)p : "", len, 0,
	    &ze)) == NULL ||
	    (mz->z = L.zip_open_from_source(zs, ZIP_RDONLY, &ze)) == NULL) {
		mk_err_data(e, "%s: a damaged or truncated zip archive of %zu "
		    "bytes (libzip: %s)", mz->file, len,
		    L.zip_error_strerror(&ze));
		if (zs != NULL)
			L.zip_source_free(zs);
		L.zip_error_fini(&ze);
		free(mz);
		return NULL;
	}
	L.zip_error_fini(&ze);
	n = L.zip_get_num_entries(mz->z, 0);
	mz->n = n < 0 ? 0 : n > INT32_MAX ? INT32_MAX : (int)n;
	return mz;
}

int
mk_zip_count(const struct mk_zip *z)
{
	return z->n;
}

const char *
mk_zip_name(const struct mk_zip *z, int i)
{
	const char *s = L.zip_get_name(z->z, (zip_uint64_t)i, ZIP_FL_ENC_RAW);

	return s != NULL ? s : "";
}

int
mk_zip_name_exact(const struct mk_zip *z, int i)
{
	const char *s = mk_zip_name(z, i);

	return strchr(s, ' ') == NULL || (z->len > 0 && memmem(z->bytes,
	    z->len, s, strlen(s)) != NULL);
}

int
mk_zip_find(const struct mk_zip *z, const char *name)
{
	zip_int64_t i = L.zip_name_locate(z->z, name, ZIP_FL_ENC_RAW);

	return i < 0 || i > INT32_MAX ? -1 : (int)i;
}

const char *
mk_zip_file(const struct mk_zip *z)
{
	return z->file;
}

/* Grow *p (cap bytes, n used) to hold at least want bytes. */
static int
grow(void **p, size_t *cap, size_t n, size_t want)
{
	size_t c = *cap ? *cap : 4096;
	void *q;

	while (c < want)
		c *= 2;
	if (c == *cap)
		return 0;
	if (posix_memalign(&q, 64, c) != 0)
		return -1;
	if (n > 0)
		memcpy(q, *p, n);
	free(*p);
	*p = q;
	*cap = c;
	return 0;
}

int
mk_zip_read(struct mk_zip *z, int i, size_t max, void **p, size_t *n,
    struct mk_err *e)
{
	const char *raw = mk_zip_name(z, i);
	char name[300];
	zip_file_t *f;
	zip_int64_t got;
	size_t cap = 0, chunk = (size_t)1 << 16;

	/* member names in messages: printable, one line */
	mk_excerpt(name, sizeof(name), raw, strlen(raw), 80);
	*p = NULL;
	*n = 0;
	if ((f = L.zip_fopen_index(z->z, (zip_uint64_t)i, 0)) == NULL)
		return mk_err_data(e, "%s: %s: %s", z->file, name,
		    L.zip_strerror(z->z));
	/* chunk by chunk: the memory follows the bytes, not the header */
	for (;;) {
		if (grow(p, &cap, *n, *n + chunk) < 0) {
			L.zip_fclose(f);
			free(*p);
			*p = NULL;
			return mk_err_data(e, "%s: %s: out of memory after %zu "
			    "bytes", z->file, name, *n);
		}
		got = L.zip_fread(f, (char *)*p + *n, cap - *n);
		if (got < 0) {
			mk_err_data(e, "%s: %s: %s", z->file, name,
			    L.zip_file_strerror(f));
			L.zip_fclose(f);
			free(*p);
			*p = NULL;
			return -1;
		}
		if (got == 0)
			break;
		*n += (size_t)got;
		if (*n > max) {
			L.zip_fclose(f);
			free(*p);
			*p = NULL;
			return mk_err_data(e, "%s: %s holds more than %zu bytes",
			    z->file, name, max);
		}
		chunk = cap - *n > 0 ? cap - *n : cap;
	}
	L.zip_fclose(f);
	return 0;
}

/* An entry being inflated, as a source's stream. */
struct member {
	zip_file_t	*f;
	const char	*file;
	char		 name[300];
};

static int64_t
member_read(void *ctx, void *dst, size_t n, struct mk_err *e)
{
	struct member *m = ctx;
	zip_int64_t got = L.zip_fread(m->f, dst, n);

	if (got < 0)
		return mk_err_data(e, "%s: %s: %s", m->file, m->name,
		    L.zip_file_strerror(m->f));
	return (int64_t)got;
}

static void
member_done(void *ctx)
{
	struct member *m = ctx;

	L.zip_fclose(m->f);
	free(m);
}

struct mk_src *
mk_zip_member(struct mk_zip *z, int i, const char *name, struct mk_err *e)
{
	const char *raw = mk_zip_name(z, i);
	struct src_stream st = { member_read, member_done, NULL };
	struct member *m;
	struct mk_src *s;

	if ((m = calloc(1, sizeof(*m))) == NULL) {
		mk_err_data(e, "%s: out of memory", z->file);
		return NULL;
	}
	mk_excerpt(m->name, sizeof(m->name), raw, strlen(raw), 80);
	m->file = z->file;
	if ((m->f = L.zip_fopen_index(z->z, (zip_uint64_t)i, 0)) == NULL) {
		mk_err_data(e, "%s: %s: %s", z->file, m->name,
		    L.zip_strerror(z->z));
		free(m);
		return NULL;
	}
	st.ctx = m;
	if ((s = src_stream_new(name, &st)) == NULL) {
		member_done(m);
		mk_err_data(e, "%s: out of memory", z->file);
	}
	return s;
}

void
mk_zip_close(struct mk_zip *z)
{
	if (z == NULL)
		return;
	L.zip_discard(z->z);
	free(z);
}
