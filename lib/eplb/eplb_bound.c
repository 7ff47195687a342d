/*
 * eplb_bound.c - replica counts, T*, GPU loads and the lower bound of a
 * layer (eplb-plan(1), "Statistics").
 */
#include <stdlib.h>
#include <string.h>

#include "eplb/eplb.h"
#include "eplb/eplb_impl.h"

/* Max-heap of experts by (w/cnt desc, index asc). */
static int
above(const double *w, const int *cnt, int a, int b)
{
	double x = w[a] / cnt[a], y = w[b] / cnt[b];

	return x > y || (x == y && a < b);
}

static void
sift_down(int *h, int n, int i, const double *w, const int *cnt)
{
	int c, t;

	for (;;) {
		c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && above(w, cnt, h[c + 1], h[c]))
			c++;
		if (!above(w, cnt, h[c], h[i]))
			return;
		t = h[i];
		h[i] = h[c];
		h[c] = t;
		i = c;
	}
}

/* One replica each; heap ordered by load per replica, largest first. */
static void
one_replica_heap(const double *w, int n, int *cnt, int *heap)
{
	int i;

	for (i = 0; i < n; i++) {
		cnt[i] = 1;
		heap[i] = i;
	}
	for (i = n / 2 - 1; i >= 0; i--)
		sift_down(heap, n, i, w, cnt);
}

double
eplb_greedy_counts(const double *w, int n, int slots, int *cnt, int *heap)
{
	int i;

	one_replica_heap(w, n, cnt, heap);
	for (i = n; i < slots; i++) {
		cnt[heap[0]]++;
		sift_down(heap, n, 0, w, cnt);
	}
	return n > 0 ? w[heap[0]] / cnt[heap[0]] : 0;
}

void
eplb_top_pieces(const double *w, int n, int m, double *top, int *heap,
    int *cnt)
{
	int i;

	one_replica_heap(w, n, cnt, heap);
	for (i = 0; i < m; i++) {
		top[i] = w[heap[0]] / cnt[heap[0]];
		cnt[heap[0]]++;
		sift_down(heap, n, 0, w, cnt);
	}
}

double
mk_eplb_tstar(const double *w, int n, int slots)
{
	int *cnt = malloc(sizeof(int) * (size_t)(n + 1));
	int *heap = malloc(sizeof(int) * (size_t)(n + 1));
	double t = 0;

	if (cnt != NULL && heap != NULL)
		t = eplb_greedy_counts(w, n, slots, cnt, heap);
	free(cnt);
	free(heap);
	return t;
}

double
mk_eplb_gpu_load(const struct mk_eplb_cfg *c, const double *w,
    const int64_t *phy2log, const int64_t *cnt, int g)
{
	int S = c->R / c->G, s;
	double load = 0;
	int64_t e;

	for (s = 0; s < S; s++) {
		e = phy2log[(size_t)g * S + s];
		load += w[e] / (double)cnt[e];
	}
	return load;
}

double
mk_eplb_max_load(const struct mk_eplb_cfg *c, const double *w,
    const int64_t *phy2log, const int64_t *cnt, double *mean)
{
	double max = 0, load, total = 0;
	int g;

	for (g = 0; g < c->G; g++) {
		load = mk_eplb_gpu_load(c, w, phy2log, cnt, g);
		total += load;
		if (load > max)
			max = load;
	}
	if (mean != NULL)
		*mean = total / c->G;
	return max;
}

/* Recursively list the splits: fill set `k` starting from the lowest
 * free group. */
static void
splits(int K, int per, int N, uint64_t used, uint64_t *cur, int k,
    uint64_t *ways, int *count, int max)
{
	int first, g;
	uint64_t free_, set;

	if (*count > max)
		return;
	if (k == N) {
		if (*count < max)
			memcpy(ways + (size_t)*count * (size_t)N, cur,
			    sizeof(uint64_t) * (size_t)N);
		(*count)++;
		return;
	}
	for (first = 0; used >> first & 1; first++)
		;
	free_ = ~used & (((uint64_t)1 << K) - 1) & ~((uint64_t)1 << first);
	/* every subset of free_ with per-1 members, in increasing order */
	if (per == 1) {
		cur[k] = (uint64_t)1 << first;
		splits(K, per, N, used | cur[k], cur, k + 1, ways, count, max);
		return;
	}
	{
		int idx[64], m = 0, choose = per - 1, i, j;
		int pos[64];
		for (g = 0; g < K; g++)
			if (free_ >> g & 1)
				idx[m++] = g;
		for (i = 0; i < choose; i++)
			pos[i] = i;
		for (;;) {
			set = (uint64_t)1 << first;
			for (i = 0; i < choose; i++)
				set |= (uint64_t)1 << idx[pos[i]];
			cur[k] = set;
			splits(K, per, N, used | set, cur, k + 1, ways, count,
			    max);
			if (*count > max)
				return;
			for (i = choose - 1; i >= 0 && pos[i] == m - choose + i;
			    i--)
				;
			if (i < 0)
				break;
			pos[i]++;
			for (j = i + 1; j < choose; j++)
				pos[j] = pos[j - 1] + 1;
		}
	}
}

int
eplb_group_splits(int K, int N, uint64_t *ways, int max)
{
	uint64_t cur[64];
	int count = 0;

	if (K > 62 || N < 1 || K % N != 0)
		return -1;
	splits(K, K / N, N, 0, cur, 0, ways, &count, max);
	return count > max ? -1 : count;
}

