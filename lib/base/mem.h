/*
 * mem.h - memory for arrays of a few pages or more, zeroed and present
 * at once.  A page touched for the first time costs a fault, about 10 us
 * on the virtual machines moekit runs on (a hypervisor exit each); asking
 * for the pages in one call (MAP_POPULATE) costs a seventh of that.
 * Arrays below MK_MEM_MAP bytes come from calloc as usual.
 */
#ifndef MK_MEM_H
#define MK_MEM_H

#include <stddef.h>

#define MK_MEM_MAP	((size_t)64 << 10)

/* n zeroed bytes, 64-byte aligned, or NULL.  Free with mk_mem_free. */
void	*mk_mem_alloc(size_t n);

/* Free what mk_mem_alloc returned.  NULL is ignored. */
void	 mk_mem_free(void *p);

#endif
