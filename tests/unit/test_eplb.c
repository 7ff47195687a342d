/*
 * test_eplb.c - the placement algorithms, bounds, relabelling and the
 * assignment solver.  Random cases use fresh seeds each run (printed on
 * failure) besides fixed ones.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eplb/assign.h"
#include "eplb/eplb.h"
#include "eplb/eplb_impl.h"
#include "util.h"

static const double readme[2][12] = {
	{ 90, 132, 40, 61, 104, 165, 39, 4, 73, 56, 183, 86 },
	{ 20, 107, 104, 64, 19, 197, 187, 157, 172, 86, 16, 27 },
};

static struct mk_eplb_cfg
cfg(int E, int R, int G, int N, int K, int algo, int policy)
{
	struct mk_eplb_cfg c = { E, R, G, N, K, 0, algo, 0, 0 };
	struct mk_err e;

	CU_ASSERT_FATAL(mk_eplb_config(&c, policy, &e) == 0);
	return c;
}

/* The README example of deepseek-ai/EPLB, all three outputs. */
static void
test_readme(void)
{
	static const int64_t phy[2][16] = {
		{ 5, 6, 5, 7, 8, 4, 3, 4, 10, 9, 10, 2, 0, 1, 11, 1 },
		{ 7, 10, 6, 8, 6, 11, 8, 9, 2, 4, 5, 1, 5, 0, 3, 1 },
	};
	static const int64_t cnt[2][12] = {
		{ 1, 2, 1, 1, 2, 2, 1, 1, 1, 1, 2, 1 },
		{ 1, 2, 1, 1, 1, 2, 2, 1, 2, 1, 1, 1 },
	};
	static const int64_t l2p0[24] = { 12, -1, 15, 13, 11, -1, 6, -1, 7,
	    5, 0, 2, 1, -1, 3, -1, 4, -1, 9, -1, 8, 10, 14, -1 };
	static const int64_t l2p1[24] = { 13, -1, 15, 11, 8, -1, 14, -1, 9,
	    -1, 10, 12, 2, 4, 0, -1, 6, 3, 7, -1, 1, -1, 5, -1 };
	struct mk_eplb_cfg c = cfg(12, 16, 8, 2, 4, MK_EPLB_DEEPSEEK,
	    MK_EPLB_AUTO);
	struct mk_eplb_out o;
	struct mk_err e;
	int64_t l2p[24];
	double mean;

	CU_ASSERT_EQUAL(c.hier, 1);
	CU_ASSERT_FATAL(mk_eplb_plan_all(&(struct mk_eplb_problem){ .c = &c,
	    .w = &readme[0][0], .S = 1, .L = 2, .width_max = 1 }, &o, &e) == 0);
	CU_ASSERT_EQUAL(memcmp(o.phy2log, phy, sizeof(phy)), 0);
	CU_ASSERT_EQUAL(memcmp(o.cnt, cnt, sizeof(cnt)), 0);
	CU_ASSERT_EQUAL(o.X, 2);
	mk_eplb_log2phy(&c, &o, 0, l2p);
	CU_ASSERT_EQUAL(memcmp(l2p, l2p0, sizeof(l2p)), 0);
	mk_eplb_log2phy(&c, &o, 1, l2p);
	CU_ASSERT_EQUAL(memcmp(l2p, l2p1, sizeof(l2p)), 0);
	/* GPU loads [121.5 86.5 125 113 147.5 131.5 156 152], max 156 */
	CU_ASSERT_DOUBLE_EQUAL(mk_eplb_max_load(&c, readme[0], o.phy2log,
	    o.cnt, &mean), 156.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(mean, 129.125, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(mk_eplb_max_load(&c, readme[1], o.phy2log + 16,
	    o.cnt + 12, &mean), 179.5, 1e-12);
	mk_eplb_out_free(&o);
}

/* Bounds: W/G, T* and the hierarchical node bound (eplb_bound.c). */
static void
test_bounds(void)
{
	struct mk_eplb_cfg h = cfg(12, 16, 8, 2, 4, MK_EPLB_BEST, MK_EPLB_HIER);
	struct mk_eplb_cfg g = cfg(12, 16, 8, 2, 4, MK_EPLB_BEST,
	    MK_EPLB_GLOBAL);
	static const double ham[3] = { 3, 9, 3 };

	CU_ASSERT_DOUBLE_EQUAL(mk_eplb_tstar(readme[0], 12, 16), 91.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(mk_eplb_tstar(readme[1], 12, 16), 107, 1e-12);
	/* greedy counts [1,3,1] reach 3; Hamilton's [2,2,1] would give 4.5 */
	CU_ASSERT_DOUBLE_EQUAL(mk_eplb_tstar(ham, 3, 5), 3.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(mk_eplb_lower_bound(&g, readme[0]), 129.125,
	    1e-9);
	/* layer 1: node bound 645/4 = 161.25 beats W/G 144.5 and T* 107 */
	CU_ASSERT_DOUBLE_EQUAL(mk_eplb_lower_bound(&h, readme[1]), 161.25,
	    1e-9);
}

/*
 * FlashLB's example: the counts that minimise the largest replica are not
 * the best ones.  DeepSeek reaches 232; the optimum is 196.67.
 */
static void
test_flashlb(void)
{
	static const double w[8] = { 600, 560, 120, 120, 20, 10, 10, 10 };
	static const int64_t dcnt[8] = { 5, 5, 1, 1, 1, 1, 1, 1 };
	struct mk_eplb_cfg d = cfg(8, 16, 8, 1, 1, MK_EPLB_DEEPSEEK,
	    MK_EPLB_GLOBAL);
	struct mk_eplb_cfg b = cfg(8, 16, 8, 1, 1, MK_EPLB_BEST,
	    MK_EPLB_GLOBAL);
	int64_t phy[16], rank[16], cnt[8];
	struct mk_eplb_plan p = { phy, rank, cnt };
	struct mk_err e;
	double m;

	CU_ASSERT_FATAL(mk_eplb_layer(&d, w, &p) == 0);
	CU_ASSERT_DOUBLE_EQUAL(mk_eplb_max_load(&d, w, phy, cnt, NULL), 232,
	    1e-9);
	CU_ASSERT_EQUAL(memcmp(cnt, dcnt, sizeof(dcnt)), 0);
	CU_ASSERT_FATAL(mk_eplb_layer(&b, w, &p) == 0);
	CU_ASSERT_EQUAL(mk_eplb_verify(&b, &p, &e), 0);
	m = mk_eplb_max_load(&b, w, phy, cnt, NULL);
	CU_ASSERT(m <= 200 + 1e-9);	/* waterfill's, at worst */
	CU_ASSERT(m >= 196.66 && m >= mk_eplb_lower_bound(&b, w) - 1e-9);
}

static void
test_config_errors(void)
{
	static const struct {
		int E, R, G, N, K, policy;
		const char *want;
	} bad[] = {
		{ 16, 12, 4, 1, 1, MK_EPLB_AUTO, "--replicas 12 is less than "
		    "the 16 experts" },
		{ 16, 18, 4, 1, 1, MK_EPLB_AUTO, "not a multiple of --gpus 4" },
		{ 16, 16, 4, 3, 1, MK_EPLB_AUTO, "--gpus 4 is not a multiple "
		    "of --nodes 3" },
		{ 16, 16, 4, 1, 3, MK_EPLB_AUTO, "do not split into --groups 3" },
		{ 12, 12, 4, 2, 3, MK_EPLB_HIER, "--groups 3 to be a multiple "
		    "of --nodes 2" },
	};
	struct mk_err e;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct mk_eplb_cfg c = { bad[i].E, bad[i].R, bad[i].G, bad[i].N,
		    bad[i].K, 0, 0, 0, 0 };
		CU_ASSERT_EQUAL(mk_eplb_config(&c, bad[i].policy, &e), -1);
		CU_ASSERT_EQUAL(e.status, MK_EXIT_USAGE);
		if (strstr(e.msg, bad[i].want) == NULL)
			fprintf(stderr, "  got '%s'\n", e.msg);
		CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, bad[i].want));
	}
}

/* Skewed random loads, a few of them zero. */
static void
random_loads(struct rng *r, double *w, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		double u = rng_unit(r);
		w[i] = floor(exp(u * u * 9) * 10);
		if (rng_unit(r) < 0.05)
			w[i] = 0;
	}
}

