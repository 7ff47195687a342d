/*
 * iofloor.c - the floors of a2a-layout's file I/O, doing nothing with the
 * bytes (tests/bench/a2a.sh compiles and runs it beside a2a-layout).
 *
 *   iofloor map|pread THREADS FILE [SKIP]     read FILE (page cache)
 *   iofloor write|mapwrite THREADS SRC DST    copy SRC to a new file DST
 *   iofloor step THREADS FILE SKIP DST BYTES  a whole one-step run
 *   iofloor pipe THREADS                      read standard input in steps
 *   iofloor none                              start and exit
 *
 * THREADS threads take 8 MiB pieces in turn.
 * map: FILE is mapped and every 64-byte line of a piece past the first
 * SKIP bytes is loaded (prefetched 2 KiB ahead, as a2a-layout's kernel
 * does), then the piece's pages are given back (MADV_DONTNEED, as
 * a2a-layout does in rounds).  pread: each piece is copied into the
 * thread's own buffer.
 * write: SRC (read whole first, not timed) is written to DST by pwrite,
 * each piece at its offset; mapwrite: DST is sized and mapped, and each
 * thread copies its pieces into the mapping.
 * Prints the GB/s of the bytes read or written; the time includes opening,
 * mapping and unmapping, not the process's start.
 *
 * step is the floor of a2a-layout's one-step run, timed from outside as a
 * whole process beside `none`: FILE is mapped, THREADS threads each load
 * every line of an equal share past SKIP, and BYTES bytes go to DST as
 * a2a-layout writes an output (a temporary file beside it, renamed over
 * it).  Prints nothing.
 *
 * pipe is the floor of a2a-layout reading a trace from a pipe: standard
 * input (a 1 MiB pipe, as a2a-layout asks for) is read 8 MiB at a time,
 * each step placed whole in one reused buffer of 2 MiB pages as a2a-layout
 * places it (a reader that reads every piece to the same first megabyte
 * keeps it in its cache and runs faster than any reader that must have
 * the step in one piece: 5.6-6.5 against 4.6-5.7 GB/s on the device's
 * Xeon, RESULTS.md).  With THREADS > 0, THREADS threads (the reader one of
 * them) then load every line of the step, an equal share each, as
 * a2a-layout's team counts it; the others wait spinning, yielding the CPU.
 * Prints the GB/s from the first read to the end of the input.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"

#define PIECE	((size_t)8 << 20)

enum { MAP, PREAD, WRITE, MAPWRITE, STEP, PIPE, NONE };

static int		 mode, fd;
static size_t		 skip, size, npieces;
static unsigned char	*base, *src;	/* FILE or DST's mapping; SRC */
static size_t		 next;		/* the next piece, atomically */
static size_t		 share;		/* step: a thread's bytes */
static uint64_t		 sink;

/* Load one word of every line of [p, p + n): the line comes whole. */
static uint64_t
touch(const unsigned char *p, size_t n)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < n; i += 64) {
		__builtin_prefetch(p + i + 2048);
		x ^= *(const volatile uint64_t *)(p + i);
	}
	return x;
}

/* Give back the whole pages of [off, off + n) (a neighbour's are in use). */
static void
drop(size_t off, size_t n)
{
	size_t a = (off + 4095) / 4096 * 4096, b = (off + n) / 4096 * 4096;

	if (b > a)
		madvise(base + a, b - a, MADV_DONTNEED);
}

static void
piece(unsigned char *buf, size_t off, size_t n, uint64_t *x)
{
	switch (mode) {
	case MAP:
		*x ^= touch(base + off, n);
		drop(off, n);
		break;
	case PREAD:
		if (pread(fd, buf, n, (off_t)off) != (ssize_t)n) {
			perror("pread");
			exit(1);
		}
		break;
	case WRITE:
		if (pwrite(fd, src + off, n, (off_t)off) != (ssize_t)n) {
			perror("pwrite");
			exit(1);
		}
		break;
	default:
		memcpy(base + off, src + off, n);
	}
}

