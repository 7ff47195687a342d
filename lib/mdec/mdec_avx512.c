/*
 * mdec_avx512.c - the arithmetic floor of mdec_kernel.h and the read probe
 * for AVX-512; the kernels themselves are in mdec_<dtype>_avx512.c, a
 * file each so that they compile side by side.
 */
#include "mdec/mdec_avx512.h"
#include "mdec/mdec_kernel.h"

MK_MDEC_ARITH

