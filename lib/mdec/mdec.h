/*
 * mdec.h - masked flash-decoding attention on CPUs: the semantics of
 * torch_masked_attention, the PyTorch reference of a Triton masked
 * flash-decoding kernel (one query token per sequence; Q tokens below).
 *
 * For batch b and query head h (kv head h / (QH/KH)):
 *     s_p   = scale * q[b,h] . k[b,kh,p]          for valid positions p
 *     lse   = log sum_{p unmasked} exp(s_p)        (natural log)
 *     out   = sum_{p unmasked} exp(s_p - lse) v[b,kh,p]
 * A row with every valid position masked gets lse = -inf and out = 0.
 *
 * The positions of all (batch, kv head) rows are cut into one contiguous
 * range per thread; a range that crosses rows becomes several pieces.  A
 * kernel call computes one piece for all G = QH/KH query heads of the group
 * at once, so a K/V row is read once per group, and skips masked positions
 * before touching their K/V rows.  Pieces of one row are then merged with
 * a log-sum-exp merge in double.
 *
 * Kernels work in base 2: the command's q is multiplied by scale * log2(e)
 * before they see it, scores are log2 units and exponentials are exp2, which
 * is cheaper to evaluate; the merge converts back to natural logs.
 */
#ifndef MK_MDEC_H
#define MK_MDEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/errmsg.h"
#include "base/fp8.h"
#include "simd/kern.h"
#include "tensor/tensor.h"

struct mk_mdec_task;

/*
 * mdec's kernel table (simd/kern.h, MK_KERN_TABLE): one line per member,
 * X(member, return type, parameters).  Rows: mdec_generic.c,
 * mdec_avx2.c, mdec_avx512.c, and mdec_amx.c (mdec_tile.h); the
 * avx512bf16 level has no kernels of its own (its row is empty: with q
 * and the probabilities split in two bf16 for f32's accuracy, VDPBF16PS
 * does a quarter of the FMAs' work a ns, tests/bench/amxpeak.c); a case in
 * tests/unit/test_mdec.c runs every row against generic and float64.
 */
#define MK_MDEC_KERNELS(X)						\
	/* decode attention over n pieces of one stretch, by K/V dtype */ \
	X(mdec_f16, void, (const struct mk_mdec_task *t, int n))	\
	X(mdec_bf16, void, (const struct mk_mdec_task *t, int n))	\
	X(mdec_f32, void, (const struct mk_mdec_task *t, int n))	\
	X(mdec_fp8, void, (const struct mk_mdec_task *t, int n))	\
	/* its arithmetic alone, one piece of K/V dtype dt (a floor) */	\
	X(mdec_arith, void, (const struct mk_mdec_task *t, int dt))	\
	/* floats of t->work a call needs a task for G heads of D, K/V	\
	 * of dtype dt, tiles from tile_rows (mk_mdec_tile_rows) */	\
	X(mdec_work, size_t, (int G, int D, int dt, int tile_rows))

/*
 * The kernel copies each dtype file of mdec_kernel.h may make, most
 * specific first: X(name, G, D), the heads of a group (4: three or four,
 * computed as four; 3: three, the fourth row's q the first's, where the
 * ISA does not mix q rows) and the head size known when compiled (0:
 * any).  A file makes the rows of the head sizes it knows (NO_D128,
 * NO_D64 there), the walk takes the first row that fits a group, and
 * tests/unit/test_mdec.c runs a shape of every row in every dtype: a copy
 * is a line here, and none is left untested.
 */
#define MK_MDEC_VARIANTS(X)						\
	X(heads3_128, 3, 128)						\
	X(heads4_128, 4, 128)						\
	X(heads2_128, 2, 128)						\
	X(heads1_128, 1, 128)						\
	X(heads4_64, 4, 64)						\
	X(heads2_64, 2, 64)						\
	X(heads1_64, 1, 64)						\
	X(heads4, 4, 0)							\
	X(heads2, 2, 0)							\
	X(heads1, 1, 0)

struct mk_mdec_kern {
	const char	*name;
	MK_MDEC_KERNELS(MK_KERN_MEMBER)
};

extern const struct mk_mdec_kern mk_mdec_kern_generic;
extern const struct mk_mdec_kern mk_mdec_kern_avx2;
extern const struct mk_mdec_kern mk_mdec_kern_avx512;
extern const struct mk_mdec_kern mk_mdec_kern_amx;

/* The table at level isa into out (returned); at the selected level; its
 * members' origins for -vv (see MK_KERN_TABLE). */
const struct mk_mdec_kern *mk_mdec_kern_build(enum mk_isa isa,
	    struct mk_mdec_kern *out);