static void
check_layer(const struct mk_eplb_cfg *c, const double *w, uint64_t seed)
{
	int64_t *buf = malloc(sizeof(int64_t) * (size_t)(6 * c->R + 3 * c->E));
	struct mk_eplb_plan p[3];
	struct mk_err e;
	double m[3], lb;
	int a, ok = 1;

	for (a = 0; a < 3; a++) {
		struct mk_eplb_cfg ca = *c;
		ca.algo = a;
		p[a].phy2log = buf + a * (2 * c->R + c->E);
		p[a].rank = p[a].phy2log + c->R;
		p[a].cnt = p[a].rank + c->R;
		CU_ASSERT_FATAL(mk_eplb_layer(&ca, w, &p[a]) == 0);
		if (mk_eplb_verify(&ca, &p[a], &e) != 0) {
			fprintf(stderr, "  seed %llu algo %d: %s\n",
			    (unsigned long long)seed, a, e.msg);
			ok = 0;
		}
		m[a] = mk_eplb_max_load(&ca, w, p[a].phy2log, p[a].cnt, NULL);
	}
	lb = mk_eplb_lower_bound(c, w);
	if (m[2] > m[0] * (1 + 1e-12) || m[2] > m[1] * (1 + 1e-12) ||
	    m[2] < lb * (1 - 1e-9) || m[0] < lb * (1 - 1e-9)) {
		fprintf(stderr, "  seed %llu: best %g deepseek %g waterfill %g "
		    "bound %g\n", (unsigned long long)seed, m[2], m[0], m[1],
		    lb);
		ok = 0;
	}
	CU_ASSERT(ok);
	free(buf);
}

