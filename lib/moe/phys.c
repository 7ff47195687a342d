/*
 * phys.c - routing logical expert ids to physical slots through an
 * eplb-plan phy2log row; see phys.h.
 */
#include <stdlib.h>
#include <string.h>

#include "moe/phys.h"

void
mk_moe_phys_free(struct mk_moe_phys *m)
{
	free(m->first);
	free(m->cnt);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

int
mk_moe_phys_init(struct mk_moe_phys *m, const int64_t *row, int P, int E,
    const char *what, struct mk_err *e)
{
	int p, x, *fill;

	memset(m, 0, sizeof(*m));
	m->P = P;
	m->E = E;
	m->first = calloc((size_t)E + 1, sizeof(int));
	m->cnt = calloc((size_t)E + 1, sizeof(int));
	m->slots = malloc(sizeof(int) * ((size_t)P + 1));
	fill = calloc((size_t)E + 1, sizeof(int));
	if (!m->first || !m->cnt || !m->slots || !fill) {
		free(fill);
		mk_moe_phys_free(m);
		return mk_err_data(e, "out of memory");
	}
	for (p = 0; p < P; p++) {
		if (row[p] < 0 || row[p] >= E) {
			free(fill);
			mk_moe_phys_free(m);
			return mk_err_data(e, "%s: slot %d holds expert %lld, "
			    "not in [0, %d)", what, p, (long long)row[p], E);
		}
		m->cnt[row[p]]++;
	}
	for (x = 0; x < E; x++) {
		if (m->cnt[x] == 0) {
			free(fill);
			mk_moe_phys_free(m);
			return mk_err_data(e, "%s: expert %d has no replica", what,
			    x);
		}
		m->first[x + 1] = m->first[x] + m->cnt[x];
	}
	/* ascending slot order within each expert */
	for (p = 0; p < P; p++)
		m->slots[m->first[row[p]] + fill[row[p]]++] = p;
	free(fill);
	return 0;
}

/* out: in's shape with i32 ids, loaded (in was: see trace.h). */
static void
i32_step(const struct mk_moe_step *in, struct mk_moe_step *out)
{
	*out = *in;
	out->load = NULL;
	out->ctx = NULL;
	out->elem = 4;
}

int
mk_moe_phys_map(const struct mk_moe_phys *m, const struct mk_moe_step *in,
    struct mk_moe_step *out, int32_t **bufs, int lenient, const char *where,
    struct mk_err *e)
{
	int64_t t, x, pos;
	int r, j, K = in->K;

	i32_step(in, out);
	for (r = 0; r < in->R; r++) {
		for (t = 0; t < in->T[r]; t++)
			for (j = 0; j < K; j++) {
				pos = t * K + j;
				x = in->elem == 4 ?
				    ((const int32_t *)in->ids[r])[pos] :
				    ((const int64_t *)in->ids[r])[pos];
				if (x >= 0 && x < m->E) {
					bufs[r][pos] = m->slots[m->first[x] +
					    pos % m->cnt[x]];
				} else if (x == -1 || lenient) {
					bufs[r][pos] = -1;
				} else {
					return mk_err_data(e, "%srank %d, "
					    "token %lld, slot %d: logical expert "
					    "%lld is not in [0, %d)", where, r,
					    (long long)t, j, (long long)x,
					    m->E);
				}
			}
		out->ids[r] = bufs[r];
	}
	return 0;
}

void
mk_moe_step_narrow(const struct mk_moe_step *in, struct mk_moe_step *out,
    int32_t **bufs)
{
	const int64_t *x;
	int64_t i, n;
	int r;

	i32_step(in, out);
	for (r = 0; r < in->R; r++) {
		x = in->ids[r];
		n = in->T[r] * in->K;
		/* two's complement wrap, as CUDA's conversion does */
		for (i = 0; i < n; i++)
			bufs[r][i] = (int32_t)(uint32_t)(uint64_t)x[i];
		out->ids[r] = bufs[r];
	}
}
