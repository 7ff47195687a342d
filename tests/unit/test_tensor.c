/* test_tensor.c - shapes, storage and dtype conversion. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/half.h"
#include "util.h"

static void
test_nelem(void)
{
	int64_t s1[] = { 2, 3, 4 }, s2[] = { 0, (int64_t)1 << 62 },
	    s3[] = { (int64_t)1 << 31, (int64_t)1 << 31, 4 }, s4[] = { -1 };

	CU_ASSERT_EQUAL(mk_shape_nelem(3, s1, 4), 24);
	CU_ASSERT_EQUAL(mk_shape_nelem(0, s1, 4), 1);
	CU_ASSERT_EQUAL(mk_shape_nelem(2, s2, 8), 0);
	CU_ASSERT_EQUAL(mk_shape_nelem(3, s3, 8), -1);
	CU_ASSERT_EQUAL(mk_shape_nelem(1, s4, 1), -1);
}

static void
test_alloc(void)
{
	struct mk_tensor t;
	struct mk_err e;
	int64_t big[] = { (int64_t)1 << 40, (int64_t)1 << 30 };
	int64_t ok[] = { 3, 5 };

	mk_tensor_init(&t);
	CU_ASSERT_EQUAL(mk_tensor_alloc(&t, MK_F64, 2, big, &e), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "too large"));
	CU_ASSERT_EQUAL(mk_tensor_alloc(&t, MK_I16, 2, ok, &e), 0);
	CU_ASSERT_EQUAL(t.nelem, 15);
	CU_ASSERT_EQUAL(mk_tensor_nbytes(&t), 30);
	CU_ASSERT_EQUAL((uintptr_t)t.data % 64, 0);
	CU_ASSERT_EQUAL(((int16_t *)t.data)[14], 0);
	mk_tensor_free(&t);
	CU_ASSERT_PTR_NULL(t.data);
}

/* Make a 1-D tensor of dtype dt from doubles. */
static void
make(struct mk_tensor *t, enum mk_dtype dt, const double *v, size_t n)
{
	struct mk_value x = { MK_KIND_FLOAT, 0, 0, 0 };
	struct mk_err e;
	int64_t shape[1] = { (int64_t)n };
	size_t i;

	mk_tensor_init(t);
	CU_ASSERT_FATAL(mk_tensor_alloc(t, dt, 1, shape, &e) == 0);
	for (i = 0; i < n; i++) {
		x.f = v[i];
		CU_ASSERT(mk_value_store(t->data, dt, i, x) == 0);
	}
}

static void
test_convert_exact(void)
{
	static const double v[] = { 0, 1, -2, 127, -128, 3e9 };
	struct mk_tensor a, b;
	struct mk_err e;
	int dt;

	make(&a, MK_F64, v, 6);
	mk_tensor_init(&b);
	/* Every type that holds all values gets them exactly. */
	for (dt = 0; dt < MK_NDTYPE; dt++) {
		int r = mk_tensor_convert(&b, &a, (enum mk_dtype)dt, "t", &e);
		int fits = dt == MK_I64 || dt == MK_F64 || dt == MK_F32 ||
		    dt == MK_BF16;
		if (dt == MK_F16 || dt == MK_BF16 || dt == MK_F32) {
			CU_ASSERT_EQUAL(r, 0);	/* floats round, never fail */
			continue;
		}
		CU_ASSERT_EQUAL(r, fits ? 0 : -1);
		if (r == 0) {
			CU_ASSERT_EQUAL(mk_tensor_get_f64(&b, 5), 3e9);
			CU_ASSERT_EQUAL(mk_tensor_get_i64(&b, 2), -2);
		} else {
			CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "does not fit"));
		}
	}
	mk_tensor_free(&a);
	mk_tensor_free(&b);
}

static void
test_convert_refuses(void)
{
	static const double frac[] = { 1, 2.5 }, nan1[] = { NAN },
	    two[] = { 0, 1, 2 }, big[] = { 1.8446744073709552e19 };
	struct mk_tensor a, b;
	struct mk_err e;

	mk_tensor_init(&b);
	make(&a, MK_F32, frac, 2);
	CU_ASSERT_EQUAL(mk_tensor_convert(&b, &a, MK_I32, "stdin: tensor 0",
	    &e), -1);
	CU_ASSERT_STRING_EQUAL(e.msg, "stdin: tensor 0: element 1: value 2.5 "
	    "does not fit i32");
	mk_tensor_free(&a);
	make(&a, MK_F64, nan1, 1);
	CU_ASSERT_EQUAL(mk_tensor_convert(&b, &a, MK_I64, "t", &e), -1);
	mk_tensor_free(&a);
	make(&a, MK_I64, two, 3);
	CU_ASSERT_EQUAL(mk_tensor_convert(&b, &a, MK_BOOL, "t", &e), -1);
	CU_ASSERT_EQUAL(mk_tensor_convert(&b, &a, MK_U8, "t", &e), 0);
	mk_tensor_free(&a);
	make(&a, MK_F64, big, 1);
	CU_ASSERT_EQUAL(mk_tensor_convert(&b, &a, MK_U64, "t", &e), -1);
	mk_tensor_free(&a);
	mk_tensor_free(&b);
}

