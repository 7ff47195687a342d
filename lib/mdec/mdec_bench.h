/*
 * mdec_bench.h - mdecode --bench and --bench-kernel: random inputs, timings
 * that hold on a shared machine, and the agreement check between paths.
 */
#ifndef MK_MDEC_BENCH_H
#define MK_MDEC_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include "base/errmsg.h"
#include "mdec/mdec.h"

/*
 * mk_mdec_fill writes n random, roughly standard normal values of dtype
 * (f16, bf16, f32, or MK_U8: FP8 bytes of format fp8) to p;
 * mk_mdec_fill_mask sets each of n bytes to 1 with
 * probability density.  Both work on `threads` threads and give the same
 * bytes for any count.
 */
void	mk_mdec_fill(void *p, size_t n, int dtype, int fp8, uint64_t seed,
	    int threads);
void	mk_mdec_fill_mask(uint8_t *m, size_t n, double density, uint64_t seed,
	    int threads);

/* What one timing gives: medians of the rounds kept, and their spread. */
struct mk_mdec_timing {
	double	 ms;		/* the kernel's run */
	double	 probe_gbps;	/* reading the same K and V bytes */
	double	 frac, frac_q1, frac_q3;	/* kernel GB/s (dense bytes)
					 * over probe GB/s, per round */
	double	 rows_ms;	/* the rows probe: reading only the rows
				 * the kernel reads, as it walks them */
	double	 rows_frac;	/* rows_ms over ms, per round: the kernel's
				 * pace against reading what it must */
	int	 kept, rounds;	/* rounds not preempted, of all */
};

/* A run's outputs: lse [B * QH], out [B * QH * D]. */
struct mk_mdec_res {
	const float	*lse, *out;
};

/*
 * Whether got agrees with the reference ref within tol (relative to
 * max(1, |lse|) and to |out| plus the row's largest |out|).  Returns 0,
 * or -1 with e naming the first disagreement.
 */
int	mk_mdec_agree(const struct mk_mdec *p, struct mk_mdec_res got,
	    struct mk_mdec_res ref, double tol, struct mk_err *e);

#define MK_MDEC_BENCH_LIST	32
#define MK_MDEC_BENCH_KVT	5	/* K/V dtypes: f16 ... fp8_e5m2 */

/* One timed row of --bench, kept for --plot. */
struct mk_mdec_bench_row {
	int	 isa, threads, bsz, layout, qtok;
	const char *dtype;	/* of K and V, as the CSV names it */
	double	 density, gbps, probe_gbps, frac;
	int	 kept;		/* rounds not preempted (0: its figures are
				 * of preempted rounds) */
};

/* Where the rows are kept: at most max of them. */
struct mk_mdec_bench_rows {
	struct mk_mdec_bench_row *row;
	int	 n, max;
};

struct mk_mdec_bench {
	int	 bsz[MK_MDEC_BENCH_LIST], nbsz;		/* batch sizes */
	int	 threads[MK_MDEC_BENCH_LIST], nthreads;	/* thread counts */
	double	 dens[MK_MDEC_BENCH_LIST];		/* mask densities */
	int	 ndens;
	int	 isa[MK_NISA], nisa;			/* kernel paths */
	int	 layout[3], nlayout;	/* enum mk_mdec_layout: the same bytes
					 * read as [B, KH, M, D], [B, M, KH, D]
					 * or shuffled blocks of a paged cache */
	int	 bs;			/* the paged cache's block size */
	int	 QH, KH, D, reps;
	int	 qtok[MK_MDEC_BENCH_LIST], nqtok;	/* query tokens a
					 * sequence (--bench: a row each) */
	int	 mla;		/* --v-dim DV, or 0: V is K's rows (MLA),
				 * no V is made, only K's bytes count, and
				 * the first DV columns of out are wanted */
	int64_t	 M, V;		/* cache length, valid positions */
	int	 dtype[MK_MDEC_BENCH_KVT];	/* of K and V: f16, bf16,
					 * f32, or MK_U8 for FP8 ... */
	int	 fp8[MK_MDEC_BENCH_KVT];	/* ... of this format */
	int	 ndtype;
	uint64_t seed;
	struct mk_mdec_bench_rows *keep;	/* if not NULL, the timed
					 * rows are kept there too */
	void	(*tick)(void *ctx);	/* if not NULL, called after each
					 * timed row (a progress line) */
	void	*tick_ctx;
};

/*
 * --bench --plot: the rows as an SVG picture to fp, a group of bars per
 * (batch size, layout, density, threads, dtype), a bar per kernel path: its
 * GB/s (dense bytes) with the same run's read probe marked over it; the
 * numbers on hover.  Write errors are fp's.
 */
void	mk_mdec_bench_plot(FILE *fp, const struct mk_mdec_bench_rows *rows,
	    const char *title);

/*
 * --bench: make the inputs, check every path against generic at every
 * batch size, layout, density and query token count, then time each
 * (path, threads, batch size, layout, density, tokens) and write the CSV
 * table
 *   isa,threads,bsz,layout,density,ms,gbps,probe_gbps,frac,frac_q1,
 *   frac_q3,kept,rows_ms,rows_frac,dtype,q_tokens
 * (the K/V dtypes of the list timed side by side, one row each; kept is
 * "n/rounds": how many rounds no other process preempted) to fp, a row at
 * a time.  Returns how many rows kept no round (their figures are the
 * medians of every round), or -1 with e filled.
 */
int	mk_mdec_bench_run(const struct mk_mdec_bench *b, FILE *fp,
	    struct mk_err *e);

/*
 * --bench-kernel: each path on one (batch, kv head) row small enough to
 * stay in the core's L2 (K and V 256 KiB each), one thread, every density:
 * the CSV table isa,G,D,density,ns,ns_min,floor_ns,of_floor,kept,dtype
 * (nanoseconds per unmasked position and kv head: median and best of the
 * rounds; the path's arithmetic alone per position, timed in the same
 * rounds; the median of each round's kernel time over its arithmetic's;
 * the rounds kept, as --bench's).  Returns how many rows kept no round,
 * or -1 with e filled.
 */
int	mk_mdec_bench_kernel(const struct mk_mdec_bench *b, FILE *fp,
	    struct mk_err *e);

#endif
