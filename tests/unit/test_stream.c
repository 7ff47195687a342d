/* test_stream.c - opening inputs and recognising their format. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static void
test_open_errors(void)
{
	struct mk_err e;

	CU_ASSERT_PTR_NULL(mk_src_open("/nonexistent/x.npy", &e));
	CU_ASSERT_STRING_EQUAL(e.msg,
	    "/nonexistent/x.npy: No such file or directory");
	CU_ASSERT_EQUAL(e.status, MK_EXIT_DATA);
	CU_ASSERT_PTR_NULL(mk_src_open("/tmp", &e));
	CU_ASSERT_STRING_EQUAL(e.msg, "/tmp: Is a directory");
}

static int
fmt_of(const char *s, size_t drip)
{
	struct mk_src *src = mk_src_mem(s, strlen(s), "m", drip);
	struct mk_err e;
	int f = mk_src_format(src, &e);

	mk_src_close(src);
	return f;
}

static void
test_format(void)
{
	size_t d;

	for (d = 0; d < 3; d++) {
		CU_ASSERT_EQUAL(fmt_of("\x93NUMPY\x01", d), MK_FMT_NPY);
		CU_ASSERT_EQUAL(fmt_of("1,2\n", d), MK_FMT_CSV);
		CU_ASSERT_EQUAL(fmt_of("  \n {\"a\": 1}", d), MK_FMT_JSON);
		CU_ASSERT_EQUAL(fmt_of("[1]", d), MK_FMT_JSON);
		CU_ASSERT_EQUAL(fmt_of("", d), MK_FMT_EMPTY);
		CU_ASSERT_EQUAL(fmt_of("   ", d), MK_FMT_CSV);
	}
}

static void
test_json_not_a_stream(void)
{
	CU_ASSERT_PTR_NOT_NULL(strstr(read_fail("{\"logical_count\": []}", 21),
	    "JSON input is not a tensor stream"));
}

static void
test_slurp(void)
{
	static char big[300000];
	const unsigned char *p;
	struct mk_src *s;
	struct mk_err e;
	size_t n;

	memset(big, 'x', sizeof(big));
	s = mk_src_mem(big, sizeof(big), "m", 1000);
	CU_ASSERT_EQUAL(mk_src_slurp(s, &p, &n, &e), 0);
	CU_ASSERT_EQUAL(n, sizeof(big));
	CU_ASSERT_EQUAL(memcmp(p, big, n), 0);
	mk_src_close(s);
}

/*
 * A mapped file is named at every address of its pages (for the SIGBUS
 * handler) while a tensor still holds them, and no longer once the last
 * holder lets go.
 */
static void
test_mapped_names(void)
{
	char path[] = "/tmp/moekit-map-XXXXXX";
	const unsigned char *p;
	struct mk_src *s;
	struct mk_err e;
	size_t n;
	FILE *fp;
	int fd;

	CU_ASSERT_FATAL((fd = mkstemp(path)) >= 0);
	CU_ASSERT_FATAL((fp = fdopen(fd, "w")) != NULL);
	fputs("1,2,3\n4,5,6\n", fp);
	fclose(fp);
	CU_ASSERT_FATAL((s = mk_src_open(path, &e)) != NULL);
	CU_ASSERT_EQUAL(mk_src_slurp(s, &p, &n, &e), 0);
	CU_ASSERT_EQUAL(n, 12);
	CU_ASSERT_PTR_NOT_NULL(mk_mapped_file_at(p));
	if (mk_mapped_file_at(p) != NULL) {
		CU_ASSERT_STRING_EQUAL(mk_mapped_file_at(p), path);
		CU_ASSERT_STRING_EQUAL(mk_mapped_file_at(p + 11), path);
	}
	CU_ASSERT_PTR_NULL(mk_mapped_file_at(path));
	mk_src_close(s);
	CU_ASSERT_PTR_NULL(mk_mapped_file_at(p));
	unlink(path);
}

void
suite_stream(void)
{
	CU_pSuite s = CU_add_suite("stream", NULL, NULL);

	CU_add_test(s, "open errors", test_open_errors);
	CU_add_test(s, "format detection", test_format);
	CU_add_test(s, "JSON is not a tensor stream", test_json_not_a_stream);
	CU_add_test(s, "slurp", test_slurp);
	CU_add_test(s, "mapped files named for SIGBUS", test_mapped_names);
}
