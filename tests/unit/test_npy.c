/* test_npy.c - the NPY reader and writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simd/kern.h"
#include "simd/crc32.h"
#include "tensor/npzw.h"
#include "util.h"

/*
 * Build an NPY array in buf: magic, version major.0, the dict padded with
 * spaces and a newline to a multiple of 64, then plen payload bytes.
 * Returns the total length.
 */
static size_t
npy(unsigned char *buf, int major, const char *dict, const void *pay,
    size_t plen)
{
	size_t pre = major == 1 ? 10 : 12, dl = strlen(dict), hl;

	hl = (pre + dl + 1 + 63) / 64 * 64 - pre;
	memcpy(buf, "\x93NUMPY", 6);
	buf[6] = (unsigned char)major;
	buf[7] = 0;
	buf[8] = (unsigned char)(hl & 0xff);
	buf[9] = (unsigned char)(hl >> 8);
	if (major != 1) {
		buf[10] = 0;
		buf[11] = 0;
	}
	memcpy(buf + pre, dict, dl);
	memset(buf + pre + dl, ' ', hl - dl - 1);
	buf[pre + hl - 1] = '\n';
	if (plen)
		memcpy(buf + pre + hl, pay, plen);
	return pre + hl + plen;
}

static void
test_versions(void)
{
	unsigned char buf[512];
	float v[6] = { 0, 1, 2, 3, 4, 5 };
	struct mk_tensor t[2];
	struct mk_err e;
	size_t n;
	int major;

	for (major = 1; major <= 3; major++) {
		n = npy(buf, major, "{'descr': '<f4', 'fortran_order': False, "
		    "'shape': (2, 3), }", v, sizeof(v));
		CU_ASSERT_EQUAL_FATAL(read_all(buf, n, 0, t, 2, &e), 1);
		CU_ASSERT_EQUAL(t[0].dtype, MK_F32);
		CU_ASSERT_EQUAL(t[0].ndim, 2);
		CU_ASSERT_EQUAL(t[0].shape[0], 2);
		CU_ASSERT_EQUAL(t[0].shape[1], 3);
		CU_ASSERT_EQUAL(((float *)t[0].data)[5], 5.0f);
		CU_ASSERT_PTR_NULL(t[0].name);
		mk_tensor_free(&t[0]);
	}
}

/* Key order, quotes, spacing and trailing commas Python allows. */
static void
test_dict_forms(void)
{
	static const char *ok[] = {
		"{'shape': (3,), 'fortran_order': False, 'descr': '<i8'}",
		"{\"descr\": \"<i8\", \"fortran_order\": False, \"shape\": (3,)}",
		"{'descr':'<i8','fortran_order':False,'shape':(3 , ) , }",
		"{ 'descr' : '<i8' , 'fortran_order' : False , 'shape' : ( 3, ) }",
	};
	int64_t v[3] = { 7, -8, 9 };
	unsigned char buf[512];
	struct mk_tensor t[1];
	struct mk_err e;
	size_t i, n;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		n = npy(buf, 1, ok[i], v, sizeof(v));
		CU_ASSERT_EQUAL_FATAL(read_all(buf, n, 3, t, 1, &e), 1);
		CU_ASSERT_EQUAL(t[0].dtype, MK_I64);
		CU_ASSERT_EQUAL(t[0].shape[0], 3);
		CU_ASSERT_EQUAL(((int64_t *)t[0].data)[1], -8);
		mk_tensor_free(&t[0]);
	}
}

