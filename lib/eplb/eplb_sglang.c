/* eplb_sglang.c - a plan as SGLang loads it; see mk_eplb_sglang_write. */
#include <stdio.h>

#include "eplb/eplb.h"

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
			    (long long)row[p] : (long long)(p % c->E));
		fputc(']', fp);
	}
	fputs("\n]}\n", fp);
}
