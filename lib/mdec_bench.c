/*
 * mdec_bench.c - what mdecode --bench needs besides the kernels: random
 * inputs made in parallel (each page first touched by the thread range
 * that reads it, as the kernels do), timings interleaved with the read
 * probe, and the agreement check between paths.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dtype.h"
#include "half.h"
#include "kern.h"
#include "mdec.h"

#define CHUNK	65536	/* elements per random stream: results do not
			 * depend on the thread count */

static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Roughly standard normal: the sum of four 16-bit uniforms, rescaled. */
static float
normal(uint64_t *s)
{
	uint64_t x = mix(*s += 0x632be59bd9b4e019ULL);

	return (float)(((double)(x & 0xffff) + (double)(x >> 16 & 0xffff) +
	    (double)(x >> 32 & 0xffff) + (double)(x >> 48) - 131070.0) *
	    (1.7320508075688772 / 65536.0));
}

void
mk_mdec_fill(void *p, size_t n, int dtype, uint64_t seed, int threads)
{
	size_t nchunk = (n + CHUNK - 1) / CHUNK;
	int64_t c;

#pragma omp parallel for num_threads(threads) schedule(static)
	for (c = 0; c < (int64_t)nchunk; c++) {
		uint64_t s = mix(seed ^ mix((uint64_t)c));
		size_t i = (size_t)c * CHUNK, end = i + CHUNK < n ? i + CHUNK : n;

		for (; i < end; i++) {
			float x = normal(&s);

			if (dtype == MK_F16)
				((uint16_t *)p)[i] = mk_f32_to_f16(x);
			else if (dtype == MK_BF16)
				((uint16_t *)p)[i] = mk_f32_to_bf16(x);
			else
				((float *)p)[i] = x;
		}
	}
}

void
mk_mdec_fill_mask(uint8_t *m, size_t n, double density, uint64_t seed,
    int threads)
{
	const uint64_t cut = density >= 1 ? UINT64_MAX : (uint64_t)(density *
	    18446744073709551616.0);
	size_t nchunk = (n + CHUNK - 1) / CHUNK;
	int64_t c;

#pragma omp parallel for num_threads(threads) schedule(static)
	for (c = 0; c < (int64_t)nchunk; c++) {
		uint64_t s = mix(seed ^ mix((uint64_t)c + 0x5bd1e995));
		size_t i = (size_t)c * CHUNK, end = i + CHUNK < n ? i + CHUNK : n;

		for (; i < end; i++)
			m[i] = density >= 1 || mix(s += 0x632be59bd9b4e019ULL) <
			    cut;
	}
}

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double
mk_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
mk_mdec_time(const struct mk_mdec *p, const struct mk_kern *k,
    const struct mk_kern *probe, int threads, int reps, float *lse,
    float *out, double *ms, double *probe_gbps, struct mk_err *e)
{
	const size_t kv = (size_t)p->B * (size_t)p->KH * (size_t)p->V *
	    (size_t)p->D * mk_dtype_size((enum mk_dtype)p->dtype);
	double *tk = calloc((size_t)reps, sizeof(double));
	double *tp = calloc((size_t)reps, sizeof(double));
	volatile uint64_t sink = 0;
	double t0;
	int r, rc = -1;

	if (tk == NULL || tp == NULL) {
		mk_err_data(e, "out of memory");
		goto done;
	}
	/* one untimed run of each warms the threads and the page tables */
	sink += mk_read_sum(probe, p->k, kv, threads);
	if (mk_mdec_run(p, k, threads, lse, out, e) < 0)
		goto done;
	for (r = 0; r < reps; r++) {
		t0 = now_ms();
		sink += mk_read_sum(probe, p->k, kv, threads);
		sink += mk_read_sum(probe, p->v, kv, threads);
		tp[r] = now_ms() - t0;
		t0 = now_ms();
		if (mk_mdec_run(p, k, threads, lse, out, e) < 0)
			goto done;
		tk[r] = now_ms() - t0;
	}
	/*
	 * The kernel's median against the probe's best: reading cannot beat
	 * the hardware, so the fastest probe is the least noisy estimate of
	 * what the machine can do, and the fraction errs low.
	 */
	*ms = mk_median(tk, reps);
	qsort(tp, (size_t)reps, sizeof(*tp), cmp_double);
	*probe_gbps = 2.0 * (double)kv / (tp[0] * 1e6);
	rc = 0;
done:
	(void)sink;
	free(tk);
	free(tp);
	return rc;
}

int
mk_mdec_agree(const struct mk_mdec *p, const float *lse, const float *out,
    const float *rlse, const float *rout, double tol, struct mk_err *e)
{
	size_t bh = (size_t)p->B * (size_t)p->QH, i;
	double big;
	int d;

	for (i = 0; i < bh; i++) {
		if (!(lse[i] == rlse[i] || fabs(lse[i] - rlse[i]) <= tol *
		    fmax(1.0, fabs(rlse[i]))))
			return mk_err_data(e, "batch %zu head %zu: lse %.9g, "
			    "generic %.9g", i / (size_t)p->QH,
			    i % (size_t)p->QH, lse[i], rlse[i]);
		for (big = 0, d = 0; d < p->D; d++)
			big = fmax(big, fabs(rout[i * (size_t)p->D +
			    (size_t)d]));
		for (d = 0; d < p->D; d++) {
			size_t j = i * (size_t)p->D + (size_t)d;

			if (!(fabs(out[j] - rout[j]) <= tol * (fabs(rout[j]) +
			    big)))
				return mk_err_data(e, "batch %zu head %zu "
				    "dim %d: out %.9g, generic %.9g",
				    i / (size_t)p->QH, i % (size_t)p->QH, d,
				    out[j], rout[j]);
		}
	}
	return 0;
}
