/*
 * kern.h - the kernel table and its run-time selection.
 *
 * Each ISA file (kern_generic.c, kern_avx2.c, kern_avx512.c) exports one
 * constant row; only kern_avx2.c and kern_avx512.c are compiled with -m
 * flags.  mk_kern_init() starts from the generic row and overlays the
 * non-NULL members of every higher row the CPU (and MOEKIT_ISA) allows, in
 * ascending order; mk_kern() returns the result.
 *
 * Adding a kernel: a line in MK_KERNELS, a generic implementation in
 * kern_generic.c's row (required), any SIMD ones in the ISA rows, and a
 * case in tests/unit/test_kern.c that compares every ISA against generic.
 */
#ifndef MK_KERN_H
#define MK_KERN_H

#include <stddef.h>
#include <stdint.h>

#include "base/errmsg.h"

struct mk_mdec_task;
struct mk_a2a_scan;

enum mk_isa { MK_ISA_GENERIC, MK_ISA_AVX2, MK_ISA_AVX512, MK_NISA };

/*
 * The kernel table, one line per member: X(member, return type,
 * parameters).  struct mk_kern, the overlay of rows in kern.c and the
 * member names of -vv are all made from this one list.
 */
#define MK_KERNELS(X)							\
	/* dtype conversion, n elements, any alignment, no overlap */	\
	X(f16_to_f32, void, (float *dst, const uint16_t *src, size_t n)) \
	X(f32_to_f16, void, (uint16_t *dst, const float *src, size_t n)) \
	X(bf16_to_f32, void, (float *dst, const uint16_t *src, size_t n)) \
	X(f32_to_bf16, void, (uint16_t *dst, const float *src, size_t n)) \
	/* decode attention over n pieces of one stretch, by K/V dtype */ \
	X(mdec_f16, void, (const struct mk_mdec_task *t, int n))	\
	X(mdec_bf16, void, (const struct mk_mdec_task *t, int n))	\
	X(mdec_f32, void, (const struct mk_mdec_task *t, int n))	\
	X(mdec_fp8, void, (const struct mk_mdec_task *t, int n))	\
	/* its arithmetic alone, one piece of K/V dtype dt (a floor) */	\
	X(mdec_arith, void, (const struct mk_mdec_task *t, int dt))	\
	/* read n bytes as fast as possible; their sum as u64 words */	\
	X(read_sum, uint64_t, (const void *p, size_t n))		\
	/* a2a-layout's counting pass over one source rank */		\
	X(a2a_scan, int64_t, (const struct mk_a2a_scan *s))		\
	/* zip's CRC-32 of n bytes continuing crc (tensor/crc32.h) */	\
	X(crc32, uint32_t, (uint32_t crc, const void *p, size_t n))

#define MK_KERN_MEMBER(m, ret, args)	ret (*m) args;
#define MK_KERN_INDEX(m, ret, args)	MK_KERN_##m,

struct mk_kern {
	const char	*name;
	/*
	 * mdec, paged caches: bring the next block's pages into L2 in
	 * address order while a block is computed (1), or leave them to the
	 * hardware prefetchers (0).  On by default on AMD CPUs, whose
	 * prefetchers do not follow a paged cache's order (Zen 5: 10-15 %
	 * faster with it), off elsewhere (the Xeon of RESULTS.md: 4-19 %
	 * faster without, at 1 to 16 threads); MOEKIT_PAGED_L2=0|1 sets it.
	 * A hint: results do not depend on it.
	 */
	int		 paged_l2;
	MK_KERNELS(MK_KERN_MEMBER)
};

/* Member indices, in the list's order. */
enum { MK_KERNELS(MK_KERN_INDEX) MK_NKERN };

extern const struct mk_kern mk_kern_generic;
extern const struct mk_kern mk_kern_avx2;
extern const struct mk_kern mk_kern_avx512;

/*
 * Select the kernels once: the highest level the CPU supports, or the level
 * named by the environment variable MOEKIT_ISA, which may only lower it;
 * and paged_l2, from the CPU or MOEKIT_PAGED_L2.  Returns 0, or -1 with a
 * usage error in e when MOEKIT_ISA is unknown or names a level this CPU
 * lacks (never a silent fallback), or MOEKIT_PAGED_L2 is not 0 or 1.
 */
int	mk_kern_init(struct mk_err *e);

/* The selected table (the generic one before mk_kern_init). */
const struct mk_kern	*mk_kern(void);

/* The selected level. */
enum mk_isa	mk_kern_isa(void);

/* "generic", "avx2" or "avx512"; mk_isa_parse returns -1 if unknown. */
const char	*mk_isa_name(enum mk_isa);
int		 mk_isa_parse(const char *name);

/* Whether this CPU can run the given level. */
int	mk_isa_supported(enum mk_isa);

/* The highest level this CPU can run. */
enum mk_isa	mk_isa_best(void);

/*
 * Build into *out the table that level isa would select (generic overlaid
 * by every row up to isa), with the selected table's paged_l2 once
 * mk_kern_init has run.  For tests, which compare every level against
 * generic, and benchmarks.  Returns out.
 */
const struct mk_kern	*mk_kern_build(enum mk_isa isa, struct mk_kern *out);

/*
 * Write "member=isa" pairs, space-separated, for the selected table into
 * buf (for -vv).  Returns buf.
 */
char	*mk_kern_describe(char *buf, size_t size);

#endif
