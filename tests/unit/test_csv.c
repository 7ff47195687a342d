/* test_csv.c - the CSV reader and writer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/half.h"
#include "util.h"

static void
test_plain_tables(void)
{
	struct mk_tensor t[4];
	struct mk_err e;

	CU_ASSERT_EQUAL_FATAL(read_str("1,2,3\n4,5,6\n", t, 4, &e), 1);
	CU_ASSERT_EQUAL(t[0].dtype, MK_I64);
	CU_ASSERT_EQUAL(t[0].ndim, 2);
	CU_ASSERT_EQUAL(t[0].shape[0], 2);
	CU_ASSERT_EQUAL(t[0].shape[1], 3);
	CU_ASSERT_EQUAL(((int64_t *)t[0].data)[5], 6);
	mk_tensor_free(&t[0]);

	/* one column is 1-D; a float anywhere makes it all f64 */
	CU_ASSERT_EQUAL_FATAL(read_str("1\n2.5\n-3\n", t, 4, &e), 1);
	CU_ASSERT_EQUAL(t[0].dtype, MK_F64);
	CU_ASSERT_EQUAL(t[0].ndim, 1);
	CU_ASSERT_EQUAL(((double *)t[0].data)[2], -3.0);
	mk_tensor_free(&t[0]);

	/* CRLF, blanks, comments, spaces, quotes, no final newline */
	CU_ASSERT_EQUAL_FATAL(read_str("# a comment\r\n\r\n 1 , \"2\"\r\n"
	    "   # indented comment\n3,4", t, 4, &e), 1);
	CU_ASSERT_EQUAL(t[0].shape[0], 2);
	CU_ASSERT_EQUAL(((int64_t *)t[0].data)[1], 2);
	CU_ASSERT_EQUAL(((int64_t *)t[0].data)[3], 4);
	mk_tensor_free(&t[0]);
}

/* What np.savetxt and pandas write. */
static void
test_numpy_pandas(void)
{
	struct mk_tensor t[2];
	struct mk_err e;

	CU_ASSERT_EQUAL_FATAL(read_str("# x,y\n"
	    "1.000000000000000000e+00,-2.500000000000000000e-01\n"
	    "nan,inf\n-inf,1.797693134862315708e+308\n", t, 2, &e), 1);
	CU_ASSERT_EQUAL(t[0].dtype, MK_F64);
	CU_ASSERT(isnan(((double *)t[0].data)[2]));
	CU_ASSERT(isinf(((double *)t[0].data)[3]));
	CU_ASSERT_EQUAL(((double *)t[0].data)[5], 1.797693134862315708e+308);
	mk_tensor_free(&t[0]);

	CU_ASSERT_EQUAL_FATAL(read_str("layer,expert,load\n0,0,10\n0,1,20\n"
	    "1,0,True\n", t, 2, &e), 1);
	CU_ASSERT_EQUAL(t[0].shape[0], 3);
	CU_ASSERT_EQUAL(t[0].ncols, 3);
	CU_ASSERT_STRING_EQUAL(t[0].cols[2], "load");
	CU_ASSERT_EQUAL(((int64_t *)t[0].data)[8], 1);
	mk_tensor_free(&t[0]);

	/* np.savetxt's default: blanks between fields, a header line */
	CU_ASSERT_EQUAL_FATAL(read_str("1.0e+00 -2.5e-01\n3 4\n", t, 2, &e),
	    1);
	CU_ASSERT_EQUAL(t[0].ndim, 2);
	CU_ASSERT_EQUAL(t[0].shape[1], 2);
	CU_ASSERT_EQUAL(((double *)t[0].data)[1], -0.25);
	mk_tensor_free(&t[0]);
	CU_ASSERT_EQUAL_FATAL(read_str("layer expert  load\n0\t0 10\n"
	    "0 1 20\n", t, 2, &e), 1);
	CU_ASSERT_EQUAL(t[0].ncols, 3);
	CU_ASSERT_STRING_EQUAL(t[0].cols[0], "layer");
	CU_ASSERT_STRING_EQUAL(t[0].cols[2], "load");
	CU_ASSERT_EQUAL(((int64_t *)t[0].data)[5], 20);
	mk_tensor_free(&t[0]);
	/* a byte order mark before a header and before numbers */
	CU_ASSERT_EQUAL_FATAL(read_str("\xef\xbb\xbf" "expert,load\n0,10\n", t,
	    2, &e), 1);
	CU_ASSERT_STRING_EQUAL(t[0].cols[0], "expert");
	mk_tensor_free(&t[0]);
	CU_ASSERT_EQUAL_FATAL(read_str("\xef\xbb\xbf" "7,8\n", t, 2, &e), 1);
	CU_ASSERT_EQUAL(t[0].ncols, 0);
	CU_ASSERT_EQUAL(((int64_t *)t[0].data)[0], 7);
	mk_tensor_free(&t[0]);
}