/* Random loads and shapes: valid plans, best <= both, >= the bound. */
static void
test_random_properties(void)
{
	static const int shapes[][5] = {
		/* E, R, G, N, K */
		{ 16, 24, 8, 2, 4 }, { 64, 80, 16, 4, 8 }, { 12, 18, 6, 2, 3 },
		{ 32, 40, 8, 1, 1 }, { 8, 16, 16, 2, 2 }, { 16, 16, 4, 2, 4 },
		{ 256, 288, 32, 4, 8 }, { 60, 96, 24, 3, 6 }, { 8, 16, 8, 1, 1 },
	};
	uint64_t seeds[3] = { 1, 42, test_seed() };
	double w[256];
	size_t k, s;
	int pol;

	for (s = 0; s < 3; s++) {
		struct rng r = { seeds[s] };
		for (k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++)
			for (pol = MK_EPLB_HIER; pol <= MK_EPLB_GLOBAL; pol++) {
				struct mk_eplb_cfg c = { shapes[k][0],
				    shapes[k][1], shapes[k][2], shapes[k][3],
				    shapes[k][4], 0, 0, 0, 0 };
				struct mk_err e;
				if (mk_eplb_config(&c, pol, &e) < 0)
					continue;
				random_loads(&r, w, c.E);
				check_layer(&c, w, seeds[s]);
			}
	}
}

/*
 * Whether some GPU holds two replicas of one expert although every
 * expert of its node could have its replicas on distinct GPUs.
 */
static int
twice_on_a_gpu(const struct mk_eplb_cfg *c, const struct mk_eplb_plan *p)
{
	int S = c->R / c->G, gpn = c->G / (c->hier ? c->N : 1), g, i, j;

	for (i = 0; i < c->E; i++)
		if (p->cnt[i] > gpn)
			return 0;	/* not possible for this expert */
	for (g = 0; g < c->G; g++)
		for (i = 0; i < S; i++)
			for (j = i + 1; j < S; j++)
				if (p->phy2log[g * S + i] == p->phy2log[g * S + j])
					return 1;
	return 0;
}

