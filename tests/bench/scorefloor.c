/*
 * scorefloor.c - what the AVX-512 kernel's algorithm adds to the
 * arithmetic --bench-kernel calls its floor: the transpose-reduction
 * that turns 16 accumulators (4 positions x 4 query heads) into one
 * vector of scores (vreduce4, and vreduce, the one used before q was
 * mixed and still for fewer heads), and the exponentials of those 16
 * scores, timed
 * alone in registers (throughput-bound; on Intel they share the FMAs'
 * two ports, so they add to the floor).  The kernel's own primitives
 * (vreduce, vexp2) are compiled in from lib/mdec/mdec_avx512.c.
 *
 *   cc -O3 -mavx512f -mavx512bw -mavx512dq -mavx512vl -mf16c -mfma -Ilib
 *      -o scorefloor tests/bench/scorefloor.c -lm
 *   taskset -c 0 scorefloor
 *
 * Prints ns per position of a kv head of 4 query heads (16 scores are 4
 * positions), best of 7 rounds, beside which to read --bench-kernel's
 * ns and floor_ns (RESULTS.md).
 */
#include "../../lib/mdec/mdec_avx512.c"

#include <stdio.h>

#include "base/clock.h"

/*
 * ns per 16 scores: reduced (by vreduce4, the kernel's for groups of four
 * heads, if mix; else vreduce) and exponentiated if ex, best of 7.
 */
static double
per16(int mix, int ex)
{
	const long N = 4000000;
	VEC v[16], acc = vzero(), m = vset1(0.5f);
	double best = 1e9, t;
	float o[16];
	long n;
	int i, r;

	for (i = 0; i < 16; i++)
		v[i] = vset1(-0.001f * (float)i);
	for (r = 0; r < 7; r++) {
		t = mk_seconds();
		for (n = 0; n < N; n++) {
			VEC s = mix ? vreduce4(v) : vreduce(v);

			acc = acc + (ex ? vexp2(s - m) : s);
			/* one input rewritten each time: nothing hoisted */
			__asm__ volatile("" : "+v"(v[n & 15]));
		}
		t = mk_seconds() - t;
		best = t < best ? t : best;
	}
	_mm512_storeu_ps(o, acc);
	return o[0] == 42.0f ? 0 : best / (double)N * 1e9;
}

int
main(void)
{
	printf("ns a position of 4 heads: reduction %.2f, with the "
	    "exponentials %.2f; vreduce (groups of fewer heads) %.2f, with "
	    "them %.2f\n", per16(1, 0) / 4, per16(1, 1) / 4, per16(0, 0) / 4,
	    per16(0, 1) / 4);
	return 0;
}
