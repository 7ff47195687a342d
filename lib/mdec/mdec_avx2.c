/*
 * mdec_avx2.c - the arithmetic floor of mdec_kernel.h and the read probe
 * for AVX2; the kernels themselves are in mdec_<dtype>_avx2.c, a
 * file each so that they compile side by side.
 */
#include "mdec/mdec_avx2.h"
#include "mdec/mdec_kernel.h"

MK_MDEC_ARITH

