/* mem.c - arrays with their pages present at once; see mem.h. */
#include <sys/mman.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/* Before each block: its length (0: from calloc), on a cache line. */
#define HEAD	64

/* Blocks from this size on are asked for in 2 MiB pages. */
#define HUGE	((size_t)4 << 20)
#define PAGE2M	((size_t)2 << 20)

/*
 * n zeroed bytes of anonymous memory, present: from HUGE on, in 2 MiB
 * pages where the kernel grants them (a 1.2 GB array in 4 KiB pages
 * took 1.1 s of page clearing and faults on the 2-vCPU VM, RESULTS.md).
 * The head holds the mapping's start and length.
 */
static char *
mapped(size_t n)
{
	size_t len = n + HEAD + (n >= HUGE ? PAGE2M : 0), off = 0;
	char *m, *p;

	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS | (n >= HUGE ? 0 : MAP_POPULATE), -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	if (n >= HUGE) {
		off = (PAGE2M - (uintptr_t)m % PAGE2M) % PAGE2M;
#ifdef MADV_HUGEPAGE
		(void)madvise(m + off, len - off, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
		if (madvise(m + off, len - off, MADV_POPULATE_WRITE) != 0)
#endif
			for (p = m + off; p < m + len; p += 4096)
				*p = 0;
	}
	p = m + off;
	memcpy(p, &len, sizeof(len));
	memcpy(p + sizeof(len), &m, sizeof(m));
	return p;
}

void *
mk_mem_alloc(size_t n)
{
	char *p;

	if (n > (size_t)-1 / 2)
		return NULL;
	if (n < MK_MEM_MAP) {
		if (posix_memalign((void **)&p, HEAD, n + HEAD) != 0)
			return NULL;
		memset(p, 0, n + HEAD);
		return p + HEAD;
	}
	if ((p = mapped(n)) == NULL)
		return NULL;
	return p + HEAD;
}

void
mk_mem_free(void *q)
{
	char *p = q, *m;
	size_t len;

	if (p == NULL)
		return;
	p -= HEAD;
	memcpy(&len, p, sizeof(len));
	if (len == 0) {
		free(p);
		return;
	}
	memcpy(&m, p + sizeof(len), sizeof(m));
	munmap(m, len);
}
