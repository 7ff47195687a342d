/* eplb_sglang.c - a plan as SGLang loads it; see mk_eplb_sglang_write. */
#include <stdio.h>
#include <stdlib.h>

#include "eplb/eplb.h"

/* Slot p of a layer not planned: expert p mod E, as SGLang starts. */
static int64_t
trivial(const struct mk_eplb_cfg *c, int p)
{
	return p % c->E;
}

void
mk_eplb_sglang_write(FILE *fp, const struct mk_eplb_cfg *c,
    const struct mk_eplb_out *plan, const int *layer, int L0)
{
	const int64_t *row;
	int i, l = 0, p;

	fputs("{\"physical_to_logical_map\": [", fp);
	for (i = 0; i < L0; i++) {
		row = l < plan->L && layer[l] == i ? plan->phy2log + (size_t)l++ *
		    (size_t)c->R : NULL;
		fputs(i ? ",\n[" : "\n[", fp);
		for (p = 0; p < c->R; p++)
			fprintf(fp, p ? ", %lld" : "%lld", row != NULL ?
			    (long long)row[p] : (long long)trivial(c, p));
		fputc(']', fp);
	}
	fputs("\n]}\n", fp);
}

int
mk_eplb_out_every_layer(const struct mk_eplb_cfg *c,
    const struct mk_eplb_out *plan, const int *layer, int L0, int width_max,
    struct mk_eplb_out *out, struct mk_err *e)
{
	int64_t *p2l;
	int i, l = 0, p, r;

	if ((p2l = malloc(sizeof(*p2l) * (size_t)L0 * (size_t)c->R)) == NULL)
		return mk_err_data(e, "out of memory for a plan of %d layers",
		    L0);
	for (i = 0; i < L0; i++) {
		int64_t *dst = p2l + (size_t)i * (size_t)c->R;
		const int64_t *row = l < plan->L && layer[l] == i ?
		    plan->phy2log + (size_t)l++ * (size_t)c->R : NULL;

		for (p = 0; p < c->R; p++)
			dst[p] = row != NULL ? row[p] : trivial(c, p);
	}
	r = mk_eplb_out_from(c, p2l, L0, width_max, out, e);
	free(p2l);
	return r;
}
