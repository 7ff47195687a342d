/* npzw.c - streamed .npz output; see npzw.h (APPNOTE.TXT 4.3, 4.5.3). */
#include <stdlib.h>
#include <string.h>

#include "simd/crc32.h"
#include "tensor/npzw.h"

struct mk_npzw_entry {
	char		*name;		/* NAME.npy */
	uint32_t	 crc;
	uint64_t	 size, off;
};

/* 1980-01-01 00:00: a reproducible archive, as numpy's own is not */
#define DOS_TIME	0
#define DOS_DATE	0x21
#define FLAG_DESCRIPTOR	0x0008
#define VERSION_ZIP64	45

/* Little-endian fields into a header being built. */
static unsigned char *
le(unsigned char *q, uint64_t v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		*q++ = (unsigned char)(v >> (8 * i));
	return q;
}

/*
 * The fields a local header and a directory entry share, from "version
 * needed" to "extra length": stored, the data descriptor flag, the sizes
 * in the Zip64 extra field.
 */
static unsigned char *
member_fields(unsigned char *q, uint32_t crc, size_t nl, int extra)
{
	q = le(q, VERSION_ZIP64, 2);
	q = le(q, FLAG_DESCRIPTOR, 2);
	q = le(q, 0, 2);			/* stored */
	q = le(q, DOS_TIME, 2);
	q = le(q, DOS_DATE, 2);
	q = le(q, crc, 4);
	q = le(q, 0xffffffffu, 4);		/* sizes: Zip64 extra */
	q = le(q, 0xffffffffu, 4);
	q = le(q, nl, 2);
	return le(q, (uint64_t)extra, 2);
}

static int
put(struct mk_npzw *z, FILE *fp, const void *p, size_t n, struct mk_err *e)
{
	if (n > 0 && fwrite(p, 1, n, fp) != n)
		return mk_err_data(e, "write error");
	z->off += n;
	return 0;
}

int
mk_npzw_begin(struct mk_npzw *z, FILE *fp, const char *name,
    struct mk_err *e)
{
	struct mk_npzw_entry *ent;
	unsigned char h[30 + 20], *q = h;
	size_t nl = strlen(name) + 4;
	char *full;

	if (z->n == z->cap) {
		int cap = z->cap ? 2 * z->cap : 8;

		if ((ent = realloc(z->ent, sizeof(*ent) * (size_t)cap)) == NULL)
			return mk_err_data(e, "out of memory");
		z->ent = ent;
		z->cap = cap;
	}
	/* a member name is a path to whoever unzips: keep it a plain name */
	if (name[0] == '\0' || strchr(name, '/') != NULL ||
	    strchr(name, '\\') != NULL || strcmp(name, "..") == 0 ||
	    strcmp(name, ".") == 0)
		return mk_err_data(e, "member name '%s': an .npz member is "
		    "named NAME.npy, NAME without '/', '\\', '.' or '..' "
		    "(tensor-cat --names renames)", name);
	if (nl > 0xffff || (full = malloc(nl + 1)) == NULL)
		return mk_err_data(e, "member name %s.npy: too long or out of "
		    "memory", name);
	snprintf(full, nl + 1, "%s.npy", name);
	ent = &z->ent[z->n++];
	ent->name = full;
	ent->off = z->off;
	z->crc = 0;
	z->size = 0;
	q = le(q, 0x04034b50, 4);		/* local file header */
	q = member_fields(q, 0, nl, 20);	/* crc: in the descriptor */
	q = le(q, 0x0001, 2);			/* Zip64 extra field */
	q = le(q, 16, 2);
	q = le(q, 0, 8);
	q = le(q, 0, 8);
	if (put(z, fp, h, 30, e) < 0 || put(z, fp, full, nl, e) < 0 ||
	    put(z, fp, h + 30, 20, e) < 0)
		return -1;
	return 0;
}

int
mk_npzw_data(struct mk_npzw *z, FILE *fp, const void *p, size_t n,
    struct mk_err *e)
{
	z->crc = mk_crc32(z->crc, p, n);
	z->size += n;
	return put(z, fp, p, n, e);
}