/* u64 above INT64_MAX and i64 below survive the round trip through i64/u64. */
static void
test_convert_wide_ints(void)
{
	struct mk_tensor a, b;
	struct mk_err e;
	int64_t shape[1] = { 2 };

	mk_tensor_init(&a);
	mk_tensor_init(&b);
	CU_ASSERT_FATAL(mk_tensor_alloc(&a, MK_U64, 1, shape, &e) == 0);
	((uint64_t *)a.data)[0] = UINT64_MAX;
	((uint64_t *)a.data)[1] = 5;
	CU_ASSERT_EQUAL(mk_tensor_convert(&b, &a, MK_I64, "t", &e), -1);
	((uint64_t *)a.data)[0] = (uint64_t)INT64_MAX;
	CU_ASSERT_EQUAL(mk_tensor_convert(&b, &a, MK_I64, "t", &e), 0);
	CU_ASSERT_EQUAL(((int64_t *)b.data)[0], INT64_MAX);
	CU_ASSERT_EQUAL(mk_tensor_convert(&b, &a, MK_F32, "t", &e), 0);
	CU_ASSERT_EQUAL(((float *)b.data)[0], 9.223372e18f);
	mk_tensor_free(&a);
	mk_tensor_free(&b);
}

/* f16 <-> f32 through the kernel path agrees with the scalar reference. */
static void
test_convert_half(void)
{
	struct mk_tensor a, b, c;
	struct mk_err e;
	struct rng r = { 7 };
	int64_t shape[1] = { 1001 };
	size_t i, bad = 0;

	mk_tensor_init(&a);
	mk_tensor_init(&b);
	mk_tensor_init(&c);
	CU_ASSERT_FATAL(mk_tensor_alloc(&a, MK_F32, 1, shape, &e) == 0);
	for (i = 0; i < a.nelem; i++)
		((float *)a.data)[i] = (float)((rng_unit(&r) - 0.5) * 1e5);
	CU_ASSERT_FATAL(mk_tensor_convert(&b, &a, MK_F16, "t", &e) == 0);
	CU_ASSERT_FATAL(mk_tensor_convert(&c, &b, MK_F32, "t", &e) == 0);
	for (i = 0; i < a.nelem; i++) {
		float x = ((float *)a.data)[i];
		if (((uint16_t *)b.data)[i] != mk_f32_to_f16(x) ||
		    ((float *)c.data)[i] != mk_f16_to_f32(mk_f32_to_f16(x)))
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_FATAL(mk_tensor_convert(&b, &a, MK_BF16, "t", &e) == 0);
	CU_ASSERT_FATAL(mk_tensor_convert(&c, &b, MK_F64, "t", &e) == 0);
	for (i = 0; i < a.nelem; i++)
		if (((double *)c.data)[i] !=
		    mk_bf16_to_f32(mk_f32_to_bf16(((float *)a.data)[i])))
			bad++;
	CU_ASSERT_EQUAL(bad, 0);
	mk_tensor_free(&a);
	mk_tensor_free(&b);
	mk_tensor_free(&c);
}

static void
test_dtype_table(void)
{
	int big, d;

	CU_ASSERT_EQUAL(mk_dtype_parse("f32"), MK_F32);
	CU_ASSERT_EQUAL(mk_dtype_parse("float64"), MK_F64);
	CU_ASSERT_EQUAL(mk_dtype_parse("bfloat16"), MK_BF16);
	CU_ASSERT_EQUAL(mk_dtype_parse("f128"), -1);
	CU_ASSERT_EQUAL(mk_dtype_from_descr(">i8", &big), MK_I64);
	CU_ASSERT_EQUAL(big, 1);
	CU_ASSERT_EQUAL(mk_dtype_from_descr("|b1", &big), MK_BOOL);
	CU_ASSERT_EQUAL(big, 0);
	CU_ASSERT_EQUAL(mk_dtype_from_descr(">u1", &big), MK_U8);
	CU_ASSERT_EQUAL(big, 0);
	CU_ASSERT_EQUAL(mk_dtype_from_descr("|f4", &big), -1);
	CU_ASSERT_EQUAL(mk_dtype_from_descr("<c8", &big), -1);
	CU_ASSERT_EQUAL(mk_dtype_from_descr("<U10", &big), -1);
	CU_ASSERT_STRING_EQUAL(mk_dtype_descr(MK_BF16), "<u2");
	for (d = 0; d < MK_NDTYPE; d++)
		CU_ASSERT_EQUAL(mk_dtype_parse(mk_dtype_name((enum mk_dtype)d)),
		    d);
}

/* A choice from the environment: unset, each word, anything else. */
static void
test_env_word(void)
{
	static const char *const w[] = { "low", "mid", "high", NULL };
	struct mk_err e;

	unsetenv("MK_TEST_WORD");
	CU_ASSERT_EQUAL(mk_env_word("MK_TEST_WORD", w, &e), 0);
	setenv("MK_TEST_WORD", "", 1);
	CU_ASSERT_EQUAL(mk_env_word("MK_TEST_WORD", w, &e), 0);
	setenv("MK_TEST_WORD", "mid", 1);
	CU_ASSERT_EQUAL(mk_env_word("MK_TEST_WORD", w, &e), 2);
	setenv("MK_TEST_WORD", "hi", 1);
	CU_ASSERT_EQUAL(mk_env_word("MK_TEST_WORD", w, &e), -1);
	CU_ASSERT_EQUAL(e.status, MK_EXIT_USAGE);
	CU_ASSERT_STRING_EQUAL(e.msg, "MK_TEST_WORD=hi: low, mid or high");
	unsetenv("MK_TEST_WORD");
}

void
suite_tensor(void)
{
	CU_pSuite s = CU_add_suite("tensor", NULL, NULL);

	CU_add_test(s, "shape element counts and overflow", test_nelem);
	CU_add_test(s, "allocation", test_alloc);
	CU_add_test(s, "exact conversions", test_convert_exact);
	CU_add_test(s, "lossy conversions are refused", test_convert_refuses);
	CU_add_test(s, "wide integers", test_convert_wide_ints);
	CU_add_test(s, "f16/bf16 through the kernels", test_convert_half);
	CU_add_test(s, "dtype table", test_dtype_table);
	CU_add_test(s, "a choice from the environment", test_env_word);
}
