/* util.c - helpers shared by the unit test suites; see util.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

int
read_all(const void *p, size_t n, size_t drip, struct mk_tensor *t, int max,
    struct mk_err *e)
{
	struct mk_tensor extra;
	struct mk_src *s;
	int k = 0, r;

	if ((s = mk_src_mem(p, n, "mem", drip)) == NULL)
		return mk_err_data(e, "out of memory");
	for (;;) {
		if (k == max) {
			/* Room is full: the stream must end here. */
			mk_tensor_init(&extra);
			r = mk_src_next(s, &extra, e);
			mk_tensor_free(&extra);
			mk_src_close(s);
			if (r == 0)
				return k;
			while (k-- > 0)
				mk_tensor_free(&t[k]);
			return r < 0 ? -1 : mk_err_data(e, "too many tensors");
		}
		mk_tensor_init(&t[k]);
		if ((r = mk_src_next(s, &t[k], e)) < 0) {
			while (k-- > 0)
				mk_tensor_free(&t[k]);
			mk_src_close(s);
			return -1;
		}
		if (r == 0)
			break;
		k++;
	}
	mk_src_close(s);
	return k;
}

int
read_str(const char *s, struct mk_tensor *t, int max, struct mk_err *e)
{
	return read_all(s, strlen(s), 0, t, max, e);
}

const char *
read_fail(const char *s, size_t n)
{
	static struct mk_err e;
	struct mk_tensor t[16];
	int k;

	memset(&e, 0, sizeof(e));
	k = read_all(s, n, 0, t, 16, &e);
	CU_ASSERT_EQUAL(k, -1);
	CU_ASSERT_EQUAL(e.status, MK_EXIT_DATA);
	CU_ASSERT_PTR_NULL(strchr(e.msg, '\n'));
	while (k-- > 0)
		mk_tensor_free(&t[k]);
	return e.msg;
}

char *
write_mem(const struct mk_tensor *t, int csv, size_t *len)
{
	struct mk_err e;
	char *buf = NULL;
	FILE *fp;

	*len = 0;
	if ((fp = open_memstream(&buf, len)) == NULL)
		return NULL;
	if (csv) {
		CU_ASSERT_EQUAL(mk_csv_write(fp, t, "t", &e), 0);
	} else {
		CU_ASSERT_EQUAL(mk_npy_write(fp, t, &e), 0);
	}
	fclose(fp);
	return buf;
}

uint64_t
test_seed(void)
{
	static uint64_t seed;
	const char *v = getenv("MOEKIT_TEST_SEED");

	if (seed == 0)
		seed = v != NULL && *v != '\0' ? strtoull(v, NULL, 10) :
		    ((uint64_t)time(NULL) | 1);
	return seed;
}
