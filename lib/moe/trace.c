/* trace.c - reading routing traces step by step; see trace.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moe/trace.h"
#include "base/clock.h"
#include "base/threads.h"
#include "simd/kern.h"
#include "tensor/npy.h"
#include "tensor/slab.h"
#include "tensor/stream.h"

#define BY_PREAD	0
#define BY_MAP		1
#define TRIAL_STEPS	4	/* steps timed each way */

struct mk_moe_trace {
	struct mk_src		*s;
	struct mk_moe_trace_shape sh;
	int			 step;		/* steps handed out */
	struct mk_slab		*slab;		/* an NPY [S,]R,T,K payload */
	const unsigned char	*mapped;	/* it in place, else NULL */
	unsigned char		*buf;		/* a step read with pread */
	uint64_t		 cur;		/* that step's payload offset */
	int			 method;	/* how the last step was read */
	int			 read_as;	/* 0: time both ways on long
						 * traces, else 1 + the method
						 * for every step
						 * (MOEKIT_A2A_READ) */
	double			 t_prev;	/* when it was handed out */
	double			 fastest[2];	/* seconds of the fastest trial
						 * step, by method (0: none) */
	uint64_t		 unmap[2];	/* payload bytes of steps read in
						 * place that this step's
						 * loaders give back [from, to) */
	uint64_t		 held[2];	/* such bytes still mapped */
	int			 pend[2];	/* steps read in place and handed
						 * out since a batch began */
	int			 short_how;	/* a short trace's method, or
						 * -1 until chosen */
	double			 probe_gbps;	/* its probe's load rate (0:
						 * none) */
	size_t			 probe_bytes;	/* and what it loaded */
	int			 swap;		/* big-endian payload */
	int			 ended;		/* the input's end was checked */
	struct mk_tensor	*t;		/* tensors read whole */
	int			 nt;
};

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

/* A new slot in the list of tensors read whole. */
static struct mk_tensor *
add_tensor(struct mk_moe_trace *tr, struct mk_err *e)
{
	struct mk_tensor *nt;

	if ((nt = realloc(tr->t, sizeof(*nt) * (size_t)(tr->nt + 1))) == NULL)
		return mk_err_data(e, "out of memory"), NULL;
	tr->t = nt;
	mk_tensor_init(&tr->t[tr->nt]);
	return &tr->t[tr->nt];
}

/* Keep the tensors that follow, read whole (R [T_r, K] in all). */
static int
read_rest(struct mk_moe_trace *tr, struct mk_err *e)
{
	struct mk_tensor *t;
	int r;

	for (;;) {
		if ((t = add_tensor(tr, e)) == NULL)
			return -1;
		if ((r = mk_src_next(tr->s, t, e)) <= 0)
			return r;
		if (++tr->nt > MK_MOE_MAX_RANKS)
			return mk_err_data(e, "%s: more than %d tensors (ranks)",
			    mk_src_name(tr->s), MK_MOE_MAX_RANKS);
	}
}

/* A top-k DeepEP's kernels cannot take: 1 with e filled, else 0. */
static int
topk_bad(int64_t K, const char *name, const char *shape, struct mk_err *e)
{
	if (K >= 1 && K <= MK_MOE_MAX_TOPK)
		return 0;
	mk_err_usage(e, "%s: shape (%s): top-%lld; DeepEP's dispatch kernels "
	    "take 1 to %d experts per token", name, shape, (long long)K,
	    MK_MOE_MAX_TOPK);
	return 1;
}