int
mk_npzw_end(struct mk_npzw *z, FILE *fp, struct mk_err *e)
{
	struct mk_npzw_entry *ent = &z->ent[z->n - 1];
	unsigned char d[24], *q = d;

	ent->crc = z->crc;
	ent->size = z->size;
	q = le(q, 0x08074b50, 4);		/* data descriptor, Zip64 */
	q = le(q, z->crc, 4);
	q = le(q, z->size, 8);
	q = le(q, z->size, 8);
	return put(z, fp, d, sizeof(d), e);
}

/* The central directory entry of ent. */
static int
central(struct mk_npzw *z, FILE *fp, const struct mk_npzw_entry *ent,
    struct mk_err *e)
{
	unsigned char h[46 + 28], *q = h;
	size_t nl = strlen(ent->name);

	q = le(q, 0x02014b50, 4);
	q = le(q, 0x0300 | VERSION_ZIP64, 2);	/* made by: Unix */
	q = member_fields(q, ent->crc, nl, 28);
	q = le(q, 0, 2);			/* comment */
	q = le(q, 0, 2);			/* disk */
	q = le(q, 0, 2);			/* internal attributes */
	q = le(q, (uint64_t)0100644 << 16, 4);	/* rw-r--r-- */
	q = le(q, 0xffffffffu, 4);		/* offset: Zip64 extra */
	q = le(q, 0x0001, 2);
	q = le(q, 24, 2);
	q = le(q, ent->size, 8);
	q = le(q, ent->size, 8);
	q = le(q, ent->off, 8);
	if (put(z, fp, h, 46, e) < 0 || put(z, fp, ent->name, nl, e) < 0 ||
	    put(z, fp, h + 46, 28, e) < 0)
		return -1;
	return 0;
}

int
mk_npzw_finish(struct mk_npzw *z, FILE *fp, struct mk_err *e)
{
	unsigned char t[56 + 20 + 22], *q = t;
	uint64_t cd = z->off, eocd64;
	int i, r = 0;

	for (i = 0; i < z->n && r == 0; i++)
		r = central(z, fp, &z->ent[i], e);
	if (r == 0) {
		eocd64 = z->off;
		q = le(q, 0x06064b50, 4);	/* Zip64 end of directory */
		q = le(q, 44, 8);
		q = le(q, 0x0300 | VERSION_ZIP64, 2);
		q = le(q, VERSION_ZIP64, 2);
		q = le(q, 0, 4);
		q = le(q, 0, 4);
		q = le(q, (uint64_t)z->n, 8);
		q = le(q, (uint64_t)z->n, 8);
		q = le(q, eocd64 - cd, 8);
		q = le(q, cd, 8);
		q = le(q, 0x07064b50, 4);	/* its locator */
		q = le(q, 0, 4);
		q = le(q, eocd64, 8);
		q = le(q, 1, 4);
		q = le(q, 0x06054b50, 4);	/* end of directory */
		q = le(q, 0, 2);
		q = le(q, 0, 2);
		q = le(q, 0xffff, 2);
		q = le(q, 0xffff, 2);
		q = le(q, 0xffffffffu, 4);
		q = le(q, 0xffffffffu, 4);
		q = le(q, 0, 2);
		r = put(z, fp, t, (size_t)(q - t), e);
	}
	mk_npzw_free(z);
	return r;
}

size_t
mk_npzw_member_size(const char *name, size_t n)
{
	return 30 + strlen(name) + 4 + 20 + n + 24;
}

size_t
mk_npzw_finish_size(const struct mk_npzw *z)
{
	size_t n = 56 + 20 + 22;
	int i;

	for (i = 0; i < z->n; i++)
		n += 46 + strlen(z->ent[i].name) + 28;
	return n;
}

int
mk_npzw_has(const struct mk_npzw *z, const char *name)
{
	size_t n = strlen(name);
	int i;

	for (i = 0; i < z->n; i++)
		if (strncmp(z->ent[i].name, name, n) == 0 &&
		    strcmp(z->ent[i].name + n, ".npy") == 0)
			return 1;
	return 0;
}

void
mk_npzw_free(struct mk_npzw *z)
{
	int i;

	for (i = 0; i < z->n; i++)
		free(z->ent[i].name);
	free(z->ent);
	memset(z, 0, sizeof(*z));
}
