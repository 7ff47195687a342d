/*
 * mdec_tile_lay.h - where the tile kernels (mdec_tile.h: the avx512bf16
 * and amx rows) keep their scratch in a task's work buffer; plain C, so
 * that mdec_kern.c sizes the buffer by the same arithmetic.
 *
 * A walk computes blocks of TB positions.  Query rows go eight to a tile
 * of scores, as 16 columns: eight rows' bf16 high parts and their low
 * parts (the f32 q split in two, hi + lo), so NT = ceil(G / 8) tiles;
 * the values' rows likewise (probabilities hi and lo).  Every part is 64
 * bytes aligned.
 */
#ifndef MK_MDEC_TILE_LAY_H
#define MK_MDEC_TILE_LAY_H

#include <limits.h>
#include <stddef.h>

#include "base/dtype.h"

/*
 * Query rows (heads x tokens) a kv head must serve for the amx row to
 * compute a task on tiles, for K/V dtype dt (MK_U8: FP8), where the
 * tiles measured faster (tests/bench/RESULTS.md, mdecode): FP8 from 8,
 * where avx512 pays for widening each element for few heads (below it,
 * tiles for the scores alone beside avx512's values ran slower too);
 * bf16, which its f32 kernel widens by a shift, from 16; f16, which the
 * tiles take in two parts (twice the products), from 32 (16 rows ran
 * slower on 16 threads of the device); f32 never (its values do not fit
 * two bf16).
 * tile_rows (MOEKIT_TILE_ROWS) overrides the first three.
 */
static inline int
mk_tile_from(int dt, int tile_rows)
{
	if (dt == MK_F32)
		return INT_MAX;
	if (tile_rows > 0)
		return tile_rows;
	return dt == MK_U8 ? 8 : dt == MK_F16 ? 32 : 16;
}

/*
 * Positions of a tile block: several of the mask scan's blocks (32), so
 * that the values' sums stay in tiles over TB / 32 steps of their K
 * dimension (a tile's 32 bf16) between their loads and stores.
 */
#define MK_TILE_TB	128

/*
 * Sets of V rows: a block's V is widened in the stage before its scores
 * and read in the stage after its softmax, so four blocks' are held
 * (mdec_tile.h, tile_walk).
 */
#define MK_TILE_VSETS	4

/*
 * Query rows from which the values' products go by pairs of 16-row
 * groups, both parts of the weights summed in one tile (mdec_tile.h,
 * value_pair_step), where the rows are whole groups: the sums moved
 * halve.  MLA with 128 heads read 9-16 % more of the probe (Xeon VM,
 * one core; device, 16 threads), 64 heads up to 11 %; 32 rows (MLA, 8
 * tokens of GQA) no faster, so not there (tests/bench/RESULTS.md).
 */
#define MK_TILE_VP_FROM	64

struct mk_tile_lay {
	int	 NT;		/* tiles of eight query rows */
	int	 vp;		/* values by pairs of 16-row groups:
				 * G >= MK_TILE_VP_FROM, G % 16 == 0 */
	int	 DS;		/* K-steps of the scores: D / 32, rounded up */
	int	 DP;		/* D rounded up to 32: bf16 row stride of kb */
	int	 DVP;		/* DV rounded up to 32 */
	int	 OS;		/* floats a row of the values' sums: DVP
				 * and 16 (mk_tile_lay says why) */
	int	 VS;		/* bf16 a V pair row: 2 DVP and 32 */
	size_t	 cfg;		/* the AMX tile configuration (64 bytes) */
	size_t	 qt;		/* [NT][DS] tiles of q: 16 dim pairs x 16
				 * columns (VNNI), 1 KiB each */
	int	 np;		/* bf16 parts of a K or V element: 2 for
				 * f16 (hi, lo), else 1 */
	size_t	 kb;		/* [2][np][TB][DP] bf16: K rows, for two
				 * blocks in turn */
	size_t	 vb;		/* [VSETS][np][TB/2][VS] bf16: V rows,
				 * pairs of positions interleaved (VNNI),
				 * for four blocks in turn */
	size_t	 sc;		/* [2][NT][TB][16] f32: scores, two blocks */
	size_t	 st;		/* [8][TB] f32: one tile's, a head a row */
	size_t	 pb;		/* [2][NT][16][TB] bf16: probabilities,
				 * rows hi then lo (vp: 16 rows' his a
				 * tile, their los the next), two blocks */
	size_t	 ob;		/* [NT][16][OS] f32: the values' sums
				 * (vp: a pair's low rows unused) */
	size_t	 mx;		/* [NT * 8] f32: running maxima */
	size_t	 ls;		/* [NT * 8][16] f32: running sums, by lane */
	size_t	 pa;		/* [NT * 8] f32: rescales due to the values'
				 * sums */
	size_t	 bytes;		/* all of it */
};

static inline size_t
mk_tile_up(size_t n)
{
	return (n + 63) & ~(size_t)63;
}

static inline struct mk_tile_lay
mk_tile_lay(int G, int D, int DV, int np)
{
	struct mk_tile_lay y;
	size_t o = 0;

	y.np = np;
	y.NT = (G + 7) / 8;
	y.vp = G >= MK_TILE_VP_FROM && G % 16 == 0;
	y.DS = (D + 31) / 32;
	y.DP = y.DS * 32;
	y.DVP = (DV + 31) / 32 * 32;
	/* rows of the values' sums and V's pairs 64 bytes longer than
	 * their columns: at MLA's 2 KiB a tile's 16 rows fell in two of
	 * L1's 64 sets, and FP8 MLA walked 7-10 % slower (Xeon VM) */
	y.OS = y.DVP + 16;
	y.VS = 2 * y.DVP + 32;
#define MK_TILE_PART(m, n)	(y.m = o, o += mk_tile_up(n))
	MK_TILE_PART(cfg, 64);
	MK_TILE_PART(qt, (size_t)y.NT * (size_t)y.DS * 1024);
	MK_TILE_PART(kb, 2 * (size_t)np * MK_TILE_TB * (size_t)y.DP * 2);
	MK_TILE_PART(vb, MK_TILE_VSETS * (size_t)np * MK_TILE_TB / 2 *
	    (size_t)y.VS * 2);
	MK_TILE_PART(sc, 2 * (size_t)y.NT * MK_TILE_TB * 64);
	MK_TILE_PART(st, (size_t)8 * MK_TILE_TB * 4);
	MK_TILE_PART(pb, 2 * (size_t)y.NT * 16 * MK_TILE_TB * 2);
	MK_TILE_PART(ob, (size_t)y.NT * 16 * (size_t)y.OS * 4);
	MK_TILE_PART(mx, (size_t)y.NT * 8 * 4);
	MK_TILE_PART(ls, (size_t)y.NT * 8 * 64);
	MK_TILE_PART(pa, (size_t)y.NT * 8 * 4);
#undef MK_TILE_PART
	y.bytes = o;
	return y;
}

#endif