/* Shape checks of what was read whole. */
static int
whole_form(struct mk_moe_trace *tr, int R, struct mk_err *e)
{
	struct mk_moe_trace_shape *sh = &tr->sh;
	const char *name = mk_src_name(tr->s);
	const struct mk_tensor *t0 = &tr->t[0];
	char sb[128];
	int i;

	sh->S = 1;
	if (tr->nt == 1 && t0->ndim == 3) {
		sh->R = (int)t0->shape[0];
		sh->T = sh->max_T = t0->shape[1];
		sh->K = (int)t0->shape[2];
	} else if (t0->ndim == 2) {
		sh->R = tr->nt;
		sh->K = (int)t0->shape[1];
		for (i = 0; i < tr->nt; i++) {
			if (tr->t[i].ndim != 2 || tr->t[i].shape[1] != sh->K)
				return mk_err_data(e, "%s: tensor %d has shape "
				    "(%s); every rank's ids are [T_r, %d]",
				    name, i, mk_shape_str(sb, sizeof(sb),
				    tr->t[i].ndim, tr->t[i].shape), sh->K);
			if (tr->t[i].shape[0] > sh->max_T)
				sh->max_T = tr->t[i].shape[0];
		}
	} else if (tr->nt == 1 && t0->ndim == 4 && t0->shape[0] <= INT32_MAX) {
		sh->stepped = 1;
		sh->S = (int)t0->shape[0];
		sh->R = (int)t0->shape[1];
		sh->T = sh->max_T = t0->shape[2];
		sh->K = (int)t0->shape[3];
	} else {
		return mk_err_data(e, "%s: %d tensors, the first of shape (%s): "
		    "expected [R, T, K], [S, R, T, K] or one [T_r, K] per rank",
		    name, tr->nt, mk_shape_str(sb, sizeof(sb), t0->ndim,
		    t0->shape));
	}
	if (topk_bad(t0->shape[t0->ndim - 1], name, mk_shape_str(sb,
	    sizeof(sb), t0->ndim, t0->shape), e))
		return -1;
	for (i = 0; i < tr->nt; i++) {
		if ((sh->elem = id_dtype(tr->t[i].dtype, name, e)) < 0)
			return -1;
		/* the steps hand out one element size for every rank */
		if (tr->t[i].dtype != t0->dtype)
			return mk_err_data(e, "%s: tensor %d holds %s ids, "
			    "tensor 0 %s; every rank's ids must have one dtype",
			    name, i, mk_dtype_name(tr->t[i].dtype),
			    mk_dtype_name(t0->dtype));
	}
	if (R > 0 && R != sh->R)
		return mk_err_usage(e, "--ranks %d, but %s holds %d ranks", R,
		    name, sh->R);
	if (sh->R < 1 || sh->R > MK_MOE_MAX_RANKS)
		return mk_err_data(e, "%s: %d ranks (at most %d)", name, sh->R,
		    MK_MOE_MAX_RANKS);
	sh->in_hand = 1;
	return 0;
}

/* MOEKIT_A2A_READ: 0 (time both ways), or 1 + the method for every step. */
static int
read_as(struct mk_err *e)
{
	/* in the order of BY_PREAD and BY_MAP */
	static const char *const ways[] = { "pread", "map", NULL };

	return mk_env_word("MOEKIT_A2A_READ", ways, e);
}

/* An NPY [S, R, T, K] or [R, T, K] header: read the payload a step at a
 * time. */
static int
open_slab(struct mk_moe_trace *tr, const struct mk_npy_hdr *h,
    struct mk_err *e)
{
	struct mk_moe_trace_shape *sh = &tr->sh;
	const char *name = mk_src_name(tr->s);
	int n = h->ndim;
	char sb[128];

	if ((sh->elem = id_dtype(h->dtype, name, e)) < 0)
		return -1;
	mk_shape_str(sb, sizeof(sb), n, h->shape);
	if (n == 4 && h->shape[0] > INT32_MAX)
		return mk_err_data(e, "%s: shape (%s): more than %d steps",
		    name, sb, INT32_MAX);
	if (h->shape[n - 3] < 1 || h->shape[n - 3] > MK_MOE_MAX_RANKS)
		return mk_err_data(e, "%s: shape (%s): %lld ranks (1 to %d)",
		    name, sb, (long long)h->shape[n - 3], MK_MOE_MAX_RANKS);
	if (topk_bad(h->shape[n - 1], name, sb, e))
		return -1;
	/* [R, T, K] is read as the one step of [1, R, T, K], unstepped */
	sh->stepped = n == 4;
	sh->S = n == 4 ? (int)h->shape[0] : 1;
	sh->R = (int)h->shape[n - 3];
	sh->T = sh->max_T = h->shape[n - 2];
	sh->K = (int)h->shape[n - 1];
	tr->swap = h->big_endian;
	if ((tr->slab = mk_slab_open(tr->s, h, e)) == NULL)
		return -1;
	tr->mapped = mk_slab_map(tr->slab);
	sh->in_hand = tr->mapped != NULL;
	return 0;
}

