/* cpu.c - CPUID and XGETBV probing; see cpu.h. */
#if defined(__AVX2__) || defined(__AVX512F__)
#error "compile cpu.c without -mavx*: it runs before we know the CPU has AVX"
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <stdint.h>

#include "simd/cpu.h"

#if defined(__x86_64__) || defined(__i386__)
static uint64_t
xgetbv0(void)
{
	uint32_t lo, hi;

	/* xgetbv with ecx = 0, spelled as bytes so no -mxsave is needed. */
	__asm__ volatile (".byte 0x0f, 0x01, 0xd0"
	    : "=a" (lo), "=d" (hi) : "c" (0));
	return ((uint64_t)hi << 32) | lo;
}

static void
probe(struct mk_cpu *c)
{
	unsigned a, b, cx, d, max;
	uint64_t xcr0 = 0;
	int ymm, zmm;

	if (__get_cpuid(0, &max, &b, &cx, &d) == 0)
		return;
	/* "AuthenticAMD" in ebx, edx, ecx */
	c->amd = b == 0x68747541 && d == 0x69746e65 && cx == 0x444d4163;
	if (max < 7)
		return;
	__cpuid(1, a, b, cx, d);
	if ((cx & (1u << 27)) == 0)	/* OSXSAVE: XGETBV is usable */
		return;
	xcr0 = xgetbv0();
	ymm = (xcr0 & 0x06) == 0x06;		/* XMM and YMM state */
	zmm = (xcr0 & 0xe6) == 0xe6;		/* and opmask, ZMM_Hi256, Hi16_ZMM */
	c->fma = ymm && (cx & (1u << 12));
	c->f16c = ymm && (cx & (1u << 29));
	c->pclmul = (cx & (1u << 1)) && (cx & (1u << 19));	/* and SSE4.1 */
	__cpuid_count(7, 0, a, b, cx, d);
	c->avx2 = ymm && (b & (1u << 5));
	c->avx512f = zmm && (b & (1u << 16));
	c->avx512dq = zmm && (b & (1u << 17));
	c->avx512bw = zmm && (b & (1u << 30));
	c->avx512vl = zmm && (b & (1u << 31));
	c->avx512fp16 = zmm && (d & (1u << 23));
	__cpuid_count(7, 1, a, b, cx, d);
	c->avx512bf16 = zmm && (a & (1u << 5));
	c->has_avx2 = c->avx2 && c->fma && c->f16c && c->pclmul;
	c->has_avx512 = c->has_avx2 && c->avx512f && c->avx512bw &&
	    c->avx512vl && c->avx512dq;
}
#else
static void
probe(struct mk_cpu *c)
{
	(void)c;
}
#endif

const struct mk_cpu *
mk_cpu(void)
{
	static struct mk_cpu cpu;
	static int done;

	if (!done) {
		probe(&cpu);
		done = 1;
	}
	return &cpu;
}
