/*
 * test_a2a_capacity.c - a2a-layout --capacity: the demands of random
 * steps against a count straight from the ids, the capacity at p against
 * its definition, and every library's knob against that library's own
 * numbers (its tests or its source's formula, a2a-layout(1)).
 */
#include <stdlib.h>
#include <string.h>

#include "a2a/a2a.h"
#include "a2a/a2a_capacity.h"
#include "util.h"

/* A random step of R ranks of T tokens, top-K of E; its demands by
 * brute force into want[], the library's into dm. */
static void
one_step(struct rng *rg, int R, int E, int K, struct mk_a2a_demands *dm,
    int64_t want[MK_A2A_ND])
{
	struct mk_a2a_cfg c = { .R = R, .E = E, .K = K, .C = 1,
	    .style = MK_A2A_DEEPEP, .align = 1, .threads = 1 };
	int64_t *ids[MK_MOE_MAX_RANKS], t, T = 1 + (int64_t)(rng_next(rg) % 50);
	int epr = E / R, src, d, j, hit, rows[MK_MOE_MAX_RANKS] = { 0 };
	int tok[MK_MOE_MAX_RANKS] = { 0 }, pair;
	struct mk_moe_step s;
	struct mk_a2a_group g;
	struct mk_err e;

	CU_ASSERT_FATAL(mk_a2a_config(&c, &e) == 0);
	memset(&s, 0, sizeof(s));
	s.R = R;
	s.K = K;
	s.elem = 8;
	memset(want, 0, sizeof(int64_t) * MK_A2A_ND);
	for (src = 0; src < R; src++) {
		s.T[src] = T;
		ids[src] = malloc(sizeof(int64_t) * (size_t)(T * K));
		/* distinct experts a token, some slots routed nowhere */
		for (t = 0; t < T; t++)
			for (j = 0; j < K; j++)
				ids[src][t * K + j] = rng_next(rg) % 7 == 0 ? -1 :
				    (int64_t)((t * 3 + j * (E / K) + rng_next(rg)
				    % (E / K)) % E);
		s.ids[src] = ids[src];
	}
	CU_ASSERT_FATAL(mk_a2a_group_alloc(&g, &c) == 0);
	CU_ASSERT_FATAL(mk_a2a_layout(&c, &s, &g, "", &e) == 0);
	CU_ASSERT_FATAL(mk_a2a_demands_add(dm, &c, &g, T, &e) == 0);
	for (d = 0; d < R; d++) {
		for (src = 0; src < R; src++) {
			for (t = 0, pair = 0; t < T; t++) {
				for (j = 0, hit = 0; j < K; j++) {
					int64_t x = ids[src][t * K + j];

					if (x >= 0 && x / epr == d) {
						hit = 1;
						rows[d]++;
					}
				}
				pair += hit;
			}
			tok[d] += pair;
			if (pair > want[MK_A2A_D_PAIR])
				want[MK_A2A_D_PAIR] = pair;
		}
		if (tok[d] > want[MK_A2A_D_TOKENS])
			want[MK_A2A_D_TOKENS] = tok[d];
		if (rows[d] > want[MK_A2A_D_ROWS])
			want[MK_A2A_D_ROWS] = rows[d];
	}
	want[MK_A2A_D_WORST] = want[MK_A2A_D_TOKENS];	/* intranode */
	for (src = 0; src < R; src++)
		free(ids[src]);
	mk_a2a_group_free(&g);
}

static void
test_demands(void)
{
	struct rng rg = { test_seed() | 1 };
	struct mk_a2a_demands dm = { 0 };
	int64_t want[300][MK_A2A_ND];
	int i, k, R, bad = 0;

	for (i = 0; i < 300; i++) {
		R = i % 3 == 0 ? 2 : i % 3 == 1 ? 4 : 8;
		one_step(&rg, R, R * (1 + i % 4), 2 + (i % 3 == 1),
		    &dm, want[i]);
	}
	CU_ASSERT_EQUAL(dm.S, 300);
	for (i = 0; i < 300; i++)
		for (k = 0; k < MK_A2A_ND; k++)
			bad += dm.d[k][i] != want[i][k];
	CU_ASSERT_EQUAL(bad, 0);
	mk_a2a_demands_free(&dm);
}

