/*
 * test_replay.c - the move budget (mk_eplb_limit_moves), the replay loop
 * (mk_eplb_replay) and its sweep, and the node dispatch count of the
 * a2a wing against DeepEP's tokens_per_node.  Fixed seeds: replayable.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "a2a/a2a.h"
#include "eplb/eplb.h"
#include "eplb/eplb_replay.h"

/* Skewed loads [n]: a few hot experts. */
static void
skewed(struct rng *r, double *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		w[i] = floor(1000 * pow(rng_unit(r), 4)) + 1;
}

static int64_t
changed(const struct mk_eplb_cfg *c, const int64_t *a, const int64_t *b,
    int L)
{
	int64_t n = 0;
	size_t i;

	for (i = 0; i < (size_t)L * (size_t)c->R; i++)
		n += a[i] != b[i];
	return n;
}

/*
 * A budget of M moves: never more than M changed slots, a valid plan,
 * the objective never rising as M grows, M 0 the previous plan itself.
 */
static void
test_limit_moves(void)
{
	struct mk_eplb_cfg c = { 64, 80, 16, 2, 4, 0, MK_EPLB_DEEPSEEK, 0,
	    MK_EPLB_MEAN };
	struct rng r = { 77 };
	struct mk_eplb_out prev, plan;
	struct mk_eplb_plan lp;
	struct mk_err e;
	const int L = 4, S = 1;
	double w[4 * 64], w2[4 * 64], last = INFINITY, v;
	int64_t M, full;
	struct mk_eplb_problem p1 = { .c = &c, .w = w, .S = S, .L = L }, p2;
	int l;

	CU_ASSERT_EQUAL_FATAL(mk_eplb_config(&c, MK_EPLB_AUTO, &e), 0);
	skewed(&r, w, sizeof(w) / sizeof(w[0]));
	skewed(&r, w2, sizeof(w2) / sizeof(w2[0]));
	CU_ASSERT_EQUAL_FATAL(mk_eplb_plan_all(&p1, &prev, &e), 0);
	p2 = (struct mk_eplb_problem){ .c = &c, .w = w2, .S = S, .L = L,
	    .prev = prev.phy2log };
	CU_ASSERT_EQUAL_FATAL(mk_eplb_plan_all(&p2, &plan, &e), 0);
	full = changed(&c, prev.phy2log, plan.phy2log, L);
	CU_ASSERT(full > 20);
	mk_eplb_out_free(&plan);
	for (M = 0; M <= full + 10; M += full / 7 + 1) {
		CU_ASSERT_EQUAL_FATAL(mk_eplb_plan_all(&p2, &plan, &e), 0);
		CU_ASSERT_EQUAL_FATAL(mk_eplb_limit_moves(&p2, M, &plan, &e),
		    0);
		CU_ASSERT(changed(&c, prev.phy2log, plan.phy2log, L) <= M);
		if (M == 0)
			CU_ASSERT(memcmp(prev.phy2log, plan.phy2log,
			    sizeof(int64_t) * (size_t)L * (size_t)c.R) == 0);
		for (l = 0; l < L; l++) {
			lp = (struct mk_eplb_plan){ plan.phy2log + l * c.R,
			    plan.rank + l * c.R, plan.cnt + l * c.E };
			c.hier = 0;	/* a walk may spread a group */
			CU_ASSERT_EQUAL(mk_eplb_verify(&c, &lp, &e), 0);
			c.hier = 1;
		}
		v = mk_eplb_total_objective(&c, w2, S, L, &plan);
		CU_ASSERT(v <= last * (1 + 1e-12));
		last = v;
		mk_eplb_out_free(&plan);
	}
	mk_eplb_out_free(&prev);
}