const struct mk_mdec_kern *mk_mdec_kern(void);
char	*mk_mdec_kern_describe(char *buf, size_t size);

/*
 * Paged caches: whether a block's walk brings the next block's pages into
 * L2 in address order (1) or leaves them to the hardware prefetchers (0).
 * On by default on AMD CPUs, whose prefetchers do not follow a paged
 * cache's order, off elsewhere; MOEKIT_PAGED_L2=0|1 sets it.  A hint:
 * results do not depend on it.  Returns 0 or 1, or -1 with a usage error
 * in e for another value of the variable.
 */
int	mk_mdec_paged_l2(struct mk_err *e);

/*
 * The amx row: the query rows (heads x tokens) a kv head must serve for
 * a task to run on tiles; 0 by default: the kernel's own choice, where
 * the tiles measured faster (mdec_amx.c).  MOEKIT_TILE_ROWS=N (1 to
 * 4096) sets it, so that tests can run every shape on the tiles.
 * Returns N or 0, or -1 with a usage error in e for another value.
 */
int	mk_mdec_tile_rows(struct mk_err *e);

/*
 * Unmasked positions per softmax block: each block pays a fixed cost
 * (its maxima, exponentials, row addresses, the accumulators' loads and
 * stores) that 32 positions share better than 16 or 64 (measured in
 * cache: 16 pays the cost twice as often, 64 spills).
 */
#define MK_MDEC_BLOCK	32

/*
 * Scratch floats a kernel call may use (t->work): probabilities per head
 * and block, running sums per head (16 lanes), partial sums of four heads
 * (16-float vectors), two rows, a copy of q [G][ld] with its rows
 * padded to a multiple of four, and where more than four query heads
 * share a kv head, a block's K and V rows widened to f32 [2][BLOCK][ld].
 */
#define MK_MDEC_LD(D)		(((size_t)(D) + 15) & ~(size_t)15)
#define MK_MDEC_WORK(G, D)	(2 * MK_MDEC_BLOCK * 16 + \
				    32 * (((size_t)(G) + 3) / 4) + \
				    2 * ((size_t)(D) + 16) + 64 + \
				    4 * (((size_t)(G) + 3) / 4) * \
				    MK_MDEC_LD(D) + ((G) > 4 ? 2 * \
				    MK_MDEC_BLOCK * MK_MDEC_LD(D) : 0))

/*
 * What one kernel call computes: a piece of one (batch, kv head) row.
 * Position i of the piece is at byte k + i * ps (v alike); in a paged
 * cache (blk not NULL) at k + blk[a / bs] * bbytes + (a % bs) * ps, a being
 * p0 + i.
 */
struct mk_mdec_task {
	const void	*k, *v;		/* position 0 of the piece, or (paged)
					 * block 0 of its kv head */
	size_t		 ps;		/* bytes between positions */
	const int32_t	*blk;		/* paged: the sequence's block table */
	size_t		 bbytes;	/* paged: bytes between blocks */
	size_t		 p0;		/* paged: the piece's first position */
	int		 bs, bshift;	/* paged: positions per block, and its
					 * log2 if a power of two (else -1) */
	const uint8_t	*mask;		/* its mask (nonzero = masked), or NULL */
	size_t		 n;		/* positions */
	int		 D, G;		/* head size, query heads of the group */
	int		 ld;		/* row stride of q and acc: D rounded up
					 * to 16, the padding zero */
	const float	*q;		/* [G][ld], times scale * log2(e) */
	float		*m;		/* [G] out: largest score (-inf if none) */
	float		*l;		/* [G] out: sum of exp2(s - m) */
	float		*acc;		/* [G][ld] out: sum of exp2(s - m) v,
					 * padding left zero */
	float		*work;		/* the table's mdec_work(G, D) floats,
					 * 64-byte aligned, zeroed when the
					 * run began */
	int		 rd;		/* the rows probe: only read the rows
					 * the kernel would, the xor of their
					 * 32-bit words that of acc[0..16)'s,
					 * no attention */
	int		 l2;		/* paged: the next block's pages into
					 * L2 too (mk_mdec_paged_l2) */
	int		 fp8;		/* FP8 rows (mdec_fp8): enum mk_fp8 */
	int		 dv;		/* columns of acc wanted, 0: D (MLA's
					 * V is the first dv of K's rows); the
					 * kernels may fill more, and leave
					 * the rest 0 */
	int		 tile_rows;	/* amx: query rows from which a task
					 * runs on tiles (mk_mdec_tile_rows),
					 * 0: the kernel's own */
};

