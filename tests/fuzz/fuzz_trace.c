/*
 * fuzz_trace - whole a2a-layout runs: a routing trace (NPY or CSV, [S, R,
 * T, K] or [R, T, K]) through the job a2a-layout drives, read at once and
 * in drips, with the style, experts per rank, channels, alignment,
 * --lenient, --max-tokens and --rank taken from the input's last bytes so
 * corpus files stay plain traces.  Invariants, against a count made here
 * from the same trace: DeepEP's tokens_per_rank (a token counts once per
 * rank it reaches); per receiver, the tokens received are the column sums;
 * the channel prefixes end at the counts and never decrease.  An error is
 * one line.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "moekit.h"
#include "a2a/a2a_job.h"
#include "moe/jsonl.h"

/*
 * The trace as plain integers [S][R][T][K] (dims[0..3]; dims[4]: bytes
 * per id), or NULL if it is not one.
 */
static int64_t *
ids_of(const uint8_t *data, size_t size, int64_t *dims)
{
	struct mk_tensor t;
	struct mk_src *s;
	struct mk_err e;
	int64_t *ids = NULL;
	size_t i;
	int n;

	if ((s = mk_src_mem(data, size, "ref", 0)) == NULL)
		return NULL;
	mk_tensor_init(&t);
	if (mk_src_next(s, &t, &e) == 1 && (t.ndim == 3 || t.ndim == 4) &&
	    t.dtype != MK_F16 && t.dtype != MK_F32 && t.dtype != MK_F64 &&
	    t.dtype != MK_BF16 && t.nelem <= (1u << 20)) {
		n = t.ndim;
		dims[0] = n == 4 ? t.shape[0] : 1;
		dims[1] = t.shape[n - 3];
		dims[2] = t.shape[n - 2];
		dims[3] = t.shape[n - 1];
		dims[4] = (int64_t)mk_dtype_size(t.dtype);
		if ((ids = malloc(sizeof(int64_t) * (t.nelem + 1))) != NULL)
			for (i = 0; i < t.nelem; i++)
				ids[i] = mk_value_load(t.data, t.dtype, i).i;
	}
	mk_tensor_free(&t);
	mk_src_close(s);
	return ids;
}

/*
 * The step's counts, as DeepEP's layout kernel defines them; with
 * --lenient, int64 ids are read as its static_cast<int> reads them (the
 * low 32 bits, signed).
 */
static void
check_step(const struct mk_a2a_cfg *c, const int64_t *ids, int64_t T,
    int narrow, const struct mk_a2a_group *g)
{
	int R = c->R, K = c->K, per = c->E / c->R, src, d, j;
	int32_t *want = calloc((size_t)R * (size_t)R, sizeof(int32_t));
	int64_t t, x, col;
	char *hit = malloc((size_t)R);

	FUZZ_CHECK(want != NULL && hit != NULL);
	for (src = 0; src < R; src++)
		for (t = 0; t < T; t++) {
			memset(hit, 0, (size_t)R);
			for (j = 0; j < K; j++) {
				x = ids[((size_t)src * (size_t)T + (size_t)t) *
				    (size_t)K + (size_t)j];
				if (narrow)
					x = (int32_t)(uint32_t)x;
				if (x >= 0 && x < c->E)
					hit[x / per] = 1;
			}
			for (d = 0; d < R; d++)
				want[src * R + d] += hit[d];
		}
	for (d = 0; d < R; d++) {
		col = 0;
		for (src = 0; src < R; src++) {
			FUZZ_CHECK(g->tokens_per_rank[src * R + d] ==
			    want[src * R + d]);
			col += want[src * R + d];
			for (j = 1; j < c->C; j++)
				FUZZ_CHECK(g->chan_prefix[((size_t)src * R +
				    d) * c->C + j] >= g->chan_prefix[((size_t)
				    src * R + d) * c->C + j - 1]);
			FUZZ_CHECK(g->chan_prefix[((size_t)src * R + d) * c->C +
			    c->C - 1] == want[src * R + d]);
		}
		if (R <= 8)
			FUZZ_CHECK(g->recv_tokens[d] == col);
	}
	free(want);
	free(hit);
}

