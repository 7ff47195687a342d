/* a2a_trace.c - reading routing traces step by step; see a2a_trace.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "a2a_trace.h"
#include "npy.h"
#include "src.h"
#include "stream.h"

static int
id_dtype(int dtype, const char *name, struct mk_err *e)
{
	if (dtype == MK_I32)
		return 4;
	if (dtype == MK_I64)
		return 8;
	return mk_err_data(e, "%s: routing ids are %s; a2a-layout reads i32 "
	    "or i64", name, mk_dtype_name((enum mk_dtype)dtype));
}

/* Keep tensors read whole (one [R,T,K] or R [T_r,K]). */
static int
read_rest(struct mk_a2a_trace *tr, struct mk_err *e)
{
	struct mk_tensor *nt;
	int r;

	for (;;) {
		if ((nt = realloc(tr->t, sizeof(*nt) * (size_t)(tr->nt + 1)))
		    == NULL)
			return mk_err_data(e, "out of memory");
		tr->t = nt;
		mk_tensor_init(&tr->t[tr->nt]);
		if ((r = mk_src_next(tr->s, &tr->t[tr->nt], e)) < 0)
			return -1;
		if (r == 0)
			return 0;
		if (++tr->nt > MK_A2A_MAX_RANKS)
			return mk_err_data(e, "%s: more than %d tensors (ranks)",
			    mk_src_name(tr->s), MK_A2A_MAX_RANKS);
	}
}

/* Shape checks of what was read whole. */
static int
whole_form(struct mk_a2a_trace *tr, int R, struct mk_err *e)
{
	const char *name = mk_src_name(tr->s);
	char sb[128];
	int i;

	if (tr->nt == 1 && tr->t[0].ndim == 3) {
		tr->R = (int)tr->t[0].shape[0];
		tr->T = tr->max_T = tr->t[0].shape[1];
		tr->K = (int)tr->t[0].shape[2];
	} else if (tr->nt >= 1 && tr->t[0].ndim == 2) {
		tr->R = tr->nt;
		tr->K = (int)tr->t[0].shape[1];
		for (i = 0; i < tr->nt; i++) {
			if (tr->t[i].ndim != 2 || tr->t[i].shape[1] != tr->K)
				return mk_err_data(e, "%s: tensor %d has shape "
				    "(%s); every rank's ids are [T_r, %d]",
				    name, i, mk_shape_str(sb, sizeof(sb),
				    tr->t[i].ndim, tr->t[i].shape), tr->K);
			if (tr->t[i].shape[0] > tr->max_T)
				tr->max_T = tr->t[i].shape[0];
		}
	} else if (tr->nt == 1 && tr->t[0].ndim == 4) {
		tr->S = (int)tr->t[0].shape[0];
		tr->R = (int)tr->t[0].shape[1];
		tr->T = tr->max_T = tr->t[0].shape[2];
		tr->K = (int)tr->t[0].shape[3];
	} else {
		return mk_err_data(e, "%s: %d tensors, the first of shape (%s): "
		    "expected [R, T, K], [S, R, T, K] or one [T_r, K] per rank",
		    name, tr->nt, mk_shape_str(sb, sizeof(sb), tr->t[0].ndim,
		    tr->t[0].shape));
	}
	for (i = 0; i < tr->nt; i++)
		if ((tr->elem = id_dtype(tr->t[i].dtype, name, e)) < 0)
			return -1;
	if (R > 0 && R != tr->R)
		return mk_err_usage(e, "--ranks %d, but %s holds %d ranks", R,
		    name, tr->R);
	if (tr->R < 1 || tr->R > MK_A2A_MAX_RANKS)
		return mk_err_data(e, "%s: %d ranks (at most %d)", name, tr->R,
		    MK_A2A_MAX_RANKS);
	return 0;
}

/*
 * The step buffer: anonymous memory in 2 MiB pages where the kernel
 * allows them.  A step is megabytes; faulting it in 4 KiB at a time cost
 * more than reading it (a third of the time of a one-step run).
 */
static unsigned char *
step_alloc(size_t n, size_t *len)
{
	const size_t huge = (size_t)2 << 20;
	void *p;

	*len = n < huge ? (n ? n : 1) : (n + huge - 1) / huge * huge;
	p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	if (*len >= huge)
		(void)madvise(p, *len, MADV_HUGEPAGE);
#endif
	return p;
}

int
mk_a2a_trace_open(struct mk_a2a_trace *tr, struct mk_src *s, int R,
    struct mk_err *e)
{
	struct mk_npy_hdr h;
	int fmt, r, n;
	size_t step;
	char sb[128];