static void
test_tensor_lines(void)
{
	struct mk_tensor t[4];
	struct mk_err e;

	CU_ASSERT_EQUAL_FATAL(read_str(
	    "# name=log2phy shape=2,2,3 dtype=i64\n"
	    "0,1,-1\n2,-1,-1\n3,4,5\n6,-1,-1\n"
	    "# name=s shape= dtype=f32\n0.5\n"
	    "# name=flags shape=3 dtype=bool\n1\n0\ntrue\n"
	    "# name=empty shape=0,4 dtype=u8\n", t, 4, &e), 4);
	CU_ASSERT_STRING_EQUAL(t[0].name, "log2phy");
	CU_ASSERT_EQUAL(t[0].ndim, 3);
	CU_ASSERT_EQUAL(t[0].shape[2], 3);
	CU_ASSERT_EQUAL(((int64_t *)t[0].data)[9], 6);
	CU_ASSERT_EQUAL(t[1].ndim, 0);
	CU_ASSERT_EQUAL(t[1].dtype, MK_F32);
	CU_ASSERT_EQUAL(*(float *)t[1].data, 0.5f);
	CU_ASSERT_EQUAL(t[2].dtype, MK_BOOL);
	CU_ASSERT_EQUAL(((uint8_t *)t[2].data)[2], 1);
	CU_ASSERT_EQUAL(t[3].nelem, 0);
	CU_ASSERT_EQUAL(t[3].shape[1], 4);
	while (--t[0].ndim >= 0 && 0)
		;
	mk_tensor_free(&t[0]);
	mk_tensor_free(&t[1]);
	mk_tensor_free(&t[2]);
	mk_tensor_free(&t[3]);
}

/* Every bad input names the line, the field or value and the limit. */
static void
test_bad_csv(void)
{
	static const struct {
		const char	*in, *want;
	} bad[] = {
		{ "1,2\n3\n", "mem:2: expected 2 fields, got 1" },
		{ "1,2\n3,abc\n", "mem:2: field 2: 'abc' is not a number" },
		{ "a,b\n1\n", "mem:2: expected 2 fields as in the header row" },
		{ "", "mem: empty input" },
		{ "# only a comment\n\n", "mem: empty input" },
		{ "1\n0x10\n", "mem:2: field 1: '0x10' is not a number" },
		{ "1\n\"2\n", "unterminated quoted field" },
		{ "1,\"2\"x\n", "mem:1:" },
		{ "# name=a shape=2,2 dtype=i64\n1,2\n", "mem:1: tensor a has 2 "
		    "values, but its shape (2,2) needs 4" },
		{ "# name=a shape=4 dtype=i64\n1,2\n3,4\n", "has 2 columns" },
		{ "# name=a shape=2 dtype=u8\n1\n300\n",
		    "mem:3: field 1: 300 does not fit u8" },
		{ "# name=a shape=1 dtype=i32\n2.5\n", "2.5 does not fit i32" },
		{ "# name=a shape=1 dtype=bool\n2\n", "2 does not fit bool" },
		{ "# name=a shape=1 dtype=f128\n1\n", "unknown dtype 'f128'" },
		{ "# name=a shape=1,x\n1\n", "bad shape '1,x'" },
		{ "1,2\n,3\n", "mem:2: field 1: '' is not a number" },
	};
	size_t i;
	const char *m;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = read_fail(bad[i].in, strlen(bad[i].in));
		if (strstr(m, bad[i].want) == NULL)
			fprintf(stderr, "  input %zu: got '%s', want '%s'\n",
			    i, m, bad[i].want);
		CU_ASSERT_PTR_NOT_NULL(strstr(m, bad[i].want));
	}
}

static void
test_writer_text(void)
{
	struct mk_tensor t;
	struct mk_err e;
	int64_t shape[3] = { 2, 1, 3 };
	char *s;
	size_t len, i;

	mk_tensor_init(&t);
	CU_ASSERT_FATAL(mk_tensor_alloc(&t, MK_F32, 3, shape, &e) == 0);
	for (i = 0; i < 6; i++)
		((float *)t.data)[i] = (float)i / 4;
	((float *)t.data)[4] = NAN;
	((float *)t.data)[5] = -INFINITY;
	((float *)t.data)[1] = 0.1f;
	mk_tensor_set_name(&t, "my tensor");
	s = write_mem(&t, 1, &len);
	CU_ASSERT_STRING_EQUAL(s, "# name=my_tensor shape=2,1,3 dtype=f32\n"
	    "0,0.100000001,0.5\n0.75,nan,-inf\n");
	free(s);
	mk_tensor_free(&t);
}

