/*
 * replay_lost.c - eplb-replay --lose-gpu STEP:LIST: GPUs lost while a
 * configuration serves.  At STEP the placement serving then is carried
 * onto the survivors and repaired with the fewest changes (eplb_carry.h,
 * weighed on the step before's loads), and the survivors' balancedness
 * is scored from STEP until the engine's next re-plan first serves a
 * changed placement (or the log ends): what the survivors keep until the
 * engine acts.  The replay itself goes on as if nothing was lost.
 */
#include <stdlib.h>
#include <string.h>

#include "eplb/eplb_carry.h"
#include "eplb/replay_impl.h"

void
replay_lose_snap(struct replay_state *s, int t)
{
	const struct mk_replay_cfg *rc = s->rc;

	if (rc->nlose > 0 && t == rc->lose_step && s->lost != NULL)
		memcpy(s->lost, s->p2l, sizeof(int64_t) * (size_t)s->log->L *
		    (size_t)rc->c.R);
}

/* The step the next re-plan after `from` first serves (T: none). */
static int
next_change(const struct mk_replay_cfg *rc, const int64_t *moved, int from,
    int T)
{
	/* the ideal loop's moves serve their step; an engine's the next */
	const int after = rc->engine != MK_ENGINE_IDEAL;
	int t;

	for (t = from + !after; t < T; t++)
		if (moved[t] > 0)
			return t + after < T ? t + after : T;
	return T;
}

/* The survivors' group of c: c.R / c.G slots each, global. */
static void
survivors(const struct mk_replay_cfg *rc, struct mk_eplb_cfg *c, int *id)
{
	const int k = mk_eplb_survivors(rc->c.G, rc->lose, rc->nlose, id);

	*c = rc->c;
	c->G = k;
	c->R = rc->c.R / rc->c.G * k;
	c->N = c->K = 1;
	c->hier = 0;
}

/* Step t's largest and mean GPU load of placement p on c, over layers. */
static void
score(const struct mk_eplb_cfg *c, const double *w, int L, const int64_t *p,
    int64_t *cnt, double *max, double *mean)
{
	double m;
	int l, r;

	*max = *mean = 0;
	for (l = 0; l < L; l++) {
		const int64_t *row = p + (size_t)l * (size_t)c->R;

		memset(cnt, 0, sizeof(int64_t) * (size_t)c->E);
		for (r = 0; r < c->R; r++)
			cnt[row[r]]++;
		*max += mk_eplb_max_load(c, w + (size_t)l * (size_t)c->E, row,
		    cnt, &m);
		*mean += m;
	}
}

int
replay_lost(struct replay_state *s, const int64_t *moved,
    struct mk_replay_res *res, struct mk_err *e)
{
	const struct mk_replay_cfg *rc = s->rc;
	const struct mk_replay_log *log = s->log;
	const int L = log->L, T = log->T, u = rc->lose_step;
	struct mk_eplb_cfg c;
	struct mk_eplb_carry k;
	int64_t *rows, *least, *cnt;
	int *id, *miss, end, t, l, r = -1;
	double *buf, max, mean, smax = 0, smean = 0;
	const double *w;

	id = malloc(sizeof(int) * ((size_t)rc->c.G + 1));
	if (id == NULL)
		return mk_err_data(e, "out of memory replaying a loss");
	survivors(rc, &c, id);
	k = (struct mk_eplb_carry){ rc->c.R, rc->c.G, id, c.R, c.G };
	rows = malloc(sizeof(int64_t) * (size_t)L * (size_t)c.R + 1);
	least = malloc(sizeof(int64_t) * (size_t)L + 1);
	cnt = malloc(sizeof(int64_t) * ((size_t)c.E + 1));
	miss = malloc(sizeof(int) * ((size_t)c.E + 1));
	buf = malloc(sizeof(double) * (size_t)L * (size_t)c.E + 1);
	if (!rows || !least || !cnt || !miss || !buf) {
		mk_err_data(e, "out of memory replaying a loss");
		goto out;
	}
	mk_eplb_carry_rows(&k, s->lost, L, rows);
	for (l = 0; l < L; l++) {
		t = mk_eplb_missing(rows + (size_t)l * (size_t)c.R, c.R, c.E,
		    miss);
		res->lost_experts += t > 0 ? t : 0;
	}
	/* repaired as the engine would know: on the step before's loads */
	w = replay_step(s, u > 0 ? u - 1 : 0, buf);
	if (mk_eplb_repair(&c, w, 1, L, rows, least, e) < 0)
		goto out;
	end = next_change(rc, moved, u, T);
	for (t = u; t < end; t++) {
		score(&c, replay_step(s, t, buf), L, rows, cnt, &max, &mean);
		smax += max;
		smean += mean;
	}
	res->lost_steps = end - u;
	res->lost_balancedness = smax > 0 ? smean / smax : 1;
	r = 0;
out:
	free(id);
	free(rows);
	free(least);
	free(cnt);
	free(miss);
	free(buf);
	return r;
}
