/*
 * test_mdec_populate.c - a cache mapped from a file gets the pages its
 * attention reads mapped in, and not the rest: the positions past each
 * row's valid length and the blocks no table names stay out.
 *
 * Which pages are mapped is read from /proc/self/pagemap (bit 63:
 * present).  A fault maps a page's neighbours too (fault-around, whole
 * folios), so the pages that must stay out lie 2 MiB-aligned away from
 * any page read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mdec/mdec.h"
#include "util.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22	/* Linux 5.14; older headers */
#endif

#define MIB	((size_t)1 << 20)
#define PG	((size_t)4096)

/* A sparse file of n bytes, mapped read-only; its path is unlinked. */
static char *
sparse_map(size_t n)
{
	char path[] = "/tmp/test-mdec-pop.XXXXXX";
	void *p;
	int fd;

	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	unlink(path);
	CU_ASSERT_FATAL(ftruncate(fd, (off_t)n) == 0);
	p = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	CU_ASSERT_FATAL(p != MAP_FAILED);
	return p;
}

/* Pages of [p + lo, p + hi) that are mapped in; -1 if pagemap fails. */
static long
present(int pm, const char *p, size_t lo, size_t hi)
{
	uint64_t e;
	size_t a;
	long n = 0;

	for (a = lo; a < hi; a += PG) {
		if (pread(pm, &e, 8, (off_t)(((uintptr_t)p + a) / PG * 8)) != 8)
			return -1;
		n += (long)(e >> 63);
	}
	return n;
}

/* Whether this kernel populates mappings and shows it in pagemap. */
static int
can_check(int pm)
{
	char *p = sparse_map(PG);
	int ok;

	ok = madvise(p, PG, MADV_POPULATE_READ) == 0 &&
	    present(pm, p, 0, PG) == 1;
	munmap(p, PG);
	return ok;
}

/* Every page of [lo, hi) of p mapped in (in), or none (!in). */
static void
expect(int pm, const char *p, size_t lo, size_t hi, int in, const char *what)
{
	long n = present(pm, p, lo, hi), want = in ? (long)((hi - lo) / PG) :
	    0;

	if (n != want)
		fprintf(stderr, "\n%s: [%zu, %zu) KiB: %ld pages mapped in, "
		    "expected %ld\n", what, lo >> 10, hi >> 10, n, want);
	CU_ASSERT_EQUAL(n, want);
}

/* [B=1, KH=2, M=32768, D=128] f16, 2048 valid: 512 KiB of each 8 MiB row. */
static void
bhmd(int pm)
{
	const size_t row = 8 * MIB, n = 2 * row;
	struct mk_mdec p = { .B = 1, .QH = 2, .KH = 2, .D = 128, .V = 2048,
	    .dtype = MK_F16, .layout = MK_MDEC_BHMD, .M = 32768 };
	char *k = sparse_map(n);

	mk_mdec_populate_kv(&p, k, n, 2);
	expect(pm, k, 0, 512 << 10, 1, "bhmd row 0");
	expect(pm, k, row, row + (512 << 10), 1, "bhmd row 1");
	expect(pm, k, 2 * MIB, row, 0, "bhmd row 0 past V");
	expect(pm, k, row + 2 * MIB, n, 0, "bhmd row 1 past V");
	munmap(k, n);
}

/* [B=2, M=8192, KH=2, D=128] f16, lengths 1024 and 0: 4 MiB a sequence. */
static void
bmhd(int pm)
{
	const size_t seq = 4 * MIB, n = 2 * seq;
	const int64_t lens[2] = { 1024, 0 };
	struct mk_mdec p = { .B = 2, .QH = 2, .KH = 2, .D = 128, .V = 1024,
	    .lens = lens, .dtype = MK_F16, .layout = MK_MDEC_BMHD,
	    .M = 8192 };
	char *k = sparse_map(n);

	mk_mdec_populate_kv(&p, k, n, 3);
	expect(pm, k, 0, 512 << 10, 1, "bmhd sequence 0");
	expect(pm, k, 2 * MIB, n, 0, "bmhd past sequence 0's length");
	munmap(k, n);
}

/*
 * 512 blocks of 16 positions x 8 kv heads x 128 f16 (32 KiB): sequence 0
 * of 40 positions in blocks 3, 300, 301; sequence 1 of 16 in block 7,
 * its table naming block 400 past its length.
 */
static void
paged(int pm)
{
	const size_t bb = 32 << 10, n = 512 * bb;
	const int32_t table[2][4] = { { 3, 300, 301, 400 }, { 7, 400, 400,
	    400 } };
	const int64_t lens[2] = { 40, 16 };
	struct mk_mdec p = { .B = 2, .QH = 8, .KH = 8, .D = 128, .V = 40,
	    .lens = lens, .dtype = MK_F16, .layout = MK_MDEC_PAGED,
	    .table = &table[0][0], .tw = 4, .bs = 16 };
	char *k = sparse_map(n);

	mk_mdec_populate_kv(&p, k, n, 2);
	expect(pm, k, 3 * bb, 4 * bb, 1, "paged block 3");
	expect(pm, k, 7 * bb, 8 * bb, 1, "paged block 7");
	expect(pm, k, 300 * bb, 302 * bb, 1, "paged blocks 300-301");
	expect(pm, k, 2 * MIB, 8 * MIB, 0, "paged blocks 64-255");
	expect(pm, k, 12 * MIB, n, 0, "paged blocks 384-511 (400 past "
	    "the lengths)");
	munmap(k, n);
}

void
test_mdec_populate(void)
{
	int pm = open("/proc/self/pagemap", O_RDONLY);

	if (pm < 0 || !can_check(pm)) {
		/* kernels before 5.14, or no /proc: nothing to observe */
		fprintf(stderr, "\n  (skipped: %s)\n", pm < 0 ?
		    strerror(errno) : "no MADV_POPULATE_READ here");
		if (pm >= 0)
			close(pm);
		return;
	}
	bhmd(pm);
	bmhd(pm);
	paged(pm);
	close(pm);
}
