/*
 * mdec_kern.c - mdec's kernel table (mdec.h): its five rows and their
 * selection at the level simd/kern.c chose.  The kernels are in
 * mdec_<dtype>_<isa>.c, each file compiled with its ISA's flags; this one
 * has none.
 */
#if defined(__AVX2__) || defined(__AVX512F__)
#error "compile mdec_kern.c without -mavx*"
#endif

#include <stdlib.h>

#include "simd/cpu.h"
#include "mdec/mdec.h"
#include "mdec/mdec_tile_lay.h"

size_t
mk_mdec_work_generic(int G, int D, int dt, int tile_rows)
{
	(void)dt;
	(void)tile_rows;
	return MK_MDEC_WORK(G, D);
}

/* The tiles' scratch where they compute a task, else the avx512 kernel's
 * (which also takes a task whose rows the tiles cannot carry). */
size_t
mk_mdec_work_tile(int G, int D, int dt, int tile_rows)
{
	size_t tile = (mk_tile_lay(G, D, D, dt == MK_F16 ? 2 : 1).bytes + 3) /
	    4;

	if (G < mk_tile_from(dt, tile_rows))
		return MK_MDEC_WORK(G, D);
	return tile > MK_MDEC_WORK(G, D) ? tile : MK_MDEC_WORK(G, D);
}

const struct mk_mdec_kern mk_mdec_kern_generic = {
	.name = "generic",
	.mdec_f16 = mk_mdec_f16_generic,
	.mdec_bf16 = mk_mdec_bf16_generic,
	.mdec_f32 = mk_mdec_f32_generic,
	.mdec_fp8 = mk_mdec_fp8_generic,
	.mdec_arith = mk_mdec_arith_generic,
	.mdec_work = mk_mdec_work_generic,
};

const struct mk_mdec_kern mk_mdec_kern_avx2 = {
	.name = "avx2",
	.mdec_f16 = mk_mdec_f16_avx2,
	.mdec_bf16 = mk_mdec_bf16_avx2,
	.mdec_f32 = mk_mdec_f32_avx2,
	.mdec_fp8 = mk_mdec_fp8_avx2,
	.mdec_arith = mk_mdec_arith_avx2,
};

const struct mk_mdec_kern mk_mdec_kern_avx512 = {
	.name = "avx512",
	.mdec_f16 = mk_mdec_f16_avx512,
	.mdec_bf16 = mk_mdec_bf16_avx512,
	.mdec_f32 = mk_mdec_f32_avx512,
	.mdec_fp8 = mk_mdec_fp8_avx512,
	.mdec_arith = mk_mdec_arith_avx512,
};

static const struct mk_mdec_kern mk_mdec_kern_avx512bf16 =
    MK_KERN_ROW_NONE("avx512bf16");

const struct mk_mdec_kern mk_mdec_kern_amx = {
	.name = "amx",
	.mdec_f16 = mk_mdec_f16_amx,
	.mdec_bf16 = mk_mdec_bf16_amx,
	.mdec_fp8 = mk_mdec_fp8_amx,
	.mdec_work = mk_mdec_work_tile,
};

MK_KERN_ROWS(mk_mdec_kern, struct mk_mdec_kern);

MK_KERN_TABLE(mk_mdec_kern, struct mk_mdec_kern, MK_MDEC_KERNELS)

/*
 * AMD's prefetchers do not follow a paged cache's order (Zen 5: faster
 * with the hint); on the Xeon the hint only took bandwidth
 * (tests/bench/RESULTS.md, mdecode).
 */
int
mk_mdec_paged_l2(struct mk_err *e)
{
	static const char *const off_on[] = { "0", "1", NULL };
	int want = mk_env_word("MOEKIT_PAGED_L2", off_on, e);

	if (want < 0)
		return -1;
	return want > 0 ? want - 1 : mk_cpu()->amd != 0;
}