/* Each malformed header gives one line naming the problem. */
static void
test_bad_headers(void)
{
	static const struct {
		const char	*dict, *want;
	} bad[] = {
		{ "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
		    "unsupported dtype '<c8'" },
		{ "{'descr': [('a', '<f4')], 'fortran_order': False, "
		    "'shape': (1,), }", "structured" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (5), }",
		    "is not a tuple" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }",
		    "expected a dimension" },
		{ "{'descr': '<f4', 'fortran_order': False, }",
		    "missing key 'shape'" },
		{ "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
		    "'shape': (1,), }", "appears twice" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), "
		    "'extra': 1}", "unexpected key 'extra'" },
		{ "{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }",
		    "expected True or False" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } x",
		    "only padding" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': "
		    "(4611686018427387904, 4611686018427387904), }",
		    "too large" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': "
		    "(99999999999999999999,), }", "larger than" },
		{ "{'descr': '<f4\\'', 'fortran_order': False, 'shape': (1,)}",
		    "plain string" },
		{ "['descr', '<f4']", "expected '{'" },
	};
	unsigned char buf[512];
	const char *m;
	size_t i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = npy(buf, 1, bad[i].dict, "\0\0\0\0", 4);
		m = read_fail((const char *)buf, n);
		if (strstr(m, bad[i].want) == NULL)
			fprintf(stderr, "  got '%s', want '%s'\n", m,
			    bad[i].want);
		CU_ASSERT_PTR_NOT_NULL(strstr(m, bad[i].want));
		CU_ASSERT_PTR_NOT_NULL(strstr(m, "mem: array 0 at byte 0: "));
	}
	/* More than 32 dimensions. */
	{
		char d[512] = "{'descr': '<f4', 'fortran_order': False, "
		    "'shape': (";
		for (i = 0; i < 33; i++)
			strcat(d, "1, ");
		strcat(d, "), }");
		n = npy(buf, 1, d, "\0\0\0\0", 4);
		CU_ASSERT_PTR_NOT_NULL(strstr(read_fail((const char *)buf, n),
		    "more than 32 dimensions"));
	}
}

static void
test_bad_framing(void)
{
	unsigned char buf[512];
	float v[4] = { 1, 2, 3, 4 };
	size_t n;

	/* wrong magic, unknown version, truncated preamble and header */
	CU_ASSERT_PTR_NOT_NULL(strstr(read_fail("\x93NUMPZ\x01\x00\x10\x00",
	    10), "expected magic"));
	n = npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': "
	    "(4,), }", v, sizeof(v));
	buf[6] = 4;
	CU_ASSERT_PTR_NOT_NULL(strstr(read_fail((char *)buf, n),
	    "unsupported NPY version 4.0"));
	buf[6] = 1;
	CU_ASSERT_PTR_NOT_NULL(strstr(read_fail((char *)buf, 7),
	    "truncated NPY preamble"));
	CU_ASSERT_PTR_NOT_NULL(strstr(read_fail((char *)buf, 40),
	    "truncated header (40 of 128 bytes)"));
	/* data shorter than the header says */
	CU_ASSERT_PTR_NOT_NULL(strstr(read_fail((char *)buf, n - 3),
	    "data ends after 13 of 16 bytes"));
	/* trailing garbage after a good array */
	memcpy(buf + n, "junk", 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(read_fail((char *)buf, n + 4),
	    "array 1 at byte 144: not an NPY array"));
	/* a v2 header length beyond the limit */
	n = npy(buf, 2, "{'descr': '<f4', 'fortran_order': False, 'shape': "
	    "(4,), }", v, sizeof(v));
	buf[10] = 0xff;
	buf[11] = 0x7f;
	CU_ASSERT_PTR_NOT_NULL(strstr(read_fail((char *)buf, n),
	    "exceeds the limit"));
}

/* A huge claimed payload on a pipe: error after the real bytes, no giant
 * allocation up front (the buffer grows with the data). */
static void
test_huge_claim_on_pipe(void)
{
	unsigned char buf[512];
	struct mk_tensor t[1];
	struct mk_err e;
	size_t n;

	n = npy(buf, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': "
	    "(1000000000000,), }", "12345678", 8);
	CU_ASSERT_EQUAL(read_all(buf, n, 7, t, 1, &e), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg,
	    "data ends after 8 of 8000000000000 bytes"));
}

