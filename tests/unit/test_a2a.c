/*
 * test_a2a.c - dispatch layouts: the worked example of a2a-layout(1)
 * through the library, DeepEP's buffer formulas against the values real
 * DeepEP prints, config normalisation, and invariants on random traces
 * (prefixes consistent with counts, receive rows = sum of counts, send
 * heads a permutation within each channel, SourceMeta bits = the rank
 * masks, scatter indices a permutation of each receiver's rows).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "a2a/a2a.h"
#include "util.h"

static const int64_t ex[4][6][2] = {
	{ { 0, 3 }, { 5, -1 }, { 2, 3 }, { 7, 6 }, { 1, 1 }, { 4, 2 } },
	{ { 6, 7 }, { 0, 2 }, { -1, -1 }, { 3, 4 }, { 5, 0 }, { 2, 6 } },
	{ { 1, 5 }, { 3, 3 }, { 0, 7 }, { 4, 6 }, { 2, 1 }, { 6, 5 } },
	{ { 7, 0 }, { 2, 4 }, { 5, 6 }, { 1, 3 }, { 0, -1 }, { 4, 7 } },
};

static void
test_worked_example(void)
{
	static const int32_t rpm[16] = { 2, 3, 2, 1, 4, 6, 4, 3, 7, 8, 7, 6,
	    10, 10, 10, 9 };
	static const int32_t cpm0[8] = { 1, 2, 2, 3, 1, 2, 0, 1 };
	static const int32_t head[24] = { 0, 0, -1, -1, -1, -1, 0, -1, -1, 1,
	    -1, -1, -1, -1, -1, 0, 0, -1, -1, -1, -1, 0, 0, -1 };
	static const int32_t rcp[8] = { 0, 1, 0, 1, 0, 2, 0, 1 };
	static const int32_t src[10] = { 0, 4, 1, 4, 0, 2, 4, 0, 3, 4 };
	static const int32_t ntpe0[8] = { 1, 2, 2, 2, 1, 1, 1, 1 };
	struct mk_a2a_cfg c = {
	    .R = 4, .E = 8, .K = 2, .C = 2, .style = MK_A2A_DEEPEP, .align = 4,
	    .threads = 1 };
	struct mk_moe_step s;
	struct mk_a2a_group g;
	struct mk_a2a_rank r;
	struct mk_err e;
	int i;

	CU_ASSERT_FATAL(mk_a2a_config(&c, &e) == 0);
	memset(&s, 0, sizeof(s));
	s.R = 4;
	s.K = 2;
	s.elem = 8;
	for (i = 0; i < 4; i++) {
		s.ids[i] = ex[i];
		s.T[i] = 6;
	}
	CU_ASSERT_FATAL(mk_a2a_group_alloc(&g, &c) == 0);
	CU_ASSERT_FATAL(mk_a2a_layout(&c, &s, &g, "", &e) == 0);
	CU_ASSERT_EQUAL(memcmp(g.rank_prefix, rpm, sizeof(rpm)), 0);
	CU_ASSERT_EQUAL(memcmp(g.chan_prefix, cpm0, sizeof(cpm0)), 0);
	CU_ASSERT_EQUAL(memcmp(g.tokens_per_expert, ntpe0, sizeof(ntpe0)), 0);
	CU_ASSERT_EQUAL(g.recv_tokens[0], 10);
	CU_ASSERT_EQUAL(g.recv_per_expert[0], 8);	/* align4(6) */
	CU_ASSERT_EQUAL(g.recv_per_expert[1], 8);	/* align4(5) */
	CU_ASSERT_FATAL(mk_a2a_rank(&c, &s, &g, 0, &r, &e) == 0);
	CU_ASSERT_EQUAL(r.N, 10);
	CU_ASSERT_EQUAL(memcmp(r.send_head, head, sizeof(head)), 0);
	CU_ASSERT_EQUAL(memcmp(r.recv_chan_prefix, rcp, sizeof(rcp)), 0);
	CU_ASSERT_EQUAL(memcmp(r.recv_src_idx, src, sizeof(src)), 0);
	/* token 4 of rank 0 names expert 1 twice: local id 1 in both slots */
	CU_ASSERT_EQUAL(r.recv_topk[2], 1);
	CU_ASSERT_EQUAL(r.recv_topk[3], 1);
	mk_a2a_rank_free(&r);
	mk_a2a_group_free(&g);
}