/* A drifting log [T][L][E] of integer loads. */
static double *
drifting(struct rng *r, int T, int L, int E)
{
	double *w = malloc(sizeof(double) * (size_t)T * L * E), *z;
	int t, i;

	z = malloc(sizeof(double) * (size_t)L * E);
	for (i = 0; i < L * E; i++)
		z[i] = 3 * rng_unit(r);
	for (t = 0; t < T; t++)
		for (i = 0; i < L * E; i++) {
			z[i] += 0.2 * (rng_unit(r) - 0.5);
			w[(size_t)t * L * E + i] = floor(exp(z[i]) * (0.5 +
			    rng_unit(r)));
		}
	free(z);
	return w;
}

/* The trivial placement's balancedness, counted here. */
static double
trivial(const double *w, int T, int L, int E, int R, int G, int W)
{
	double sm = 0, sx = 0, gl[64], m;
	int t, l, p, g;

	for (t = W; t < T; t++)
		for (l = 0; l < L; l++) {
			memset(gl, 0, sizeof(gl));
			for (p = 0; p < R; p++) {
				int e = p % E, cnt = R / E + (e < R % E);

				gl[p / (R / G)] += w[((size_t)t * L + l) * E +
				    e] / cnt;
			}
			for (m = 0, g = 0; g < G; g++) {
				sm += gl[g] / G;
				m = gl[g] > m ? gl[g] : m;
			}
			sx += m;
		}
	return sm / sx;
}

/*
 * Re-planning beats none; --max-moves 0 is the trivial placement and
 * moves nothing; a sweep gives each configuration what it gives alone,
 * on one thread or two.
 */
static void
test_replay(void)
{
	struct rng r = { 2024 };
	const int T = 120, L = 3, E = 32;
	double *w = drifting(&r, T, L, E);
	struct mk_replay_log log = { T, L, E, w, NULL, NULL, NULL, NULL, 0 };
	struct mk_replay_cfg rc[3];
	struct mk_replay_res res[3], one, two[3];
	struct mk_err e;
	int k;

	memset(rc, 0, sizeof(rc));
	for (k = 0; k < 3; k++) {
		rc[k].c = (struct mk_eplb_cfg){ E, 40, 8, 1, 1, 0,
		    MK_EPLB_DEEPSEEK, 0, MK_EPLB_MEAN };
		CU_ASSERT_EQUAL_FATAL(mk_eplb_config(&rc[k].c, MK_EPLB_AUTO,
		    &e), 0);
		rc[k].window = 10;
		rc[k].interval = 10;
		rc[k].score_from = 10;
		rc[k].history = 1;
		rc[k].max_moves = -1;
		rc[k].min_gain = -1;
		rc[k].expert_bytes = 1e6;
	}
	rc[1].max_moves = 0;
	rc[2].c.algo = MK_EPLB_BEST;
	rc[2].history = 2;
	CU_ASSERT_EQUAL_FATAL(mk_eplb_replay(&rc[0], &log, &one, NULL, &e), 0);
	CU_ASSERT_EQUAL_FATAL(mk_eplb_replay(&rc[1], &log, &res[1], NULL, &e),
	    0);
	CU_ASSERT(one.balancedness > res[1].balancedness);
	CU_ASSERT(one.moves > 0 && one.rebalances > 0);
	CU_ASSERT_DOUBLE_EQUAL(one.bytes, one.copies * 1e6, 1e-6);
	CU_ASSERT(one.p5 <= one.balancedness);
	CU_ASSERT_DOUBLE_EQUAL(one.par * one.balancedness, 1, 1e-12);
	CU_ASSERT(isnan(one.inter_share));
	CU_ASSERT_EQUAL(one.scored, T - 10);
	CU_ASSERT_EQUAL(res[1].moves, 0);
	CU_ASSERT_EQUAL(res[1].rebalances, 0);
	CU_ASSERT_DOUBLE_EQUAL(res[1].balancedness, trivial(w, T, L, E, 40, 8,
	    10), 1e-12);
	CU_ASSERT_EQUAL_FATAL(mk_eplb_replay_sweep(rc, 3, &log,
	    &(struct mk_replay_team){ .threads = 1 }, res, &e), 0);
	CU_ASSERT_EQUAL_FATAL(mk_eplb_replay_sweep(rc, 3, &log,
	    &(struct mk_replay_team){ .threads = 2 }, two, &e), 0);
	CU_ASSERT_DOUBLE_EQUAL(res[0].balancedness, one.balancedness, 0);
	for (k = 0; k < 3; k++) {
		CU_ASSERT_DOUBLE_EQUAL(res[k].balancedness,
		    two[k].balancedness, 0);
		CU_ASSERT_EQUAL(res[k].moves, two[k].moves);
	}
	/* integer loads: windows that slide give what summing anew does */
	for (k = 0; k < T * L * E; k++)
		w[k] = floor(w[k] * 1000);
	rc[2].window = 30;
	rc[2].interval = 7;
	rc[2].score_from = 30;
	for (k = 0; k < 2; k++) {
		log.integer = k;
		CU_ASSERT_EQUAL_FATAL(mk_eplb_replay(&rc[2], &log, &two[k],
		    NULL, &e), 0);
	}
	CU_ASSERT_DOUBLE_EQUAL(two[0].balancedness, two[1].balancedness, 0);
	CU_ASSERT_EQUAL(two[0].moves, two[1].moves);
	CU_ASSERT(two[0].rebalances > 5);
	free(w);
}

