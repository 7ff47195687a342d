/*
 * replay_state.c - what the ideal loop (eplb_replay.c) and the engines'
 * (eplb_engine.c) both do to a configuration's state: a step's loads, the
 * shares of the placement serving now, a step's score (replay_impl.h).
 */
#include <string.h>

#include "eplb/eplb.h"
#include "eplb/replay_impl.h"

const double *
replay_step(const struct replay_state *s, int t, double *row)
{
	const struct mk_replay_log *g = s->log;

	if (g->w != NULL)
		return g->w + (size_t)t * (size_t)g->L * (size_t)g->E;
	g->step(g->sctx, t, row);
	return row;
}

int64_t
replay_charge(struct replay_state *s, int l, const int64_t *p, int u,
    int host, struct mk_replay_res *res)
{
	const struct mk_replay_cfg *rc = s->rc;
	const int R = rc->c.R;
	const int64_t *cur = s->p2l + (size_t)l * R;
	const struct mk_eplb_side a = { cur, R, rc->c.G, NULL };
	const struct mk_eplb_side b = { p, R, rc->c.G, NULL };
	struct mk_eplb_moves m;
	struct mk_eplb_xfer x;
	int r;

	mk_eplb_migration(&rc->c, cur, p, &m);
	if (m.changed == 0 || u < rc->score_from)
		return m.changed;
	res->moves += m.changed;
	res->copies += host ? m.changed : m.copies;
	if (host) {
		for (r = 0; r < R; r++)
			s->hostg[r / (R / rc->c.G)] += cur[r] != p[r];
		return m.changed;
	}
	res->copies_inter += m.inter;
	mk_eplb_xfer(s->xw, &a, &b, rc->c.E, rc->expert_bytes, rc->link_gbps,
	    &x);
	res->transfers += x.transfers;
	res->batches += x.batches;
	res->move_s += x.move_s;
	return m.changed;
}

void
replay_host_done(struct replay_state *s, struct mk_replay_res *res)
{
	const struct mk_replay_cfg *rc = s->rc;
	int64_t most = 0;
	double copy;
	int g;

	for (g = 0; g < rc->c.G; g++) {
		most = s->hostg[g] > most ? s->hostg[g] : most;
		s->hostg[g] = 0;
	}
	if (rc->link_gbps <= 0)
		return;
	/* the copies overlap the step's MoE; the step waits for the rest */
	copy = (double)most * rc->expert_bytes * 8 / (rc->link_gbps * 1e9) -
	    rc->moe_ms / 1e3;
	if (copy > 0)
		res->move_s += copy;
}

void
replay_shares(struct replay_state *s, int l)
{
	const int R = s->rc->c.R, E = s->rc->c.E;
	const int64_t *p = s->p2l + (size_t)l * R;
	int i;

	memset(s->cnt, 0, sizeof(int64_t) * (size_t)E);
	for (i = 0; i < R; i++)
		s->cnt[p[i]]++;
	for (i = 0; i < R; i++) {
		s->ex[(size_t)l * R + i] = (int32_t)p[i];
		s->inv[(size_t)l * R + i] = 1.0 / (double)s->cnt[p[i]];
	}
}

void
replay_score(const struct replay_state *s, const double *row, double *max,
    double *mean, double *slot)
{
	const struct mk_eplb_cfg *c = &s->rc->c;
	const int L = s->log->L, R = c->R, G = c->G, per = R / G;
	double m = 0, tot = 0, load, top, v;
	int l, g, j;

	for (l = 0; l < L; l++) {
		const double *w = row + (size_t)l * c->E;
		const int32_t *ex = s->ex + (size_t)l * R;
		const double *inv = s->inv + (size_t)l * R;
		double *sl = slot != NULL ? slot + (size_t)l * R : NULL;

		for (top = 0, g = 0; g < G; g++) {
			for (load = 0, j = g * per; j < g * per + per; j++) {
				v = w[ex[j]] * inv[j];
				load += v;
				if (sl != NULL)
					sl[j] = v;
			}
			tot += load;
			top = load > top ? load : top;
		}
		m += top;
	}
	*max = m;
	*mean = tot / G;
}