/* The values real DeepEP prints (DeepEP PR #434). */
static void
test_hints(void)
{
	struct mk_a2a_dcfg d = { 24, 8, 512, 16, 128, 8 }, b, cb;
	struct mk_a2a_dcfg in = { 24, 8, 256, 6, 256, 8 };
	struct mk_err e;

	CU_ASSERT_EQUAL(mk_a2a_config_check(&d, &e), 0);
	CU_ASSERT_EQUAL(mk_a2a_nvl_hint(&d, 7168, 16), 453380736ULL);
	CU_ASSERT_EQUAL(mk_a2a_rdma_hint(&d, 7168, 16), 56774016ULL);
	CU_ASSERT_EQUAL(mk_a2a_rdma_hint(&d, 7168, 8), 0);
	CU_ASSERT_EQUAL(mk_a2a_ll_hint(128, 7168, 288), 2146961792ULL);
	CU_ASSERT_EQUAL(mk_a2a_ll_hint(2048, 5120, 448), 38168170112ULL);
	CU_ASSERT(mk_a2a_ll_hint(2048, 5120, 448) >= MK_A2A_BYTES_CAP);
	CU_ASSERT(mk_a2a_ll_hint(1840, 5120, 448) < MK_A2A_BYTES_CAP);
	/* internode needs, bf16 and fp8 x (hidden 7168, top-8) */
	CU_ASSERT_EQUAL(mk_a2a_bytes_per_token(14336, 0, 8, 8), 14416);
	CU_ASSERT_EQUAL(mk_a2a_inter_rdma_need(&d, 16, 14416), 88575744ULL);
	CU_ASSERT_EQUAL(mk_a2a_inter_nvl_need(&d, 16, 14416), 708577536ULL);
	CU_ASSERT_EQUAL(mk_a2a_bytes_per_token(7168, 56, 8, 8), 7472);
	CU_ASSERT_EQUAL(mk_a2a_inter_rdma_need(&d, 16, 7472), 45911808ULL);
	CU_ASSERT_EQUAL(mk_a2a_inter_nvl_need(&d, 16, 7472), 367266048ULL);
	/* intranode R=8, 24 SMs, Q=256 */
	CU_ASSERT_EQUAL(mk_a2a_config_check(&in, &e), 0);
	CU_ASSERT_EQUAL(mk_a2a_intra_dispatch_need(&in, 8, 14336, 8, 0),
	    354780928ULL);
	CU_ASSERT_EQUAL(mk_a2a_intra_combine_need(&in, 8, 14336, 8),
	    353207040ULL);
	CU_ASSERT_EQUAL(mk_a2a_intra_dispatch_need(&in, 8, 7168, 8, 56),
	    184125184ULL);
	/* the default table with num_sms 20 and hidden 7168 bf16 (§6.4) */
	CU_ASSERT_FATAL(mk_a2a_deepep_config(16, 20, &b, &cb) == 0);
	CU_ASSERT_EQUAL(mk_a2a_config_check(&b, &e), 0);
	CU_ASSERT_EQUAL(mk_a2a_config_check(&cb, &e), 0);
	CU_ASSERT_EQUAL(b.rdma_recv, 140);
	CU_ASSERT_EQUAL(cb.rdma_recv, 132);
	CU_ASSERT_EQUAL(mk_a2a_nvl_hint(&b, 14336, 16), 377673984ULL);
	CU_ASSERT_EQUAL(mk_a2a_rdma_hint(&b, 14336, 16), 91887744ULL);
	CU_ASSERT_EQUAL(mk_a2a_rdma_hint(&cb, 14336, 16), 86637184ULL);
	CU_ASSERT_FATAL(mk_a2a_deepep_config(8, 20, &b, &cb) == 0);
	CU_ASSERT_EQUAL(mk_a2a_config_check(&b, &e), 0);
	CU_ASSERT_EQUAL(mk_a2a_nvl_hint(&b, 14336, 8), 335709824ULL);
	CU_ASSERT_EQUAL(mk_a2a_deepep_config(12, 20, &b, &cb), -1);
}