/*
 * Several scenarios: valid plans (counts >= 1 summing to R, groups on one
 * node), replicas of an expert on distinct GPUs (unless the plan is a
 * reference's that was better than every plan without), best's objective
 * never above deepseek's or waterfill's plan for the scenarios' sum (mean
 * and worst), the same plan on every run.
 */
static void
test_scenarios(void)
{
	static const int shapes[][5] = {
		{ 16, 24, 8, 2, 4 }, { 64, 80, 16, 4, 8 }, { 32, 40, 8, 1, 1 },
		{ 256, 288, 32, 4, 8 }, { 60, 96, 24, 3, 6 }, { 8, 16, 8, 1, 1 },
	};
	uint64_t seed = test_seed();
	struct rng r = { seed };
	double *w = malloc(sizeof(double) * 7 * 256), sum[256], best, ref, v;
	int64_t *buf = malloc(sizeof(int64_t) * (4 * 288 + 2 * 256));
	struct mk_eplb_plan p = { buf, buf + 288, buf + 576 };
	struct mk_eplb_plan q = { buf + 576 + 256, buf + 864 + 256,
	    buf + 1152 + 256 };
	struct mk_err e;
	size_t k;
	int S, pol, obj, a, s, i, bad = 0, twice;

	for (k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++)
		for (pol = MK_EPLB_HIER; pol <= MK_EPLB_GLOBAL; pol++)
			for (obj = 0; obj < 2; obj++) {
				struct mk_eplb_cfg c = { shapes[k][0],
				    shapes[k][1], shapes[k][2], shapes[k][3],
				    shapes[k][4], 0, MK_EPLB_BEST, 0, obj };
				if (mk_eplb_config(&c, pol, &e) < 0)
					continue;
				S = 2 + (int)(rng_next(&r) % 6);
				for (s = 0; s < S; s++)
					random_loads(&r, w + s * c.E, c.E);
				mk_eplb_scenarios(w, S, 1, c.E, 0, w);
				for (i = 0; i < c.E; i++)
					for (sum[i] = 0, s = 0; s < S; s++)
						sum[i] += w[s * c.E + i];
				CU_ASSERT_FATAL(mk_eplb_best_sc(&c, w, S, &p)
				    == 0);
				bad |= mk_eplb_verify(&c, &p, &e) != 0;
				/* doubled only as a better reference had it */
				twice = twice_on_a_gpu(&c, &p);
				best = mk_eplb_objective(&c, w, S, p.phy2log,
				    p.cnt);
				for (a = 0; a < 2; a++) {
					struct mk_eplb_cfg ca = c;
					ca.algo = a;
					CU_ASSERT_FATAL(mk_eplb_layer(&ca, sum,
					    &q) == 0);
					ref = mk_eplb_objective(&c, w, S,
					    q.phy2log, q.cnt);
					bad |= (best > ref * (1 + 1e-12)) << 2;
					if (memcmp(p.phy2log, q.phy2log,
					    sizeof(int64_t) * (size_t)c.R) == 0)
						twice = 0;
				}
				bad |= twice << 1;
				CU_ASSERT_FATAL(mk_eplb_best_sc(&c, w, S, &q)
				    == 0);
				v = memcmp(p.phy2log, q.phy2log,
				    sizeof(int64_t) * (size_t)c.R) != 0;
				bad |= (int)v << 3;
				if (bad)
					fprintf(stderr, "  MOEKIT_TEST_SEED=%llu shape %zu "
					    "policy %d objective %d: %d (%s)\n",
					    (unsigned long long)seed, k, pol,
					    obj, bad, e.msg);
				CU_ASSERT_EQUAL(bad, 0);
				bad = 0;
			}
	free(w);
	free(buf);
}

