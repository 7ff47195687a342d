/* stack.c - outputs stacked a slice at a time; see stack.h. */
#include <sys/mman.h>

#include <err.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errmsg.h"
#include "base/threads.h"
#include "cli/stack.h"

struct mk_stack {
	const char	*name;
	enum mk_dtype	 dtype;
	int		 ndim;
	int64_t		 shape[3];
	size_t		 nelem;		/* of a slice */
	int64_t		 count;		/* slices pushed */
	FILE		*spill;		/* opened when memory is spent */
	unsigned char	*mem;		/* the first slices, in memory */
	size_t		 mem_len, mem_cap;	/* bytes held, mapped */
	int		 reserved;	/* mem sized once: it never moves */
	int64_t		 ring;		/* slices mem holds as a drain's
					 * ring, or 0 */
};

/* Bytes of one slice. */
static size_t
slice_bytes(const struct mk_stack *st)
{
	return st->nelem * mk_dtype_size(st->dtype);
}

/*
 * Slices are held in memory up to this many bytes over all stacks, then
 * spilled to a file: the outputs of a few hundred steps go out in one
 * write, without a round trip through a temporary file, and memory
 * stays bounded however long the run.  MOEKIT_STACK_MEM=BYTES sets
 * another budget (tests: 0 spills everything).
 */
#define MEM_BUDGET	((size_t)256 << 20)
static size_t mem_used;

static size_t
mem_budget(void)
{
	static size_t budget = (size_t)-1;
	const char *v;
	char *end;

	if (budget == (size_t)-1) {
		budget = MEM_BUDGET;
		if ((v = getenv("MOEKIT_STACK_MEM")) != NULL && *v != '\0') {
			unsigned long long b;

			errno = 0;
			b = strtoull(v, &end, 10);
			if (*end != '\0' || *v == '-' || errno != 0 ||
			    b >= (size_t)-1)
				errx(MK_EXIT_USAGE, "MOEKIT_STACK_MEM=%s: a number "
				    "of bytes", v);
			budget = (size_t)b;
		}
	}
	return budget;
}

struct mk_stack *
mk_stack_new(const char *name, enum mk_dtype dtype, int ndim,
    const int64_t *shape)
{
	struct mk_stack *st;
	int i;

	/* MOEKIT_STACK_MEM judged now, before the first step, not mid-run */
	(void)mem_budget();
	if (ndim > 3 || (st = calloc(1, sizeof(*st))) == NULL)
		errx(MK_EXIT_DATA, "out of memory");
	st->name = name;
	st->dtype = dtype;
	st->ndim = ndim;
	st->nelem = 1;
	for (i = 0; i < ndim; i++) {
		st->shape[i] = shape[i];
		st->nelem *= (size_t)shape[i];
	}
	return st;
}

/* An unlinked temporary file: it vanishes however the program ends. */
static FILE *
spill_open(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	FILE *fp;
	int fd;

	snprintf(path, sizeof(path), "%s/moekit.XXXXXX",
	    dir && *dir ? dir : "/tmp");
	if ((fd = mkstemp(path)) < 0)
		err(MK_EXIT_DATA, "%s", path);
	unlink(path);
	if ((fp = fdopen(fd, "w+")) == NULL)
		err(MK_EXIT_DATA, "temporary file");
	return fp;
}

/* Mapping p of cap bytes (or MAP_FAILED) in huge pages where it can be. */
static void *
huge(void *p, size_t cap)
{
#ifdef MADV_HUGEPAGE
	if (p != MAP_FAILED)
		(void)madvise(p, cap, MADV_HUGEPAGE);
#endif
	return p;
}

