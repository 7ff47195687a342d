/* eplb_carry.c - a plan carried onto other GPUs; see eplb_carry.h. */
#include <stdlib.h>
#include <string.h>

#include "eplb/eplb_carry.h"

int
mk_eplb_survivors(int G, const int *lost, int nlost, int *id)
{
	int g, i, k = 0;

	for (g = 0; g < G; g++)
		id[g] = 0;
	for (i = 0; i < nlost; i++)
		if (lost[i] >= 0 && lost[i] < G)
			id[lost[i]] = -1;
	for (g = 0; g < G; g++)
		id[g] = id[g] < 0 ? -1 : k++;
	return k;
}

void
mk_eplb_carry_rows(const struct mk_eplb_carry *k, const int64_t *old, int L,
    int64_t *rows)
{
	const int so = k->R_old / k->G_old, sn = k->R / k->G;
	const int keep = so < sn ? so : sn;
	int l, g, s;

	for (l = 0; l < L; l++) {
		int64_t *dst = rows + (size_t)l * (size_t)k->R;
		const int64_t *src = old + (size_t)l * (size_t)k->R_old;

		for (s = 0; s < k->R; s++)
			dst[s] = -1;
		for (g = 0; g < k->G_old; g++)
			if (k->id[g] >= 0 && k->id[g] < k->G)
				for (s = 0; s < keep; s++)
					dst[k->id[g] * sn + s] = src[g * so + s];
	}
}

int
mk_eplb_missing(const int64_t *row, int R, int E, int *out)
{
	unsigned char *held = calloc((size_t)E + 1, 1);
	int r, e, n = 0;

	if (held == NULL)
		return -1;
	for (r = 0; r < R; r++)
		if (row[r] >= 0 && row[r] < E)
			held[row[r]] = 1;
	for (e = 0; e < E; e++)
		if (!held[e])
			out[n++] = e;
	free(held);
	return n;
}

/* One layer being repaired. */
struct fix {
	int	 R, G, E, per;
	int64_t	*row;		/* [R] */
	double	*load;		/* [E] summed over scenarios */
	int64_t	*cnt;		/* [E] replicas */
	double	*gl, *tmp;	/* [G] GPU loads, scratch */
};

static void
gpu_loads(struct fix *f)
{
	int j;

	memset(f->gl, 0, sizeof(double) * (size_t)f->G);
	for (j = 0; j < f->R; j++)
		if (f->row[j] >= 0)
			f->gl[j / f->per] += f->load[f->row[j]] /
			    (double)f->cnt[f->row[j]];
}

static double
busiest(const double *gl, int G)
{
	double m = 0;
	int g;

	for (g = 0; g < G; g++)
		m = gl[g] > m ? gl[g] : m;
	return m;
}

/* The empty slot on the least loaded GPU, or -1. */
static int
empty_slot(const struct fix *f)
{
	int j, best = -1;

	for (j = 0; j < f->R; j++)
		if (f->row[j] < 0 && (best < 0 || f->gl[j / f->per] <
		    f->gl[best / f->per]))
			best = j;
	return best;
}

/* The busiest GPU's load once slot j, of a spare copy, holds e. */
static double
after_swap(struct fix *f, int j, int e)
{
	const int64_t x = f->row[j];
	const double was = f->load[x] / (double)f->cnt[x];
	const double now = f->load[x] / (double)(f->cnt[x] - 1);
	int k;

	memcpy(f->tmp, f->gl, sizeof(double) * (size_t)f->G);
	for (k = 0; k < f->R; k++)
		if (f->row[k] == x)
			f->tmp[k / f->per] += now - was;
	f->tmp[j / f->per] += f->load[e] - now;
	return busiest(f->tmp, f->G);
}

/*
 * Where missing expert e goes: an empty slot, else a spare copy's (one
 * there is: R >= E slots all full, and an expert missing).
 */
static int
slot_for(struct fix *f, int e)
{
	int j, best = empty_slot(f);
	double v, bv = 0;

	if (best >= 0)
		return best;
	for (j = 0; j < f->R; j++) {
		if (f->cnt[f->row[j]] < 2)
			continue;
		v = after_swap(f, j, e);
		if (best < 0 || v < bv) {
			best = j;
			bv = v;
		}
	}
	return best;
}

/* The missing experts, heaviest first (ties: the lower id). */
static void
by_load(const double *load, int *ex, int n)
{
	int i, k, x;

	for (i = 1; i < n; i++)
		for (x = ex[i], k = i; k > 0 && (load[ex[k - 1]] < load[x] ||
		    (load[ex[k - 1]] == load[x] && ex[k - 1] > x)); k--)
			ex[k] = ex[k - 1], ex[k - 1] = x;
}

/* Layer l of rows repaired (f's buffers sized); its changed slots. */
static int64_t
repair_layer(struct fix *f, int *miss)
{
	int64_t changed = 0;
	int n, i, j, e;

	memset(f->cnt, 0, sizeof(int64_t) * (size_t)f->E);
	for (j = 0; j < f->R; j++)
		if (f->row[j] >= 0)
			f->cnt[f->row[j]]++;
	for (n = 0, e = 0; e < f->E; e++)
		if (f->cnt[e] == 0)
			miss[n++] = e;
	by_load(f->load, miss, n);
	gpu_loads(f);
	for (i = 0; i < n; i++) {
		j = slot_for(f, miss[i]);
		if (f->row[j] >= 0)
			f->cnt[f->row[j]]--;
		f->row[j] = miss[i];
		f->cnt[miss[i]] = 1;
		changed++;
		gpu_loads(f);
	}
	/* the empty slots left: the heaviest replicas split further */
	while ((j = empty_slot(f)) >= 0) {
		for (e = 0, i = 1; i < f->E; i++)
			if (f->load[i] * (double)f->cnt[e] > f->load[e] *
			    (double)f->cnt[i])
				e = i;
		f->row[j] = e;
		f->cnt[e]++;
		changed++;
		gpu_loads(f);
	}
	return changed;
}

int
mk_eplb_repair(const struct mk_eplb_cfg *c, const double *w, int S, int L,
    int64_t *rows, int64_t *least, struct mk_err *e)
{
	struct fix f = { .R = c->R, .G = c->G, .E = c->E, .per = c->R / c->G };
	int *miss = malloc(sizeof(int) * ((size_t)c->E + 1));
	int l, s, x, rc = 0;

	if (c->R < c->E) {
		free(miss);
		return mk_err_data(e, "%d slots a layer cannot hold %d experts",
		    c->R, c->E);
	}
	f.load = malloc(sizeof(double) * ((size_t)c->E + 1));
	f.cnt = malloc(sizeof(int64_t) * ((size_t)c->E + 1));
	f.gl = malloc(sizeof(double) * 2 * ((size_t)c->G + 1));
	if (miss == NULL || f.load == NULL || f.cnt == NULL || f.gl == NULL) {
		rc = mk_err_data(e, "out of memory repairing %d layers", L);
		goto out;
	}
	f.tmp = f.gl + c->G + 1;
	for (l = 0; l < L; l++) {
		memset(f.load, 0, sizeof(double) * (size_t)c->E);
		for (s = 0; s < S; s++)
			for (x = 0; x < c->E; x++)
				f.load[x] += w[((size_t)s * L + l) * (size_t)c->E +
				    (size_t)x];
		f.row = rows + (size_t)l * (size_t)c->R;
		least[l] = repair_layer(&f, miss);
	}
out:
	free(miss);
	free(f.load);
	free(f.cnt);
	free(f.gl);
	return rc;
}
