/*
 * step.c - a routing trace's step: its ranks loaded, and how many of its
 * dispatches leave their token's node (step.h).
 */
#include <string.h>

#include "moe/step.h"

int
mk_moe_step_load_rank(const struct mk_moe_step *s, int r, int64_t t0, int64_t t1,
    int key, int *first, struct mk_err *e)
{
	struct mk_err le;

	if (s->load == NULL || s->load(s->ctx, r, t0, t1, &le) == 0)
		return 0;
#pragma omp critical(mk_moe_load)
	if (key < *first) {
		*first = key;
		*e = le;
	}
	return -1;
}

int
mk_moe_step_load(struct mk_moe_step *s, int threads, struct mk_err *e)
{
	int r, first = s->R;

	(void)threads;		/* without OpenMP */
#pragma omp parallel for schedule(dynamic, 1) if (s->R > 1 && threads > 1) \
    num_threads(threads > 1 ? threads : 1)
	for (r = 0; r < s->R; r++)
		(void)mk_moe_step_load_rank(s, r, 0, s->T[r], r, &first, e);
	s->load = NULL;
	return first < s->R ? -1 : 0;
}

void
mk_moe_node_dispatch(const struct mk_moe_step *s, int P, int per,
    int64_t out[2])
{
	const int epr = P / s->R, nodes = (s->R + per - 1) / per;
	uint64_t seen[MK_MOE_MASK_WORDS];
	int64_t t, id;
	int r, j, n, home;

	out[0] = out[1] = 0;
	for (r = 0; r < s->R; r++) {
		home = r / per;
		for (t = 0; t < s->T[r]; t++) {
			memset(seen, 0, sizeof(uint64_t) * (size_t)((nodes +
			    63) / 64));
			for (j = 0; j < s->K; j++) {
				id = mk_moe_id(s, r, t, j);
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