/* The capacity at p is the least c with at most floor(p S) steps over. */
static void
test_capacity_at(void)
{
	struct rng rg = { test_seed() | 1 };
	int64_t d[200], tmp[200], c, x;
	int S, i, t, bad = 0;
	double p;

	for (t = 0; t < 500; t++) {
		S = 1 + (int)(rng_next(&rg) % 200);
		for (i = 0; i < S; i++)
			d[i] = (int64_t)(rng_next(&rg) % 60);
		p = t % 5 == 0 ? 0 : rng_unit(&rg) * 0.999;
		c = mk_a2a_capacity_at(d, S, p, tmp);
		/* the definition, by search over every candidate */
		for (x = 0; mk_a2a_steps_over(d, S, x) > (int)(p * S); x++)
			;
		bad += c != x;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(mk_a2a_capacity_at(d, 0, 0.5, tmp), 0);
}

/* Each library's numbers, from its own tests or source (a2a-layout(1)). */
static void
test_knobs(void)
{
	/* vLLM's test_worst_case_recv_tokens: (fraction, dp_size, sp 1,
	 * max_num_tokens) -> tokens */
	CU_ASSERT_EQUAL(mk_a2a_knob_alloc(MK_A2A_K_VLLM, 2, 1, 1, 8192, 1.0),
	    16384);
	CU_ASSERT_EQUAL(mk_a2a_knob_alloc(MK_A2A_K_VLLM, 4, 1, 1, 100, 0.5),
	    200);
	CU_ASSERT_EQUAL(mk_a2a_knob_alloc(MK_A2A_K_VLLM, 1, 1, 1, 10, 0.001),
	    1);
	CU_ASSERT_EQUAL(mk_a2a_knob_alloc(MK_A2A_K_VLLM, 4, 1, 1, 100, -1),
	    400);
	/* DeepEP's tests: num_worst_tokens = num_tokens * num_ranks */
	CU_ASSERT_EQUAL(mk_a2a_knob_alloc(MK_A2A_K_DEEPEP, 8, 32, 8, 4096,
	    -1), 32768);
	/* NCCL EP: LL AUTO = nRanks * max_dispatch_tokens_per_rank */
	CU_ASSERT_EQUAL(mk_a2a_knob_alloc(MK_A2A_K_NCCL, 8, 32, 8, 128, -1),
	    1024);
	/* Megatron-LM #7578: a multiple of 64, R of them received */
	CU_ASSERT_EQUAL(mk_a2a_knob_alloc(MK_A2A_K_MEGATRON, 4, 2, 2, 100, -1),
	    4 * 128);
	/* torchtitan hybridep.py: int(T * ep * min(Le, top_k) * factor) */
	CU_ASSERT_EQUAL(mk_a2a_knob_alloc(MK_A2A_K_TORCHTITAN, 8, 32, 8, 4096,
	    1.0), 4096 * 8 * 8);
	CU_ASSERT_EQUAL(mk_a2a_knob_alloc(MK_A2A_K_TORCHTITAN, 8, 4, 8, 4096,
	    0.3), 39321);	/* int(4096 * 8 * 4 * 0.3) = int(39321.6) */
	/* pplx-garden bench_all_to_all.py: 256 experts on 32 ranks (8
	 * local), 128 tokens a rank, top-8: N = 4096, min(N K, N Le) */
	CU_ASSERT_EQUAL(mk_a2a_knob_alloc(MK_A2A_K_PPLX, 32, 8, 8, 128, -1),
	    32768);
	CU_ASSERT_EQUAL(mk_a2a_knob_alloc(MK_A2A_K_PPLX, 32, 2, 8, 128, -1),
	    8192);	/* fewer local experts than top-k: N Le */
	/* MORI MaxNumTokensToRecvPerRank: ceil(total / world), at most
	 * max_num_inp_token_per_rank; 0 is that maximum */
	CU_ASSERT_EQUAL(mk_a2a_knob_alloc(MK_A2A_K_MORI, 8, 4, 8, 128, 1000),
	    125);
	CU_ASSERT_EQUAL(mk_a2a_knob_alloc(MK_A2A_K_MORI, 8, 4, 8, 128, 2000),
	    128);
	CU_ASSERT_EQUAL(mk_a2a_knob_alloc(MK_A2A_K_MORI, 8, 4, 8, 128, 0),
	    128);
}

/* A row's value reaches its capacity, and no smaller value would. */
static void
test_rows(void)
{
	struct rng rg = { test_seed() | 1 };
	struct mk_a2a_demands dm = { 0 };
	struct mk_a2a_sizing sz = { .hidden = 4096, .idx_bytes = 8 };
	struct mk_a2a_cfg c = { .R = 4, .E = 16, .K = 2 };
	struct mk_a2a_capacity_in in = { &c, &sz, &dm, NULL, NULL, 0 };
	struct mk_a2a_knob_row r;
	int64_t want[MK_A2A_ND];
	struct mk_err e;
	int i, k, bad = 0;
	double p;

	for (i = 0; i < 64; i++)
		one_step(&rg, 4, 16, 2, &dm, want);
	for (i = 0; i < 20; i++) {
		p = i == 0 ? 0 : rng_unit(&rg) * 0.5;
		for (k = 0; k < MK_A2A_NKNOBS; k++) {
			CU_ASSERT_FATAL(mk_a2a_knob_row(&in, k, p, &r, &e) == 0);
			/* at most floor(p S) steps over, as allocated */
			bad += r.steps_over > (int)(p * dm.S);
			bad += r.recv_tokens > r.worst_tokens &&
			    k != MK_A2A_K_MEGATRON;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	mk_a2a_demands_free(&dm);
}

void
suite_a2a_capacity(void)
{
	CU_pSuite s = CU_add_suite("a2a_capacity", NULL, NULL);

	CU_add_test(s, "demands against the ids", test_demands);
	CU_add_test(s, "capacity at p, by definition", test_capacity_at);
	CU_add_test(s, "knobs against the libraries' numbers", test_knobs);
	CU_add_test(s, "rows reach their capacity", test_rows);
}