static void *
worker(void *arg)
{
	unsigned char *buf = NULL;
	uint64_t x = 0;
	size_t k, off;

	if (mode == PREAD && (buf = malloc(PIECE)) == NULL)
		return NULL;
	if (mode == STEP) {
		off = skip + (size_t)(uintptr_t)arg * share;
		if (off < size)
			x = touch(base + off, size - off < share ? size - off :
			    share);
		__atomic_fetch_xor(&sink, x, __ATOMIC_RELAXED);
		return NULL;
	}
	while ((k = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED)) < npieces) {
		off = skip + k * PIECE;
		piece(buf, off, size - off < PIECE ? size - off : PIECE, &x);
	}
	__atomic_fetch_xor(&sink, x, __ATOMIC_RELAXED);
	free(buf);
	return NULL;
}

/* SRC whole in memory, untimed. */
static void
read_src(const char *path)
{
	struct stat sb;
	ssize_t k = 1;
	size_t got = 0;
	int s;

	if ((s = open(path, O_RDONLY)) < 0 || fstat(s, &sb) < 0 ||
	    (src = malloc((size_t)sb.st_size + 1)) == NULL) {
		perror(path);
		exit(1);
	}
	size = (size_t)sb.st_size;
	while (got < size && (k = read(s, src + got, size - got)) > 0)
		got += (size_t)k;
	if (k <= 0) {
		perror(path);
		exit(1);
	}
	close(s);
}

/* BYTES bytes to DST as an output is written: a temporary, renamed. */
static void
write_out(const char *dst, size_t bytes)
{
	char tmp[4096];
	unsigned char *b;
	int o;

	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", dst);
	if ((b = calloc(1, bytes + 1)) == NULL || (o = mkstemp(tmp)) < 0 ||
	    fchmod(o, 0644) < 0 || write(o, b, bytes) != (ssize_t)bytes ||
	    close(o) < 0 || rename(tmp, dst) < 0) {
		perror(dst);
		exit(1);
	}
	free(b);
}

/* Open (and map) the file the mode works on. */
static void
open_file(const char *path)
{
	struct stat sb;
	int wr = mode == WRITE || mode == MAPWRITE;

	if ((fd = wr ? open(path, O_RDWR | O_CREAT | O_TRUNC, 0644) :
	    open(path, O_RDONLY)) < 0 || (!wr && fstat(fd, &sb) < 0)) {
		perror(path);
		exit(1);
	}
	if (!wr)
		size = (size_t)sb.st_size;
	if (mode == MAPWRITE && ftruncate(fd, (off_t)size) < 0) {
		perror(path);
		exit(1);
	}
	if ((mode == MAP || mode == MAPWRITE || mode == STEP) && (base = mmap(NULL, size,
	    mode != MAPWRITE ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd,
	    0)) == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
}

/* The floor of a one-step run: see the head of the file. */
static int
step(int n, const char *path, size_t at, const char *dst, size_t bytes)
{
	pthread_t th[256];
	int i;

	skip = at;
	open_file(path);
	if (size <= skip)
		return 1;
	share = ((size - skip) / (size_t)n + 4095) / 4096 * 4096;
	/* the main thread takes share 0, as an OpenMP team's first does */
	for (i = 1; i < n; i++)
		pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i);
	worker(NULL);
	for (i = 1; i < n; i++)
		pthread_join(th[i], NULL);
	write_out(dst, bytes);
	munmap(base, size);
	close(fd);
	return 0;	/* the loads are volatile: none is dropped */
}

/* pipe: the step in turn (0: none yet, -1: the end) and the loads done */
static long		 pstep, pdone;
static int		 pthreads;

