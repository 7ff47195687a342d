/*
 * kern.h - the kernel level and the kernel tables every tool uses.
 *
 * The level is the highest kernel path the CPU runs (generic, avx2,
 * avx512, avx512bf16, amx: each has the ones before it), or a lower one
 * named by MOEKIT_ISA, chosen once by mk_kern_init().  A kernel table is a struct of function pointers made
 * from one X-macro list; each ISA file exports one constant row of it,
 * with NULL where it has no kernel of its own, and only the ISA files
 * are compiled with -m flags.  A table at a level is the generic row
 * overlaid by the non-NULL members of every row up to that level.
 *
 * This header's own table holds the kernels of every tool: dtype
 * conversions, the read probe and zip's CRC-32.  A wing with kernels of
 * its own (mdec/, a2a/) keeps its list, rows and table beside them, made
 * with MK_KERN_TABLE below, so a tool links only the kernels it calls.
 *
 * Adding a kernel here: a line in MK_KERNELS, a generic implementation in
 * kern_generic.c's row (required), any SIMD ones in the ISA rows, and a
 * case in tests/unit/test_kern.c that compares every ISA against generic.
 */
#ifndef MK_KERN_H
#define MK_KERN_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errmsg.h"

/*
 * The levels, lowest first: X(a, ENUM_SUFFIX, name), a passed through.  Each level has the
 * ones before it; avx512bf16 adds AVX-512's BF16 dot products, amx the
 * AMX-BF16 tiles Linux lets us use.
 *
 * Adding a level: a line here, its test in mk_isa_supported() and its
 * phrase in mk_isa_why_not() (kern.c), and a row named <prefix>_<name> in
 * every table (kern.c, mdec/mdec_kern.c, a2a/a2a_scan_generic.c):
 * MK_KERN_ROWS names each row, so one forgotten does not compile.
 */
#define MK_ISA_LEVELS(X, a)						\
	X(a, GENERIC, generic)						\
	X(a, AVX2, avx2)						\
	X(a, AVX512, avx512)						\
	X(a, AVX512BF16, avx512bf16)					\
	X(a, AMX, amx)

#define MK_ISA_ENUM_(a, E, name)	MK_ISA_##E,
enum mk_isa {
	MK_ISA_LEVELS(MK_ISA_ENUM_, _)
	MK_NISA
};

/*
 * The shared table, one line per member: X(member, return type,
 * parameters).
 */
#define MK_KERNELS(X)							\
	/* dtype conversion, n elements, any alignment, no overlap */	\
	X(f16_to_f32, void, (float *dst, const uint16_t *src, size_t n)) \
	X(f32_to_f16, void, (uint16_t *dst, const float *src, size_t n)) \
	X(bf16_to_f32, void, (float *dst, const uint16_t *src, size_t n)) \
	X(f32_to_bf16, void, (uint16_t *dst, const float *src, size_t n)) \
	/* read n bytes as fast as possible; their sum as u64 words */	\
	X(read_sum, uint64_t, (const void *p, size_t n))		\
	/* zip's CRC-32 of n bytes continuing crc (simd/crc32.h) */	\
	X(crc32, uint32_t, (uint32_t crc, const void *p, size_t n))

#define MK_KERN_MEMBER(m, ret, args)	ret (*m) args;

struct mk_kern {
	const char	*name;
	MK_KERNELS(MK_KERN_MEMBER)
};

extern const struct mk_kern mk_kern_generic;
extern const struct mk_kern mk_kern_avx2;
extern const struct mk_kern mk_kern_avx512;
/* An empty row of a level (name only): every member the level below's. */
#define MK_KERN_ROW_NONE(isa)	{ .name = (isa) }

/*
 * Select the level once: the highest the CPU supports, or the one named by
 * the environment variable MOEKIT_ISA, which may only lower it.  Returns
 * 0, or -1 with a usage error in e when MOEKIT_ISA is unknown or names a
 * level this CPU lacks (never a silent fallback).
 *
 * MOEKIT_CPU_CAP=LEVEL, for tests, makes every answer about the CPU
 * (mk_isa_supported, mk_isa_why_not, --isa-list, -v, --version) what a
 * CPU that stops at LEVEL gives: an AMX machine proves an AVX2 one's
 * output (make check runs the CLI tests so at every lower level).  An
 * unknown LEVEL is refused here as MOEKIT_ISA's is.
 */
int	mk_kern_init(struct mk_err *e);

/* The shared table at the selected level (generic before mk_kern_init). */
const struct mk_kern	*mk_kern(void);

/* The selected level. */
enum mk_isa	mk_kern_isa(void);

