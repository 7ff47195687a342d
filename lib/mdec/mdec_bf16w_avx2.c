/*
 * mdec_bf16w_avx2.c - mdec_kernel.h for bf16 K/V caches on AVX2 widened a
 * vector at a time (rows not whole pairs of vectors: mdec_bf16_avx2.c).
 */
#include "mdec/mdec_avx2.h"

#define KDT	MK_BF16
#define NO_D128	1	/* bf16 rows of 128 are read by pairs */
#include "mdec/mdec_kernel.h"

MK_MDEC_ENTRY(bf16w)
