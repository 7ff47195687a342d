/*
 * eplb_prev_run.c - eplb-plan's plan before (--prev), on the GPUs it was
 * made for or carried onto others: the survivors of --lost-gpus, or a
 * group of another size (--prev-gpus).  See mk_eplb_prevs_read.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "eplb/eplb_carry.h"
#include "eplb/eplb_run.h"
#include "moe/loads.h"
#include "moe/plan.h"

/*
 * The survivors' group: GPU g of OLD becomes the id[g]-th survivor; nodes
 * that keep GPUs stay nodes where each keeps as many (hierarchical plans
 * need alike nodes), else the plan is global, said in a note.
 */
static void
survivors(struct mk_eplb_plan_job *o, int *id, struct mk_eplb_prevs *p)
{
	const int G = o->cfg.G, N = o->cfg.N, gpn = G / N;
	const int k = mk_eplb_survivors(G, o->lost, o->nlost, id);
	int g, n, left, per = -1, alike = 1, nodes = 0;
	struct mk_eplb_cfg c = o->cfg;
	struct mk_err e;

	for (n = 0; n < N; n++) {
		for (left = 0, g = n * gpn; g < (n + 1) * gpn; g++)
			left += id[g] >= 0;
		if (left == 0)
			continue;
		nodes++;
		alike &= per < 0 || left == per;
		per = left;
	}
	c.G = k;
	c.R = o->cfg.R / G * k;
	c.N = alike ? nodes : 1;
	if (mk_eplb_config(&c, o->policy, &e) < 0 && o->policy ==
	    MK_EPLB_AUTO && c.N > 1) {
		c.N = 1;
		if (mk_eplb_config(&c, o->policy, &e) < 0)
			mk_usage_error("--lost-gpus: the survivors: %s", e.msg);
	} else if (c.R == 0 || mk_eplb_config(&c, o->policy, &e) < 0) {
		mk_usage_error("--lost-gpus: the survivors: %s", e.msg);
	}
	if (o->cfg.hier && !c.hier)
		snprintf(p->note_policy, sizeof(p->note_policy), "--lost-gpus: "
		    "the nodes keep %s GPUs: the plan on the survivors is "
		    "global", alike ? "too few" : "unlike numbers of");
	o->cfg = c;
}

/* Old GPU g is new GPU g, where there is one (--prev-gpus). */
static void
regroup(const struct mk_eplb_plan_job *o, int *id)
{
	int g;

	for (g = 0; g < o->prev_gpus; g++)
		id[g] = g < o->cfg.G ? g : -1;
}

/*
 * Append "layer L: a b c" (its missing experts) to buf, as many as fit
 * with room for " ..."; returns 0 once cut.
 */
static int
add_layer(char *buf, size_t size, int layer, const int *miss, int n)
{
	size_t off = strlen(buf), was = off;
	int i, w;

	w = snprintf(buf + off, size - off, "%slayer %d:", off > 0 ? "; " :
	    "", layer);
	if (w < 0 || off + (size_t)w + 5 >= size) {
		buf[was] = '\0';
		return 0;
	}
	off += (size_t)w;
	for (i = 0; i < n; i++) {
		w = snprintf(buf + off, size - off, " %d", miss[i]);
		if (w < 0 || off + (size_t)w + 5 >= size) {
			buf[off] = '\0';
			return 0;
		}
		off += (size_t)w;
	}
	return 1;
}

/* One line naming the experts that lost every copy, layer by layer. */
static void
lost_note(const struct mk_eplb_plan_job *o, const struct mk_loads *ld,
    struct mk_eplb_prevs *p)
{
	char buf[400];
	int *miss = malloc(sizeof(int) * ((size_t)o->cfg.E + 1));
	int l, n, total = 0, layers = 0, cut = 0;

