/* mdec_f16_avx2.c - mdec_kernel.h for f16 K/V caches on AVX2. */
#include "mdec/mdec_avx2.h"

#define KDT	MK_F16
#include "mdec/mdec_kernel.h"

MK_MDEC_ENTRY(f16)