/*
 * mk_moe_node_dispatch with nodes of 8 counts what DeepEP's layout's
 * tokens_per_node sums to, on random routing of 16 ranks.
 */
static void
test_node_dispatch(void)
{
	struct mk_a2a_cfg c = {
	    .R = 16, .E = 64, .K = 4, .C = 4, .style = MK_A2A_DEEPEP,
	    .align = 1, .threads = 1 };
	struct mk_a2a_group g;
	struct mk_moe_step s;
	struct rng r = { 5 };
	struct mk_err e;
	int32_t *ids = malloc(sizeof(int32_t) * 16 * 50 * 4);
	int64_t out[2], inter = 0, total = 0;
	int i, src, d;

	CU_ASSERT_EQUAL_FATAL(mk_a2a_config(&c, &e), 0);
	for (i = 0; i < 16 * 50 * 4; i++)
		ids[i] = rng_unit(&r) < 0.1 ? -1 : (int32_t)(rng_next(&r) % 64);
	memset(&s, 0, sizeof(s));
	s.R = 16;
	s.K = 4;
	s.elem = 4;
	for (i = 0; i < 16; i++) {
		s.ids[i] = ids + i * 50 * 4;
		s.T[i] = 50;
	}
	CU_ASSERT_EQUAL_FATAL(mk_a2a_group_alloc(&g, &c), 0);
	CU_ASSERT_EQUAL_FATAL(mk_a2a_layout(&c, &s, &g, "", &e), 0);
	for (src = 0; src < 16; src++)
		for (d = 0; d < 2; d++) {
			total += g.tokens_per_node[src * 2 + d];
			inter += d != src / 8 ? g.tokens_per_node[src * 2 + d] :
			    0;
		}
	mk_moe_node_dispatch(&s, 64, 8, out);
	CU_ASSERT_EQUAL(out[1], total);
	CU_ASSERT_EQUAL(out[0], inter);
	CU_ASSERT(inter > 0 && inter < total);
	mk_a2a_group_free(&g);
	free(ids);
}

void
suite_replay(void)
{
	CU_pSuite s = CU_add_suite("replay", NULL, NULL);

	CU_add_test(s, "a move budget: within it, objective never rising",
	    test_limit_moves);
	CU_add_test(s, "replay: no moves is the trivial placement; sweeps",
	    test_replay);
	CU_add_test(s, "node dispatch count = DeepEP's tokens_per_node",
	    test_node_dispatch);
}
