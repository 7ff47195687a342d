/*
 * a2a_scan.h - the counting pass of a2a-layout over one source rank, or
 * a piece of one (whole channels: nch columns of the channel counts).
 *
 * It is the only loop that reads every routing id, so it is a kernel
 * (a2a's table below) with a generic version, which handles every
 * shape, and an AVX-512 one for the common shapes (R <= 64, K <= 8),
 * which hands the others to the generic one.  Both fill the same arrays
 * with the same values; tests/unit/test_a2a_scan.c compares them.
 *
 * Ids are read as signed integers.  An id x in [0, E) goes to expert x on
 * rank x / epr; -1 (and E in the Triton-distributed style) is a drop;
 * anything else is out of range.
 */
#ifndef MK_A2A_SCAN_H
#define MK_A2A_SCAN_H

#include <stdint.h>

#include "simd/kern.h"

struct mk_a2a_scan;

/*
 * a2a's kernel table (simd/kern.h, MK_KERN_TABLE), one line per member.
 * Rows in a2a_scan_generic.c and a2a_scan_avx512.c (AVX2 has none of its
 * own); tests/unit/test_a2a_scan.c runs every row against generic.
 */
#define MK_A2A_KERNELS(X)						\
	X(a2a_scan, int64_t, (const struct mk_a2a_scan *s))

struct mk_a2a_kern {
	const char	*name;
	MK_A2A_KERNELS(MK_KERN_MEMBER)
};

extern const struct mk_a2a_kern mk_a2a_kern_generic;
extern const struct mk_a2a_kern mk_a2a_kern_avx512;

const struct mk_a2a_kern *mk_a2a_kern_build(enum mk_isa isa,
	    struct mk_a2a_kern *out);
const struct mk_a2a_kern *mk_a2a_kern(void);
char	*mk_a2a_kern_describe(char *buf, size_t size);

struct mk_a2a_scan {
	const void	*ids;		/* T rows of K ids, row-major */
	int		 elem;		/* 4 (i32) or 8 (i64) bytes per id */
	int		 K, R, E, C;	/* slots, ranks, experts, channels */
	int		 nch;		/* channels scanned: chan and nchan
					 * columns 0..nch-1 of rows C apart */
	int64_t		 T;		/* tokens */
	int64_t		 per;		/* tokens per channel (the last
					 * may hold fewer) */
	int		 triton;	/* E is a drop as well as -1 */
	int		 lenient;	/* skip ids out of range, no error */
	int		 any_nodes;	/* a token may reach more than 8 nodes
					 * (DeepEP's low-latency mode) */
	/*
	 * The rank of expert x is x * mul >> shift: (1, log2 epr) when epr is
	 * a power of two, else (ceil(2^32 / epr), 32), exact for every x < E
	 * because E * epr <= 2^32; mul = 0 when that fails, and the kernels
	 * divide.  mk_a2a_scan_rank_of fills them.
	 */
	uint64_t	 mul;
	int		 shift;
	/* outputs, overwritten */
	int32_t		*hist;		/* [E + 3]: hist[1 + x] slots holding
					 * id x for x in [-1, E]; hist[E + 2]
					 * the ids out of range (lenient) */
	int32_t		*chan;		/* [R][C] tokens per rank and channel */
	int32_t		*nchan;		/* [R/8][C] per node, or NULL when R
					 * <= 8 (no nodes to count) */
};

/* Set s->mul and s->shift for E experts on R ranks (see above). */
void	mk_a2a_scan_rank_of(struct mk_a2a_scan *s, int E, int R);

/* Zero the outputs (for the kernels). */
void	mk_a2a_scan_clear(const struct mk_a2a_scan *s);

/*
 * Scan s->T tokens.  Returns -1, or the first token holding an id out of
 * range (unless lenient) or reaching more than 8 nodes (unless any_nodes);
 * the outputs are then incomplete.
 */
int64_t	mk_a2a_scan_generic(const struct mk_a2a_scan *s);
int64_t	mk_a2a_scan_avx512(const struct mk_a2a_scan *s);

#endif
