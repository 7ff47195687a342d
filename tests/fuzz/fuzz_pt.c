/*
 * fuzz_pt - the strict pickle reader of torch .pt files.  A zip built
 * here from the input (with right CRCs, so that the fuzzer's changes
 * reach the pickle rather than libzip's checks):
 *   byte 0        flags: 1 adds byteorder "big", 2 adds "little"
 *   u16 n, bytes  archive/data.pkl
 *   then up to 4 of: u16 n, bytes   archive/data/0, /1, ...
 * (u16 little-endian, clamped to what is left).  tests/gen/eplb_pt.py
 * writes the corpus in this form from its fixtures.
 * Invariants: a read dict has named items; each tensor's size matches
 * its shape and its data is there; an error is one line.
 */
#include <string.h>

#include "fuzz.h"
#include "moekit.h"
#include "tensor/pt.h"
#include "tensor/zip.h"

#define MAXENT	6
#include "zipbuild.h"

static void
check(const struct mk_pt *pt)
{
	const struct mk_tensor *t;
	int i;

	for (i = 0; i < pt->n; i++) {
		FUZZ_CHECK(pt->items[i].key != NULL);
		if (pt->items[i].kind != MK_PT_TENSOR)
			continue;
		t = &pt->items[i].t;
		FUZZ_CHECK((int64_t)t->nelem == mk_shape_nelem(t->ndim,
		    t->shape, mk_dtype_size(t->dtype)));
		FUZZ_CHECK(t->nelem == 0 || t->data != NULL);
		FUZZ_CHECK(mk_pt_get(pt, pt->items[i].key) != NULL);
	}
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	struct ent e[MAXENT];
	struct mk_zip *z;
	struct mk_src *s;
	struct mk_err err;
	struct mk_pt pt;
	uint8_t *buf, flags;
	size_t left, len;
	int n = 0, pkl, r = -1;

	if (size < 1)
		return 0;
	flags = data[0];
	data++;
	left = size - 1;
	strcpy(e[n].name, "archive/data.pkl");
	e[n].n = piece(&data, &left, &e[n].p);
	n++;
	while (left > 0 && n < MAXENT - 1) {
		snprintf(e[n].name, sizeof(e[n].name), "archive/data/%d",
		    n - 1);
		e[n].n = piece(&data, &left, &e[n].p);
		n++;
	}
	if (flags & 3) {
		strcpy(e[n].name, "archive/byteorder");
		e[n].p = (const uint8_t *)(flags & 1 ? "big" : "little");
		e[n].n = flags & 1 ? 3 : 6;
		n++;
	}
	FUZZ_CHECK((buf = malloc(size + 200 * MAXENT)) != NULL);
	len = zip(e, n, buf);
	FUZZ_CHECK((s = mk_src_mem(buf, len, "fuzz", 0)) != NULL);
	memset(&pt, 0, sizeof(pt));
	err.msg[0] = '\0';
	if ((z = mk_zip_open(s, &err)) != NULL) {
		FUZZ_CHECK((pkl = mk_pt_find(z)) >= 0);
		if ((r = mk_pt_read(z, pkl, &pt, &err)) == 0)
			check(&pt);
		mk_pt_free(&pt);
		mk_zip_close(z);
	}
	FUZZ_CHECK(r == 0 || (err.msg[0] != '\0' && strchr(err.msg, '\n') ==
	    NULL));
	mk_src_close(s);
	free(buf);
	return 0;
}