/*
 * An FP8 row as the kernels read it: each byte sign-extended to 16 bits,
 * shifted left by MK_MDEC_FP8_SHIFT and kept by MK_MDEC_FP8_KEEP is f16
 * bits (E4M3's NaN, 0x7f and 0xff, found by the kernel a block at a
 * time and set apart: mdec_kernel.h, fp8_nans), exactly E5M2's
 * value or E4M3's times MK_MDEC_FP8_READ (an f16's exponent bias is 8
 * more than E4M3's); mk_mdec_run scales q and out back.
 */
#define MK_MDEC_FP8_SHIFT(fmt)	((fmt) == MK_FP8_E5M2 ? 8 : 7)
#define MK_MDEC_FP8_KEEP(fmt)	((fmt) == MK_FP8_E5M2 ? 0xffff : 0xbf80)
#define MK_MDEC_FP8_READ(fmt)	((fmt) == MK_FP8_E4M3 ? 0x1p-8 : 1.0)

/*
 * Pieces a kernel call may take at once: the kv heads of one stretch of
 * positions, walked side by side (more heads are more calls).
 */
#define MK_MDEC_GROUP	16

/* Where a KV cache keeps position p of batch b, kv head kh. */
enum mk_mdec_layout {
	MK_MDEC_BHMD,		/* [B, KH, M, D] (and flat buffers) */
	MK_MDEC_BMHD,		/* [B, M, KH, D]: flash-attn's, vLLM's */
	MK_MDEC_PAGED,		/* [blocks, bs, KH, D] and a block table */
	MK_MDEC_NLAYOUT
};

/* "bhmd", "bmhd", "paged": how options and tables name a layout. */
extern const char *const mk_mdec_layout_names[MK_MDEC_NLAYOUT];
const char *mk_mdec_layout_name(int layout);

/* How options and tables name K/V dtype dt (MK_U8: FP8 format fp8). */
const char *mk_mdec_kvt_name(int dt, int fp8);

/* One problem, as the command hands it over. */
struct mk_mdec {
	int		 B, QH, KH, D;
	int64_t		 V;		/* valid positions per row (the most,
					 * with lens) */
	const int64_t	*lens;		/* [B] valid positions of each
					 * sequence, or NULL: V */
	int		 dtype;		/* MK_F16, MK_BF16, MK_F32 or MK_U8
					 * (k, v; u8: FP8 bytes of format fp8) */
	int		 fp8;		/* enum mk_fp8 of u8 k and v */
	double		 scale;
	const float	*q;		/* [B][QH][Q][D] f32 */
	int		 layout;	/* enum mk_mdec_layout */
	const void	*k, *v;		/* element d of (b, kh, p) at
					 * mk_mdec_elem(p, b, kh, p) + d */
	int64_t		 M;		/* positions a cache row holds (bhmd,
					 * bmhd) */
	const int32_t	*table;		/* paged: [B][tw] block ids */
	int64_t		 tw;		/* paged: blocks per table row */
	int		 bs;		/* paged: positions per block */
	const uint8_t	*mask;		/* (b,kh,p) at (b*KH + kh) * mrow + p,
					 * nonzero = masked; or NULL */
	int64_t		 mrow;		/* positions between rows of mask */
	int		 qdtype;	/* q's dtype as read (for the output) */
	int		 dv;		/* columns of out wanted, 0: D (MLA:
					 * --v-dim); the rest may be 0 */
	int		 Q;		/* query tokens a sequence, 1 to
					 * MK_MDEC_MAX_Q (0: 1); q is then
					 * [B][QH][Q][D], and token i is the
					 * sequence's position len - Q + i,
					 * seeing the positions up to it */
};

/* Query tokens a sequence (speculative and multi-token decode). */
#define MK_MDEC_MAX_Q	16

/*
 * Map the pages of a file-backed buffer in, threads slices at once
 * (memory already mapped in must not be passed: that costs half a read).
 */
void	mk_mdec_populate(const void *p, size_t n, int threads);

/*
 * The same for a file-backed K or V tensor (base, nbytes: all of it) of
 * p: only the pages its attention reads, the valid positions of each row
 * or the blocks its tables name.
 */
void	mk_mdec_populate_kv(const struct mk_mdec *p, const void *base,
	    size_t nbytes, int threads);

/* The element index of (b, kh, pos, 0) in K or V. */
size_t	mk_mdec_elem(const struct mk_mdec *p, int64_t b, int kh, int64_t pos);

/* out's columns wanted: D, or MLA's dv. */
static inline int
mk_mdec_dv(const struct mk_mdec *p)
{
	return p->dv > 0 && p->dv < p->D ? p->dv : p->D;
}

