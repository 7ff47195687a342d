/*
 * eplb_prev.c - keeping a new plan close to the previous one (--prev);
 * see mk_eplb_relabel in eplb.h.
 */
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "eplb/assign.h"
#include "eplb/eplb.h"

/* Multiset intersection of two sorted lists of S experts. */
static int64_t
overlap(const int64_t *a, const int64_t *b, int S)
{
	int i = 0, j = 0;
	int64_t n = 0;

	while (i < S && j < S) {
		if (a[i] == b[j]) {
			n++;
			i++;
			j++;
		} else if (a[i] < b[j]) {
			i++;
		} else {
			j++;
		}
	}
	return n;
}

int
mk_eplb_relabel(const struct mk_eplb_cfg *c, const int64_t *prev,
    struct mk_eplb_plan *p)
{
	int G = c->G, S = c->R / c->G, N = c->hier ? c->N : 1, gpn = G / N;
	int64_t *sn, *so, *ov, *sub, *nodew, *np, *nr;
	int *perm, *subperm, *nodeperm, u, v, a, b, s, k, ok = -1;
	char *taken;

	sn = malloc(sizeof(int64_t) * (size_t)c->R);
	so = malloc(sizeof(int64_t) * (size_t)c->R);
	ov = malloc(sizeof(int64_t) * (size_t)G * (size_t)G);
	sub = malloc(sizeof(int64_t) * (size_t)gpn * (size_t)gpn);
	nodew = malloc(sizeof(int64_t) * (size_t)N * (size_t)N);
	np = malloc(sizeof(int64_t) * (size_t)c->R);
	nr = malloc(sizeof(int64_t) * (size_t)c->R);
	perm = malloc(sizeof(int) * (size_t)G);
	subperm = malloc(sizeof(int) * (size_t)N * (size_t)N * (size_t)gpn);
	nodeperm = malloc(sizeof(int) * (size_t)N);
	taken = malloc((size_t)S);
	if (!sn || !so || !ov || !sub || !nodew || !np || !nr || !perm ||
	    !subperm || !nodeperm || !taken)
		goto out;
	memcpy(sn, p->phy2log, sizeof(int64_t) * (size_t)c->R);
	memcpy(so, prev, sizeof(int64_t) * (size_t)c->R);
	for (u = 0; u < G; u++) {
		qsort(sn + u * S, (size_t)S, sizeof(int64_t), mk_cmp_i64);
		qsort(so + u * S, (size_t)S, sizeof(int64_t), mk_cmp_i64);
	}
	for (u = 0; u < G; u++)
		for (v = 0; v < G; v++)
			ov[u * G + v] = overlap(sn + u * S, so + v * S, S);
	/* new GPU u goes to position perm[u] */
	for (a = 0; a < N; a++)
		for (b = 0; b < N; b++) {
			for (u = 0; u < gpn; u++)
				for (v = 0; v < gpn; v++)
					sub[u * gpn + v] = ov[(a * gpn + u) * G
					    + b * gpn + v];
			nodew[a * N + b] = mk_assign_max(sub, gpn,
			    subperm + (a * N + b) * gpn);
			if (nodew[a * N + b] < 0)
				goto out;
		}
	if (mk_assign_max(nodew, N, nodeperm) < 0)
		goto out;
	for (a = 0; a < N; a++) {
		b = nodeperm[a];
		for (u = 0; u < gpn; u++)
			perm[a * gpn + u] = b * gpn +
			    subperm[(a * N + b) * gpn + u];
	}
	/* Move each GPU; kept experts go back to their old slots. */
	for (u = 0; u < G; u++) {
		v = perm[u];
		memset(taken, 0, (size_t)S);
		for (s = 0; s < S; s++)
			np[v * S + s] = -1;
		for (s = 0; s < S; s++)
			for (k = 0; k < S; k++)
				if (!taken[k] && p->phy2log[u * S + k] ==
				    prev[v * S + s]) {
					taken[k] = 1;
					np[v * S + s] = p->phy2log[u * S + k];
					nr[v * S + s] = p->rank[u * S + k];
					break;
				}
		for (s = 0, k = 0; s < S; s++) {
			if (np[v * S + s] >= 0)
				continue;
			while (taken[k])
				k++;
			taken[k] = 1;
			np[v * S + s] = p->phy2log[u * S + k];
			nr[v * S + s] = p->rank[u * S + k];
		}
	}
	memcpy(p->phy2log, np, sizeof(int64_t) * (size_t)c->R);
	memcpy(p->rank, nr, sizeof(int64_t) * (size_t)c->R);
	ok = 0;
out:
	free(sn); free(so); free(ov); free(sub); free(nodew); free(np);
	free(nr); free(perm); free(subperm); free(nodeperm); free(taken);
	return ok;
}

void
mk_eplb_migration(const struct mk_eplb_cfg *c, const int64_t *prev,
    const int64_t *phy2log, struct mk_eplb_moves *m)
{
	const int S = c->R / c->G, node = c->R / c->N;
	int g, s, t, dup, have, n0;

	memset(m, 0, sizeof(*m));
	for (g = 0; g < c->G; g++)
		for (s = 0; s < S; s++) {
			int64_t e = phy2log[g * S + s];
			if (e != prev[g * S + s])
				m->changed++;
			/* count each distinct expert of the GPU once */
			for (t = 0, dup = 0; t < s && !dup; t++)
				dup = phy2log[g * S + t] == e;
			if (dup)
				continue;
			for (t = 0, have = 0; t < S && !have; t++)
				have = prev[g * S + t] == e;
			if (have)
				continue;
			m->copies++;
			n0 = g * S / node * node;
			for (t = n0, have = 0; t < n0 + node && !have; t++)
				have = prev[t] == e;
			m->inter += !have;
		}
}
