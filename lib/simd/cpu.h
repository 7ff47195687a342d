/*
 * cpu.h - what the processor and the operating system let us run.
 *
 * A feature counts only when CPUID reports it *and* XGETBV says the OS saves
 * the registers it needs (YMM for AVX2, ZMM and opmask for AVX-512).
 */
#ifndef MK_CPU_H
#define MK_CPU_H

struct mk_cpu {
	int	avx2, fma, f16c;		/* with OS YMM support */
	int	pclmul;			/* PCLMULQDQ and SSE4.1 */
	int	avx512f, avx512bw, avx512vl, avx512dq;	/* with OS ZMM support */
	int	avx512bf16, avx512fp16, avx512vbmi;
	int	amx_tile, amx_bf16;	/* with OS tile state (XCR0 bits
					 * 17, 18) */
	int	has_avx2;	/* the "avx2" level: AVX2 + FMA + F16C + PCLMUL */
	int	has_avx512;	/* the "avx512" level: has_avx2 + F/BW/VL/DQ */
	int	has_avx512bf16;	/* the "avx512bf16" level: has_avx512 +
				 * AVX512-BF16 */
	int	has_amx;	/* the "amx" level: has_avx512bf16 +
				 * AVX512-VBMI, AMX-TILE and AMX-BF16, and
				 * Linux lets this process use the tile data
				 * (mk_cpu_amx) */
	int	amd;		/* vendor AuthenticAMD (a tuning choice, not a
				 * feature: kern.h, paged_l2) */
};

/* The probed features.  Probes on first use; never fails. */
const struct mk_cpu	*mk_cpu(void);

/*
 * Whether this process may use AMX tiles: on Linux the tile data must be
 * asked for (arch_prctl ARCH_REQ_XCOMP_PERM), once, before any thread
 * uses it; the first call asks.  Returns 1, or 0 with why (if not NULL)
 * pointing at a phrase saying what is missing ("the CPU has no AMX-BF16",
 * "Linux refused the tile data: ...").
 */
int	mk_cpu_amx(const char **why);

#endif