/* "generic", "avx2", "avx512", "avx512bf16" or "amx"; mk_isa_parse
 * returns -1 if unknown. */
const char	*mk_isa_name(enum mk_isa);
int		 mk_isa_parse(const char *name);

/* Whether this CPU (and for amx, Linux) can run the given level. */
int	mk_isa_supported(enum mk_isa);

/*
 * Why this CPU cannot run level isa: a phrase ("the CPU has no AVX-512",
 * "Linux refused the tile data ..."), or "" where it can.
 */
const char	*mk_isa_why_not(enum mk_isa isa);

/* The highest level this CPU can run. */
enum mk_isa	mk_isa_best(void);

/*
 * Build into *out the shared table at level isa.  For tests, which compare
 * every level against generic, and benchmarks.  Returns out.
 */
const struct mk_kern	*mk_kern_build(enum mk_isa isa, struct mk_kern *out);

/*
 * Write "member=isa" pairs, space-separated, of the shared table at the
 * selected level into buf (for -vv).  Returns buf.
 */
char	*mk_kern_describe(char *buf, size_t size);

/*
 * The rows of a table, one a level: MK_KERN_ROWS(prefix, struct tag)
 * defines prefix_rows[MK_NISA] from the rows prefix_generic, prefix_avx2,
 * ... prefix_amx, one for every line of MK_ISA_LEVELS (a row with no
 * kernel of its own is MK_KERN_ROW_NONE), each at its level's index.  A
 * level without its row is a compile error, never a NULL row at run time.
 */
#define MK_KERN_ROW_AT_(prefix, E, name)	[MK_ISA_##E] = &prefix##_##name,
#define MK_KERN_ROWS(prefix, type)					\
	static const type *const prefix##_rows[] = {			\
		MK_ISA_LEVELS(MK_KERN_ROW_AT_, prefix)			\
	};								\
	_Static_assert(sizeof(prefix##_rows) / sizeof(prefix##_rows[0]) \
	    == MK_NISA, #prefix ": a row for every level")

/*
 * A table of a list, for a wing: MK_KERN_TABLE(prefix, struct tag, LIST)
 * defines, from rows prefix_rows[MK_NISA] (MK_KERN_ROWS; a row of a
 * level not compiled may be all NULL but generic's),
 *
 *   const struct tag *prefix_build(enum mk_isa isa, struct tag *out)
 *	the table at level isa into out, which it returns;
 *   const struct tag *prefix(void)
 *	the table at the selected level, built by the first call, from any
 *	thread, after the level is chosen;
 *   char *prefix_describe(char *buf, size_t size)
 *	"member=isa" pairs of prefix() for -vv.
 */
#define MK_KERN_TAKE_(m, ret, args)					\
	if (r->m != NULL)						\
		out->m = r->m;
#define MK_KERN_ORIGIN_(m, ret, args)					\
	for (i = lvl; i > 0 && rows_[i]->m == NULL; i--)		\
		;							\
	mk_kern_describe_add(buf, size, #m, i);

#define MK_KERN_TABLE(prefix, type, LIST)				\
const type *								\
prefix##_build(enum mk_isa isa, type *out)				\
{									\
	int l;								\
									\
	*out = *prefix##_rows[MK_ISA_GENERIC];				\
	for (l = 1; l <= (int)isa; l++) {				\
		const type *r = prefix##_rows[l];			\
									\
		LIST(MK_KERN_TAKE_)					\
	}								\
	out->name = mk_isa_name(isa);					\
	return out;							\
}									\
									\
const type *								\
prefix(void)								\
{									\
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;	\
	static type sel;						\
	static int at = -1;						\
	const int lvl = (int)mk_kern_isa();				\
									\
	/* built once per level, by the first thread to ask */		\
	if (__atomic_load_n(&at, __ATOMIC_ACQUIRE) != lvl) {		\
		pthread_mutex_lock(&lock);				\
		if (at != lvl) {					\
			prefix##_build((enum mk_isa)lvl, &sel);		\
			__atomic_store_n(&at, lvl, __ATOMIC_RELEASE);	\
		}							\
		pthread_mutex_unlock(&lock);				\
	}								\
	return &sel;							\
}									\
									\
char *									\
prefix##_describe(char *buf, size_t size)				\
{									\
	const type *const *rows_ = prefix##_rows;			\
	int i, lvl = (int)mk_kern_isa();				\
									\
	buf[0] = '\0';							\
	LIST(MK_KERN_ORIGIN_)						\
	return buf;							\
}

/* Append " member=isa" (no space first) to buf (for the describers). */
void	mk_kern_describe_add(char *buf, size_t size, const char *member,
	    int isa);

#endif
