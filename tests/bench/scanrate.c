/*
 * scanrate.c - a2a-layout's counting pass alone, in cache: the rate at
 * which the selected kernel (a2a_scan, as MOEKIT_ISA picks it) counts a
 * step's ids when they need no reading from memory.  With every CPU
 * counting at once this is the arithmetic's ceiling for a trace read in
 * place: no run over a file can count faster than it.
 *
 *   scanrate THREADS SKEW [R [TOKENS [SECONDS]]]
 *
 * Each of THREADS threads counts its own TOKENS x 8 int64 ids (default
 * 4096 tokens, 256 KiB: in L2) of 256 experts on R ranks (default 32),
 * 24 channels, over and over for SECONDS (default 1); the ids are top-8
 * distinct, drawn with weights (rank + 1)^-SKEW (0: uniform).  Prints
 * one line: threads, ns a token on one thread (the median thread's), and
 * GB/s of ids counted by all of them together.  Compiled by a2a.sh
 * against build/libmoekit.a.
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2a/a2a_scan.h"
#include "base/clock.h"
#include "base/errmsg.h"
#include "simd/kern.h"

#define TOPK	8
#define EXPERTS	256
#define CHANNELS	24

/* xorshift64*: a uniform double in [0, 1) */
static double
uniform(uint64_t *st)
{
	*st ^= *st >> 12;
	*st ^= *st << 25;
	*st ^= *st >> 27;
	return (double)((*st * 0x2545f4914f6cdd1dull) >> 11) * 0x1p-53;
}

/* T tokens of TOPK distinct experts, expert x drawn with weight w[x] */
static void
fill(int64_t *ids, int64_t T, const double *cum, uint64_t seed)
{
	int64_t t;
	int j, i, x, dup;

	for (t = 0; t < T; t++)
		for (j = 0; j < TOPK; j++) {
			do {
				double u = uniform(&seed) * cum[EXPERTS];

				for (x = 0; x < EXPERTS - 1 &&
				    cum[x + 1] <= u; x++)
					;
				/* hot experts spread over the ranks */
				x = x * 37 % EXPERTS;
				for (i = 0, dup = 0; i < j; i++)
					dup |= ids[t * TOPK + i] == x;
			} while (dup);
			ids[t * TOPK + j] = x;
		}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	int threads, R;
	double skew, secs, cum[EXPERTS + 1], *ns, t0, wall;
	int64_t T, total = 0;
	struct mk_err err;
	int x;

	if (argc < 3) {
		fprintf(stderr, "usage: scanrate THREADS SKEW [R [TOKENS "
		    "[SECONDS]]]\n");
		return 2;
	}
	threads = atoi(argv[1]);
	skew = atof(argv[2]);
	R = argc > 3 ? atoi(argv[3]) : 32;
	T = argc > 4 ? atoll(argv[4]) : 4096;
	secs = argc > 5 ? atof(argv[5]) : 1.0;
	if (threads < 1 || R < 1 || R > 64 || EXPERTS % R != 0 || T < 1 ||
	    mk_kern_init(&err) != 0) {
		fprintf(stderr, "scanrate: bad arguments or MOEKIT_ISA\n");
		return 2;
	}
	for (cum[0] = 0, x = 0; x < EXPERTS; x++)
		cum[x + 1] = cum[x] + pow(x + 1, -skew);
	ns = calloc((size_t)threads, sizeof(double));
	if (ns == NULL)
		return 1;
	omp_set_num_threads(threads);
	t0 = 0;
#pragma omp parallel reduction(+ : total)
	{
		int me = omp_get_thread_num();
		int64_t *ids = malloc((size_t)T * TOPK * sizeof(int64_t));
		int32_t *hist = malloc((EXPERTS + 3) * sizeof(int32_t));
		size_t cols = (size_t)R * CHANNELS * sizeof(int32_t);
		int32_t *chan = malloc(cols), *nchan = malloc(cols);
		struct mk_a2a_scan s;
		double t1;
		int64_t n = 0;

		if (ids == NULL || hist == NULL || chan == NULL ||
		    nchan == NULL)
			abort();
		fill(ids, T, cum, 0x9e3779b97f4a7c15ull + (uint64_t)me);
		memset(&s, 0, sizeof(s));
		s.ids = ids;
		s.elem = 8;
		s.K = TOPK;
		s.R = R;
		s.E = EXPERTS;
		s.C = CHANNELS;
		s.nch = CHANNELS;
		s.T = T;
		s.per = (T + CHANNELS - 1) / CHANNELS;
		s.hist = hist;
		s.chan = chan;
		s.nchan = R > 8 ? nchan : NULL;
		mk_a2a_scan_rank_of(&s, EXPERTS, R);
		mk_a2a_kern()->a2a_scan(&s);	/* warm */
#pragma omp barrier
#pragma omp master
		t0 = mk_seconds();
#pragma omp barrier
		do {
			mk_a2a_kern()->a2a_scan(&s);
			n++;
		} while ((t1 = mk_seconds()) - t0 < secs);
		ns[me] = (t1 - t0) * 1e9 / ((double)n * (double)T);
		total += n * T;
		free(ids);
		free(hist);
		free(chan);
		free(nchan);
	}
	wall = mk_seconds() - t0;
	qsort(ns, (size_t)threads, sizeof(double), cmp_double);
	printf("%d threads, skew %g, R %d: %.3f ns a token a thread, "
	    "%.2f GB/s together\n", threads, skew, R, ns[threads / 2],
	    (double)total * TOPK * 8 / wall / 1e9);
	free(ns);
	return 0;
}