/* Valid positions of batch b. */
static inline int64_t
mk_mdec_len(const struct mk_mdec *p, int64_t b)
{
	return p->lens != NULL ? p->lens[b] : p->V;
}

/* How mdecode reads its inputs (options that change their meaning). */
#define MK_MDEC_NIN	6	/* q, k, v, mask, block table, lengths */

struct mk_mdec_in {
	int		 layout;	/* --kv-layout (enum mk_mdec_layout), or
					 * -1: from the shapes */
	int		 kv_heads;	/* --kv-heads, or 0 */
	int64_t		 valid;		/* --valid-length, or 0: all */
	int		 has_scale;
	double		 scale;		/* --scale */
	int		 bf16;		/* u16 tensors hold bf16 bits */
	int		 dtype;		/* --dtype k and v must have, or -1 */
	int		 fp8;		/* enum mk_fp8: k and v are u8 (or i8)
					 * bytes of this FP8 format */
	double		 kscale, vscale;	/* --k-scale, --v-scale: real =
					 * fp8 value x scale (0: 1) */
	int		 v_dim;		/* --v-dim DV: no v; V is the first DV
					 * elements of each K row (MLA), or 0 */
};

/*
 * Check the inputs t[] = q, k, v, mask, block table, sequence lengths (the
 * last three may be NULL) against each other and the options, and fill
 * p.  K and V are a cache [B, KH, M, D] or [B, M, KH, D] (in->layout, or
 * the one the shapes allow: both is an error that says so), flat buffers
 * (mdecode(1)), or with a block table [B, MB] a paged cache [blocks, bs, KH,
 * D].  K, V and the mask point into the tensors (never copied); q, the
 * table and the lengths are converted into new arrays that
 * mk_mdec_forget frees.  name[] says how messages name each tensor
 * ("q.npy", "stdin: tensor 2").  Returns 0, or -1 with e filled (usage
 * errors for options that do not fit the data).
 */
int	mk_mdec_setup(struct mk_mdec *p,
	    const struct mk_tensor *const t[MK_MDEC_NIN],
	    const char *const name[MK_MDEC_NIN], const struct mk_mdec_in *in,
	    struct mk_err *e);

/* Free what mk_mdec_setup made for p. */
void	mk_mdec_forget(struct mk_mdec *p);

/*
 * mdecode's inputs, read and checked, and its outputs: the library owns
 * the tensors, q converted to f32, lse, out and out converted.
 */
struct mk_mdec_io {
	struct mk_tensor t[MK_MDEC_NIN];	/* q, k, v, mask, table, lens */
	char		 name[MK_MDEC_NIN][300];	/* how messages name each */
	int		 has_mask;
	struct mk_mdec	 p;		/* points into t (q: converted) */
	float		*lse;		/* [B][QH][Q] */
	float		*out;		/* [B][QH][Q][D] f32 */
	int		 out_dtype;	/* of odata */
	double		 vscale;	/* out multiplied by it (FP8's scale) */
	void		*odata;		/* out in out_dtype (out or half) */
	uint16_t	*half;		/* out as f16 or bf16 bits */
};

/*
 * Read q, k, v and an optional mask: the tensor stream of file (NULL or
 * "-": stdin) when path[0] is NULL, else the files path[0..3] (-q -k -v
 * [-m]; path[3] may be NULL), one tensor each; and the block table and
 * sequence lengths of path[4], path[5] (NULL: none); then check them as
 * mk_mdec_setup does.  Returns 0 with io filled, or -1 with e filled;
 * free io with mk_mdec_io_free either way.
 */
int	mk_mdec_load(struct mk_mdec_io *io, const char *file,
	    const char *const path[MK_MDEC_NIN], const struct mk_mdec_in *in,
	    struct mk_err *e);

/*
 * Compute io's problem on `threads` threads into io->lse and io->out, and
 * io->odata in out_dtype (-1: q's dtype).  Returns 0, or -1 with e.
 */
int	mk_mdec_compute(struct mk_mdec_io *io, int threads, int out_dtype,
	    struct mk_err *e);

void	mk_mdec_io_free(struct mk_mdec_io *io);

/*
 * Start the team of `threads` OpenMP threads that mk_mdec_run and
 * mk_mdec_compute then take (a process's first team costs from a tenth
 * of a millisecond to several to start, by machine), so that a caller
 * can time the attention apart from it.
 */
void	mk_mdec_team(int threads);

/*
 * Run the problem on `threads` OpenMP threads with the kernels of table k
 * (NULL: the selected one):
 * lse [B][QH][Q] and out [B][QH][Q][D] (f32).  Returns 0, or -1 with e filled if
 * memory ran out.
 */