static void
test_big_endian_and_fortran(void)
{
	unsigned char buf[1024], pay[256];
	struct mk_tensor t[1];
	struct mk_err e;
	double d = 1.5;
	size_t n, i;
	int a, b, c;

	/* >f8 1.5 and >i2 -2 */
	for (i = 0; i < 8; i++)
		pay[i] = ((unsigned char *)&d)[7 - i];
	n = npy(buf, 1, "{'descr': '>f8', 'fortran_order': False, 'shape': "
	    "(), }", pay, 8);
	CU_ASSERT_EQUAL_FATAL(read_all(buf, n, 0, t, 1, &e), 1);
	CU_ASSERT_EQUAL(t[0].ndim, 0);
	CU_ASSERT_EQUAL(*(double *)t[0].data, 1.5);
	mk_tensor_free(&t[0]);
	pay[0] = 0xff;
	pay[1] = 0xfe;
	n = npy(buf, 1, "{'descr': '>i2', 'fortran_order': False, 'shape': "
	    "(1,), }", pay, 2);
	CU_ASSERT_EQUAL_FATAL(read_all(buf, n, 0, t, 1, &e), 1);
	CU_ASSERT_EQUAL(*(int16_t *)t[0].data, -2);
	mk_tensor_free(&t[0]);

	/* Fortran order, shape (2, 3, 4): element (a,b,c) at a + 2b + 6c. */
	for (a = 0; a < 2; a++)
		for (b = 0; b < 3; b++)
			for (c = 0; c < 4; c++)
				pay[a + 2 * b + 6 * c] =
				    (unsigned char)(100 * a + 10 * b + c);
	n = npy(buf, 1, "{'descr': '|u1', 'fortran_order': True, 'shape': "
	    "(2, 3, 4), }", pay, 24);
	CU_ASSERT_EQUAL_FATAL(read_all(buf, n, 5, t, 1, &e), 1);
	for (a = 0; a < 2; a++)
		for (b = 0; b < 3; b++)
			for (c = 0; c < 4; c++)
				CU_ASSERT_EQUAL(((unsigned char *)t[0].data)
				    [12 * a + 4 * b + c], 100 * a + 10 * b + c);
	mk_tensor_free(&t[0]);
}

/* Exactly NumPy's v1 dict text and 64-byte padding. */
static void
test_writer_header(void)
{
	char h[512];
	int64_t s23[] = { 2, 3 }, s5[] = { 5 };
	const char *d;
	size_t n, i;

	/* 10 + 60 + 1 bytes round up to 128: length field 118 */
	n = mk_npy_format_header(h, sizeof(h), MK_F32, 2, s23);
	CU_ASSERT_EQUAL(n, 128);
	CU_ASSERT_EQUAL(memcmp(h, "\x93NUMPY\x01\x00\x76\x00", 10), 0);
	d = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
	CU_ASSERT_EQUAL(memcmp(h + 10, d, strlen(d)), 0);
	for (i = 10 + strlen(d); i < 127; i++)
		CU_ASSERT_EQUAL(h[i], ' ');
	CU_ASSERT_EQUAL(h[127], '\n');
	n = mk_npy_format_header(h, sizeof(h), MK_BOOL, 1, s5);
	CU_ASSERT_EQUAL(n, 128);
	CU_ASSERT_PTR_NOT_NULL(memmem(h, n, "'descr': '|b1'", 14));
	CU_ASSERT_PTR_NOT_NULL(memmem(h, n, "'shape': (5,), }", 16));
	n = mk_npy_format_header(h, sizeof(h), MK_I64, 0, s5);
	CU_ASSERT_PTR_NOT_NULL(memmem(h, n, "'shape': (), }", 14));
	CU_ASSERT_EQUAL(n, 128);
}

/* Every dtype through write -> read, in one stream, mapped and dripped. */
static void
test_roundtrip_stream(void)
{
	struct mk_tensor in[MK_NDTYPE], out[MK_NDTYPE + 1];
	struct rng r = { 99 };
	struct mk_err e;
	char *cat = NULL, *one;
	size_t clen = 0, len, i, drips[] = { 0, 1, 13, 4096 }, k;
	int64_t shape[3] = { 3, 1, 5 };
	int d;

	for (d = 0; d < MK_NDTYPE; d++) {
		mk_tensor_init(&in[d]);
		/* odd sizes so later arrays start misaligned in the stream */
		shape[1] = d % 3 + 1;
		CU_ASSERT_FATAL(mk_tensor_alloc(&in[d], (enum mk_dtype)d, 3,
		    shape, &e) == 0);
		for (i = 0; i < mk_tensor_nbytes(&in[d]); i++)
			((unsigned char *)in[d].data)[i] =
			    (unsigned char)rng_next(&r);
		if (d == MK_BOOL)
			for (i = 0; i < in[d].nelem; i++)
				((unsigned char *)in[d].data)[i] &= 1;
		one = write_mem(&in[d], 0, &len);
		cat = realloc(cat, clen + len);
		memcpy(cat + clen, one, len);
		clen += len;
		free(one);
	}
	for (k = 0; k < sizeof(drips) / sizeof(drips[0]); k++) {
		CU_ASSERT_EQUAL_FATAL(read_all(cat, clen, drips[k], out,
		    MK_NDTYPE + 1, &e), MK_NDTYPE);
		for (d = 0; d < MK_NDTYPE; d++) {
			/* bf16 comes back as its <u2 bits */
			CU_ASSERT_EQUAL(out[d].dtype, d == MK_BF16 ? MK_U16 :
			    (enum mk_dtype)d);
			CU_ASSERT_EQUAL(out[d].shape[1], in[d].shape[1]);
			CU_ASSERT_EQUAL((uintptr_t)out[d].data %
			    mk_dtype_size(out[d].dtype), 0);
			CU_ASSERT_EQUAL(memcmp(out[d].data, in[d].data,
			    mk_tensor_nbytes(&in[d])), 0);
			mk_tensor_free(&out[d]);
		}
	}
	for (d = 0; d < MK_NDTYPE; d++)
		mk_tensor_free(&in[d]);
	free(cat);
}

