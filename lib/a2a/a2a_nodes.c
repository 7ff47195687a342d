/*
 * a2a_nodes.c - how many of a step's dispatches leave their token's node,
 * for nodes of any size; see mk_a2a_node_dispatch in a2a.h.
 */
#include <string.h>

#include "a2a/a2a.h"

void
mk_a2a_node_dispatch(const struct mk_a2a_step *s, int P, int per,
    int64_t out[2])
{
	const int epr = P / s->R, nodes = (s->R + per - 1) / per;
	uint64_t seen[MK_A2A_MASK_WORDS];
	int64_t t, id;
	int r, j, n, home;

	out[0] = out[1] = 0;
	for (r = 0; r < s->R; r++) {
		home = r / per;
		for (t = 0; t < s->T[r]; t++) {
			memset(seen, 0, sizeof(uint64_t) * (size_t)((nodes +
			    63) / 64));
			for (j = 0; j < s->K; j++) {
				id = mk_a2a_id(s, r, t, j);
				if (id < 0 || id >= P)
					continue;
				n = (int)(id / epr) / per;
				if (seen[n / 64] >> (n % 64) & 1)
					continue;
				seen[n / 64] |= (uint64_t)1 << (n % 64);
				out[1]++;
				out[0] += n != home;
			}
		}
	}
}