	memset(tr, 0, sizeof(*tr));
	tr->s = s;
	if ((fmt = mk_src_format(s, e)) < 0)
		return -1;
	if (fmt != MK_FMT_NPY) {
		if (read_rest(tr, e) < 0)
			return -1;
		if (tr->nt == 0)
			return mk_err_data(e, "%s: empty input (no tensor)",
			    mk_src_name(s));
		return whole_form(tr, R, e);
	}
	if ((r = mk_npy_read_header(s, &h, e)) < 0)
		return -1;
	if (r == 0)
		return mk_err_data(e, "%s: empty input (no tensor)",
		    mk_src_name(s));
	if ((h.ndim != 4 && h.ndim != 3) || h.fortran) {
		/* ragged ranks (or needs transposing): read whole */
		s->pos -= h.prefix_len + h.header_len;
		if (read_rest(tr, e) < 0)
			return -1;
		return whole_form(tr, R, e);
	}
	if ((tr->elem = id_dtype(h.dtype, mk_src_name(s), e)) < 0)
		return -1;
	/* [R, T, K] is read as the one step of [1, R, T, K], with S = 0 */
	n = h.ndim;
	mk_shape_str(sb, sizeof(sb), n, h.shape);
	if (n == 4 && h.shape[0] > INT32_MAX)
		return mk_err_data(e, "%s: shape (%s): more than %d steps",
		    mk_src_name(s), sb, INT32_MAX);
	if (h.shape[n - 3] < 1 || h.shape[n - 3] > MK_A2A_MAX_RANKS)
		return mk_err_data(e, "%s: shape (%s): %lld ranks (1 to %d)",
		    mk_src_name(s), sb, (long long)h.shape[n - 3],
		    MK_A2A_MAX_RANKS);
	if (h.shape[n - 1] > INT32_MAX)
		return mk_err_data(e, "%s: shape (%s): top-%lld", mk_src_name(s),
		    sb, (long long)h.shape[n - 1]);
	tr->S = n == 4 ? (int)h.shape[0] : 0;
	tr->R = (int)h.shape[n - 3];
	tr->T = tr->max_T = h.shape[n - 2];
	tr->K = (int)h.shape[n - 1];
	tr->swap = h.big_endian;
	if (R > 0 && R != tr->R)
		return mk_err_usage(e, "--ranks %d, but %s holds %d ranks", R,
		    mk_src_name(s), tr->R);
	step = (size_t)tr->R * (size_t)tr->T * (size_t)tr->K * (size_t)tr->elem;
	if (s->map != NULL) {
		/* a file: steps by pread or in place (file_step) */
		if (s->len - s->pos < h.nbytes)
			return mk_err_data(e, "%s: data ends after %zu of %llu "
			    "bytes", mk_src_name(s), s->len - s->pos,
			    (unsigned long long)h.nbytes);
		tr->off = (int64_t)src_offset(s);
		tr->mapped = s->p + s->pos;
		s->pos += h.nbytes;
	}
	if ((tr->buf = step_alloc(step, &tr->buf_len)) == NULL) {
		return mk_err_data(e, "%s: out of memory for a step of %zu "
		    "bytes", mk_src_name(s), step);
	}
	return 0;
}

/*
 * Unmap the share of tokens [t0, t1) of rank r in the pages tr->unmap
 * (memory stays bounded).  The loaders do it in parallel, a share each:
 * one thread unmapping a whole step between steps was a third of a step
 * on 16 threads.
 */
static void
unmap_share(const struct mk_a2a_trace *tr, int r, int64_t t0, int64_t t1)
{
	const uintptr_t page = 4096, len = tr->unmap[1] - tr->unmap[0];
	const uintptr_t all = (uintptr_t)tr->R * (uintptr_t)tr->T;
	const uintptr_t a = (uintptr_t)r * (uintptr_t)tr->T + (uintptr_t)t0;
	const uintptr_t b = (uintptr_t)r * (uintptr_t)tr->T + (uintptr_t)t1;
	uintptr_t from, to;

	if (len == 0 || all == 0)
		return;
	from = (tr->unmap[0] + len / all * a + len % all * a / all) &
	    ~(page - 1);
	to = b == all ? tr->unmap[1] : (tr->unmap[0] + len / all * b +
	    len % all * b / all) & ~(page - 1);
	if (to > from)
		(void)madvise((void *)from, to - from, MADV_DONTNEED);
}

