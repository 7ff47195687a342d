/* mdec_fp8_avx2.c - mdec_kernel.h for FP8 K/V caches (bytes) on AVX2. */
#include "mdec/mdec_avx2.h"

#define KDT	MK_U8
#define NO_D128	1	/* no head size known when compiled: no faster
			 * with 128 known on AVX2 (mdec_kernel.h) */
#include "mdec/mdec_kernel.h"

MK_MDEC_ENTRY(fp8)