/* Zero loads everywhere, and one hot expert. */
static void
test_degenerate(void)
{
	double w[16] = { 0 };
	int64_t phy[24], rank[24], cnt[16];
	struct mk_eplb_plan p = { phy, rank, cnt };
	struct mk_err e;
	int a;

	for (a = 0; a < 3; a++) {
		struct mk_eplb_cfg c = cfg(16, 24, 8, 2, 4, a, MK_EPLB_AUTO);
		CU_ASSERT_FATAL(mk_eplb_layer(&c, w, &p) == 0);
		CU_ASSERT_EQUAL(mk_eplb_verify(&c, &p, &e), 0);
		w[3] = 1000;
		CU_ASSERT_FATAL(mk_eplb_layer(&c, w, &p) == 0);
		CU_ASSERT_EQUAL(mk_eplb_verify(&c, &p, &e), 0);
		CU_ASSERT(cnt[3] >= 2);
		w[3] = 0;
	}
}

/* best is deterministic: the same plan twice, with 1 or many threads. */
static void
test_deterministic(void)
{
	struct mk_eplb_cfg c = cfg(256, 288, 32, 4, 8, MK_EPLB_BEST,
	    MK_EPLB_AUTO);
	struct mk_eplb_out a, b;
	struct rng r = { 7 };
	struct mk_err e;
	double *w = malloc(sizeof(double) * 256 * 6);
	const struct mk_eplb_problem pb = { .c = &c, .w = w, .S = 1, .L = 6 };
	int i;

	for (i = 0; i < 6; i++)
		random_loads(&r, w + 256 * i, 256);
	/* one thread, then four (the layers on a team of their own) */
	mk_threads_set(1);
	CU_ASSERT_FATAL(mk_eplb_plan_all(&pb, &a, &e) == 0);
	mk_threads_set(4);
	CU_ASSERT_FATAL(mk_eplb_plan_all(&pb, &b, &e) == 0);
	mk_threads_set(0);
	CU_ASSERT_EQUAL(memcmp(a.phy2log, b.phy2log, sizeof(int64_t) * 6 *
	    288), 0);
	CU_ASSERT_EQUAL(memcmp(a.cnt, b.cnt, sizeof(int64_t) * 6 * 256), 0);
	mk_eplb_out_free(&a);
	mk_eplb_out_free(&b);
	free(w);
}

/*
 * Relabelling towards a shuffled copy of the plan itself (GPUs permuted
 * within nodes, slots shuffled within GPUs) gives that copy back: no slot
 * changes, nothing to copy, same loads.
 */
static void
test_relabel(void)
{
	struct mk_eplb_cfg c = cfg(64, 80, 16, 4, 8, MK_EPLB_BEST,
	    MK_EPLB_HIER);
	int64_t phy[80], rank[80], cnt[64], prev[80];
	struct mk_eplb_moves mv;
	struct mk_eplb_plan p = { phy, rank, cnt };
	struct rng r = { 99 };
	struct mk_err e;
	double w[64], before;
	int perm[16], i, j, t, S = 5, node, g;

	random_loads(&r, w, 64);
	CU_ASSERT_FATAL(mk_eplb_layer(&c, w, &p) == 0);
	before = mk_eplb_max_load(&c, w, phy, cnt, NULL);
	/* nodes reversed, GPUs inside nodes rotated, slots reversed */
	for (node = 0; node < 4; node++)
		for (g = 0; g < 4; g++)
			perm[node * 4 + g] = (3 - node) * 4 + (g + 1) % 4;
	for (i = 0; i < 16; i++)
		for (j = 0; j < S; j++)
			prev[perm[i] * S + (S - 1 - j)] = phy[i * S + j];
	CU_ASSERT_FATAL(mk_eplb_relabel(&c, prev, &p) == 0);
	mk_eplb_migration(&c, prev, phy, &mv);
	CU_ASSERT_EQUAL(mv.changed, 0);
	CU_ASSERT_EQUAL(mv.copies, 0);
	CU_ASSERT_EQUAL(mv.inter, 0);
	CU_ASSERT_EQUAL(memcmp(phy, prev, sizeof(prev)), 0);
	CU_ASSERT_EQUAL(mk_eplb_verify(&c, &p, &e), 0);
	CU_ASSERT_DOUBLE_EQUAL(mk_eplb_max_load(&c, w, phy, cnt, NULL), before,
	    1e-9);
	/* against an unrelated plan: still valid, same balance */
	for (i = 0; i < 80; i++)
		prev[i] = (i * 7) % 64;
	CU_ASSERT_FATAL(mk_eplb_relabel(&c, prev, &p) == 0);
	CU_ASSERT_EQUAL(mk_eplb_verify(&c, &p, &e), 0);
	CU_ASSERT_DOUBLE_EQUAL(mk_eplb_max_load(&c, w, phy, cnt, NULL), before,
	    1e-9);
	(void)t;
}