/* The loader of steps read in place: only the unmapping above. */
static int
map_rank(void *ctx, int r, int64_t t0, int64_t t1, struct mk_err *e)
{
	(void)e;
	unmap_share(ctx, r, t0, t1);
	return 0;
}

/*
 * The step loader of files (struct mk_a2a_step's load): tokens [t0, t1)
 * of rank r of the current step into their place in tr->buf.
 */
static int
load_rank(void *ctx, int r, int64_t t0, int64_t t1, struct mk_err *e)
{
	struct mk_a2a_trace *tr = ctx;
	size_t row = (size_t)tr->K * (size_t)tr->elem, done = 0;
	size_t n = (size_t)(t1 - t0) * row;
	size_t skip = ((size_t)r * (size_t)tr->T + (size_t)t0) * row;
	off_t at = (off_t)tr->cur_off + (off_t)skip;
	unsigned char *dst = tr->buf + skip;
	ssize_t got;

	unmap_share(tr, r, t0, t1);
	while (done < n) {
		got = pread(tr->s->fd, dst + done, n - done, at + (off_t)done);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return mk_err_sys(e, mk_src_name(tr->s));
		if (got == 0)
			return mk_err_data(e, "%s: step %d, rank %d: the file "
			    "shrank while being read", mk_src_name(tr->s),
			    tr->step - 1, r);
		done += (size_t)got;
	}
	if (tr->swap)
		mk_byteswap(dst, n / (size_t)tr->elem, (size_t)tr->elem);
	return 0;
}

/*
 * Steps 1 to PROBE are read by mapping, then as many by pread, and every
 * RETRY-th step the other way than the faster so far: the faster way is
 * the one whose fastest step was faster.  A sum of the trial steps was
 * thrown by single slow steps, and on the 16-core host the first mapped
 * steps of a process were now and then 30 times slower than the rest
 * (a wrong choice there halves the speed; the retries cost 2-3% on the
 * small VM, where the mapping is 3 times slower).
 */
#define PROBE		MK_A2A_TRIAL_STEPS
#define PROBE_MIN_STEPS	32	/* shorter traces are read with pread */
#define RETRY		128

static double
seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Whether step k is timed (a trial or a retry), and so read alone. */
static int
timed(const struct mk_a2a_trace *tr, int k)
{
	return tr->read_as == 0 && !tr->swap && tr->S >= PROBE_MIN_STEPS &&
	    k >= 1 && (k <= 2 * PROBE || k % RETRY == 0);
}

/* How to read step k: pread, except the map trials and a map winner. */
static int
choose_method(const struct mk_a2a_trace *tr, int k)
{
	int best;

	if (tr->swap)
		return MK_A2A_BY_PREAD;
	if (tr->read_as > 0)
		return tr->read_as - 1;
	if (tr->S < PROBE_MIN_STEPS || k == 0)
		return MK_A2A_BY_PREAD;
	if (k <= PROBE)
		return MK_A2A_BY_MAP;
	if (k <= 2 * PROBE)
		return MK_A2A_BY_PREAD;
	best = tr->fastest[MK_A2A_BY_MAP] < tr->fastest[MK_A2A_BY_PREAD] ?
	    MK_A2A_BY_MAP : MK_A2A_BY_PREAD;
	return k % RETRY == 0 ? 1 - best : best;
}

/*
 * Pages of steps read in place are unmapped in rounds of this many bytes
 * (and when reading turns to pread): each call of madvise costs a TLB
 * flush on every thread, and one a rank a step was 20% of the time on 16
 * threads.  Memory stays that much plus a step.
 */
#define UNMAP_BYTES	((uintptr_t)64 << 20)

/*
 * Step k, just read in place, joins the pages held: from the one holding
 * its first byte (or where the held ones end) to the one before its last
 * byte's, which may hold the next step's first bytes.
 */
static void
hold(struct mk_a2a_trace *tr, int k, size_t n)
{
	const uintptr_t page = 4096;
	uintptr_t from = (uintptr_t)(tr->mapped + (size_t)k * n) & ~(page - 1);
	uintptr_t to = (uintptr_t)(tr->mapped + (size_t)(k + 1) * n) &
	    ~(page - 1);

	if (tr->held[1] <= tr->held[0])
		tr->held[0] = from;
	tr->held[1] = to;
}

/*
 * Step tr->step of a file: by a loader that preads each rank, or in
 * place in the mapping.  Returns where the step's ids are (or will be).
 */
