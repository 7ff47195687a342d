/*
 * eplb_order_generic.c - indices in order of their keys, descending, ties
 * by ascending index (a stable sort), for the planners.  Short lists (the
 * replicas of a node, a node's groups) are ranked by counting, n^2
 * comparisons that the compiler vectorises (this file is built like the
 * generic kernels): for 72 keys 0.55 us where the radix sort took 1.2 and
 * the merge sort mispredicted more; long ones are sorted.
 */
#include <stdint.h>
#include <string.h>

#include "eplb/eplb_impl.h"

#define RANK_MAX	96	/* beyond, sorting is cheaper than n^2 */

/*
 * Each index's place: the keys before it that are >= and the keys after
 * it that are > (so equal keys keep their order).  Two plain loops per
 * key, which vectorise.
 */
#define RANK_DESC(fn, K)						\
static void								\
fn(const K *key, int n, int *idx)					\
{									\
	int i, j, r;							\
	K k;								\
									\
	for (i = 0; i < n; i++) {					\
		k = key[i];						\
		r = 0;							\
		for (j = 0; j < i; j++)					\
			r += key[j] >= k;				\
		for (j = i + 1; j < n; j++)				\
			r += key[j] > k;				\
		idx[r] = i;						\
	}								\
}

RANK_DESC(rank_desc, double)
RANK_DESC(rank_desc_f, float)

/*
 * Merge sort of indices by key desc, index asc; K is the key type.  Runs
 * of 8 are insertion-sorted first (stable: only strictly larger keys move
 * ahead), then merged pairwise, the left run winning ties.
 */
#define MERGE_DESC(fn, K)						\
static void							\
fn(const K *key, int n, int *idx, int *tmp)				\
{									\
	int w, lo, mid, hi, i, j, k, v, *a = idx, *b = tmp, *t;	\
									\
	for (i = 0; i < n; i++) {					\
		v = i;							\
		for (j = i - 1; j >= (i & ~7) && key[idx[j]] < key[v];	\
		    j--)						\
			idx[j + 1] = idx[j];				\
		idx[j + 1] = v;						\
	}								\
	for (w = 8; w < n; w *= 2) {					\
		for (lo = 0; lo < n; lo += 2 * w) {			\
			mid = lo + w < n ? lo + w : n;			\
			hi = lo + 2 * w < n ? lo + 2 * w : n;		\
			i = lo;						\
			j = mid;					\
			k = lo;						\
			while (i < mid && j < hi)			\
				b[k++] = key[a[j]] > key[a[i]] ?	\
				    a[j++] : a[i++];			\
			while (i < mid)					\
				b[k++] = a[i++];			\
			while (j < hi)					\
				b[k++] = a[j++];			\
		}							\
		t = a;							\
		a = b;							\
		b = t;							\
	}								\
	if (a != idx)							\
		for (i = 0; i < n; i++)					\
			idx[i] = a[i];					\
}

MERGE_DESC(merge_desc, double)

/*
 * Float keys >= 0 (loads), without a branch on the data: a stable radix
 * sort of the keys' bits, descending, 8 bits a pass (for
 * non-negative floats the bits order as the values do).  A merge sort
 * mispredicted so often on real loads that sorting was most of
 * deepseek's time on 288 replicas.
 */
static void
radix_desc_f(const float *key, int n, int *idx, int *tmp)
{
	unsigned cnt[256];
	int pass, i, *a = idx, *b = tmp, *t;
	uint32_t bits;

	for (i = 0; i < n; i++)
		idx[i] = i;
	for (pass = 0; pass < 4; pass++) {
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++) {
			memcpy(&bits, &key[a[i]], 4);
			bits = key[a[i]] == 0 ? 0 : bits;	/* -0: 0 */
			cnt[255 - (bits >> (8 * pass) & 255)]++;
		}
		for (i = 1; i < 256; i++)
			cnt[i] += cnt[i - 1];
		for (i = n - 1; i >= 0; i--) {
			memcpy(&bits, &key[a[i]], 4);
			bits = key[a[i]] == 0 ? 0 : bits;
			b[--cnt[255 - (bits >> (8 * pass) & 255)]] = a[i];
		}
		t = a;
		a = b;
		b = t;
	}
	/* four passes: the result is back in idx */
}

void
eplb_order_desc(const double *key, int n, int *idx, int *tmp)
{
	if (n <= RANK_MAX)
		rank_desc(key, n, idx);
	else
		merge_desc(key, n, idx, tmp);
}

void
eplb_order_desc_f(const float *key, int n, int *idx, int *tmp)
{
	if (n <= RANK_MAX)
		rank_desc_f(key, n, idx);
	else
		radix_desc_f(key, n, idx, tmp);
}
