/*
 * mdec_bf16_avx2.c - mdec_kernel.h for bf16 K/V caches on AVX2, whose rows
 * are whole pairs of vectors (PAIRS); others go to mdec_bf16w_avx2.c.
 */
#include "mdec/mdec_avx2.h"

#define KDT	PAIRS
#include "mdec/mdec_kernel.h"

MK_MDEC_BF16_ENTRY
