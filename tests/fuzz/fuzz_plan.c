/*
 * fuzz_plan - whole eplb-plan runs: loads in any form eplb-plan reads
 * (as fuzz_loads), the configuration (algorithm, nodes, GPUs per node,
 * spare slots, groups, policy, scenarios) taken from the input's last
 * bytes so corpus files stay plain load files.  Sizes are kept small
 * (E <= 512, L * E <= 8192) so that a run is a planning run, not a wait.
 * Invariants of every plan, checked from its arrays alone: every slot
 * holds an expert in [0, E); each expert's count is its number of slots,
 * at least one; replica ranks number an expert's slots 0, 1, ... in slot
 * order; hierarchical plans keep each group on one node; the largest GPU
 * load is finite and not below the lower bound; with one scenario best
 * is never above deepseek or waterfill.  An error is one line.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "moekit.h"
#include "eplb/eplb.h"
#include "moe/loads.h"

static void
check_layer(const struct mk_eplb_cfg *c, const int64_t *phy, const int64_t *rk,
    const int64_t *cnt, const double *w)
{
	int64_t *seen = calloc((size_t)c->E + 1, sizeof(int64_t));
	char *used = calloc((size_t)c->R, 1);
	int slot, x, per_node = c->R / c->N, gsize = c->E / c->K;
	double mean, top;

	FUZZ_CHECK(seen != NULL && used != NULL);
	for (slot = 0; slot < c->R; slot++) {
		FUZZ_CHECK(phy[slot] >= 0 && phy[slot] < c->E);
		seen[phy[slot] + 1]++;
	}
	for (x = 0; x < c->E; x++)
		FUZZ_CHECK(cnt[x] >= 1 && cnt[x] == seen[x + 1]);
	/* an expert's replica ranks are 0 .. cnt - 1, each once */
	for (x = 0; x < c->E; x++)
		seen[x + 1] += seen[x];
	for (slot = 0; slot < c->R; slot++) {
		FUZZ_CHECK(rk[slot] >= 0 && rk[slot] < cnt[phy[slot]]);
		FUZZ_CHECK(!used[seen[phy[slot]] + rk[slot]]);
		used[seen[phy[slot]] + rk[slot]] = 1;
	}
	free(used);
	/* hierarchical: every slot of a group's experts on one node */
	if (c->hier) {
		int g, node;

		for (g = 0; g < c->K; g++) {
			node = -1;
			for (slot = 0; slot < c->R; slot++)
				if (phy[slot] / gsize == g) {
					FUZZ_CHECK(node < 0 ||
					    node == slot / per_node);
					node = slot / per_node;
				}
		}
	}
	top = mk_eplb_max_load(c, w, phy, cnt, &mean);
	FUZZ_CHECK(isfinite(top) && top >= 0);
	FUZZ_CHECK(top >= mk_eplb_lower_bound(c, w) * (1 - 1e-9) - 1e-300);
	free(seen);
}

/* The configuration from the input's last bytes; 0 if it is unusable. */
static int
configure(struct mk_eplb_cfg *c, int *policy, const uint8_t *b, int E)
{
	int gpn = 1 + b[1] % 8, S, k;

	memset(c, 0, sizeof(*c));
	c->E = E;
	c->algo = b[0] % 3;
	c->N = 1 + (b[0] / 3) % 4;
	c->G = c->N * gpn;
	S = (E + c->G - 1) / c->G + b[2] % 4;
	c->R = S * c->G;
	/* groups: the largest divisor of E up to 1 + b[3] % 16 */
	for (k = 1 + b[3] % 16; k > 1 && E % k != 0; k--)
		;
	c->K = k;
	c->effort = 4 + b[4] % 16;
	c->objective = b[4] >> 7;
	*policy = b[1] / 8 % 3;
	return c->R <= 4096;
}

static void
run(const uint8_t *data, size_t size, size_t drip)
{
	static const uint8_t zero[6];
	const uint8_t *b = size >= 6 ? data + size - 6 : zero;
	int history = 1 + b[5] % 3, policy, l, algo;
	struct mk_eplb_out out[3];
	struct mk_eplb_cfg c;
	struct mk_loads ld;
	struct mk_src *s;
	struct mk_err e;
	double top[3], mean;
	size_t off;
	int r;

	if ((s = mk_src_mem(data, size, "fuzz", drip)) == NULL)
		return;
	e.msg[0] = '\0';
	r = mk_loads_read(s, history > 1 ? 1 : 0, history, &ld, &e);
	mk_src_close(s);
	if (r != 0) {
		FUZZ_CHECK(e.msg[0] != '\0' && strchr(e.msg, '\n') == NULL);
		return;
	}
	if (mk_loads_finish(&ld, 1, &e) != 0 || ld.E > 512 ||
	    (size_t)ld.L * (size_t)ld.E > 8192 ||
	    !configure(&c, &policy, b, ld.E)) {
		mk_loads_free(&ld);
		return;
	}
	if (mk_eplb_config(&c, policy, &e) != 0) {
		FUZZ_CHECK(e.msg[0] != '\0' && strchr(e.msg, '\n') == NULL);
		mk_loads_free(&ld);
		return;
	}
	/* the asked algorithm, then (one scenario) the other two */
	for (algo = 0; algo < 3; algo++) {
		struct mk_eplb_cfg ca = c;

		ca.algo = algo;
		if (algo != c.algo && ld.S > 1)
			continue;
		FUZZ_CHECK(mk_eplb_plan_all(&(struct mk_eplb_problem){ .c =
		    &ca, .w = ld.w, .S = ld.S, .L = ld.L }, &out[algo], &e) ==
		    0);
		top[algo] = 0;
		for (l = 0; l < ld.L; l++) {
			off = (size_t)l * (size_t)c.R;
			/* each scenario's loads against the same plan */
			for (r = 0; r < ld.S; r++)
				check_layer(&ca, out[algo].phy2log + off,
				    out[algo].rank + off, out[algo].cnt +
				    (size_t)l * (size_t)c.E, ld.w +
				    ((size_t)r * (size_t)ld.L + (size_t)l) *
				    (size_t)c.E);
			if (ld.S == 1)
				top[algo] += mk_eplb_max_load(&ca, ld.w +
				    (size_t)l * (size_t)c.E, out[algo].phy2log
				    + off, out[algo].cnt + (size_t)l *
				    (size_t)c.E, &mean);
		}
	}
	if (ld.S == 1)
		FUZZ_CHECK(top[MK_EPLB_BEST] <= fmin(top[MK_EPLB_DEEPSEEK],
		    top[MK_EPLB_WATERFILL]) * (1 + 1e-9));
	for (algo = 0; algo < 3; algo++)
		if (algo == c.algo || ld.S == 1)
			mk_eplb_out_free(&out[algo]);
	mk_loads_free(&ld);
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	run(data, size, 0);
	return 0;
}
