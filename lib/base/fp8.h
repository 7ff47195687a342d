/*
 * fp8.h - OCP 8-bit floats as KV caches hold them (vLLM's
 * --kv-cache-dtype fp8_e4m3 | fp8_e5m2): E4M3FN (torch.float8_e4m3fn:
 * bias 7, no infinities, NaN at 0x7f and 0xff, largest 448) and E5M2
 * (bias 15, IEEE-like: the top byte of an f16).  Every value of both
 * is exactly an f16.
 */
#ifndef MK_FP8_H
#define MK_FP8_H

#include <stddef.h>
#include <stdint.h>

enum mk_fp8 { MK_FP8_NONE, MK_FP8_E4M3, MK_FP8_E5M2 };

/* The largest finite value of format fmt (E4M3 448, E5M2 57344). */
#define MK_FP8_MAX(fmt)	((fmt) == MK_FP8_E5M2 ? 57344.0 : 448.0)

/* The value of byte b (NaN, +-inf where the format has them). */
double	mk_fp8_value(uint8_t b, enum mk_fp8 fmt);

/*
 * The byte of format fmt nearest x (ties to even); past the largest
 * value (448, 57344), E4M3's NaN and E5M2's infinity.
 */
uint8_t	mk_fp8_from_double(double x, enum mk_fp8 fmt);

#endif