/* Every f16 and bf16 value, and random f32/f64, read back identically. */
static void
test_float_roundtrip(void)
{
	static const enum mk_dtype dts[] = { MK_F16, MK_BF16, MK_F32, MK_F64 };
	struct mk_tensor t, u[1];
	struct mk_err e;
	struct rng r = { 4242 };
	int64_t shape[1] = { 65536 };
	size_t i, k, len, bad;
	char *s;

	for (k = 0; k < 4; k++) {
		mk_tensor_init(&t);
		CU_ASSERT_FATAL(mk_tensor_alloc(&t, dts[k], 1, shape, &e) == 0);
		for (i = 0; i < t.nelem; i++) {
			uint64_t x = rng_next(&r);
			if (dts[k] == MK_F16 || dts[k] == MK_BF16)
				((uint16_t *)t.data)[i] = (uint16_t)i;
			else if (dts[k] == MK_F32)
				memcpy((char *)t.data + 4 * i, &x, 4);
			else
				memcpy((char *)t.data + 8 * i, &x, 8);
		}
		s = write_mem(&t, 1, &len);
		CU_ASSERT_EQUAL_FATAL(read_all(s, len, 0, u, 1, &e), 1);
		CU_ASSERT_EQUAL(u[0].dtype, dts[k]);
		bad = 0;
		for (i = 0; i < t.nelem; i++) {
			double a = mk_tensor_get_f64(&t, i);
			double b = mk_tensor_get_f64(&u[0], i);
			if (!(a == b || (isnan(a) && isnan(b))) ||
			    (!isnan(a) && !signbit(a) != !signbit(b))) {
				if (bad++ < 3)
					fprintf(stderr, "  %s element %zu: "
					    "%.17g read back as %.17g\n",
					    mk_dtype_name(dts[k]), i, a, b);
			}
		}
		CU_ASSERT_EQUAL(bad, 0);
		mk_tensor_free(&u[0]);
		mk_tensor_free(&t);
		free(s);
	}
}

static void
test_big_integers(void)
{
	struct mk_tensor t[1];
	struct mk_err e;

	CU_ASSERT_EQUAL_FATAL(read_str("# name=u shape=2 dtype=u64\n"
	    "18446744073709551615\n0\n", t, 1, &e), 1);
	CU_ASSERT_EQUAL(((uint64_t *)t[0].data)[0], UINT64_MAX);
	mk_tensor_free(&t[0]);
	CU_ASSERT_EQUAL_FATAL(read_str("-9223372036854775808\n"
	    "9223372036854775807\n", t, 1, &e), 1);
	CU_ASSERT_EQUAL(t[0].dtype, MK_I64);
	CU_ASSERT_EQUAL(((int64_t *)t[0].data)[0], INT64_MIN);
	mk_tensor_free(&t[0]);
	/* beyond int64 without a dtype: read as a float */
	CU_ASSERT_EQUAL_FATAL(read_str("1\n99999999999999999999\n", t, 1, &e),
	    1);
	CU_ASSERT_EQUAL(t[0].dtype, MK_F64);
	mk_tensor_free(&t[0]);
}

/*
 * Regression: value storage was sized in elements of the first tensor, so
 * a stream of a 1-byte tensor then a wider one overflowed it.
 */
static void
test_stream_widening(void)
{
	struct mk_tensor t[2];
	struct mk_err e;
	char *s = malloc(60000), *p = s;
	int i;

	p += sprintf(p, "# name=a shape=3000 dtype=u8\n");
	for (i = 0; i < 3000; i++)
		p += sprintf(p, "%d\n", i % 256);
	p += sprintf(p, "# name=b shape=3000 dtype=f64\n");
	for (i = 0; i < 3000; i++)
		p += sprintf(p, "%d.5\n", i);
	CU_ASSERT_EQUAL_FATAL(read_str(s, t, 2, &e), 2);
	CU_ASSERT_EQUAL(((uint8_t *)t[0].data)[2999], 2999 % 256);
	CU_ASSERT_EQUAL(((double *)t[1].data)[2999], 2999.5);
	mk_tensor_free(&t[0]);
	mk_tensor_free(&t[1]);
	free(s);
}

void
suite_csv(void)
{
	CU_pSuite s = CU_add_suite("csv", NULL, NULL);

	CU_add_test(s, "plain tables", test_plain_tables);
	CU_add_test(s, "np.savetxt and pandas output", test_numpy_pandas);
	CU_add_test(s, "tensor lines", test_tensor_lines);
	CU_add_test(s, "bad CSV", test_bad_csv);
	CU_add_test(s, "writer text", test_writer_text);
	CU_add_test(s, "float round trip", test_float_roundtrip);
	CU_add_test(s, "big integers", test_big_integers);
	CU_add_test(s, "narrow then wide tensors", test_stream_widening);
}