/* A regular file is mapped: the tensor points into the mapping. */
static void
test_mapped_file(void)
{
	char path[] = "/tmp/moekit-test-XXXXXX", *buf;
	struct mk_tensor t, u;
	struct mk_src *s;
	struct mk_err e;
	int64_t shape[1] = { 100000 };
	size_t len, i;
	FILE *fp;
	int fd;

	mk_tensor_init(&t);
	mk_tensor_init(&u);
	CU_ASSERT_FATAL(mk_tensor_alloc(&t, MK_F32, 1, shape, &e) == 0);
	for (i = 0; i < t.nelem; i++)
		((float *)t.data)[i] = (float)i * 0.5f;
	buf = write_mem(&t, 0, &len);
	CU_ASSERT_FATAL((fd = mkstemp(path)) >= 0);
	fp = fdopen(fd, "w");
	fwrite(buf, 1, len, fp);
	fclose(fp);
	CU_ASSERT_FATAL((s = mk_src_open(path, &e)) != NULL);
	CU_ASSERT_EQUAL(mk_src_next(s, &u, &e), 1);
	CU_ASSERT_PTR_NOT_NULL(u.buf);
	CU_ASSERT_EQUAL(u.buf->mapped, 1);
	mk_src_close(s);	/* the tensor keeps the mapping alive */
	CU_ASSERT_EQUAL(((float *)u.data)[99999], 49999.5f);
	CU_ASSERT_EQUAL(memcmp(u.data, t.data, mk_tensor_nbytes(&t)), 0);
	mk_tensor_free(&u);
	mk_tensor_free(&t);
	unlink(path);
	free(buf);
}

/*
 * .npz written as a stream and read back by the stream reader (libzip):
 * names, dtypes, shapes and bytes survive; zip's CRC-32 check value.
 */
/* The bit-at-a-time CRC-32 of zip, the reference for mk_crc32. */
static uint32_t
crc_bits(uint32_t crc, const unsigned char *p, size_t n)
{
	int k;

	crc = ~crc;
	while (n--)
		for (crc ^= *p++, k = 0; k < 8; k++)
			crc = crc & 1 ? 0xedb88320u ^ (crc >> 1) : crc >> 1;
	return ~crc;
}

/*
 * Every kernel row's CRC-32 against it: fresh random bytes, lengths
 * (below and far above the 128 bytes where folding starts), alignments,
 * start values and splits.
 */