/* Hungarian against brute force on small random matrices. */
static void
test_assign(void)
{
	struct rng r = { 5 };
	int64_t w[36], best, got, s;
	int perm[6], p[6], n, i, k, trial, used, ok = 1;

	for (trial = 0; trial < 200; trial++) {
		n = 1 + trial % 6;
		for (i = 0; i < n * n; i++)
			w[i] = (int64_t)(rng_next(&r) % 10);
		got = mk_assign_max(w, n, perm);
		/* brute force over permutations (n <= 6) */
		best = -1;
		for (k = 0; k < 46656; k++) {
			int x = k;
			used = 0;
			for (i = 0; i < n; i++) {
				p[i] = x % 6;
				x /= 6;
				if (p[i] >= n || used >> p[i] & 1)
					break;
				used |= 1 << p[i];
			}
			if (i < n)
				continue;
			for (i = 0, s = 0; i < n; i++)
				s += w[i * n + p[i]];
			if (s > best)
				best = s;
		}
		for (i = 0, s = 0, used = 0; i < n; i++) {
			s += w[i * n + perm[i]];
			used |= 1 << perm[i];
		}
		if (got != best || s != best || used != (1 << n) - 1)
			ok = 0;
	}
	CU_ASSERT(ok);
}

static void
test_group_splits(void)
{
	static uint64_t ways[200 * 4];

	CU_ASSERT_EQUAL(eplb_group_splits(8, 4, ways, 200), 105);
	CU_ASSERT_EQUAL(eplb_group_splits(4, 2, ways, 200), 3);
	CU_ASSERT_EQUAL(eplb_group_splits(6, 3, ways, 200), 15);
	CU_ASSERT_EQUAL(eplb_group_splits(8, 8, ways, 200), 1);
	CU_ASSERT_EQUAL(eplb_group_splits(16, 4, ways, 200), -1);
	/* each way covers every group once */
	CU_ASSERT_EQUAL(eplb_group_splits(8, 4, ways, 200), 105);
	CU_ASSERT_EQUAL(ways[0] | ways[1] | ways[2] | ways[3], 0xff);
}

/*
 * The --stats table: a row per layer under its input index, the totals
 * (sums, vLLM's balancedness, the mean gap), the other policy's columns
 * (global, for this hierarchical plan) only where it exists, the
 * migration columns with a previous plan.
 */
