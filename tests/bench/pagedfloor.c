/*
 * pagedfloor.c - what memory allows for the reads of a paged KV cache,
 * against the same bytes laid out as one row a kv head ([B, KH, M, D]).
 * No arithmetic: each order only loads every line once (issue 11's
 * "paged within 10 % of bhmd" is bounded by these, RESULTS.md).
 *
 *   pagedfloor THREADS [MIB [SHUFFLE]]
 *
 * (cc -O2 -pthread -Ilib -o pagedfloor tests/bench/pagedfloor.c)
 *
 * K and V are MIB MiB each (default 1024), pages of 16 positions x 8 kv
 * heads x 128 f16 dims (32 KiB, vLLM's default block size at that
 * shape), blocks of two pages (mdecode's 32 positions).  SHUFFLE 1
 * (default): the pages in a random order, as a serving engine's pool ends
 * up; 0: in address order.  THREADS threads take equal runs of blocks.
 * Prints the GB/s of each order (best of 5 passes):
 *   rows    K then V of one kv head's row at a time, front to back: how
 *           mdecode reads [B, KH, M, D];
 *   pages   each block's K and V pages read whole side by side, the next
 *           block's prefetched into L2: the best order for paged bytes;
 *   heads   each block head by head, each head's K rows then its V rows
 *           (what the kernel needs), with the next block prefetched into
 *           L2 in address order as mdecode does;
 *   stream  each thread's K bytes front to back, then its V bytes: one
 *           stream at a time, how mdecode --bench's read probe reads
 *           (rows / stream is what bhmd's two streams cost by themselves).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"

#define RB	256			/* a row: 128 f16 dims */
#define KH	8
#define BS	16			/* positions a page */
#define PG	((size_t)RB * KH * BS)	/* 32 KiB */
#define BLK	32			/* positions a block: two pages */

static unsigned char	*kc, *vc;
static uint32_t		*perm;		/* page order */
static size_t		 npages;
static int		 nthreads, order;
static uint64_t		 sink;

/* Every line of [p, p + n), one word each: the line comes whole. */
static uint64_t
load(const unsigned char *p, size_t n)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < n; i += 64)
		x ^= *(const volatile uint64_t *)(p + i);
	return x;
}

static void
l2(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i += 64)
		__builtin_prefetch(p + i, 0, 2);
}

/* Row r (0 .. KH BLK) of block b in address order: page, position, head. */
static size_t
block_row(size_t b, size_t r)
{
	return (size_t)perm[2 * b + r / (KH * BS)] * PG + r % (KH * BS) * RB;
}

/* Position j of head h in block b. */
static size_t
head_row(size_t b, int h, int j)
{
	return (size_t)perm[2 * b + (size_t)j / BS] * PG +
	    ((size_t)j % BS * KH + (size_t)h) * RB;
}

static void *
walk(void *arg)
{
	const size_t t = (size_t)(uintptr_t)arg, nb = npages / 2;
	const size_t lo = nb * t / (size_t)nthreads,
	    hi = nb * (t + 1) / (size_t)nthreads;
	size_t b, nx, r, off;
	uint64_t x = 0;
	int h, j;

	for (b = lo; b < hi; b++) {
		nx = b + 1 < hi ? b + 1 : b;
		if (order == 3) {	/* stream: the whole run at once */
			x ^= load(kc + lo * 2 * PG, (hi - lo) * 2 * PG) ^
			    load(vc + lo * 2 * PG, (hi - lo) * 2 * PG);
			break;
		}
		if (order == 0) {	/* rows: a block's 8 KiB of K, of V */
			for (off = b * 2 * PG; off < (b + 1) * 2 * PG;
			    off += BLK * RB)
				x ^= load(kc + off, BLK * RB) ^
				    load(vc + off, BLK * RB);
			continue;
		}
		if (order == 1) {
			for (r = 0; r < 2 * PG; r += 4096) {
				l2(kc + block_row(nx, r / RB), 4096);
				l2(vc + block_row(nx, r / RB), 4096);
				x ^= load(kc + block_row(b, r / RB), 4096);
				x ^= load(vc + block_row(b, r / RB), 4096);
			}
			continue;
		}
		for (h = 0; h < KH; h++) {
			for (j = 0; j < BLK; j++) {
				/* slice h of the next block, K and V */
				r = (size_t)h * BLK + (size_t)j;
				l2(kc + block_row(nx, r), RB);
				l2(vc + block_row(nx, r), RB);
				x ^= load(kc + head_row(b, h, j), RB);
			}
			for (j = 0; j < BLK; j++)
				x ^= load(vc + head_row(b, h, j), RB);
		}
	}
	__atomic_fetch_xor(&sink, x, __ATOMIC_RELAXED);
	return NULL;
}

static double
pass(int o)
{
	pthread_t th[256];
	double t0 = mk_seconds();
	int i;

	order = o;
	for (i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, walk, (void *)(uintptr_t)i);
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	return 2.0 * (double)(npages * PG) / (mk_seconds() - t0) / 1e9;
}

int
main(int argc, char **argv)
{
	static const char *name[] = { "rows", "pages", "heads", "stream" };
	size_t mib = argc > 2 ? strtoull(argv[2], NULL, 10) : 1024, i, j;
	int shuffle = argc > 3 ? atoi(argv[3]) : 1, o, k;
	uint64_t s = 88172645463325252ull, u;
	double best, g;

	nthreads = argc > 1 ? atoi(argv[1]) : 1;
	if (nthreads < 1 || nthreads > 256 || mib < 1) {
		fprintf(stderr, "usage: pagedfloor THREADS [MIB [SHUFFLE]]\n");
		return 2;
	}
	npages = (mib << 20) / PG / 2 * 2;
	if ((kc = aligned_alloc(4096, npages * PG)) == NULL ||
	    (vc = aligned_alloc(4096, npages * PG)) == NULL ||
	    (perm = malloc(npages * sizeof(*perm))) == NULL) {
		perror("pagedfloor");
		return 1;
	}
	memset(kc, 1, npages * PG);
	memset(vc, 2, npages * PG);
	for (i = 0; i < npages; i++)
		perm[i] = (uint32_t)i;
	for (i = npages - 1; shuffle && i > 0; i--) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		j = s % (i + 1);
		u = perm[i], perm[i] = perm[j], perm[j] = (uint32_t)u;
	}
	printf("%d threads, K and V %zu MiB each, pages of 32 KiB%s\n",
	    nthreads, npages * PG >> 20, shuffle ? " in random order" : "");
	for (o = 0; o < 4; o++) {
		for (best = 0, k = 0; k < 5; k++)
			if ((g = pass(o)) > best)
				best = g;
		printf("%s,%.2f\n", name[o], best);
	}
	return sink == 42;	/* the loads are volatile: none is dropped */
}
