/* mdec_f32_avx512.c - mdec_kernel.h for f32 K/V caches on AVX-512. */
#include "mdec/mdec_avx512.h"

#define KDT	MK_F32
#define F32_ROWS	1	/* the groups of widened rows (MK_MDEC_GROUPS) */
#include "mdec/mdec_kernel.h"

MK_MDEC_ENTRY(f32)
MK_MDEC_GROUPS