static void
test_stats_write(void)
{
	/* two nodes: auto is hierarchical (one node is global) */
	struct mk_eplb_cfg c = cfg(4, 8, 2, 2, 2, MK_EPLB_BEST, MK_EPLB_AUTO);
	struct mk_eplb_stat st[2] = {
		{ 10, 8, 0.8, 9, 10.0 / 9, 1, 12, 8.0 / 12, 3, 2, { 0, 0 } },
		{ 4, 4, 1, 4, 1, 1, 5, 0.8, 0, 0, { 0, 0 } },
	};
	const int layer[2] = { 3, 7 };
	char *buf = NULL;
	size_t len;
	FILE *fp;

	struct mk_eplb_table t = { &c, 1, 2, layer, st, 0, 0, 1, 0, NULL, 1 };

	CU_ASSERT_FATAL((fp = open_memstream(&buf, &len)) != NULL);
	mk_eplb_stats_write(fp, &t);
	fclose(fp);
	CU_ASSERT_STRING_EQUAL(buf,
	    "layer,row,max_load,mean_load,balancedness,lower_bound,gap,"
	    "other_policy,other_max_load,other_balancedness,slots_changed,"
	    "experts_copied,policy\n"
	    "3,0,10,8,0.800000,9,1.111111,global,12,0.666667,3,2,hierarchical\n"
	    "7,1,4,4,1.000000,4,1.000000,global,5,0.800000,0,0,hierarchical\n"
	    "total,,14,12,0.857143,13,1.055556,global,17,0.705882,3,2,"
	    "hierarchical\n");
	free(buf);
	/* bytes moved, where an expert's size is known */
	t.expert_bytes = 1e6;
	CU_ASSERT_FATAL((fp = open_memstream(&buf, &len)) != NULL);
	mk_eplb_stats_write(fp, &t);
	fclose(fp);
	CU_ASSERT(strstr(buf, "experts_copied,bytes_moved,policy\n") != NULL);
	CU_ASSERT(strstr(buf, ",3,2,2000000,hierarchical\n") != NULL);
	t.expert_bytes = 0;
	free(buf);
	/* one layer, no other policy; then two scenarios beside no EPLB */
	st[0].has_other = st[1].has_other = 0;
	t.L = 1;
	t.prev = 0;
	CU_ASSERT_FATAL((fp = open_memstream(&buf, &len)) != NULL);
	mk_eplb_stats_write(fp, &t);
	fclose(fp);
	CU_ASSERT_STRING_EQUAL(buf,
	    "layer,row,max_load,mean_load,balancedness,lower_bound,gap,"
	    "other_policy,other_max_load,other_balancedness,policy\n"
	    "3,0,10,8,0.800000,9,1.111111,,,,hierarchical\n"
	    "total,,10,8,0.800000,9,1.111111,,,,hierarchical\n");
	free(buf);
	st[0].has_other = st[1].has_other = 1;
	t.S = 2;
	t.scenario_col = t.noeplb = 1;
	CU_ASSERT_FATAL((fp = open_memstream(&buf, &len)) != NULL);
	mk_eplb_stats_write(fp, &t);
	fclose(fp);
	CU_ASSERT_STRING_EQUAL(buf,
	    "scenario,layer,row,max_load,mean_load,balancedness,lower_bound,"
	    "gap,noeplb_max_load,noeplb_balancedness,policy\n"
	    "0,3,0,10,8,0.800000,9,1.111111,12,0.666667,hierarchical\n"
	    "0,total,,10,8,0.800000,9,1.111111,12,0.666667,hierarchical\n"
	    "1,3,0,4,4,1.000000,4,1.000000,5,0.800000,hierarchical\n"
	    "1,total,,4,4,1.000000,4,1.000000,5,0.800000,hierarchical\n");
	free(buf);
}

void
suite_eplb(void)
{
	CU_pSuite s = CU_add_suite("eplb", NULL, NULL);

	CU_add_test(s, "README example (deepseek)", test_readme);
	CU_add_test(s, "lower bounds and T*", test_bounds);
	CU_add_test(s, "FlashLB example", test_flashlb);
	CU_add_test(s, "configuration errors", test_config_errors);
	CU_add_test(s, "random loads: validity, best <= references",
	    test_random_properties);
	CU_add_test(s, "zero and single-hot loads", test_degenerate);
	CU_add_test(s, "determinism", test_deterministic);
	CU_add_test(s, "relabelling towards a previous plan", test_relabel);
	CU_add_test(s, "assignment vs brute force", test_assign);
	CU_add_test(s, "group splits", test_group_splits);
	CU_add_test(s, "the statistics table", test_stats_write);
	CU_add_test(s, "scenarios: validity, distinct GPUs, <= references",
	    test_scenarios);
}