/* Bytes of one step (dense forms). */
static size_t
step_bytes(const struct mk_moe_trace *tr)
{
	return (size_t)tr->sh.R * (size_t)tr->sh.T * (size_t)tr->sh.K *
	    (size_t)tr->sh.elem;
}

static int
trace_open(struct mk_moe_trace *tr, int R, struct mk_err *e)
{
	struct mk_npy_hdr h;
	struct mk_tensor *t;
	int fmt, r;

	if ((tr->read_as = read_as(e)) < 0 || (fmt = mk_src_format(tr->s, e))
	    < 0)
		return -1;
	if (fmt == MK_FMT_NPY) {
		if ((r = mk_npy_read_header(tr->s, &h, e)) < 0)
			return -1;
		if (r == 0)
			return mk_err_data(e, "%s: empty input (no tensor)",
			    mk_src_name(tr->s));
		if ((h.ndim == 4 || h.ndim == 3) && !h.fortran) {
			if (open_slab(tr, &h, e) < 0)
				return -1;
			if (R > 0 && R != tr->sh.R)
				return mk_err_usage(e, "--ranks %d, but %s holds "
				    "%d ranks", R, mk_src_name(tr->s), tr->sh.R);
			return 0;
		}
		/* ragged ranks (or needs transposing): read whole */
		if ((t = add_tensor(tr, e)) == NULL ||
		    mk_npy_read_payload(tr->s, &h, t, e) < 0)
			return -1;
		tr->nt = 1;
	}
	if (read_rest(tr, e) < 0)
		return -1;
	if (tr->nt == 0)
		return mk_err_data(e, "%s: empty input (no tensor)",
		    mk_src_name(tr->s));
	tr->ended = 1;
	return whole_form(tr, R, e);
}

struct mk_moe_trace *
mk_moe_trace_open(struct mk_src *s, int R, struct mk_err *e)
{
	struct mk_moe_trace *tr;

	if ((tr = calloc(1, sizeof(*tr))) == NULL) {
		mk_err_data(e, "%s: out of memory", mk_src_name(s));
		return NULL;
	}
	tr->s = s;
	tr->short_how = -1;
	if (trace_open(tr, R, e) < 0) {
		mk_moe_trace_close(tr);
		return NULL;
	}
	return tr;
}

const char *
mk_moe_trace_name(const struct mk_moe_trace *tr)
{
	return mk_src_name(tr->s);
}

struct mk_moe_trace_shape
mk_moe_trace_shape(const struct mk_moe_trace *tr)
{
	return tr->sh;
}

/*
 * Give back the share of tokens [t0, t1) of rank r of the payload bytes
 * tr->unmap (memory stays bounded).  The loaders do it in parallel, a
 * share each: one thread unmapping a whole step between steps was a third
 * of a step on 16 threads.  Shares tile the range (mk_slab_release).
 */
