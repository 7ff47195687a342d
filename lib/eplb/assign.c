/*
 * assign.c - Hungarian method for maximum-weight assignment; see assign.h.
 * The classic potentials formulation (Kuhn-Munkres with Dijkstra-like
 * row additions) on costs max(w) - w, with 1-based helper arrays.
 */
#include <stdlib.h>

#include "eplb/assign.h"

int64_t
mk_assign_max(const int64_t *w, int n, int *perm)
{
	int64_t *u, *v, *minv, big = 0, total = 0, cur, delta;
	int *p, *way, i, j, j0, j1, i0;
	char *used;

	if (n <= 0)
		return 0;
	for (i = 0; i < n * n; i++)
		if (w[i] > big)
			big = w[i];
	u = calloc((size_t)n + 1, sizeof(int64_t));
	v = calloc((size_t)n + 1, sizeof(int64_t));
	minv = malloc(sizeof(int64_t) * ((size_t)n + 1));
	p = calloc((size_t)n + 1, sizeof(int));
	way = calloc((size_t)n + 1, sizeof(int));
	used = malloc((size_t)n + 1);
	if (!u || !v || !minv || !p || !way || !used) {
		total = -1;
		goto out;
	}
	/* p[j]: row matched to column j (0: none); cost(i,j) = big - w. */
	for (i = 1; i <= n; i++) {
		p[0] = i;
		j0 = 0;
		for (j = 0; j <= n; j++) {
			minv[j] = INT64_MAX;
			used[j] = 0;
		}
		do {
			used[j0] = 1;
			i0 = p[j0];
			delta = INT64_MAX;
			j1 = 0;
			for (j = 1; j <= n; j++) {
				if (used[j])
					continue;
				cur = big - w[(size_t)(i0 - 1) * (size_t)n +
				    (size_t)(j - 1)] - u[i0] - v[j];
				if (cur < minv[j]) {
					minv[j] = cur;
					way[j] = j0;
				}
				if (minv[j] < delta) {
					delta = minv[j];
					j1 = j;
				}
			}
			for (j = 0; j <= n; j++) {
				if (used[j]) {
					u[p[j]] += delta;
					v[j] -= delta;
				} else {
					minv[j] -= delta;
				}
			}
			j0 = j1;
		} while (p[j0] != 0);
		do {
			j1 = way[j0];
			p[j0] = p[j1];
			j0 = j1;
		} while (j0 != 0);
	}
	for (j = 1; j <= n; j++) {
		perm[p[j] - 1] = j - 1;
		total += w[(size_t)(p[j] - 1) * (size_t)n + (size_t)(j - 1)];
	}
out:
	free(u);
	free(v);
	free(minv);
	free(p);
	free(way);
	free(used);
	return total;
}