static void
crc_random(void)
{
	enum { MAX = 1 << 16 };
	unsigned char *buf;
	struct mk_kern row;
	struct rng rng = { test_seed() };
	size_t i, n, off, cut;
	uint32_t start, want;
	int isa, round, bad = 0;

	CU_ASSERT_FATAL((buf = malloc(MAX + 64)) != NULL);
	for (i = 0; i < MAX + 64; i++)
		buf[i] = (unsigned char)(rng_next(&rng) >> 24);
	for (isa = 0; isa < MK_NISA; isa++) {
		if (!mk_isa_supported((enum mk_isa)isa))
			continue;
		mk_kern_build((enum mk_isa)isa, &row);
		for (round = 0; round < 300; round++) {
			off = rng_next(&rng) % 64;
			n = rng_next(&rng) % (round % 3 ? 1024 : MAX);
			cut = n ? rng_next(&rng) % n : 0;
			start = (uint32_t)rng_next(&rng);
			want = crc_bits(start, buf + off, n);
			bad += row.crc32(start, buf + off, n) != want;
			bad += row.crc32(row.crc32(start, buf + off, cut), buf +
			    off + cut, n - cut) != want;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(buf);
}

static void
test_npz_roundtrip(void)
{
	static const int64_t sh1[2] = { 2, 3 }, sh2[1] = { 5 };
	int64_t a[6] = { 1, -2, 3, 1LL << 40, 5, -6 };
	float b[5] = { 0.5f, -1.25f, 3e30f, 0, -0.0f };
	char hdr[512], *buf = NULL;
	struct mk_npzw z = { 0 };
	struct mk_tensor t;
	struct mk_src *s;
	struct mk_err e;
	size_t len = 0, hl;
	FILE *fp;

	CU_ASSERT_EQUAL(mk_crc32(0, "123456789", 9), 0xcbf43926u);
	crc_random();
	CU_ASSERT_EQUAL(mk_crc32(mk_crc32(0, "1234", 4), "56789", 5),
	    0xcbf43926u);
	CU_ASSERT_FATAL((fp = open_memstream(&buf, &len)) != NULL);
	hl = mk_npy_format_header(hdr, sizeof(hdr), MK_I64, 2, sh1);
	CU_ASSERT(mk_npzw_begin(&z, fp, "phy2log", &e) == 0 &&
	    mk_npzw_data(&z, fp, hdr, hl, &e) == 0 &&
	    mk_npzw_data(&z, fp, a, sizeof(a), &e) == 0 &&
	    mk_npzw_end(&z, fp, &e) == 0);
	CU_ASSERT(mk_npzw_has(&z, "phy2log") && !mk_npzw_has(&z, "phy2"));
	hl = mk_npy_format_header(hdr, sizeof(hdr), MK_F32, 1, sh2);
	CU_ASSERT(mk_npzw_begin(&z, fp, "w", &e) == 0 &&
	    mk_npzw_data(&z, fp, hdr, hl, &e) == 0 &&
	    mk_npzw_data(&z, fp, b, 8, &e) == 0 &&
	    mk_npzw_data(&z, fp, (char *)b + 8, sizeof(b) - 8, &e) == 0 &&
	    mk_npzw_end(&z, fp, &e) == 0);
	CU_ASSERT(mk_npzw_finish(&z, fp, &e) == 0);
	fclose(fp);
	CU_ASSERT_EQUAL(memcmp(buf, "PK\x03\x04", 4), 0);
	CU_ASSERT_FATAL((s = mk_src_mem(buf, len, "x.npz", 7)) != NULL);
	mk_tensor_init(&t);
	CU_ASSERT_EQUAL_FATAL(mk_src_next(s, &t, &e), 1);
	CU_ASSERT_STRING_EQUAL(t.name, "phy2log");
	CU_ASSERT(t.dtype == MK_I64 && t.ndim == 2 && t.shape[1] == 3 &&
	    memcmp(t.data, a, sizeof(a)) == 0);
	CU_ASSERT_EQUAL_FATAL(mk_src_next(s, &t, &e), 1);
	CU_ASSERT_STRING_EQUAL(t.name, "w");
	CU_ASSERT(t.dtype == MK_F32 && t.nelem == 5 &&
	    memcmp(t.data, b, sizeof(b)) == 0);
	CU_ASSERT_EQUAL(mk_src_next(s, &t, &e), 0);
	mk_tensor_free(&t);
	mk_src_close(s);
	/* a damaged member: its CRC no longer matches */
	buf[len / 4] ^= 0x40;
	s = mk_src_mem(buf, len, "bad.npz", 0);
	mk_tensor_init(&t);
	CU_ASSERT_EQUAL(mk_src_next(s, &t, &e), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "bad.npz"));
	mk_tensor_free(&t);
	mk_src_close(s);
	free(buf);
}

void
suite_npy(void)
{
	CU_pSuite s = CU_add_suite("npy", NULL, NULL);

	CU_add_test(s, "versions 1.0, 2.0, 3.0", test_versions);
	CU_add_test(s, "dict forms Python allows", test_dict_forms);
	CU_add_test(s, "malformed headers", test_bad_headers);
	CU_add_test(s, ".npz written and read back", test_npz_roundtrip);
	CU_add_test(s, "bad framing and truncation", test_bad_framing);
	CU_add_test(s, "huge claimed size on a pipe", test_huge_claim_on_pipe);
	CU_add_test(s, "big-endian and Fortran order",
	    test_big_endian_and_fortran);
	CU_add_test(s, "writer header", test_writer_header);
	CU_add_test(s, "stream round trip, all dtypes", test_roundtrip_stream);
	CU_add_test(s, "mapped file", test_mapped_file);
}
