/* test_loads.c - reading expert load logs in every accepted form. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moe/loads.h"
#include "util.h"

static int
read_loads(const char *text, int window, int skip, struct mk_loads *l,
    struct mk_err *e)
{
	struct mk_src *s = mk_src_mem(text, strlen(text), "mem", 0);
	int r = mk_loads_read(s, window, 1, l, e);

	mk_src_close(s);
	if (r == 0 && (r = mk_loads_finish(l, skip, e)) < 0)
		mk_loads_free(l);
	return r;
}

static const char *
fails(const char *text, int window, int skip)
{
	static struct mk_err e;
	struct mk_loads l;

	CU_ASSERT_EQUAL(read_loads(text, window, skip, &l, &e), -1);
	CU_ASSERT_PTR_NULL(strchr(e.msg, '\n'));
	return e.msg;
}

static void
test_sglang(void)
{
	struct mk_loads l;
	struct mk_err e;

	CU_ASSERT_FATAL(read_loads("{\"logical_count\": [[0, 0, 0], [1.0, 2, "
	    "3], [0, 0, 0], [4, 5, 6.5]]}", 0, 0, &l, &e) == 0);
	CU_ASSERT_EQUAL(l.L, 4);
	CU_ASSERT_EQUAL(l.E, 3);
	CU_ASSERT_EQUAL(l.nzero, 2);
	CU_ASSERT_EQUAL(l.w[11], 6.5);
	mk_loads_free(&l);
	/* dense layers dropped, original indices kept */
	CU_ASSERT_FATAL(read_loads("{\"logical_count\": [[0, 0, 0], [1, 2, "
	    "3], [0, 0, 0], [4, 5, 6]]}", 0, 1, &l, &e) == 0);
	CU_ASSERT_EQUAL(l.L, 2);
	CU_ASSERT_EQUAL(l.layer[0], 1);
	CU_ASSERT_EQUAL(l.layer[1], 3);
	CU_ASSERT_EQUAL(l.w[3], 4);
	mk_loads_free(&l);
	/* [T, L, E]: the window sums the last steps */
	CU_ASSERT_FATAL(read_loads("{\"logical_count\": [[[1, 1]], [[2, 3]], "
	    "[[10, 20]]]}", 2, 0, &l, &e) == 0);
	CU_ASSERT_EQUAL(l.T, 3);
	CU_ASSERT_EQUAL(l.used, 2);
	CU_ASSERT_EQUAL(l.w[0], 12);
	CU_ASSERT_EQUAL(l.w[1], 23);
	mk_loads_free(&l);
}

static void
test_vllm(void)
{
	struct mk_loads l;
	struct mk_err e;

	CU_ASSERT_FATAL(read_loads("{\"load_history\": [{\"logical_expert_load"
	    "\": [[1, 2], [3, 4]]}, {\"logical_expert_load\": [[10, 20], [30, "
	    "40]]}]}", 0, 0, &l, &e) == 0);
	CU_ASSERT_EQUAL(l.L, 2);
	CU_ASSERT_EQUAL(l.T, 2);
	CU_ASSERT_EQUAL(l.w[3], 44);
	mk_loads_free(&l);
}

static void
test_dense_and_long(void)
{
	struct mk_loads l;
	struct mk_err e;

	CU_ASSERT_FATAL(read_loads("5\n6\n7\n", 0, 0, &l, &e) == 0);
	CU_ASSERT_EQUAL(l.L, 1);
	CU_ASSERT_EQUAL(l.E, 3);
	mk_loads_free(&l);
	CU_ASSERT_FATAL(read_loads("# name=log shape=3,1,2 dtype=i64\n1,2\n"
	    "3,4\n5,6\n", 2, 0, &l, &e) == 0);
	CU_ASSERT_EQUAL(l.w[0], 8);
	CU_ASSERT_EQUAL(l.w[1], 10);
	mk_loads_free(&l);
	/* long form: duplicates summed, missing cells zero */
	CU_ASSERT_FATAL(read_loads("layer,expert,load\n0,0,5\n1,2,7\n0,0,1\n",
	    0, 0, &l, &e) == 0);
	CU_ASSERT_EQUAL(l.L, 2);
	CU_ASSERT_EQUAL(l.E, 3);
	CU_ASSERT_EQUAL(l.w[0], 6);
	CU_ASSERT_EQUAL(l.w[5], 7);
	CU_ASSERT_EQUAL(l.w[1], 0);
	mk_loads_free(&l);
	/* with steps: the window counts distinct steps */
	CU_ASSERT_FATAL(read_loads("step,layer,expert,load\n7,0,0,1\n9,0,0,2\n"
	    "9,0,1,3\n8,0,1,100\n", 1, 0, &l, &e) == 0);
	CU_ASSERT_EQUAL(l.w[0], 2);
	CU_ASSERT_EQUAL(l.w[1], 3);
	mk_loads_free(&l);
}

static void
test_bad_loads(void)
{
	CU_ASSERT_PTR_NOT_NULL(strstr(fails("1,-2,3\n", 0, 0),
	    "mem: layer 0, expert 1: load -2 is negative"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fails("1,nan,3\n", 0, 0),
	    "is not a number"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fails("{\"logical_count\": [[1, 2], "
	    "[3]]}", 0, 0), "logical_count[1] has 1 elements, its siblings 2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fails("{\"logical_count\": [[1, \"x\"]]}",
	    0, 0), "logical_count[0][1] is not a number, as its siblings are"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fails("{\"loads\": [[1]]}", 0, 0),
	    "without \"logical_count\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(fails("{\"logical_count\": [[1, 2]",
	    0, 0), "mem:1:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fails("1,2\n", 3, 0),
	    "--window 3: mem has no step dimension"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fails("0,0\n0,0\n", 0, 1),
	    "every one of the 2 layers has zero load"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fails("layer,expert,load\n0,1.5,3\n", 0,
	    0), "expert 1.5 is not an integer"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fails("# name=a shape=1,1,1,1 "
	    "dtype=i64\n1\n", 0, 0), "expected [E], [L, E] or [T, L, E]"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fails("1\n# name=b shape=1 dtype=i64\n2\n",
	    0, 0), "more than one tensor"));
}

void
suite_loads(void)
{
	CU_pSuite s = CU_add_suite("loads", NULL, NULL);

	CU_add_test(s, "SGLang logical_count", test_sglang);
	CU_add_test(s, "vLLM/ADRS load_history", test_vllm);
	CU_add_test(s, "dense tensors and the long CSV form",
	    test_dense_and_long);
	CU_add_test(s, "bad loads", test_bad_loads);
}