	if (miss == NULL)
		err(MK_EXIT_DATA, NULL);
	buf[0] = '\0';
	for (l = 0; l < ld->L; l++) {
		n = mk_eplb_missing(p->rows + (size_t)l * (size_t)o->cfg.R,
		    o->cfg.R, o->cfg.E, miss);
		if (n < 0)
			err(MK_EXIT_DATA, NULL);
		if (n == 0)
			continue;
		total += n;
		layers++;
		if (!cut && !add_layer(buf, sizeof(buf), ld->layer[l], miss, n))
			cut = 1;
	}
	free(miss);
	if (total > 0)
		snprintf(p->note, sizeof(p->note), "--%s: %d expert%s in %d "
		    "layer%s had no copy %s (%s%s); each takes a slot",
		    o->nlost ? "lost-gpus" : "prev-gpus",
		    total, total == 1 ? "" : "s", layers, layers == 1 ? "" :
		    "s", o->nlost ? "left" : "on the GPUs kept", buf, cut ?
		    " ..." : "");
}

void
mk_eplb_prevs_read(struct mk_eplb_plan_job *o, const struct mk_loads *ld,
    struct mk_eplb_prevs *p)
{
	struct mk_phy2log pl = { 0 };
	struct mk_eplb_carry k;
	struct mk_err e;
	const size_t L = (size_t)ld->L;
	int64_t *least;
	int l;

	memset(p, 0, sizeof(*p));
	e.msg[0] = '\0';
	if (mk_phy2log_read(o->prev, "--prev", &pl, &e) < 0)
		mk_fail(NULL, &e);
	p->R_old = o->cfg.R;
	p->G_old = o->cfg.G;
	/* a plan that does not fit the options is an unusable plan: 1 */
	if (o->prev_gpus > 0) {
		p->R_old = pl.R;
		p->G_old = o->prev_gpus;
		if (pl.R % o->prev_gpus != 0)
			mk_err_data(&e, "--prev-gpus %d: %s's %d slots a layer do "
			    "not split over %d GPUs", o->prev_gpus, o->prev,
			    pl.R, o->prev_gpus);
	} else if (o->nlost == 0 && pl.R != o->cfg.R) {
		mk_err_data(&e, "--prev %s: its plan has %d slots a layer, not "
		    "%d: for another group of GPUs, --prev-gpus names its GPUs",
		    o->prev, pl.R, o->cfg.R);
	} else if (pl.R != o->cfg.R) {
		mk_err_data(&e, "--prev %s: its plan has %d slots a layer, not "
		    "-r's %d (with --lost-gpus, -r and -G describe the plan "
		    "before the loss)", o->prev, pl.R, o->cfg.R);
	}
	if (p->R_old % p->G_old != 0 || pl.R != p->R_old)
		mk_fail(NULL, &e);
	if ((p->old = mk_phy2log_rows(&pl, ld->L, ld->L0, ld->layer, p->R_old,
	    o->cfg.E, &e)) == NULL)
		mk_fail(NULL, &e);
	if (o->nlost == 0 && o->prev_gpus == 0) {
		p->rows = p->whole = p->old;
		return;
	}
	if ((p->id = malloc(sizeof(int) * (size_t)p->G_old)) == NULL)
		err(MK_EXIT_DATA, NULL);
	if (o->nlost > 0)
		survivors(o, p->id, p);
	else
		regroup(o, p->id);
	k = (struct mk_eplb_carry){ p->R_old, p->G_old, p->id, o->cfg.R,
	    o->cfg.G };
	p->rows = malloc(sizeof(int64_t) * L * (size_t)o->cfg.R + 1);
	p->whole = malloc(sizeof(int64_t) * L * (size_t)o->cfg.R + 1);
	least = malloc(sizeof(int64_t) * L + 1);
	if (p->rows == NULL || p->whole == NULL || least == NULL)
		err(MK_EXIT_DATA, NULL);
	mk_eplb_carry_rows(&k, p->old, ld->L, p->rows);
	memcpy(p->whole, p->rows, sizeof(int64_t) * L * (size_t)o->cfg.R);
	if (mk_eplb_repair(&o->cfg, ld->w, ld->S, ld->L, p->whole, least,
	    &e) < 0)
		mk_fail(NULL, &e);
	for (l = 0; l < ld->L; l++)
		p->least += least[l];
	free(least);
	lost_note(o, ld, p);
}

void
mk_eplb_prevs_free(struct mk_eplb_prevs *p)
{
	if (p->whole != p->old)
		free(p->whole);
	if (p->rows != p->old)
		free(p->rows);
	free(p->old);
	free(p->id);
	memset(p, 0, sizeof(*p));
}