static void
unmap_share(const struct mk_moe_trace *tr, int r, int64_t t0, int64_t t1)
{
	const uint64_t len = tr->unmap[1] - tr->unmap[0];
	const uint64_t all = (uint64_t)tr->sh.R * (uint64_t)tr->sh.T;
	const uint64_t a = (uint64_t)r * (uint64_t)tr->sh.T + (uint64_t)t0;
	const uint64_t b = (uint64_t)r * (uint64_t)tr->sh.T + (uint64_t)t1;

	if (len == 0 || all == 0)
		return;
	mk_slab_release(tr->slab, tr->unmap[0] + len / all * a +
	    len % all * a / all, b == all ? tr->unmap[1] : tr->unmap[0] +
	    len / all * b + len % all * b / all);
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
 * The step loader of files (struct mk_moe_step's load): tokens [t0, t1)
 * of rank r of the current step into their place in tr->buf.
 */
static int
load_rank(void *ctx, int r, int64_t t0, int64_t t1, struct mk_err *e)
{
	struct mk_moe_trace *tr = ctx;
	size_t row = (size_t)tr->sh.K * (size_t)tr->sh.elem;
	size_t n = (size_t)(t1 - t0) * row;
	size_t skip = ((size_t)r * (size_t)tr->sh.T + (size_t)t0) * row;
	unsigned char *dst = tr->buf + skip;
	int64_t got;

	unmap_share(tr, r, t0, t1);
	if ((got = mk_slab_pread(tr->slab, dst, tr->cur + skip, n, e)) < 0)
		return -1;
	if ((size_t)got < n)
		return mk_err_data(e, "%s: step %d, rank %d: the file shrank "
		    "while being read", mk_src_name(tr->s), tr->step - 1, r);
	if (tr->swap)
		mk_byteswap(dst, n / (size_t)tr->sh.elem, (size_t)tr->sh.elem);
	return 0;
}

/*
 * Steps 1 to PROBE are read by mapping, then as many by pread, and every
 * RETRY-th step the other way than the faster so far: the faster way is
 * the one whose fastest step was faster.  A sum of the trial steps was
 * thrown by single slow steps, and on the 16-core host the first mapped
 * steps of a process were now and then many times slower than the rest
 * (a wrong choice there halves the speed; the retries cost little on the
 * small VM, where the mapping is slower).
 */
#define PROBE		TRIAL_STEPS
#define PROBE_MIN_STEPS	32	/* shorter traces are not timed */

/*
 * How a trace too short to time is read.  In place, on hosts of 8 CPUs
 * or more, where that was faster than pread (a fresh buffer is zeroed,
 * then copied into).  On smaller machines it depends on what their pages
 * cost, so the first SHORT_PROBE bytes are loaded in place, timed: the
 * 2-CPU Zen 5 virtual machine loaded mapped page-cache pages slowly (a
 * nested-paging walk each 4 KiB page) and read faster by pread; a 2-CPU
 * Xeon one loaded them fast and read faster in place.  At SHORT_MAP_GBPS
 * or more the trace is read in place.
 */
#define SHORT_MAP_CPUS	8
#define SHORT_PROBE	((size_t)1 << 20)
#define SHORT_MAP_GBPS	10.0

static int
short_method(struct mk_moe_trace *tr)
{
	size_t n = step_bytes(tr);
	volatile uint64_t sink;
	double t;

	if (tr->short_how >= 0)
		return tr->short_how;
	if (mk_usable_cpus() >= SHORT_MAP_CPUS)
		return tr->short_how = BY_MAP;
	n = tr->probe_bytes = n < SHORT_PROBE ? n : SHORT_PROBE;
	t = mk_seconds();
	sink = mk_kern()->read_sum(tr->mapped, n);
	t = mk_seconds() - t;
	(void)sink;
	tr->probe_gbps = t > 0 ? (double)n / t / 1e9 : 1e9;
	return tr->short_how = tr->probe_gbps >= SHORT_MAP_GBPS ? BY_MAP :
	    BY_PREAD;
}
#define RETRY		128

/* Whether step k is timed (a trial or a retry), and so read alone. */
static int
timed(const struct mk_moe_trace *tr, int k)
{
	return tr->read_as == 0 && !tr->swap && tr->sh.S >= PROBE_MIN_STEPS &&
	    k >= 1 && (k <= 2 * PROBE || k % RETRY == 0);
}

/* How to read step k: pread, except the map trials and a map winner. */
static int
choose_method(struct mk_moe_trace *tr, int k)
{
	int best;

	if (tr->swap)
		return BY_PREAD;
	if (tr->read_as > 0)
		return tr->read_as - 1;
	if (tr->sh.S < PROBE_MIN_STEPS)
		return short_method(tr);
	if (k == 0)
		return BY_PREAD;
	if (k <= PROBE)
		return BY_MAP;
	if (k <= 2 * PROBE)
		return BY_PREAD;
	best = tr->fastest[BY_MAP] < tr->fastest[BY_PREAD] ? BY_MAP : BY_PREAD;
	return k % RETRY == 0 ? 1 - best : best;
}

/*
 * Pages of steps read in place are given back in rounds of this many
 * bytes (and when reading turns to pread): each call of madvise costs a
 * TLB flush on every thread, and one a rank a step was a fifth of the
 * time on 16 threads.  Memory stays that much plus a step.
 */
#define UNMAP_BYTES	((uint64_t)64 << 20)

/* Step k, just read in place, joins the bytes held. */
static void
hold(struct mk_moe_trace *tr, int k, size_t n)
{
	if (tr->held[1] <= tr->held[0])
		tr->held[0] = (uint64_t)k * n;
	tr->held[1] = (uint64_t)(k + 1) * n;
}

/*
 * Step tr->step of a file: by a loader that preads each rank, or in
 * place in the mapping.  Returns where the step's ids are (or will be).
 */
static const unsigned char *
file_step(struct mk_moe_trace *tr, struct mk_moe_step *st, size_t n,
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
	now = mk_seconds();
	if (k > 0 && timed(tr, k - 1) && (tr->fastest[tr->method] == 0 ||
	    now - tr->t_prev < tr->fastest[tr->method]))
		tr->fastest[tr->method] = now - tr->t_prev;
	tr->t_prev = now;
	/* the steps read in place so far are done with */
	for (; tr->pend[0] < tr->pend[1]; tr->pend[0]++)
		hold(tr, tr->pend[0], n);
	tr->method = choose_method(tr, k);
	/* the loaders give back what earlier steps left mapped, now and then */
	tr->unmap[0] = tr->unmap[1] = 0;
	if (tr->held[1] - tr->held[0] >= UNMAP_BYTES ||
	    (tr->method != BY_MAP && tr->held[1] > tr->held[0])) {
		memcpy(tr->unmap, tr->held, sizeof(tr->held));
		tr->held[0] = tr->held[1];
	}
	if (tr->method == BY_MAP) {
		tr->pend[0] = k;
		tr->pend[1] = k + 1;
		st->load = map_rank;
		return tr->mapped + (size_t)k * n;
	}
	tr->cur = (uint64_t)k * n;
	st->load = load_rank;
	return tr->buf;
}

/* The step of an input read whole. */
static void
whole_step(const struct mk_moe_trace *tr, struct mk_moe_step *st)
{
	size_t rank_bytes = (size_t)tr->sh.T * (size_t)tr->sh.K *
	    (size_t)tr->sh.elem;
	const unsigned char *base;
	int r;

	for (r = 0; r < tr->sh.R; r++) {
		if (tr->t[0].ndim == 2) {	/* one [T_r, K] per rank */
			st->T[r] = tr->t[r].shape[0];
			st->ids[r] = tr->t[r].data;
			continue;
		}
		base = (const unsigned char *)tr->t[0].data + (size_t)tr->step *
		    step_bytes(tr);
		st->T[r] = tr->sh.T;
		st->ids[r] = base + (size_t)r * rank_bytes;
	}
}

/* A streamed step: read it into the slab's buffer. */
static const unsigned char *
stream_step(struct mk_moe_trace *tr, struct mk_err *e)
{
	const unsigned char *p;
	size_t n = step_bytes(tr);
	int64_t got;

	if ((got = mk_slab_next(tr->slab, n, &p, e)) < 0)
		return NULL;
	if ((size_t)got < n)
		return mk_err_data(e, "%s: step %d: data ends after %lld of %zu "
		    "bytes", mk_src_name(tr->s), tr->step, (long long)got, n),
		    NULL;
	if (tr->swap)
		mk_byteswap((void *)(uintptr_t)p, n / (size_t)tr->sh.elem,
		    (size_t)tr->sh.elem);
	return p;
}

/* After the last step: nothing but the end of the input may follow. */
static int
check_end(struct mk_moe_trace *tr, struct mk_err *e)
{
	struct mk_npy_hdr h;
	int r;

	if (tr->ended)
		return 0;
	tr->ended = 1;
	if ((r = mk_npy_read_header(tr->s, &h, e)) <= 0)
		return r;
	return mk_err_data(e, "%s: a second array at byte %llu: a trace is "
	    "one [S, R, T, K] or [R, T, K] array, or one [T_r, K] per rank",
	    mk_src_name(tr->s), (unsigned long long)h.start);
}

/*
 * The next step into st; start: whether it begins a batch (a later step
 * of a batch is read in place, as the first was).  Returns 1, 0 after the
 * last, or -1.
 */
static int
next_step(struct mk_moe_trace *tr, struct mk_moe_step *st, int start,
    struct mk_err *e)
{
	size_t rank_bytes, n = step_bytes(tr);
	const unsigned char *base;
	int r;

	memset(st, 0, sizeof(*st));
	st->R = tr->sh.R;
	st->K = tr->sh.K;
	st->elem = tr->sh.elem;
	if (tr->step >= tr->sh.S)
		return check_end(tr, e);
	if (tr->t != NULL) {
		whole_step(tr, st);
		tr->step++;
		return 1;
	}
	/* a file holds every step: only now is the buffer its word */
	if (tr->mapped != NULL && tr->buf == NULL &&
	    (tr->buf = mk_slab_buffer(tr->slab, n, e)) == NULL)
		return -1;
	if (tr->mapped != NULL)
		base = file_step(tr, st, n, start);
	else if ((base = stream_step(tr, e)) == NULL)
		return -1;
	rank_bytes = n / (size_t)tr->sh.R;
	for (r = 0; r < tr->sh.R; r++) {
		st->T[r] = tr->sh.T;
		st->ids[r] = base + (size_t)r * rank_bytes;
	}
	tr->step++;
	return 1;
}

/*
 * Steps read in place are handed out up to 16 or 128 MiB at a time (16
 * steps ran faster than 8 on the 16-core host: one wait for the slowest
 * thread for them all), only on long files (the others are read
 * with pread).
 */
#define BATCH_BYTES	((size_t)128 << 20)

int
mk_moe_trace_batch(const struct mk_moe_trace *tr)
{
	size_t n, step = step_bytes(tr);

	if (tr->t != NULL || tr->mapped == NULL || tr->sh.S < PROBE_MIN_STEPS
	    || step == 0)
		return 1;
	n = BATCH_BYTES / step;
	return n < 1 ? 1 : n > MK_MOE_MAX_STEPS ? MK_MOE_MAX_STEPS : (int)n;
}

int
mk_moe_trace_next_steps(struct mk_moe_trace *tr, struct mk_moe_step *st,
    int nmax, struct mk_err *e)
{
	int n, got;

	if ((got = next_step(tr, &st[0], 1, e)) <= 0)
		return got;
	/* more only in place, and none timed: their times are their own */
	for (n = 1; n < nmax && tr->t == NULL && tr->mapped != NULL &&
	    tr->method == BY_MAP && !timed(tr, tr->step - 1) &&
	    !timed(tr, tr->step) && tr->step < tr->sh.S; n++)
		if (next_step(tr, &st[n], 0, e) < 0)
			return -1;
	return n;
}

char *
mk_moe_trace_describe(const struct mk_moe_trace *tr, char *buf, size_t size)
{
	const char *how = tr->method == BY_MAP ? "mapped" : "by pread";

	buf[0] = '\0';
	if (tr->mapped == NULL)
		return buf;
	if (tr->read_as > 0)
		snprintf(buf, size, "%d steps, %s (MOEKIT_A2A_READ)", tr->step,
		    tr->method == BY_MAP ? "mapped" : "read by pread");
	else if (tr->fastest[BY_PREAD] > 0 && tr->fastest[BY_MAP] > 0)
		snprintf(buf, size, "%d steps; trial steps took %.3f ms by "
		    "pread, %.3f ms mapped (the fastest of %d each); the rest "
		    "%s", tr->step, tr->fastest[BY_PREAD] * 1e3,
		    tr->fastest[BY_MAP] * 1e3, TRIAL_STEPS, how);
	else if (tr->probe_gbps > 0)
		snprintf(buf, size, "%d steps, %s (a trace too short to time; "
		    "its first %zu KiB loaded in place at %.1f GB/s)",
		    tr->step, how, tr->probe_bytes >> 10, tr->probe_gbps);
	else if (tr->short_how == BY_MAP)
		snprintf(buf, size, "%d steps, mapped (a trace too short to "
		    "time, on %d CPUs)", tr->step, mk_usable_cpus());
	else
		snprintf(buf, size, "%d steps, read by pread", tr->step);
	return buf;
}

void
mk_moe_trace_close(struct mk_moe_trace *tr)
{
	int i;

	if (tr == NULL)
		return;
	for (i = 0; i < tr->nt; i++)
		mk_tensor_free(&tr->t[i]);
	free(tr->t);
	mk_slab_close(tr->slab);
	free(tr);
}