int
eplb_groups_init(struct eplb_groups *g, const struct mk_eplb_cfg *c,
    const double *w)
{
	int gs = c->E / c->K, k, j, *heap, *cnt;

	memset(g, 0, sizeof(*g));
	g->K = c->K;
	g->x = c->R / c->N - c->E / c->N;
	g->per = (double)(c->G / c->N);
	g->load = calloc((size_t)c->K, sizeof(double));
	g->top = malloc(sizeof(double) * (size_t)c->K * (size_t)(g->x + 1));
	heap = malloc(sizeof(int) * (size_t)gs);
	cnt = malloc(sizeof(int) * (size_t)gs);
	if (g->load == NULL || g->top == NULL || heap == NULL || cnt == NULL) {
		free(heap);
		free(cnt);
		eplb_groups_free(g);
		return -1;
	}
	for (k = 0; k < c->K; k++) {
		for (j = 0; j < gs; j++)
			g->load[k] += w[k * gs + j];
		eplb_top_pieces(w + k * gs, gs, g->x + 1, g->top + (size_t)k *
		    (size_t)(g->x + 1), heap, cnt);
	}
	free(heap);
	free(cnt);
	return 0;
}

void
eplb_groups_free(struct eplb_groups *g)
{
	free(g->load);
	free(g->top);
	memset(g, 0, sizeof(*g));
}

double
eplb_node_term(const struct eplb_groups *g, uint64_t mask)
{
	int pos[64], grp[64], ng = 0, k, n, best, m = g->x + 1;
	double load = 0, t = 0, v;
	uint64_t bits;

	for (bits = mask; bits != 0; bits &= bits - 1) {
		k = __builtin_ctzll(bits);
		grp[ng] = k;
		pos[ng++] = 0;
		load += g->load[k];
	}
	/* the (x+1)-th largest piece over the node's groups */
	for (n = 0; n < m; n++) {
		best = -1;
		for (k = 0; k < ng; k++) {
			if (pos[k] >= m)
				continue;
			v = g->top[(size_t)grp[k] * (size_t)m + (size_t)pos[k]];
			if (best < 0 || v > t) {
				best = k;
				t = v;
			}
		}
		if (best < 0)
			break;
		pos[best]++;
	}
	load /= g->per;
	return load > t ? load : t;
}

/* Node terms of many masks, each computed once (open addressing). */
struct eplb_memo {
	uint64_t	*key;		/* 0: empty (a node is never empty) */
	double		*val;
	size_t		 cap;
};

static int
memo_init(struct eplb_memo *m, size_t n)
{
	m->cap = 16;
	while (m->cap < 2 * n)
		m->cap *= 2;
	m->key = calloc(m->cap, sizeof(uint64_t));
	m->val = malloc(sizeof(double) * m->cap);
	return m->key && m->val ? 0 : -1;
}

static void
memo_free(struct eplb_memo *m)
{
	free(m->key);
	free(m->val);
}

static double
memo_term(struct eplb_memo *m, const struct eplb_groups *g, uint64_t mask)
{
	size_t h = (size_t)((mask * 0x9E3779B97F4A7C15ULL) >> 20) & (m->cap - 1);

	while (m->key[h] != 0 && m->key[h] != mask)
		h = (h + 1) & (m->cap - 1);
	if (m->key[h] == 0) {
		m->key[h] = mask;
		m->val[h] = eplb_node_term(g, mask);
	}
	return m->val[h];
}

double
eplb_best_split(const struct eplb_groups *g, int N, const uint64_t *ways,
    int n, int *which)
{
	struct eplb_memo m;
	double best = -1, worst, t;
	int i, j;

	*which = -1;
	if (memo_init(&m, (size_t)n * (size_t)N) < 0) {
		memo_free(&m);
		return -1;
	}
	for (i = 0; i < n; i++) {
		worst = 0;
		for (j = 0; j < N && (best < 0 || worst < best); j++)
			if ((t = memo_term(&m, g, ways[(size_t)i * (size_t)N +
			    (size_t)j])) > worst)
				worst = t;
		if (best < 0 || worst < best) {
			best = worst;
			*which = i;
		}
	}
	memo_free(&m);
	return best;
}

#define MAX_SPLITS	4096

double
mk_eplb_lower_bound(const struct mk_eplb_cfg *c, const double *w)
{
	struct eplb_groups gt;
	double W = 0, lb, t, best, big = 0;
	uint64_t *ways;
	int i, n, g;

	for (i = 0; i < c->E; i++)
		W += w[i];
	lb = W / c->G;
	t = mk_eplb_tstar(w, c->E, c->R);
	if (t > lb)
		lb = t;
	if (!c->hier || c->N == 1 || c->K > 62 || eplb_groups_init(&gt, c, w))
		return lb;
	ways = malloc(sizeof(uint64_t) * MAX_SPLITS * (size_t)c->N);
	if (ways == NULL ||
	    (n = eplb_group_splits(c->K, c->N, ways, MAX_SPLITS)) < 0) {
		/* Too many to enumerate: some node holds each group. */
		for (g = 0; g < c->K; g++) {
			t = eplb_node_term(&gt, (uint64_t)1 << g);
			if (t > big)
				big = t;
		}
		free(ways);
		eplb_groups_free(&gt);
		return big > lb ? big : lb;
	}
	best = eplb_best_split(&gt, c->N, ways, n, &i);
	free(ways);
	eplb_groups_free(&gt);
	return best > lb ? best : lb;
}
