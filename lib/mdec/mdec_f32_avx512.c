/* mdec_f32_avx512.c - mdec_kernel.h for f32 K/V caches on AVX-512. */
#include "mdec/mdec_avx512.h"

#define KDT	MK_F32
#include "mdec/mdec_kernel.h"

MK_MDEC_ENTRY(f32)
