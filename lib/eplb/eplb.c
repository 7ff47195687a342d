/* eplb.c - configuration checks, dispatch and plan checks; see eplb.h. */
#include <stdlib.h>
#include <string.h>

#include "eplb/eplb.h"

/*
 * best's search keeps, per node, a table of S x GPUs x S slot indices
 * (S slots per GPU): a few MB at serving sizes, 2^50 bytes at
 * -r 16777216 -G 1.  Refuse a size past MK_EPLB_SEARCH_MAX with the figure.
 */
static int
best_fits(const struct mk_eplb_cfg *c, struct mk_err *e)
{
	double S = (double)(c->R / c->G), gpus = c->hier ? c->G / c->N : c->G;
	double need = (8 + 4 * S) * S * gpus;

	if (c->algo != MK_EPLB_BEST || need <= MK_EPLB_SEARCH_MAX)
		return 0;
	return mk_err_usage(e, "-a best: %.0f slots per GPU on %.0f GPUs "
	    "per node need %.3g GB for the search (4 S^2 G bytes; at most "
	    "%.0f GB); -a deepseek or -a waterfill plan without it", S, gpus,
	    need / 1e9, MK_EPLB_SEARCH_MAX / 1e9);
}

const char *const mk_eplb_algo_names[MK_EPLB_NALGO] = { "deepseek",
    "waterfill", "best" };
const char *const mk_eplb_policy_names[MK_EPLB_NPOLICY] = { "auto",
    "hierarchical", "global" };

const char *
mk_eplb_policy_name(int hier)
{
	return mk_eplb_policy_names[hier ? MK_EPLB_HIER : MK_EPLB_GLOBAL];
}

int
mk_eplb_config(struct mk_eplb_cfg *c, int policy, struct mk_err *e)
{
	if (c->E < 1 || c->R < 1 || c->G < 1 || c->N < 1 || c->K < 1)
		return mk_err_usage(e, "experts, replicas, GPUs, nodes and "
		    "groups must all be at least 1");
	if (c->R < c->E)
		return mk_err_usage(e, "--replicas %d is less than the %d "
		    "experts (every expert needs a slot: R >= E)", c->R, c->E);
	if (c->R % c->G != 0)
		return mk_err_usage(e, "--replicas %d is not a multiple of "
		    "--gpus %d (R %% G == 0: every GPU gets R/G slots)", c->R,
		    c->G);
	if (c->G % c->N != 0)
		return mk_err_usage(e, "--gpus %d is not a multiple of --nodes "
		    "%d (G %% N == 0)", c->G, c->N);
	if (c->E % c->K != 0)
		return mk_err_usage(e, "%d experts do not split into --groups "
		    "%d (E %% K == 0)", c->E, c->K);
	switch (policy) {
	case MK_EPLB_GLOBAL:
		c->hier = 0;
		break;
	case MK_EPLB_HIER:
		if (c->K % c->N != 0)
			return mk_err_usage(e, "--policy hierarchical needs "
			    "--groups %d to be a multiple of --nodes %d (K %% N "
			    "== 0: whole groups per node)", c->K, c->N);
		c->hier = 1;
		break;
	default:
		/*
		 * DeepSeek's rule, and the waterfill reference's; on one
		 * node its hierarchical policy is the global one, so named
		 */
		c->hier = c->N > 1 && c->K % c->N == 0;
		break;
	}
	if (c->hier && c->R / c->N < c->E / c->N)
		return mk_err_usage(e, "hierarchical: %d slots per node are "
		    "fewer than the %d experts per node (R/N >= E/N)",
		    c->R / c->N, c->E / c->N);
	if (c->hier && c->K > 62 && c->N > 1)
		return mk_err_usage(e, "hierarchical: --groups %d exceeds the "
		    "limit of 62", c->K);
	if (c->effort <= 0)
		c->effort = MK_EPLB_EFFORT;
	return best_fits(c, e);
}

int
mk_eplb_layer(const struct mk_eplb_cfg *c, const double *w,
    struct mk_eplb_plan *p)
{
	switch (c->algo) {
	case MK_EPLB_DEEPSEEK:
		return mk_eplb_deepseek(c, w, p);
	case MK_EPLB_WATERFILL:
		return mk_eplb_waterfill(c, w, p);
	default:
		return mk_eplb_best(c, w, p);
	}
}

int
mk_eplb_verify(const struct mk_eplb_cfg *c, const struct mk_eplb_plan *p,
    struct mk_err *e)
{
	int64_t *cnt, *node;
	int *seen;
	int i, x, ok = -1, gs = c->E / c->K, rpn = c->R / c->N;
	int64_t ex;

	cnt = calloc((size_t)c->E, sizeof(int64_t));
	node = malloc(sizeof(int64_t) * (size_t)c->K);
	seen = calloc((size_t)c->E * (size_t)(c->R + 1), sizeof(int));
	if (cnt == NULL || node == NULL || seen == NULL) {
		mk_err_data(e, "out of memory");
		goto out;
	}
	for (i = 0; i < c->K; i++)
		node[i] = -1;
	for (i = 0; i < c->R; i++) {
		ex = p->phy2log[i];
		if (ex < 0 || ex >= c->E) {
			mk_err_data(e, "slot %d holds expert %lld, not in "
			    "[0, %d)", i, (long long)ex, c->E);
			goto out;
		}
		if (p->rank[i] < 0 || p->rank[i] >= c->R ||
		    seen[ex * (c->R + 1) + p->rank[i]]++) {
			mk_err_data(e, "slot %d: replica rank %lld of expert "
			    "%lld is out of range or repeated", i,
			    (long long)p->rank[i], (long long)ex);
			goto out;
		}
		cnt[ex]++;
		if (c->hier) {
			x = (int)(ex / gs);
			if (node[x] < 0)
				node[x] = i / rpn;
			else if (node[x] != i / rpn) {
				mk_err_data(e, "group %d has replicas on nodes "
				    "%lld and %d", x, (long long)node[x],
				    i / rpn);
				goto out;
			}
		}
	}
	for (i = 0; i < c->R; i++)
		if (p->rank[i] >= cnt[p->phy2log[i]]) {
			mk_err_data(e, "slot %d: replica rank %lld of expert "
			    "%lld is not below its %lld replicas", i,
			    (long long)p->rank[i], (long long)p->phy2log[i],
			    (long long)cnt[p->phy2log[i]]);
			goto out;
		}
	for (i = 0; i < c->E; i++) {
		if (cnt[i] < 1 || cnt[i] != p->cnt[i]) {
			mk_err_data(e, "expert %d: %lld replicas placed, count "
			    "says %lld", i, (long long)cnt[i],
			    (long long)p->cnt[i]);
			goto out;
		}
	}
	ok = 0;
out:
	free(cnt);
	free(node);
	free(seen);
	return ok;
}