int	mk_mdec_run(const struct mk_mdec *p, const struct mk_mdec_kern *k,
	    int threads, float *lse, float *out, struct mk_err *e);

/*
 * Whether the kernels' f32 arithmetic holds p's scores: q times the scale
 * (and the factor the kernels read K by) stays finite, and on an f16 or
 * FP8 cache no score can pass f32's largest value.  Returns 0, or -1 with e
 * filled (a scale too large for q, read from qname).
 */
int	mk_mdec_scores_fit(const struct mk_mdec *p, const char *qname,
	    struct mk_err *e);

/*
 * The same computed in double, position by position, two passes (maximum,
 * then sums): the reference the tests compare every kernel with.
 */
void	mk_mdec_reference(const struct mk_mdec *p, double *lse, double *out);

/*
 * Read bandwidth probe: the read_sum kernel of table k (NULL: the selected
 * one) reads n bytes at p on `threads` threads, in slices (mk_slice,
 * 4096-byte aligned cuts) that each thread takes when it is free, as the
 * attention takes its chunks.  Returns the sum, mod 2^64, of the u64 words
 * of each slice's whole 64-byte lines and of its remaining bytes (the same
 * however it is sliced), so the reads cannot be dropped and every path
 * agrees.
 */
uint64_t mk_read_sum(const struct mk_kern *k, const void *p, size_t n,
	    int threads);

/*
 * The rows probe: table k's kernel (NULL: the selected one) walks p as
 * mk_mdec_run does, on the same threads, masks, blocks and prefetches,
 * but only reads each row it would compute with (a vector load per 64
 * bytes), so a masked run can be measured against reading what it must
 * read.  *fold: the xor of every whole 32-bit word of the rows read (the
 * same on every path; a test's check that the walk read those rows).
 * Returns 0, or -1 with e filled (out of memory).
 */
int	mk_mdec_read_rows(const struct mk_mdec *p,
	    const struct mk_mdec_kern *k,
	    int threads, uint32_t *fold, struct mk_err *e);

/*
 * The contiguous slice of [0, n) that thread t of T reads or first-touches,
 * cut at multiples of align bytes: [*lo, *hi).
 */
void	mk_slice(size_t n, size_t align, int t, int T, size_t *lo, size_t *hi);


/* The kernel of table k for K/V of dtype (MK_U8: FP8). */
typedef void mk_mdec_kernel_fn(const struct mk_mdec_task *t, int n);
mk_mdec_kernel_fn *mk_mdec_kernel(const struct mk_mdec_kern *k, int dtype);

/*
 * Kernel entry points, for the kernel table only (kern_*.c rows); bf16w:
 * bf16 rows that are not whole pairs of vectors, called by bf16.
 */
void	mk_mdec_f16_generic(const struct mk_mdec_task *t, int n);
void	mk_mdec_bf16_generic(const struct mk_mdec_task *t, int n);
void	mk_mdec_f32_generic(const struct mk_mdec_task *t, int n);
void	mk_mdec_fp8_generic(const struct mk_mdec_task *t, int n);
void	mk_mdec_arith_generic(const struct mk_mdec_task *t, int dt);
void	mk_mdec_f16_avx2(const struct mk_mdec_task *t, int n);
void	mk_mdec_bf16_avx2(const struct mk_mdec_task *t, int n);
void	mk_mdec_f32_avx2(const struct mk_mdec_task *t, int n);
void	mk_mdec_fp8_avx2(const struct mk_mdec_task *t, int n);
void	mk_mdec_bf16w_avx2(const struct mk_mdec_task *t, int n);
void	mk_mdec_arith_avx2(const struct mk_mdec_task *t, int dt);
void	mk_mdec_f16_avx512(const struct mk_mdec_task *t, int n);
void	mk_mdec_bf16_avx512(const struct mk_mdec_task *t, int n);
void	mk_mdec_f32_avx512(const struct mk_mdec_task *t, int n);
void	mk_mdec_fp8_avx512(const struct mk_mdec_task *t, int n);
void	mk_mdec_bf16w_avx512(const struct mk_mdec_task *t, int n);
void	mk_mdec_arith_avx512(const struct mk_mdec_task *t, int dt);
void	mk_mdec_f16_amx(const struct mk_mdec_task *t, int n);
void	mk_mdec_bf16_amx(const struct mk_mdec_task *t, int n);
void	mk_mdec_fp8_amx(const struct mk_mdec_task *t, int n);
size_t	mk_mdec_work_generic(int G, int D, int dt, int tile_rows);
size_t	mk_mdec_work_tile(int G, int D, int dt, int tile_rows);

#endif
