/* cpu.c - CPUID and XGETBV probing; see cpu.h. */
#if defined(__AVX2__) || defined(__AVX512F__)
#error "compile cpu.c without -mavx*: it runs before we know the CPU has AVX"
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#if defined(__linux__)
#include <unistd.h>
#include <sys/syscall.h>
#endif

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
	c->avx512vbmi = zmm && (cx & (1u << 1));
	/* XTILECFG and XTILEDATA state enabled by the OS */
	c->amx_tile = (xcr0 & 0x60000) == 0x60000 && (d & (1u << 24));
	c->amx_bf16 = c->amx_tile && (d & (1u << 22));
	__cpuid_count(7, 1, a, b, cx, d);
	c->avx512bf16 = zmm && (a & (1u << 5));
	c->has_avx2 = c->avx2 && c->fma && c->f16c && c->pclmul;
	c->has_avx512 = c->has_avx2 && c->avx512f && c->avx512bw &&
	    c->avx512vl && c->avx512dq;
	c->has_avx512bf16 = c->has_avx512 && c->avx512bf16;
}
#else
static void
probe(struct mk_cpu *c)
{
	(void)c;
}
#endif

static struct mk_cpu cpu;

const struct mk_cpu *
mk_cpu(void)
{
	static int done;

	if (!done) {
		probe(&cpu);
		done = 1;
	}
	return &cpu;
}

/* Linux's arch_prctl codes and the tile data's state component. */
#define ARCH_GET_XCOMP_PERM	0x1022
#define ARCH_REQ_XCOMP_PERM	0x1023
#define XFEATURE_XTILEDATA	18

/* Ask Linux for the tile data; 1 if granted, else 0 with why[] filled. */
static int
ask_tiles(char *why, size_t size)
{
#if defined(__linux__) && defined(SYS_arch_prctl)
	unsigned long perm = 0;

	if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM,
	    XFEATURE_XTILEDATA) != 0) {
		snprintf(why, size, "Linux refused the tile data (arch_prctl: "
		    "%s)", strerror(errno));
		return 0;
	}
	if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &perm) != 0 ||
	    !(perm & (1ul << XFEATURE_XTILEDATA))) {
		snprintf(why, size, "Linux did not grant the tile data");
		return 0;
	}
	return 1;
#else
	snprintf(why, size, "tiles are asked for from Linux only");
	return 0;
#endif
}

int
mk_cpu_amx(const char **why)
{
	static char reason[160];
	static int state = -1;	/* -1: not asked yet */
	const struct mk_cpu *c = mk_cpu();

	if (state < 0) {
		if (!c->has_avx512bf16)
			snprintf(reason, sizeof(reason), "the CPU has no "
			    "AVX512-BF16");
		else if (!c->avx512vbmi)
			snprintf(reason, sizeof(reason), "the CPU has no "
			    "AVX512-VBMI");
		else if (!c->amx_bf16)
			snprintf(reason, sizeof(reason), "the CPU has no "
			    "AMX-BF16 tiles the OS enabled");
		state = c->has_avx512bf16 && c->avx512vbmi && c->amx_bf16 &&
		    ask_tiles(reason, sizeof(reason));
		cpu.has_amx = state;
	}
	if (why != NULL)
		*why = state ? "" : reason;
	return state;
}
