/*
 * fuzz_csv - the CSV tensor reader.  Each input is read twice: all at once
 * (as from a mapped file) and in small drips (as from a pipe), the drip
 * size derived from the data so corpus files stay plain .csv files.
 * Invariants for every
 * tensor read: its size matches its shape, and writing it as CSV and
 * reading that back gives the same dtype, shape, name and values (NaNs
 * compare as NaNs) - which also checks that the printed floats round-trip.
 */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "moekit.h"

static int
same_value(const struct mk_tensor *a, const struct mk_tensor *b, size_t i)
{
	struct mk_value x = mk_value_load(a->data, a->dtype, i);
	struct mk_value y = mk_value_load(b->data, b->dtype, i);

	if (x.kind != y.kind)
		return 0;
	if (x.kind == MK_KIND_FLOAT)
		return (isnan(x.f) && isnan(y.f)) || x.f == y.f;
	return x.i == y.i && x.u == y.u;
}

static void
check_roundtrip(const struct mk_tensor *t)
{
	struct mk_tensor u;
	struct mk_src *s;
	struct mk_err e;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp;
	int k;

	FUZZ_CHECK((fp = open_memstream(&buf, &len)) != NULL);
	FUZZ_CHECK(mk_csv_write(fp, t, "t", &e) == 0);
	FUZZ_CHECK(fclose(fp) == 0);
	FUZZ_CHECK((s = mk_src_mem(buf, len, "re-read", 0)) != NULL);
	mk_tensor_init(&u);
	FUZZ_CHECK(mk_src_next(s, &u, &e) == 1);
	FUZZ_CHECK(u.dtype == t->dtype && u.ndim == t->ndim &&
	    u.nelem == t->nelem);
	for (k = 0; k < t->ndim; k++)
		FUZZ_CHECK(u.shape[k] == t->shape[k]);
	for (i = 0; i < t->nelem; i++)
		FUZZ_CHECK(same_value(t, &u, i));
	mk_tensor_free(&u);
	mk_src_close(s);
	free(buf);
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
		FUZZ_CHECK((int64_t)t.nelem ==
		    mk_shape_nelem(t.ndim, t.shape, mk_dtype_size(t.dtype)));
		FUZZ_CHECK(t.nelem == 0 || t.data != NULL);
		check_roundtrip(&t);
	}
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
