/*
 * assign.h - the linear assignment problem (Hungarian method).
 */
#ifndef MK_ASSIGN_H
#define MK_ASSIGN_H

#include <stdint.h>

/*
 * Find a permutation perm of 0..n-1 maximising sum_i w[i*n + perm[i]],
 * in O(n^3).  Deterministic.  Returns the maximum, or -1 if memory ran
 * out (perm untouched).  Weights must be >= 0.
 */
int64_t	mk_assign_max(const int64_t *w, int n, int *perm);

#endif
