/* zip.c - reading zip archives with libzip; see zip.h. */
#include <stdlib.h>
#include <string.h>

#include <zip.h>

#include "tensor/zip.h"

struct mk_zip {
	zip_t		*z;
	const char	*file;		/* the source's name */
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

	if (mk_src_slurp(s, &p, &len, e) < 0)
		return NULL;
	if ((mz = calloc(1, sizeof(*mz))) == NULL) {
		mk_err_data(e, "%s: out of memory", mk_src_name(s));
		return NULL;
	}
	mz->file = mk_src_name(s);
	zip_error_init(&ze);
	if ((zs = zip_source_buffer_create(len ? (const void *)p : "", len, 0,
	    &ze)) == NULL ||
	    (mz->z = zip_open_from_source(zs, ZIP_RDONLY, &ze)) == NULL) {
		mk_err_data(e, "%s: not a zip archive: %s", mz->file,
		    zip_error_strerror(&ze));
		if (zs != NULL)
			zip_source_free(zs);
		zip_error_fini(&ze);
		free(mz);
		return NULL;
	}
	zip_error_fini(&ze);
	n = zip_get_num_entries(mz->z, 0);
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
	const char *s = zip_get_name(z->z, (zip_uint64_t)i, ZIP_FL_ENC_RAW);

	return s != NULL ? s : "";
}

int
mk_zip_find(const struct mk_zip *z, const char *name)
{
	zip_int64_t i = zip_name_locate(z->z, name, ZIP_FL_ENC_RAW);

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
	const char *name = mk_zip_name(z, i);
	zip_file_t *f;
	zip_int64_t got;
	size_t cap = 0, chunk = (size_t)1 << 16;

	*p = NULL;
	*n = 0;
	if ((f = zip_fopen_index(z->z, (zip_uint64_t)i, 0)) == NULL)
		return mk_err_data(e, "%s: %s: %s", z->file, name,
		    zip_strerror(z->z));
	/* chunk by chunk: the memory follows the bytes, not the header */
	for (;;) {
		if (grow(p, &cap, *n, *n + chunk) < 0) {
			zip_fclose(f);
			free(*p);
			*p = NULL;
			return mk_err_data(e, "%s: %s: out of memory after %zu "
			    "bytes", z->file, name, *n);
		}
		got = zip_fread(f, (char *)*p + *n, cap - *n);
		if (got < 0) {
			mk_err_data(e, "%s: %s: %s", z->file, name,
			    zip_file_strerror(f));
			zip_fclose(f);
			free(*p);
			*p = NULL;
			return -1;
		}
		if (got == 0)
			break;
		*n += (size_t)got;
		if (*n > max) {
			zip_fclose(f);
			free(*p);
			*p = NULL;
			return mk_err_data(e, "%s: %s holds more than %zu bytes",
			    z->file, name, max);
		}
		chunk = cap - *n > 0 ? cap - *n : cap;
	}
	zip_fclose(f);
	return 0;
}

void
mk_zip_close(struct mk_zip *z)
{
	if (z == NULL)
		return;
	zip_discard(z->z);
	free(z);
}
