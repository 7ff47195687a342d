/*
 * plan_write.c - a plan as each engine loads it (moe/plan.h): SGLang's
 * --init-expert-location JSON, vLLM's initial-mapping JSON line,
 * TensorRT-LLM's load-balancer YAML.
 */
#include <stdio.h>

#include "moe/plan.h"

/* Row l's P experts as "[a, b, c]". */
static void
row(FILE *fp, const int64_t *p, int R)
{
	int i;

	fputc('[', fp);
	for (i = 0; i < R; i++)
		fprintf(fp, i ? ", %lld" : "%lld", (long long)p[i]);
	fputc(']', fp);
}

void
mk_moe_write_sglang(FILE *fp, const struct mk_moe_plan_rows *p)
{
	const int64_t *r;
	int i, l = 0, s;

	fputs("{\"physical_to_logical_map\": [", fp);
	for (i = 0; i < p->L0; i++) {
		r = l < p->L && p->layer[l] == i ? p->phy2log + (size_t)l++ *
		    (size_t)p->R : NULL;
		fputs(i ? ",\n" : "\n", fp);
		if (r != NULL) {
			row(fp, r, p->R);
			continue;
		}
		/* a layer not planned: SGLang's trivial map */
		fputc('[', fp);
		for (s = 0; s < p->R; s++)
			fprintf(fp, s ? ", %d" : "%d", s % p->E);
		fputc(']', fp);
	}
	fputs("\n]}\n", fp);
}

void
mk_moe_write_vllm(FILE *fp, const struct mk_moe_plan_rows *p)
{
	int l;

	fprintf(fp, "{\"record_type\": \"eplb_initial_mapping\", \"version\": "
	    "1, \"num_redundant_experts\": %d, \"num_slots\": %d, "
	    "\"initial_global_assignments\": {", p->R - p->E, p->R);
	for (l = 0; l < p->L; l++) {
		fprintf(fp, "%s\"%d\": ", l ? ", " : "", l);
		row(fp, p->phy2log + (size_t)l * (size_t)p->R, p->R);
	}
	fputs("}}\n", fp);
}

void
mk_moe_write_trtllm(FILE *fp, const struct mk_moe_plan_rows *p)
{
	int l;

	fputs("initial_global_assignments:\n", fp);
	for (l = 0; l < p->L; l++) {
		fprintf(fp, "  %d: ", p->layer[l]);
		row(fp, p->phy2log + (size_t)l * (size_t)p->R, p->R);
		fputc('\n', fp);
	}
	fprintf(fp, "layer_updates_per_iter: %d\nnum_slots: %d\n",
	    p->updates, p->R);
}