static const unsigned char *
file_step(struct mk_a2a_trace *tr, struct mk_a2a_step *st, size_t n,
    int start)
{
	double now;
	int k = tr->step;

	st->ctx = tr;
	if (!start) {
		/* a later step of a batch read in place: nothing to load */
		tr->pend[1] = k + 1;
		return tr->mapped + (size_t)k * n;
	}
	/* the time since a timed step is that step's, all work included */
	now = seconds();
	if (k > 0 && timed(tr, k - 1) && (tr->fastest[tr->method] == 0 ||
	    now - tr->t_prev < tr->fastest[tr->method]))
		tr->fastest[tr->method] = now - tr->t_prev;
	tr->t_prev = now;
	/* the steps read in place so far are done with */
	for (; tr->pend[0] < tr->pend[1]; tr->pend[0]++)
		hold(tr, tr->pend[0], n);
	tr->method = choose_method(tr, k);
	/* the loaders unmap what earlier steps left mapped, now and then */
	tr->unmap[0] = tr->unmap[1] = 0;
	if (tr->held[1] - tr->held[0] >= UNMAP_BYTES ||
	    (tr->method != MK_A2A_BY_MAP && tr->held[1] > tr->held[0])) {
		memcpy(tr->unmap, tr->held, sizeof(tr->held));
		tr->held[0] = tr->held[1];
	}
	if (tr->method == MK_A2A_BY_MAP) {
		tr->pend[0] = k;
		tr->pend[1] = k + 1;
		st->load = map_rank;
		return tr->mapped + (size_t)k * n;
	}
	tr->cur_off = tr->off + (int64_t)k * (int64_t)n;
	st->load = load_rank;
	return tr->buf;
}

/*
 * The next step into st; start: whether it begins a batch (a later step
 * of a batch is read in place, as the first was).
 */
static int
next_step(struct mk_a2a_trace *tr, struct mk_a2a_step *st, int start,
    struct mk_err *e)
{
	size_t rank_bytes, step_bytes;
	const unsigned char *base;
	int64_t got;
	int r;

	memset(st, 0, sizeof(*st));
	st->R = tr->R;
	st->K = tr->K;
	st->elem = tr->elem;
	if (tr->t != NULL && tr->S == 0) {
		/* one step, read whole */
		if (tr->step++ > 0)
			return 0;
		for (r = 0; r < tr->R; r++) {
			if (tr->nt == 1) {
				st->T[r] = tr->T;
				st->ids[r] = (const unsigned char *)tr->t[0].data
				    + (size_t)r * (size_t)tr->T * (size_t)tr->K
				    * (size_t)tr->elem;
			} else {
				st->T[r] = tr->t[r].shape[0];
				st->ids[r] = tr->t[r].data;
			}
		}
		return 1;
	}
	if (tr->step >= (tr->S > 0 ? tr->S : 1))
		return 0;
	rank_bytes = (size_t)tr->T * (size_t)tr->K * (size_t)tr->elem;
	step_bytes = rank_bytes * (size_t)tr->R;
	if (tr->t != NULL) {
		base = (const unsigned char *)tr->t[0].data +
		    (size_t)tr->step * step_bytes;
	} else if (tr->mapped != NULL) {
		base = file_step(tr, st, step_bytes, start);
	} else {
		got = src_read(tr->s, tr->buf, step_bytes, e);
		if (got < 0)
			return -1;
		if ((size_t)got < step_bytes)
			return mk_err_data(e, "%s: step %d: data ends after "
			    "%lld of %zu bytes", mk_src_name(tr->s), tr->step,
			    (long long)got, step_bytes);
		if (tr->swap)
			mk_byteswap(tr->buf, step_bytes / (size_t)tr->elem,
			    (size_t)tr->elem);
		base = tr->buf;
	}
	for (r = 0; r < tr->R; r++) {
		st->T[r] = tr->T;
		st->ids[r] = base + (size_t)r * rank_bytes;
	}
	tr->step++;
	return 1;
}

int
mk_a2a_trace_next(struct mk_a2a_trace *tr, struct mk_a2a_step *st,
    struct mk_err *e)
{
	return next_step(tr, st, 1, e);
}

/*
 * Steps read in place are handed out up to 16 or 128 MiB at a time (16
 * steps were 13% faster than 8 on the 16-core host: one wait for the
 * slowest thread for them all), only on long files (the others are read
 * with pread).
 */
#define BATCH_BYTES	((size_t)128 << 20)

