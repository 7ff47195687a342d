/*
 * mdec_populate.c - the pages of K and V mapped from files, mapped in
 * before the attention reads them: only the pages it reads.
 *
 * Left to page faults, a cache mapped from a file costs as much to map as
 * to compute with (RESULTS.md, Memory); MADV_POPULATE_READ maps a range
 * in one system call instead.  Populating costs time per page, so the
 * pages no attention reads stay out: the positions past each row's
 * valid length (a cache is often half valid) and the blocks no table
 * names.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/dtype.h"
#include "mdec/mdec.h"

/* Bytes [lo, hi) of a tensor. */
struct span {
	size_t	lo, hi;
};

/* Spans in increasing order, the adjacent ones merged. */
struct spans {
	struct span	*s;
	size_t		 n, total;
};

static void
span_add(struct spans *sp, size_t lo, size_t hi)
{
	if (hi <= lo)
		return;
	sp->total += hi - lo;
	if (sp->n > 0 && sp->s[sp->n - 1].hi == lo)
		sp->s[sp->n - 1].hi = hi;
	else
		sp->s[sp->n++] = (struct span){ lo, hi };
}

/*
 * Map in [p, p + n), in one system call.  Best effort: kernels before
 * 5.14 lack MADV_POPULATE_READ, and a failure only leaves the pages to
 * faults.
 */
static void
populate(const void *p, size_t n)
{
#ifdef MADV_POPULATE_READ
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095;

	if (n > 0)
		(void)madvise((void *)a, (uintptr_t)p + n - a,
		    MADV_POPULATE_READ);
#else
	(void)p;
	(void)n;
#endif
}

/*
 * The blocks of a paged cache of nblk blocks that some sequence's table
 * names within its length, as spans of whole blocks of bb bytes.
 */
static int
paged_spans(const struct mk_mdec *p, size_t nblk, size_t bb,
    struct spans *sp)
{
	unsigned char *used = calloc(nblk ? nblk : 1, 1);
	int64_t b, j, nb;
	size_t i;

	if (used == NULL)
		return -1;
	for (b = 0; b < p->B; b++) {
		nb = (mk_mdec_len(p, b) + p->bs - 1) / p->bs;
		for (j = 0; j < nb && j < p->tw; j++)
			if ((size_t)p->table[b * p->tw + j] < nblk)
				used[p->table[b * p->tw + j]] = 1;
	}
	for (i = 0; i < nblk; i++)
		if (used[i])
			span_add(sp, i * bb, (i + 1) * bb);
	free(used);
	return 0;
}

/* The spans of a K or V tensor of nbytes bytes that p's attention reads. */
static int
read_spans(const struct mk_mdec *p, size_t nbytes, struct spans *sp)
{
	const size_t esz = mk_dtype_size((enum mk_dtype)p->dtype);
	const size_t bb = (size_t)p->bs * (size_t)p->KH * (size_t)p->D * esz;
	size_t cap, nblk = 0;
	int64_t b;
	int kh;

	if (p->layout == MK_MDEC_PAGED) {
		nblk = bb == 0 ? 0 : nbytes / bb;
		cap = nblk / 2 + 1;	/* runs of used blocks, at most */
	} else {
		cap = (size_t)p->B * (size_t)(p->layout == MK_MDEC_BHMD ?
		    p->KH : 1);
	}
	sp->n = sp->total = 0;
	if ((sp->s = malloc((cap ? cap : 1) * sizeof(*sp->s))) == NULL)
		return -1;
	if (p->layout == MK_MDEC_PAGED)
		return paged_spans(p, nblk, bb, sp);
	for (b = 0; b < p->B; b++)
		for (kh = 0; kh < (p->layout == MK_MDEC_BHMD ? p->KH : 1);
		    kh++)
			span_add(sp, mk_mdec_elem(p, b, kh, 0) * esz,
			    mk_mdec_elem(p, b, kh, mk_mdec_len(p, b)) * esz);
	return 0;
}

/* Bytes [lo, hi) of the spans' concatenation, mapped in. */
static void
populate_window(const struct spans *sp, const char *base, size_t lo,
    size_t hi)
{
	size_t i, at = 0, a, b, len;

	for (i = 0; i < sp->n && at < hi; i++, at += len) {
		len = sp->s[i].hi - sp->s[i].lo;
		a = lo > at ? lo - at : 0;
		b = hi - at < len ? hi - at : len;
		if (a < b)
			populate(base + sp->s[i].lo + a, b - a);
	}
}

/* The spans' bytes of base, threads equal shares at once. */
static void
populate_spans(const struct spans *sp, const char *base, int threads)
{
	int T = threads < 1 ? 1 : threads;

	(void)T;		/* without OpenMP */
#pragma omp parallel num_threads(T)
	{
		int tid = 0, nt = 1;
		size_t lo, hi;

#ifdef _OPENMP
		tid = omp_get_thread_num();
		nt = omp_get_num_threads();
#endif
		mk_slice(sp->total, 4096, tid, nt, &lo, &hi);
		populate_window(sp, base, lo, hi);
	}
}

void
mk_mdec_populate(const void *p, size_t n, int threads)
{
	struct span whole = { 0, n };
	struct spans sp = { &whole, 1, n };

	populate_spans(&sp, p, threads);
}

void
mk_mdec_populate_kv(const struct mk_mdec *p, const void *base,
    size_t nbytes, int threads)
{
	struct spans sp;

	if (read_spans(p, nbytes, &sp) < 0)	/* out of memory: all */
		mk_mdec_populate(base, nbytes, threads);
	else
		populate_spans(&sp, base, threads);
	free(sp.s);
}