static void
test_config_rules(void)
{
	struct mk_a2a_dcfg bad1 = { 20, 8, 8, 6, 128, 8 }, bad2 = { 20, 6, 256,
	    128, 100, 8 }, n1 = { 20, 6, 256, 20, 128, 8 };
	struct mk_a2a_cfg c;
	struct mk_err e;

	CU_ASSERT_EQUAL(mk_a2a_config_check(&bad1, &e), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "nvl_send 8 must be below"));
	CU_ASSERT_EQUAL(mk_a2a_config_check(&bad2, &e), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "half of rdma_recv"));
	CU_ASSERT_EQUAL(mk_a2a_config_check(&n1, &e), 0);
	CU_ASSERT_EQUAL(n1.rdma_recv, 140);		/* (20,128) -> 140 */
	memset(&c, 0, sizeof(c));
	c.R = 6; c.E = 12; c.K = 2; c.C = 10;
	CU_ASSERT_EQUAL(mk_a2a_config(&c, &e), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "2, 4 or 8 ranks"));
	c.R = 40; c.E = 80;
	CU_ASSERT_EQUAL(mk_a2a_config(&c, &e), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "SWITCH_RDMA_RANKS"));
	c.R = 16; c.E = 72;
	CU_ASSERT_EQUAL(mk_a2a_config(&c, &e), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "E % R == 0"));
	c.E = 64; c.K = 33;
	CU_ASSERT_EQUAL(mk_a2a_config(&c, &e), -1);
	c.style = MK_A2A_TRITON; c.R = 6; c.E = 12; c.K = 2;
	CU_ASSERT_EQUAL(mk_a2a_config(&c, &e), 0);	/* no SWITCH_RANKS */
}

/* Invariants on one random step; returns the number of violations. */
static int
invariants(int R, int E, int K, int C, uint64_t seed)
{
	struct mk_a2a_cfg c = {
	    .R = R, .E = E, .K = K, .C = C, .style = MK_A2A_DEEPEP, .align = 1,
	    .threads = 1 };
	struct rng rg = { seed };
	struct mk_moe_step s;
	struct mk_a2a_group g;
	struct mk_a2a_rank rk;
	struct mk_err e;
	int64_t *ids[MK_MOE_MAX_RANKS], t, sum;
	int src, d, r, j, ch, bad = 0, RR = R > 8 ? R / 8 : 1, inter = R > 8;
	char *seen;

	CU_ASSERT_FATAL(mk_a2a_config(&c, &e) == 0);
	memset(&s, 0, sizeof(s));
	s.R = R;
	s.K = K;
	s.elem = 8;
	for (src = 0; src < R; src++) {
		s.T[src] = (int64_t)(rng_next(&rg) % 90);
		ids[src] = malloc(sizeof(int64_t) * (size_t)(s.T[src] * K + 1));
		for (t = 0; t < s.T[src] * K; t++)
			ids[src][t] = rng_next(&rg) % 10 == 0 ? -1 :
			    (int64_t)(rng_next(&rg) % (uint64_t)E);
		s.ids[src] = ids[src];
	}
	CU_ASSERT_FATAL(mk_a2a_group_alloc(&g, &c) == 0);
	CU_ASSERT_FATAL(mk_a2a_layout(&c, &s, &g, "", &e) == 0);
	for (d = 0; d < R; d++) {
		for (src = 0, sum = 0; src < R; src++) {
			/* the channel prefix ends at the count */
			bad += g.chan_prefix[((size_t)src * R + d) * C + C - 1] !=
			    g.tokens_per_rank[src * R + d];
			sum += g.tokens_per_rank[src * R + d];
		}
		bad += g.recv_tokens[d] != sum;
		bad += g.rank_prefix[(R - 1) * R + d] != sum;
	}
	for (r = 0; r < R; r++) {
		CU_ASSERT_FATAL(mk_a2a_rank(&c, &s, &g, r, &rk, &e) == 0);
		/* send heads: 0..n-1 within each channel, for each dest */
		for (d = 0; d < (inter ? RR : R); d++) {
			int64_t per = s.T[r] ? (s.T[r] + C - 1) / C : 1;
			int next = 0;
			for (t = 0; t < s.T[r]; t++) {
				int h = rk.send_head[t * (inter ? RR : R) + d];
				if (t % per == 0)
					next = 0;
				if (h >= 0)
					bad += h != next++;
			}
		}
		/* SourceMeta bits are the token's NVL ranks on r's node */
		for (t = 0; inter && t < rk.N; t++) {
			int s0 = rk.recv_src_meta[t * 2];
			bad += s0 < 0 || s0 >= RR;
			bad += ((rk.recv_src_meta[t * 2 + 1] >> (r % 8)) & 1) != 1;
		}
		/* recv_topk local ids point at r's experts */
		for (t = 0; t < rk.N * K; t++)
			bad += rk.recv_topk[t] < -1 ||
			    rk.recv_topk[t] >= E / R;
		/*
		 * Triton scatter indices: distinct rows below the total (the
		 * group's Triton-distributed counts are made in either style)
		 */
		seen = calloc((size_t)g.recv_rows[r] + 1, 1);
		for (src = 0; src < R; src++) {
			struct mk_a2a_rank o;
			struct mk_a2a_cfg ct = c;
			ct.style = MK_A2A_TRITON;
			ct.local = 0;
			CU_ASSERT_FATAL(mk_a2a_config(&ct, &e) == 0);
			CU_ASSERT_FATAL(mk_a2a_rank(&ct, &s, &g, src, &o, &e) == 0);
			for (t = 0; t < s.T[src]; t++)
				for (j = 0; j < K; j++) {
					int64_t x = ids[src][t * K + j];
					int32_t v = o.scatter_idx[t * K + j];
					if (x < 0 || x / (E / R) != r)
						continue;
					if (v < 0 || v >= g.recv_rows[r] || seen[v]++)
						bad++;
				}
			mk_a2a_rank_free(&o);
		}
		free(seen);
		(void)ch;
		mk_a2a_rank_free(&rk);
	}
	for (src = 0; src < R; src++)
		free(ids[src]);
	mk_a2a_group_free(&g);
	return bad;
}

