/*
 * memfile.h - fuzzed bytes as a file with a path, for readers that take
 * one (--prev/--eval/--phy2log, mdecode's -q -k -v -m and tables): an
 * anonymous memory file named by /proc/self/fd/N.
 */
#ifndef MEMFILE_H
#define MEMFILE_H

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

/* p[0..n) as a file: its descriptor (close it), its path in path[32]. */
static int
memfile(const void *p, size_t n, char path[32])
{
	int fd = memfd_create("fuzz", 0);

	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(n == 0 || write(fd, p, n) == (ssize_t)n);
	snprintf(path, 32, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