/* Thread i's share of every step pipe_floor reads, until the end. */
static void *
pipe_share(void *arg)
{
	const size_t i = (size_t)(uintptr_t)arg;
	size_t lo = PIECE / 64 * i / (size_t)pthreads * 64,
	    hi = PIECE / 64 * (i + 1) / (size_t)pthreads * 64;
	long seen = 0, s;
	uint64_t x = 0;

	for (;;) {
		while ((s = __atomic_load_n(&pstep, __ATOMIC_ACQUIRE)) == seen)
			sched_yield();
		if (s < 0)
			break;
		seen = s;
		x ^= touch(base + lo, hi - lo);
		__atomic_fetch_add(&pdone, 1, __ATOMIC_RELEASE);
	}
	__atomic_fetch_xor(&sink, x, __ATOMIC_RELAXED);
	return NULL;
}

/* The floor of a trace read from a pipe: see the head of the file. */
static int
pipe_floor(int n)
{
	pthread_t th[256];
	size_t got, total = 0;
	ssize_t k = 1;
	double t0 = 0;
	long s;
	int i;

	(void)fcntl(0, F_SETPIPE_SZ, 1 << 20);
	base = mmap(NULL, PIECE, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	(void)madvise(base, PIECE, MADV_HUGEPAGE);
	pthreads = n;
	for (i = 1; i < n; i++)
		pthread_create(&th[i], NULL, pipe_share, (void *)(uintptr_t)i);
	for (s = 1; k > 0; s++) {
		for (got = 0; got < PIECE && (k = read(0, base + got,
		    PIECE - got)) > 0; got += (size_t)k)
			if (total == 0 && got == 0)
				t0 = mk_seconds();
		if (k < 0) {
			perror("read");
			return 1;
		}
		total += got;
		if (n == 0 || got == 0)
			continue;
		pdone = 0;
		__atomic_store_n(&pstep, s, __ATOMIC_RELEASE);
		sink ^= touch(base, PIECE / 64 / (size_t)n * 64);
		while (__atomic_load_n(&pdone, __ATOMIC_ACQUIRE) < n - 1)
			continue;
	}
	__atomic_store_n(&pstep, -1, __ATOMIC_RELEASE);
	for (i = 1; i < n; i++)
		pthread_join(th[i], NULL);
	printf("%.2f\n", (double)total / (mk_seconds() - t0) / 1e9);
	return 0;
}

int
main(int argc, char **argv)
{
	static const char *modes[] = { "map", "pread", "write", "mapwrite",
	    "step", "pipe", "none" };
	pthread_t th[256];
	double t0, t;
	int i, n;

	for (mode = 0; argc > 1 && mode < 7 && strcmp(argv[1], modes[mode]);
	    mode++)
		continue;
	if (mode == NONE)
		return 0;
	if (mode == PIPE && argc > 2 && (n = atoi(argv[2])) >= 0 && n <= 256)
		return pipe_floor(n);
	if (argc < 4 || mode >= PIPE || (n = atoi(argv[2])) < 1 || n > 256 ||
	    (mode == WRITE && argc < 5) || (mode == MAPWRITE && argc < 5) ||
	    (mode == STEP && argc < 7)) {
		fprintf(stderr, "usage: iofloor map|pread THREADS FILE [SKIP]\n"
		    "       iofloor write|mapwrite THREADS SRC DST\n"
		    "       iofloor step THREADS FILE SKIP DST BYTES\n"
		    "       iofloor pipe THREADS\n"
		    "       iofloor none\n");
		return 2;
	}
	if (mode == STEP)
		return step(n, argv[3], strtoull(argv[4], NULL, 10), argv[5],
		    strtoull(argv[6], NULL, 10));
	if (mode == WRITE || mode == MAPWRITE)
		read_src(argv[3]);
	else if (argc > 4)
		skip = strtoull(argv[4], NULL, 10);
	t0 = mk_seconds();
	open_file(argv[mode == WRITE || mode == MAPWRITE ? 4 : 3]);
	if (size <= skip) {
		fprintf(stderr, "%s: nothing past byte %zu\n", argv[3], skip);
		return 1;
	}
	npieces = (size - skip + PIECE - 1) / PIECE;
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	if (base != NULL)
		munmap(base, size);
	close(fd);
	t = mk_seconds() - t0;
	printf("%.2f\n", (double)(size - skip) / t / 1e9);
	return 0;
}