static void
test_random_invariants(void)
{
	uint64_t seed = test_seed();
	int bad;

	bad = invariants(4, 8, 2, 2, 11) + invariants(8, 64, 8, 10, seed) +
	    invariants(16, 64, 4, 3, seed + 1) + invariants(32, 256, 8, 12, 3);
	if (bad)
		fprintf(stderr, "  seed %llu: %d violations\n",
		    (unsigned long long)seed, bad);
	CU_ASSERT_EQUAL(bad, 0);
}

static void
test_bad_ids(void)
{
	static const int64_t ids[2][2] = { { 0, 9 }, { 1, 2 } };
	struct mk_a2a_cfg c = {
	    .R = 2, .E = 8, .K = 2, .C = 1, .style = MK_A2A_DEEPEP, .align = 1,
	    .threads = 1 };
	struct mk_moe_step s;
	struct mk_a2a_group g;
	struct mk_err e;

	CU_ASSERT_FATAL(mk_a2a_config(&c, &e) == 0);
	memset(&s, 0, sizeof(s));
	s.R = 2;
	s.K = 2;
	s.elem = 8;
	s.ids[0] = ids[0];
	s.ids[1] = ids[1];
	s.T[0] = s.T[1] = 1;
	CU_ASSERT_FATAL(mk_a2a_group_alloc(&g, &c) == 0);
	CU_ASSERT_EQUAL(mk_a2a_layout(&c, &s, &g, "t.npy: step 4, ", &e), -1);
	CU_ASSERT_STRING_EQUAL(e.msg, "t.npy: step 4, rank 0, token 0, slot 1: "
	    "expert 9 is not in [0, 8) (-1 means no expert; --lenient "
	    "ignores it)");
	c.lenient = 1;
	CU_ASSERT_EQUAL(mk_a2a_layout(&c, &s, &g, "", &e), 0);
	CU_ASSERT_EQUAL(g.tokens_per_expert[0], 1);
	mk_a2a_group_free(&g);
}

/*
 * One random step (drops, and an id out of range in the last rank's
 * last token if bad) laid out by a group counting whole ranks and by one
 * counting ranks in pieces (many threads): the same outputs, the same
 * error.  Returns the number of differences.
 */
