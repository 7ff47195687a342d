/* mdec_f16_avx512.c - mdec_kernel.h for f16 K/V caches on AVX-512. */
#include "mdec/mdec_avx512.h"

#define KDT	MK_F16
#include "mdec/mdec_kernel.h"

MK_MDEC_ENTRY(f16)
