/*
 * mdec_amx.c - the amx row of mdec's kernel table: mdec_tile.h's walk,
 * its products on AMX-BF16 tiles, for f16, bf16 and FP8 caches where a
 * kv head serves enough query rows for the tiles to pay; the rest, f32
 * caches, the rows probe and the floor are avx512's.
 */
#include "mdec/mdec_avx512.h"
#include "mdec/mdec_kernel.h"
#include "mdec/mdec_tile.h"

/*
 * The tasks t[0..n) of a K/V kind: each walked on the tiles, or
 * computed again by f512 where its rows hold a byte the tiles cannot
 * carry; the rows probe, and groups too small for the tiles, by f512.
 */
static void
tile_entry(const struct mk_mdec_task *t, int n, int kind,
    mk_mdec_kernel_fn *f512)
{
	int h;

	if (t->rd || t->G < mk_tile_from(tile_dtype(kind), t->tile_rows)) {
		f512(t, n);
		return;
	}
	for (h = 0; h < n; h++)
		if (tile_walk_kind(&t[h], kind))
			f512(&t[h], 1);
}

void
mk_mdec_f16_amx(const struct mk_mdec_task *t, int n)
{
	tile_entry(t, n, TK_F16, mk_mdec_f16_avx512);
}

void
mk_mdec_bf16_amx(const struct mk_mdec_task *t, int n)
{
	tile_entry(t, n, TK_BF16, mk_mdec_bf16_avx512);
}

void
mk_mdec_fp8_amx(const struct mk_mdec_task *t, int n)
{
	tile_entry(t, n, t->fp8 == MK_FP8_E5M2 ? TK_E5M2 : TK_E4M3,
	    mk_mdec_fp8_avx512);
}