/* Room for n more bytes in memory, or 0 when the budget is spent. */
static int
mem_room(struct mk_stack *st, size_t n)
{
	size_t cap;
	void *p;

	if (st->mem_len + n <= st->mem_cap)
		return 1;
	if (st->reserved)	/* a drain's thread may be reading it */
		return 0;
	cap = st->mem_cap ? st->mem_cap * 2 : (size_t)64 << 10;
	while (cap < st->mem_len + n)
		cap *= 2;
	if (st->spill != NULL || mem_used - st->mem_cap + cap > mem_budget())
		return 0;
	p = huge(st->mem == NULL ? mmap(NULL, cap, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : mremap(st->mem, st->mem_cap,
	    cap, MREMAP_MAYMOVE), cap);
	if (p == MAP_FAILED)
		return 0;
	mem_used += cap - st->mem_cap;
	st->mem = p;
	st->mem_cap = cap;
	return 1;
}

/* Pages touched a piece at a time, 2 MiB (a huge page) each. */
#define TOUCH_PIECE	((size_t)2 << 20)

int
mk_stack_reserve(struct mk_stack *st, int64_t n)
{
	size_t b = slice_bytes(st), cap;
	long i, np;
	void *p;

	if (st->mem != NULL || n <= 0 || b == 0 || (size_t)n > mem_budget() / b)
		return 0;
	cap = b * (size_t)n;
	/* exactly: growing by doubling would round it up */
	if (mem_used + cap > mem_budget() || (p = huge(mmap(NULL, cap,
	    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), cap))
	    == MAP_FAILED)
		return 0;
	st->mem = p;
	mem_used += cap;
	st->mem_cap = cap;
	st->reserved = 1;
	/* a GB/s a thread: the first touch zeroes the page */
	np = (long)((cap + TOUCH_PIECE - 1) / TOUCH_PIECE);
#pragma omp parallel for schedule(dynamic, 1) \
    num_threads(mk_threads_for((double)cap / 1e6))
	for (i = 0; i < np; i++) {
		size_t at, end = (size_t)(i + 1) * TOUCH_PIECE;

		for (at = (size_t)i * TOUCH_PIECE; at < end && at < cap;
		    at += 4096)
			st->mem[at] = 0;
	}
	return 1;
}

void
mk_stack_push(struct mk_stack *st, const void *slice)
{
	size_t n = slice_bytes(st);

	if (st->ring > 0) {	/* the drain keeps the slot written */
		memcpy(st->mem + (size_t)(st->count++ % st->ring) * n, slice,
		    n);
		return;
	}
	st->count++;
	if (mem_room(st, n)) {
		memcpy(st->mem + st->mem_len, slice, n);
		st->mem_len += n;
		return;
	}
	if (st->spill == NULL)
		st->spill = spill_open();
	if (fwrite(slice, 1, n, st->spill) != n)
		err(MK_EXIT_DATA, "temporary file");
}

/*
 * A drain holds each stack's slices in a ring, not the whole run's: the
 * pushes land in memory the cache still holds, no page of the run's
 * outputs is first touched (a GB/s a thread, the kernel zeroing it), and
 * a trace of any length streams its outputs straight to the file instead
 * of spilling them past the memory budget.  With a thread of its own the
 * rings hold this many bytes over all stacks (less where the budget is
 * smaller) and the thread writes a quarter of them at a time (few large
 * writes, well behind the pushes, which wait only when it falls a whole
 * ring behind); without, a quarter of this, written by the pushing thread
 * whenever they are full.  On the 16-core host that was faster than
 * holding the outputs whole, with a fraction of the memory, and the
 * more so the longer the trace.
 */
#define RING_BYTES	((size_t)16 << 20)

struct mk_stack_drain {
	struct mk_out	 *w;
	struct mk_stack	**st;
	int		  n;
	int		  fd;
	int		  threaded;	/* a thread of its own writes */
	off_t		 *at;		/* [n] where each stack's data goes */
	int64_t		  total;	/* slices each will hold */
	int64_t		  cap;		/* slices each ring holds */
	int64_t		  chunk;	/* slices a write, at least */
	int64_t		  pushed;	/* slices pushed to every stack */
	int64_t		  written;	/* slices written from every ring */
	int		  ended;	/* no more */
	int		  err;		/* a write's error (errno) */
	pthread_mutex_t	  mu;
	pthread_cond_t	  cv;		/* the writer waits for slices */
	pthread_cond_t	  room;		/* the pusher waits for the writer */
	pthread_t	  th;
};

/*
 * Slices [from, upto) of every stack, from their rings, to their places
 * (at most two pieces a stack: the ring may wrap).  0, or errno.
 */
static int
drain_write(const struct mk_stack_drain *d, int64_t from, int64_t upto)
{
	const struct mk_stack *st;
	int64_t at, k;
	size_t b;
	int i, r;

	for (i = 0; i < d->n; i++) {
		st = d->st[i];
		b = slice_bytes(st);
		for (at = from; at < upto; at += k) {
			k = d->cap - at % d->cap;
			if (k > upto - at)
				k = upto - at;
			if ((r = mk_out_pwrite(d->fd, st->mem + (size_t)(at %
			    d->cap) * b, (size_t)k * b, d->at[i] +
			    (off_t)((size_t)at * b))) != 0)
				return r;
		}
	}
	return 0;
}

static void *
drain(void *arg)
{
	struct mk_stack_drain *d = arg;
	int64_t from = 0, upto;
	int ended;

	do {
		pthread_mutex_lock(&d->mu);
		while (!d->ended && d->pushed - from < d->chunk)
			pthread_cond_wait(&d->cv, &d->mu);
		upto = d->pushed;
		ended = d->ended;
		pthread_mutex_unlock(&d->mu);
		/* after an error the slices are dropped, never waited for */
		if (upto > from && d->err == 0)
			d->err = drain_write(d, from, upto);
		pthread_mutex_lock(&d->mu);
		d->written = from = upto;
		pthread_cond_signal(&d->room);
		pthread_mutex_unlock(&d->mu);
	} while (!ended);
	return NULL;
}

int
mk_stack_drain_wanted(void)
{
	static const char *const off_on[] = { "0", "1", NULL };
	struct mk_err e;
	int w = mk_env_word("MOEKIT_STACK_DRAIN", off_on, &e);

	if (w < 0)
		errx(e.status, "%s", e.msg);
	return w - 1;
}

/* Whether the stacks can be drained: empty, unreserved, w claimable. */
static int
drainable(struct mk_stack **st, int n, int64_t total, const struct mk_out *w)
{
	int i;

	if (n < 1 || total < 1 || !mk_out_claimable(w))
		return 0;
	for (i = 0; i < n; i++)
		if (st[i]->mem != NULL || st[i]->count != 0 ||
		    slice_bytes(st[i]) == 0)
			return 0;
	return 1;
}

/* A drain's ring given back. */
static void
unring(struct mk_stack *st)
{
	if (st->ring == 0)
		return;
	munmap(st->mem, st->mem_cap);
	mem_used -= st->mem_cap;
	st->mem = NULL;
	st->mem_cap = 0;
	st->ring = 0;
}

/*
 * Each stack's ring of d->cap slices, within the memory budget.  Returns
 * 0, or -1 with nothing held.
 */
static int
rings(struct mk_stack_drain *d, size_t step)
{
	size_t left = mem_budget() > mem_used ? mem_budget() - mem_used : 0;
	size_t want = d->threaded ? RING_BYTES : RING_BYTES / 4, b;
	void *p;
	int i;

	d->cap = (int64_t)((want < left ? want : left) / step);
	if (d->cap > d->total)
		d->cap = d->total;
	if (d->cap < 1)
		return -1;
	/* a thread writes a quarter at a time; else the ring when full */
	d->chunk = d->threaded && d->cap >= 4 ? d->cap / 4 : d->cap;
	for (i = 0; i < d->n; i++) {
		b = slice_bytes(d->st[i]) * (size_t)d->cap;
		if ((p = huge(mmap(NULL, b, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), b)) == MAP_FAILED) {
			while (i-- > 0)
				unring(d->st[i]);
			return -1;
		}
		d->st[i]->mem = p;
		d->st[i]->mem_cap = b;
		d->st[i]->ring = d->cap;
		mem_used += b;
	}
	return 0;
}

/* The drain's thread, if it has one.  Returns 0, or -1. */
static int
start_thread(struct mk_stack_drain *d)
{
	if (pthread_cond_init(&d->cv, NULL) != 0)
		return -1;
	if (pthread_cond_init(&d->room, NULL) != 0) {
		pthread_cond_destroy(&d->cv);
		return -1;
	}
	if (!d->threaded || pthread_create(&d->th, NULL, drain, d) == 0)
		return 0;
	pthread_cond_destroy(&d->room);
	pthread_cond_destroy(&d->cv);
	return -1;
}

/* Frees d and the rings, and the stacks too where own. */
static void
drain_free(struct mk_stack_drain *d, int own)
{
	int i;

	for (i = 0; d->st != NULL && i < d->n; i++) {
		unring(d->st[i]);
		if (own)
			free(d->st[i]);
	}
	free(d->at);
	free(d->st);
	free(d);
}

struct mk_stack_drain *
mk_stack_drain_start(struct mk_stack **st, int n, int64_t total,
    int threaded, struct mk_out *w)
{
	struct mk_stack_drain *d;
	size_t step = 0;
	int64_t shape[4];
	int i, j;

	if (!drainable(st, n, total, w) || (d = calloc(1, sizeof(*d))) == NULL)
		return NULL;
	if ((d->at = calloc((size_t)n, sizeof(*d->at))) == NULL ||
	    (d->st = calloc((size_t)n, sizeof(*d->st))) == NULL) {
		drain_free(d, 0);
		return NULL;
	}
	memcpy(d->st, st, (size_t)n * sizeof(*st));
	d->w = w;
	d->n = n;
	d->total = total;
	d->threaded = threaded;
	for (i = 0; i < n; i++)
		step += slice_bytes(st[i]);
	/*
	 * The rings and the thread first, so that a failure leaves nothing
	 * written; the thread reads fd and at[] only after a slice is
	 * pushed, through the mutex.
	 */
	if (rings(d, step) < 0 || pthread_mutex_init(&d->mu, NULL) != 0) {
		drain_free(d, 0);
		return NULL;
	}
	if (start_thread(d) < 0) {
		pthread_mutex_destroy(&d->mu);
		drain_free(d, 0);
		return NULL;
	}
	/* the headers now; the data has its place, holes until written */
	for (i = 0; i < n; i++) {
		shape[0] = d->total;
		for (j = 0; j < st[i]->ndim; j++)
			shape[j + 1] = st[i]->shape[j];
		mk_out_begin(w, st[i]->name, st[i]->dtype, st[i]->ndim + 1,
		    shape);
		mk_out_claim(w, st[i]->nelem * (size_t)d->total, &d->fd,
		    &d->at[i]);
		mk_out_end(w);
	}
	return d;
}

char *
mk_stack_drain_describe(const struct mk_stack_drain *d, char *buf,
    size_t size)
{
	snprintf(buf, size, "while the steps are laid out, %lld step%s at a "
	    "time, by %s", (long long)d->chunk, d->chunk == 1 ? "" : "s",
	    d->threaded ? "a thread of their own" : "the thread that lays "
	    "them out");
	return buf;
}

void
mk_stack_drain_step(struct mk_stack_drain *d)
{
	if (d->pushed >= d->total)
		errx(MK_EXIT_DATA, "internal error: more than %lld slices",
		    (long long)d->total);
	if (!d->threaded) {
		/* the ring is full, or the last slice is in */
		if (++d->pushed - d->written == d->cap || d->pushed ==
		    d->total) {
			if (d->err == 0)
				d->err = drain_write(d, d->written, d->pushed);
			d->written = d->pushed;
		}
		return;
	}
	pthread_mutex_lock(&d->mu);
	if (++d->pushed % d->chunk == 0)
		pthread_cond_signal(&d->cv);
	/* the next slice's place in the ring must have been written */
	while (d->pushed - d->written >= d->cap) {
		pthread_cond_signal(&d->cv);
		pthread_cond_wait(&d->room, &d->mu);
	}
	pthread_mutex_unlock(&d->mu);
}

void
mk_stack_drain_end(struct mk_stack_drain *d)
{
	int i;

	if (d->threaded) {
		pthread_mutex_lock(&d->mu);
		d->ended = 1;
		pthread_cond_signal(&d->cv);
		pthread_mutex_unlock(&d->mu);
		pthread_join(d->th, NULL);
	} else if (d->pushed > d->written && d->err == 0) {
		d->err = drain_write(d, d->written, d->pushed);
	}
	if (d->err != 0)
		mk_out_failed(d->w, d->err);
	for (i = 0; i < d->n; i++)
		if (d->st[i]->count != d->total)
			errx(MK_EXIT_DATA, "internal error: %lld of %lld slices "
			    "of %s", (long long)d->st[i]->count,
			    (long long)d->total, d->st[i]->name);
	pthread_cond_destroy(&d->room);
	pthread_cond_destroy(&d->cv);
	pthread_mutex_destroy(&d->mu);
	drain_free(d, 1);
}

void
mk_stack_write(struct mk_stack *st, struct mk_out *w)
{
	size_t sz = mk_dtype_size(st->dtype), left, got;
	int64_t shape[4];
	char buf[1 << 16];
	int i;

	shape[0] = st->count;
	for (i = 0; i < st->ndim; i++)
		shape[i + 1] = st->shape[i];
	mk_out_begin(w, st->name, st->dtype, st->ndim + 1, shape);
	if (st->mem_len > 0)
		mk_out_data(w, st->mem, st->mem_len / sz);
	if (st->mem != NULL) {
		munmap(st->mem, st->mem_cap);
		mem_used -= st->mem_cap;
	}
	if (st->spill != NULL) {
		rewind(st->spill);
		for (left = st->nelem * (size_t)st->count - st->mem_len / sz;
		    left > 0;
		    left -= got) {
			got = fread(buf, sz, sizeof(buf) / sz < left ?
			    sizeof(buf) / sz : left, st->spill);
			if (got == 0)
				err(MK_EXIT_DATA, "temporary file");
			mk_out_data(w, buf, got);
		}
		fclose(st->spill);
	}
	mk_out_end(w);
	free(st);
}
