/*
 * test_eplb_xfer.c - the transfers of a change of placement: hand-worked
 * examples of vLLM's dealing and batching (PR #52641), SGLang's chunks of
 * 32, reloads where every copy was lost, and on random changes what any
 * schedule must satisfy.  tests/interop/eplb_xfer_check.py holds them to
 * a numpy model of the two functions.
 */
#include <stdlib.h>
#include <string.h>

#include "eplb/eplb_xfer.h"
#include "util.h"

static void
run(int G, int R, int E, const int64_t *old, const int *id,
    const int64_t *new_, double bytes, double gbps, struct mk_eplb_xfer *x)
{
	struct mk_eplb_xfer_work *w = mk_eplb_xfer_work(G, E);
	const struct mk_eplb_side a = { old, R, G, id }, b = { new_, R, G,
	    NULL };

	CU_ASSERT_FATAL(w != NULL);
	memset(x, 0x5a, sizeof(*x));		/* poison */
	mk_eplb_xfer(w, &a, &b, E, bytes, gbps, x);
	mk_eplb_xfer_work_free(w);
}

/*
 * Four GPUs of three slots.  Expert 1 has two senders (0, 3) and two
 * receivers (1, 2): one each.  Expert 0 has two senders and one receiver:
 * the remainder goes to the first sender.  Flows in order of first
 * transfer: 0->1 (experts 0, 1, 2), 3->2, 1->0 (3, 4), 2->3, 1->2; batches
 * {0->1, 3->2}, {1->0, 2->3}, {1->2}; at 8 Gbit/s and 1 GB an expert,
 * the largest flows 3 + 2 + 1 take 6 s.
 */
static void
test_hand(void)
{
	static const int64_t old[12] = { 0, 1, 2, 3, 4, 5, 0, 3, 4, 1, 2, 5 };
	static const int64_t new_[12] = { 0, 3, 4, 0, 1, 2, 0, 1, 5, 2, 3, 5 };
	struct mk_eplb_xfer x;

	run(4, 12, 6, old, NULL, new_, 1e9, 8, &x);
	CU_ASSERT_EQUAL(x.transfers, 8);
	CU_ASSERT_EQUAL(x.batches, 3);
	CU_ASSERT_EQUAL(x.max_batch, 4);
	CU_ASSERT_EQUAL(x.reloads, 0);
	CU_ASSERT_EQUAL(x.p2p_ops, 6);		/* GPU 1: 3 in, 3 out */
	CU_ASSERT_EQUAL(x.p2p_chunks, 1);
	CU_ASSERT_DOUBLE_EQUAL(x.move_s, 6.0, 1e-12);
	/* nothing changed: nothing sent */
	run(4, 12, 6, old, NULL, old, 1e9, 8, &x);
	CU_ASSERT_EQUAL(x.transfers + x.batches + x.max_batch + x.reloads +
	    x.p2p_ops + x.p2p_chunks, 0);
	CU_ASSERT_EQUAL(x.move_s, 0);
}

/* Two GPUs swap forty experts each: two flows that cannot share a batch;
 * each GPU posts 80 operations, three of SGLang's chunks. */
static void
test_swap(void)
{
	int64_t old[80], new_[80];
	struct mk_eplb_xfer x;
	int r;

	for (r = 0; r < 80; r++) {
		old[r] = r;
		new_[r] = (r + 40) % 80;
	}
	run(2, 80, 80, old, NULL, new_, 0, 0, &x);
	CU_ASSERT_EQUAL(x.transfers, 80);
	CU_ASSERT_EQUAL(x.batches, 2);
	CU_ASSERT_EQUAL(x.max_batch, 40);
	CU_ASSERT_EQUAL(x.p2p_ops, 80);
	CU_ASSERT_EQUAL(x.p2p_chunks, 3);
	CU_ASSERT_EQUAL(x.move_s, 0);		/* no bytes, no link */
}

/* GPU 1 is gone (id -1): expert 1 had no other copy, a reload; expert 2's
 * other copy on GPU 2 sends it to GPU 0. */
static void
test_lost(void)
{
	static const int64_t old[6] = { 0, 3, 1, 2, 2, 3 };
	static const int64_t new_[6] = { 1, 2, 0, 1, 3, 0 };
	static const int id[3] = { 0, -1, 2 };
	struct mk_eplb_xfer x;

	run(3, 6, 4, old, id, new_, 0, 0, &x);
	/* e0: 0 -> 1, 0 -> 2; e1: reloads on 0 and 1; e2: 2 -> 0 */
	CU_ASSERT_EQUAL(x.reloads, 2);
	CU_ASSERT_EQUAL(x.transfers, 3);
	CU_ASSERT_EQUAL(x.batches, 3);		/* GPU 0 in all three */
}

/*
 * Random changes: every (GPU, expert) newly held is a transfer or a
 * reload; the batches are no more than the transfers, and hold them.
 */
static void
test_random(void)
{
	struct rng rg = { test_seed() | 1 };
	int it, G, per, E, R, r, g, held;
	int64_t *old, *new_, want, lost;
	unsigned char had[16][64], has[16][64];
	struct mk_eplb_xfer x;

	for (it = 0; it < 300; it++) {
		G = 1 + (int)(rng_next(&rg) % 16);
		per = 1 + (int)(rng_next(&rg) % 4);
		R = G * per;
		E = 1 + (int)(rng_next(&rg) % (uint64_t)(R < 64 ? R : 64));
		old = malloc(sizeof(int64_t) * (size_t)R);
		new_ = malloc(sizeof(int64_t) * (size_t)R);
		CU_ASSERT_FATAL(old != NULL && new_ != NULL);
		memset(had, 0, sizeof(had));
		memset(has, 0, sizeof(has));
		for (r = 0; r < R; r++) {
			old[r] = (int64_t)(rng_next(&rg) % (uint64_t)E);
			new_[r] = (int64_t)(rng_next(&rg) % (uint64_t)E);
			had[r / per][old[r]] = 1;
			has[r / per][new_[r]] = 1;
		}
		run(G, R, E, old, NULL, new_, 1, 1, &x);
		want = lost = 0;
		for (r = 0; r < E; r++) {
			for (g = 0, held = 0; g < G; g++)
				held |= had[g][r];
			for (g = 0; g < G; g++) {
				want += has[g][r] && !had[g][r];
				lost += has[g][r] && !held;
			}
		}
		CU_ASSERT_EQUAL(x.transfers + x.reloads, want);
		CU_ASSERT_EQUAL(x.reloads, lost);
		CU_ASSERT(x.batches <= x.transfers);
		CU_ASSERT(x.batches >= (x.transfers > 0));
		CU_ASSERT(x.max_batch <= x.transfers);
		CU_ASSERT(x.max_batch * x.batches >= x.transfers);
		CU_ASSERT(x.p2p_ops <= 2 * x.transfers);
		CU_ASSERT(x.move_s * 1e9 / 8 >= (double)x.batches - 1e-6);
		free(old);
		free(new_);
	}
}

void
suite_eplb_xfer(void)
{
	CU_pSuite s = CU_add_suite("eplb_xfer", NULL, NULL);

	CU_add_test(s, "vLLM's dealing and batches by hand", test_hand);
	CU_add_test(s, "SGLang's chunks of 32", test_swap);
	CU_add_test(s, "reloads of experts lost with their GPU", test_lost);
	CU_add_test(s, "random changes", test_random);
}
