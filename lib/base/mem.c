/* mem.c - arrays with their pages present at once; see mem.h. */
#include <sys/mman.h>

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/* Before each block: its length (0: from calloc), on a cache line. */
#define HEAD	64

void *
mk_mem_alloc(size_t n)
{
	size_t len;
	char *p;

	if (n > (size_t)-1 / 2)
		return NULL;
	if (n < MK_MEM_MAP) {
		if (posix_memalign((void **)&p, HEAD, n + HEAD) != 0)
			return NULL;
		memset(p, 0, n + HEAD);
		return p + HEAD;
	}
	len = n + HEAD;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, &len, sizeof(len));
	return p + HEAD;
}

void
mk_mem_free(void *q)
{
	char *p = q;
	size_t len;

	if (p == NULL)
		return;
	p -= HEAD;
	memcpy(&len, p, sizeof(len));
	if (len == 0)
		free(p);
	else
		munmap(p, len);
}