static int
pieces_agree(int R, int E, int K, int C, int style, int bad, uint64_t seed)
{
	struct mk_a2a_cfg c = {
	    .R = R, .E = E, .K = K, .C = C, .style = style, .align = 1,
	    .threads = 1 };
	struct rng rg = { seed };
	struct mk_moe_step s;
	struct mk_a2a_group g[2];
	struct mk_err e[2];
	int64_t *ids[MK_MOE_MAX_RANKS], t;
	size_t RR = R > 8 ? (size_t)R / 8 : 1, Rz = (size_t)R, epr = (size_t)(E / R);
	int src, i, rc[2], diff = 0;

	CU_ASSERT_FATAL(mk_a2a_config(&c, &e[0]) == 0);
	memset(&s, 0, sizeof(s));
	s.R = R;
	s.K = K;
	s.elem = 8;
	for (src = 0; src < R; src++) {
		s.T[src] = 1 + (int64_t)(rng_next(&rg) % 300);
		ids[src] = malloc(sizeof(int64_t) * (size_t)(s.T[src] * K));
		for (t = 0; t < s.T[src] * K; t++)
			ids[src][t] = rng_next(&rg) % 10 == 0 ? -1 :
			    (int64_t)(rng_next(&rg) % (uint64_t)E);
		s.ids[src] = ids[src];
	}
	if (bad)
		ids[R - 1][s.T[R - 1] * K - 1] = E + 5;
	for (i = 0; i < 2; i++) {
		/* pieces follow the threads when the group is allocated */
		c.threads = i == 0 ? 1 : 256;
		CU_ASSERT_FATAL(mk_a2a_group_alloc(&g[i], &c) == 0);
		c.threads = i == 0 ? 1 : 4;
		rc[i] = mk_a2a_layout(&c, &s, &g[i], "", &e[i]);
	}
	CU_ASSERT(g[1].pieces > 1);
	diff += rc[0] != rc[1] || rc[0] != -bad;
	if (bad)
		diff += strcmp(e[0].msg, e[1].msg) != 0;
#define SAME(f, n) (diff += memcmp(g[0].f, g[1].f, (n) * sizeof(*g[0].f)) != 0)
	if (!bad) {
		SAME(tokens_per_rank, Rz * Rz);
		SAME(tokens_per_node, Rz * RR);
		SAME(tokens_per_expert, Rz * (size_t)E);
		SAME(chan_prefix, Rz * Rz * (size_t)C);
		SAME(rdma_chan_prefix, Rz * RR * (size_t)C);
		SAME(rank_prefix, Rz * Rz);
		SAME(recv_rank_prefix, Rz * Rz);
		SAME(rdma_rank_prefix, Rz * RR);
		SAME(recv_tokens, Rz);
		SAME(rdma_recv_tokens, Rz);
		SAME(recv_per_expert, Rz * epr);
		SAME(ll_count, Rz * epr);
		SAME(ll_range, Rz * epr * Rz);
		SAME(full_splits, Rz * (size_t)(E + 1));
		SAME(input_tokens, Rz);
		SAME(recv_offset, Rz * epr * Rz);
		SAME(recv_rows, Rz);
	}
#undef SAME
	for (i = 0; i < 2; i++)
		mk_a2a_group_free(&g[i]);
	for (src = 0; src < R; src++)
		free(ids[src]);
	return diff;
}

/* Ranks counted in pieces (channels split among threads) change nothing. */
static void
test_pieces(void)
{
	uint64_t seed = test_seed();
	int diff = 0, bad;

	for (bad = 0; bad < 2; bad++)
		diff += pieces_agree(4, 32, 4, 5, MK_A2A_DEEPEP, bad, seed) +
		    pieces_agree(8, 64, 8, 12, MK_A2A_TRITON, bad, seed + 1) +
		    pieces_agree(16, 48, 6, 3, MK_A2A_DEEPEP, bad, seed + 2) +
		    pieces_agree(32, 256, 8, 12, MK_A2A_DEEPEP, bad, seed + 3) +
		    pieces_agree(64, 128, 2, 7, MK_A2A_TRITON, bad, seed + 4);
	if (diff)
		fprintf(stderr, "  seed %llu: %d differences\n",
		    (unsigned long long)seed, diff);
	CU_ASSERT_EQUAL(diff, 0);
}

void
suite_a2a(void)
{
	CU_pSuite s = CU_add_suite("a2a", NULL, NULL);

	CU_add_test(s, "worked example (a2a-notes 4.5)", test_worked_example);
	CU_add_test(s, "DeepEP size hints and needs", test_hints);
	CU_add_test(s, "DeepEP rules", test_config_rules);
	CU_add_test(s, "invariants on random traces", test_random_invariants);
	CU_add_test(s, "ids out of range", test_bad_ids);
	CU_add_test(s, "ranks counted in pieces", test_pieces);
}
