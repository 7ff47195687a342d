/*
 * fuzz_npz - numpy's .npz: the member reader (each member inflated as it
 * is read, one array and nothing after it) and the streamed writer.  A
 * stored zip is built here from the input (right CRCs, so the fuzzer's
 * changes reach the members):
 *   byte 0        bits 0-1: members - 1; bits 2-7: which names they get
 *   then per member: u16 n, bytes (u16 little-endian, clamped)
 * The names include ones a reader must refuse and ones a writer must.
 * Invariants: every tensor read has its shape's bytes; an error is one
 * line; what was read, written with mk_npzw and read back, is the same
 * tensors (names the writer refuses excepted, with one line).
 */
#include <string.h>

#include "fuzz.h"
#include "moekit.h"
#include "tensor/npy.h"
#include "tensor/npzw.h"
#include "tensor/stream.h"

#define MAXENT	4
#include "zipbuild.h"

static const char *const names[] = {
	"a.npy", "phy2log.npy", "b.npy", "../up.npy", "dir/c.npy",
	"sp ace.npy", "data.pkl", "x.npz", ".npy", "a.npy",
};

/* One line, or a tensor whose data its shape accounts for. */
static void
check(const struct mk_tensor *t)
{
	FUZZ_CHECK((int64_t)t->nelem == mk_shape_nelem(t->ndim, t->shape,
	    mk_dtype_size(t->dtype)));
	FUZZ_CHECK(t->nelem == 0 || t->data != NULL);
}

/* t[0..n) written as an .npz into memory: its bytes, or NULL. */
static char *
write_npz(const struct mk_tensor *t, int n, size_t *len, int *refused)
{
	struct mk_npzw z;
	struct mk_err e;
	char hdr[MK_MAXDIM * 24 + 256], *buf = NULL;
	FILE *fp;
	size_t hl;
	int i, r = 0;

	memset(&z, 0, sizeof(z));
	FUZZ_CHECK((fp = open_memstream(&buf, len)) != NULL);
	for (i = 0; i < n && r == 0; i++) {
		hl = mk_npy_format_header(hdr, sizeof(hdr), t[i].dtype,
		    t[i].ndim, t[i].shape);
		e.msg[0] = '\0';
		if ((r = mk_npzw_has(&z, t[i].name) ? -1 : 0) == 0 &&
		    (r = mk_npzw_begin(&z, fp, t[i].name, &e)) < 0) {
			FUZZ_CHECK(strchr(e.msg, '\n') == NULL);
			*refused = 1;
		}
		if (r == 0 && (mk_npzw_data(&z, fp, hdr, hl, &e) < 0 ||
		    mk_npzw_data(&z, fp, t[i].data, mk_tensor_nbytes(&t[i]),
		    &e) < 0 || mk_npzw_end(&z, fp, &e) < 0))
			r = -1;
	}
	if (r == 0)
		FUZZ_CHECK(mk_npzw_finish(&z, fp, &e) == 0);
	else
		mk_npzw_free(&z);
	FUZZ_CHECK(fclose(fp) == 0);
	if (r != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* What was written reads back as t[0..n). */
static void
round_trip(const struct mk_tensor *t, int n)
{
	struct mk_tensor u;
	struct mk_src *s;
	struct mk_err e;
	size_t len;
	char *buf;
	int i, refused = 0;

	if ((buf = write_npz(t, n, &len, &refused)) == NULL)
		return;
	FUZZ_CHECK((s = mk_src_mem(buf, len, "written", 0)) != NULL);
	mk_tensor_init(&u);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(mk_src_next(s, &u, &e) == 1);
		FUZZ_CHECK(u.dtype == t[i].dtype && u.ndim == t[i].ndim);
		FUZZ_CHECK(memcmp(u.shape, t[i].shape, sizeof(int64_t) *
		    (size_t)u.ndim) == 0);
		FUZZ_CHECK(strcmp(u.name, t[i].name) == 0);
		FUZZ_CHECK(memcmp(u.data, t[i].data, mk_tensor_nbytes(&u)) ==
		    0 || mk_tensor_nbytes(&u) == 0);
	}
	FUZZ_CHECK(mk_src_next(s, &u, &e) == 0);
	mk_tensor_free(&u);
	mk_src_close(s);
	free(buf);
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	struct ent e[MAXENT];
	struct mk_tensor t[MAXENT + 1];
	struct mk_src *s;
	struct mk_err err;
	uint8_t *buf;
	size_t left, len;
	int n, i, got = 0, r = 0;

	if (size < 1)
		return 0;
	n = 1 + (data[0] & 3);
	for (i = 0; i < n; i++)
		strcpy(e[i].name, names[(data[0] >> 2) % 7 + (size_t)i]);
	data++;
	left = size - 1;
	for (i = 0; i < n; i++)
		e[i].n = piece(&data, &left, &e[i].p);
	FUZZ_CHECK((buf = malloc(size + 200 * MAXENT)) != NULL);
	len = zip(e, n, buf);
	FUZZ_CHECK((s = mk_src_mem(buf, len, "fuzz.npz", 0)) != NULL);
	for (i = 0; i <= MAXENT; i++)
		mk_tensor_init(&t[i]);
	err.msg[0] = '\0';
	while (got <= MAXENT && (r = mk_src_next(s, &t[got], &err)) == 1)
		check(&t[got++]);
	FUZZ_CHECK(got <= n);
	if (r < 0)
		FUZZ_CHECK(err.msg[0] != '\0' && strchr(err.msg, '\n') == NULL);
	else
		round_trip(t, got);
	for (i = 0; i <= MAXENT; i++)
		mk_tensor_free(&t[i]);
	mk_src_close(s);
	free(buf);
	return 0;
}