static void
run(const uint8_t *data, size_t size, size_t drip, const int64_t *ids,
    const int64_t *dims)
{
	static const uint8_t zero[4];
	const uint8_t *b = size >= 4 ? data + size - 4 : zero;
	struct mk_a2a_job_opts o;
	struct mk_a2a_sizing sz;
	struct mk_a2a_view v;
	struct mk_a2a_job *j;
	struct mk_src *s;
	struct mk_err e;
	int r, steps = 0;

	memset(&o, 0, sizeof(o));
	memset(&sz, 0, sizeof(sz));
	sz.hidden = 7168;
	sz.hidden_bytes = 2 * 7168;
	sz.num_sms = 2 + 2 * (b[0] % 12);
	o.cfg.style = b[0] / 128 ? MK_A2A_TRITON : MK_A2A_DEEPEP;
	o.cfg.E = (dims ? (int)dims[1] : 8) * (1 + b[1] % 8);
	o.cfg.C = sz.num_sms / 2;
	o.cfg.align = 1 + b[1] / 32;
	o.cfg.lenient = b[2] & 1;
	o.cfg.threads = 1;
	o.rank = (b[2] >> 1) % 4 == 0 ? 0 : -1;
	o.step = o.rank == 0 && dims && dims[0] > 1 ? 0 : -1;
	o.max_tokens = b[3] % 3 == 0 ? 1 + b[3] : 0;
	o.sizing = &sz;
	if ((s = mk_src_mem(data, size, "fuzz", drip)) == NULL)
		return;
	e.msg[0] = '\0';
	if ((j = mk_a2a_job_open(&o, s, &e)) != NULL) {
		while ((r = mk_a2a_job_next(j, &v, &e)) > 0) {
			const struct mk_a2a_cfg *c = mk_a2a_job_cfg(j);

			FUZZ_CHECK(v.step == steps);
			/* forms the count here does not read (2-D) are
			 * only run */
			if (ids != NULL && c->style == MK_A2A_DEEPEP &&
			    dims[3] == c->K && dims[1] == c->R)
				check_step(c, ids + (size_t)steps *
				    (size_t)(dims[1] * dims[2] * dims[3]),
				    dims[2], c->lenient && dims[4] == 8, v.g);
			steps++;
		}
		FUZZ_CHECK(r == 0 || (e.msg[0] != '\0' &&
		    strchr(e.msg, '\n') == NULL));
		mk_a2a_job_close(j);
	} else {
		FUZZ_CHECK(e.msg[0] != '\0' && strchr(e.msg, '\n') == NULL);
	}
	mk_src_close(s);
}

/*
 * Routing records (JSON lines): made into a trace, whose NPY bytes then
 * run as any trace does; an error is one line.
 */
static void
jsonl(const uint8_t *data, size_t size)
{
	struct mk_moe_jsonl o = { "layer", "problem_id", "token_idx",
	    "experts", 1 + (size ? data[0] % 8 : 0), size > 1 && data[1] & 1 };
	int64_t dims[5], *ids;
	struct mk_src *s;
	struct mk_err e;
	void *npy;
	size_t n;

	if ((s = mk_src_mem(data, size, "fuzz.jsonl", size % 7)) == NULL)
		return;
	e.msg[0] = '\0';
	if (mk_moe_jsonl_trace(s, &o, &npy, &n, &e) == 0) {
		ids = ids_of(npy, n, dims);
		FUZZ_CHECK(ids != NULL && dims[1] == o.R);
		run(npy, n, 0, ids, dims);
		free(ids);
		free(npy);
	} else {
		FUZZ_CHECK(e.msg[0] != '\0' && strchr(e.msg, '\n') == NULL);
	}
	mk_src_close(s);
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	int64_t dims[5];
	int64_t *ids;

	if (size > 0 && (data[0] == '{' || data[0] == ' ')) {
		jsonl(data, size);
		return 0;
	}
	ids = ids_of(data, size, dims);

	run(data, size, 0, ids, ids ? dims : NULL);
	run(data, size, 1 + (size * 31 + (size ? data[size / 2] : 0)) % 61,
	    ids, ids ? dims : NULL);
	free(ids);
	return 0;
}
