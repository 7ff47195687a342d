/* mdec_fp8_avx512.c - mdec_kernel.h for FP8 K/V caches (bytes) on AVX-512. */
#include "mdec/mdec_avx512.h"

#define KDT	MK_U8
#define NO_D64	1	/* 128 alone known when compiled (mdec_kernel.h) */
#include "mdec/mdec_kernel.h"

MK_MDEC_ENTRY(fp8)
