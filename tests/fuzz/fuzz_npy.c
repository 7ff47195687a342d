/*
 * fuzz_npy - the NPY stream reader.  Each input is read twice: all at once
 * (as from a mapped file) and in small drips (as from a pipe), the drip
 * size derived from the data so corpus files stay plain .npy files.
 * Invariants for every array read:
 * the payload size is what the header declared, the array re-emits and
 * re-reads bit-identically, and a header already in our canonical form
 * re-emits byte-identically.
 */
#include <string.h>

#include "fuzz.h"
#include "moekit.h"

static void
check_roundtrip(const struct mk_tensor *t)
{
	struct mk_tensor u;
	struct mk_src *s;
	struct mk_err e;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	int i;

	FUZZ_CHECK((fp = open_memstream(&buf, &len)) != NULL);
	FUZZ_CHECK(mk_npy_write(fp, t, &e) == 0);
	FUZZ_CHECK(fclose(fp) == 0);
	FUZZ_CHECK((s = mk_src_mem(buf, len, "re-read", 0)) != NULL);
	mk_tensor_init(&u);
	FUZZ_CHECK(mk_src_next(s, &u, &e) == 1);
	/* bf16 travels as its <u2 bits (numpy has no bf16) */
	FUZZ_CHECK((u.dtype == t->dtype || (t->dtype == MK_BF16 &&
	    u.dtype == MK_U16)) && u.ndim == t->ndim && u.nelem == t->nelem);
	for (i = 0; i < t->ndim; i++)
		FUZZ_CHECK(u.shape[i] == t->shape[i]);
	FUZZ_CHECK(mk_tensor_nbytes(t) == 0 ||
	    memcmp(u.data, t->data, mk_tensor_nbytes(t)) == 0);
	mk_tensor_free(&u);
	mk_src_close(s);
	free(buf);
}

/*
 * The header we emit for t parses back to the same dtype and shape, and
 * emitting that again gives the same bytes.
 */
static void
check_header(const struct mk_tensor *t)
{
	char h1[4096], h2[4096];
	struct mk_npy_hdr h;
	struct mk_err e;
	size_t l1, l2;
	int i;

	l1 = mk_npy_format_header(h1, sizeof(h1), t->dtype, t->ndim, t->shape);
	FUZZ_CHECK(l1 > 0 && l1 % 64 == 0 && h1[l1 - 1] == '\n');
	memset(&h, 0, sizeof(h));
	FUZZ_CHECK(mk_npy_parse_prefix((const unsigned char *)h1, l1, &h,
	    &e) == 1);
	FUZZ_CHECK(h.prefix_len + h.header_len == l1);
	FUZZ_CHECK(mk_npy_parse_dict(h1 + h.prefix_len, h.header_len, &h,
	    &e) == 0);
	FUZZ_CHECK(h.ndim == t->ndim && !h.fortran && !h.big_endian);
	for (i = 0; i < h.ndim; i++)
		FUZZ_CHECK(h.shape[i] == t->shape[i]);
	l2 = mk_npy_format_header(h2, sizeof(h2), (enum mk_dtype)h.dtype,
	    h.ndim, h.shape);
	FUZZ_CHECK(l2 == l1 && memcmp(h1, h2, l1) == 0);
	FUZZ_CHECK(h.nbytes == mk_tensor_nbytes(t) ||
	    t->dtype == MK_BF16);
}

static void
run(const uint8_t *data, size_t size, size_t drip)
{
	struct mk_tensor t;
	struct mk_src *s;
	struct mk_err e;
	int r, n = 0;

	if ((s = mk_src_mem(data, size, "fuzz", drip)) == NULL)
		return;
	mk_tensor_init(&t);
	e.msg[0] = '\0';
	while ((r = mk_src_next(s, &t, &e)) == 1 && n++ < 64) {
		FUZZ_CHECK(t.nelem == 0 || t.data != NULL);
		FUZZ_CHECK((int64_t)t.nelem ==
		    mk_shape_nelem(t.ndim, t.shape, mk_dtype_size(t.dtype)));
		FUZZ_CHECK(t.data == NULL ||
		    (uintptr_t)t.data % mk_dtype_size(t.dtype) == 0);
		check_header(&t);
		check_roundtrip(&t);
	}
	/* An error is one line of text. */
	FUZZ_CHECK(r != -1 || (e.msg[0] != '\0' && strchr(e.msg, '\n') == NULL));
	mk_tensor_free(&t);
	mk_src_close(s);
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	run(data, size, 0);
	run(data, size, 1 + (size * 31 + (size ? data[size / 2] : 0)) % 61);
	return 0;
}