int
mk_a2a_trace_batch(const struct mk_a2a_trace *tr)
{
	size_t step = (size_t)tr->R * (size_t)tr->T * (size_t)tr->K *
	    (size_t)tr->elem, n;

	if (tr->t != NULL || tr->mapped == NULL || tr->S < PROBE_MIN_STEPS ||
	    step == 0)
		return 1;
	n = BATCH_BYTES / step;
	return n < 1 ? 1 : n > MK_A2A_MAX_STEPS ? MK_A2A_MAX_STEPS : (int)n;
}

int
mk_a2a_trace_next_steps(struct mk_a2a_trace *tr, struct mk_a2a_step *st,
    int nmax, struct mk_err *e)
{
	int n, got;

	if ((got = next_step(tr, &st[0], 1, e)) <= 0)
		return got;
	/* more only in place, and none timed: their times are their own */
	for (n = 1; n < nmax && tr->t == NULL && tr->mapped != NULL &&
	    tr->method == MK_A2A_BY_MAP && !timed(tr, tr->step - 1) &&
	    !timed(tr, tr->step) && tr->step < tr->S; n++)
		if (next_step(tr, &st[n], 0, e) < 0)
			return -1;
	return n;
}

void
mk_a2a_trace_close(struct mk_a2a_trace *tr)
{
	int i;

	for (i = 0; i < tr->nt; i++)
		mk_tensor_free(&tr->t[i]);
	free(tr->t);
	if (tr->buf != NULL)
		munmap(tr->buf, tr->buf_len);
	memset(tr, 0, sizeof(*tr));
}

void
mk_a2a_phys_free(struct mk_a2a_phys *m)
{
	free(m->first);
	free(m->cnt);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

int
mk_a2a_phys_init(struct mk_a2a_phys *m, const int64_t *row, int P, int E,
    const char *what, struct mk_err *e)
{
	int p, x, *fill;

	memset(m, 0, sizeof(*m));
	m->P = P;
	m->E = E;
	m->first = calloc((size_t)E + 1, sizeof(int));
	m->cnt = calloc((size_t)E + 1, sizeof(int));
	m->slots = malloc(sizeof(int) * ((size_t)P + 1));
	fill = calloc((size_t)E + 1, sizeof(int));
	if (!m->first || !m->cnt || !m->slots || !fill) {
		free(fill);
		mk_a2a_phys_free(m);
		return mk_err_data(e, "out of memory");
	}
	for (p = 0; p < P; p++) {
		if (row[p] < 0 || row[p] >= E) {
			free(fill);
			mk_a2a_phys_free(m);
			return mk_err_data(e, "%s: slot %d holds expert %lld, "
			    "not in [0, %d)", what, p, (long long)row[p], E);
		}
		m->cnt[row[p]]++;
	}
	for (x = 0; x < E; x++) {
		if (m->cnt[x] == 0) {
			free(fill);
			mk_a2a_phys_free(m);
			return mk_err_data(e, "%s: expert %d has no replica", what,
			    x);
		}
		m->first[x + 1] = m->first[x] + m->cnt[x];
	}
	/* ascending slot order within each expert */
	for (p = 0; p < P; p++)
		m->slots[m->first[row[p]] + fill[row[p]]++] = p;
	free(fill);
	return 0;
}

int
mk_a2a_phys_map(const struct mk_a2a_phys *m, const struct mk_a2a_step *in,
    struct mk_a2a_step *out, int32_t **bufs, int lenient, const char *where,
    struct mk_err *e)
{
	int64_t t, x, pos;
	int r, j, K = in->K;

	*out = *in;
	out->load = NULL;	/* in was loaded (see a2a_trace.h) */
	out->ctx = NULL;
	out->elem = 4;
	for (r = 0; r < in->R; r++) {
		for (t = 0; t < in->T[r]; t++)
			for (j = 0; j < K; j++) {
				pos = t * K + j;
				x = in->elem == 4 ?
				    ((const int32_t *)in->ids[r])[pos] :
				    ((const int64_t *)in->ids[r])[pos];
				if (x >= 0 && x < m->E) {
					bufs[r][pos] = m->slots[m->first[x] +
					    pos % m->cnt[x]];
				} else if (x == -1 || lenient) {
					bufs[r][pos] = -1;
				} else {
					return mk_err_data(e, "%s%srank %d, "
					    "token %lld, slot %d: logical expert "
					    "%lld is not in [0, %d)", where,
					    *where ? ", " : "", r, (long long)t,
					    j, (long long)x, m->E);
				}
			}
		out->ids[r] = bufs[r];
	}
	return 0;
}
