/* eplb_xfer.c - transfers and their batches; see eplb_xfer.h. */
#include <stdlib.h>
#include <string.h>

#include "eplb/eplb_xfer.h"

struct mk_eplb_xfer_work {
	int		 G, E;
	unsigned char	*had, *has;	/* [G][E] held before, after */
	int		*flow_of;	/* [G][G] index into the flows, -1 */
	int		*src, *dst;	/* [G*G] the flows, in order */
	int64_t		*n;		/* [G*G] their transfers */
	int		*batch;		/* [G*G] each flow's batch */
	unsigned char	*busy;		/* [G*G][G] GPUs of each batch */
	int64_t		*load;		/* [G*G] transfers of each batch */
	int64_t		*most;		/* [G*G] the largest flow of each */
	int64_t		*ops;		/* [G] P2P operations of each GPU */
	int		*snd, *rcv;	/* [G] an expert's senders, receivers */
};

void
mk_eplb_xfer_work_free(struct mk_eplb_xfer_work *w)
{
	if (w == NULL)
		return;
	free(w->had);
	free(w->flow_of);
	free(w->src);
	free(w->n);
	free(w->busy);
	free(w->load);
	free(w->ops);
	free(w);
}

struct mk_eplb_xfer_work *
mk_eplb_xfer_work(int G, int E)
{
	struct mk_eplb_xfer_work *w = calloc(1, sizeof(*w));
	size_t g = (size_t)G, gg = g * g;

	if (w == NULL)
		return NULL;
	w->G = G;
	w->E = E;
	w->had = malloc(2 * g * (size_t)E + 1);
	w->flow_of = malloc(sizeof(int) * (gg + 1));
	w->src = malloc(sizeof(int) * (3 * gg + 2 * g + 1));
	w->n = malloc(sizeof(int64_t) * (gg + 1));
	w->busy = malloc(gg * g + 1);
	w->load = malloc(sizeof(int64_t) * (2 * gg + 1));
	w->ops = malloc(sizeof(int64_t) * (g + 1));
	if (!w->had || !w->flow_of || !w->src || !w->n || !w->busy ||
	    !w->load || !w->ops) {
		mk_eplb_xfer_work_free(w);
		return NULL;
	}
	w->has = w->had + g * (size_t)E;
	w->dst = w->src + gg;
	w->batch = w->dst + gg;
	w->snd = w->batch + gg;
	w->rcv = w->snd + g;
	w->most = w->load + gg;
	return w;
}

/* Mark what side s's GPUs hold into h[G][E]. */
static void
hold(const struct mk_eplb_xfer_work *w, const struct mk_eplb_side *s,
    unsigned char *h)
{
	int r, g, per = s->R / s->G;

	memset(h, 0, (size_t)w->G * (size_t)w->E);
	for (r = 0; r < s->R; r++) {
		g = s->id != NULL ? s->id[r / per] : r / per;
		if (g >= 0 && g < w->G && s->p2l[r] >= 0 && s->p2l[r] < w->E)
			h[(size_t)g * w->E + (size_t)s->p2l[r]] = 1;
	}
}

/* One transfer src -> dst: its flow, made at its first transfer. */
static void
send(struct mk_eplb_xfer_work *w, int *nflows, int src, int dst)
{
	int *f = &w->flow_of[(size_t)src * w->G + dst];

	if (*f < 0) {
		*f = (*nflows)++;
		w->src[*f] = src;
		w->dst[*f] = dst;
		w->n[*f] = 0;
	}
	w->n[*f]++;
	w->ops[src]++;
	w->ops[dst]++;
}

/* Each flow into the first batch where neither GPU is busy. */
static int64_t
batch_flows(struct mk_eplb_xfer_work *w, int nflows)
{
	int f, b, nb = 0;
	size_t G = (size_t)w->G;

	for (f = 0; f < nflows; f++) {
		for (b = 0; b < nb && (w->busy[(size_t)b * G + w->src[f]] ||
		    w->busy[(size_t)b * G + w->dst[f]]); b++)
			;
		if (b == nb) {
			memset(w->busy + (size_t)b * G, 0, G);
			w->load[b] = w->most[b] = 0;
			nb++;
		}
		w->busy[(size_t)b * G + w->src[f]] = 1;
		w->busy[(size_t)b * G + w->dst[f]] = 1;
		w->batch[f] = b;
		w->load[b] += w->n[f];
		if (w->n[f] > w->most[b])
			w->most[b] = w->n[f];
	}
	return nb;
}

void
mk_eplb_xfer(struct mk_eplb_xfer_work *w, const struct mk_eplb_side *old,
    const struct mk_eplb_side *new_, int E, double expert_bytes,
    double gbps, struct mk_eplb_xfer *x)
{
	int e, g, ns, nr, i, k, q, rem, nflows = 0, G = w->G;
	int64_t b;

	memset(x, 0, sizeof(*x));
	hold(w, old, w->had);
	hold(w, new_, w->has);
	for (i = 0; i < G * G; i++)
		w->flow_of[i] = -1;
	memset(w->ops, 0, sizeof(int64_t) * (size_t)G);
	for (e = 0; e < E && e < w->E; e++) {
		for (g = 0, ns = nr = 0; g < G; g++) {
			if (w->had[(size_t)g * w->E + e])
				w->snd[ns++] = g;
			else if (w->has[(size_t)g * w->E + e])
				w->rcv[nr++] = g;
		}
		if (nr == 0)
			continue;
		if (ns == 0) {
			x->reloads += nr;
			continue;
		}
		/* blocks of nr / ns, then the rest one each to the first */
		q = nr / ns;
		rem = nr % ns;
		for (i = 0; i < ns; i++)
			for (k = 0; k < q; k++)
				send(w, &nflows, w->snd[i], w->rcv[i * q + k]);
		for (i = 0; i < rem; i++)
			send(w, &nflows, w->snd[i], w->rcv[ns * q + i]);
		x->transfers += nr;
	}
	x->batches = batch_flows(w, nflows);
	for (b = 0; b < x->batches; b++) {
		if (w->load[b] > x->max_batch)
			x->max_batch = w->load[b];
		if (gbps > 0)
			x->move_s += (double)w->most[b] * expert_bytes * 8 /
			    (gbps * 1e9);
	}
	for (g = 0; g < G; g++)
		if (w->ops[g] > x->p2p_ops)
			x->p2p_ops = w->ops[g];
	x->p2p_chunks = (x->p2p_ops + 31) / 32;
}

int
mk_eplb_xfer_write(FILE *fp, const struct mk_eplb_xfer_table *t,
    struct mk_err *e)
{
	struct mk_eplb_xfer_work *w;
	struct mk_eplb_side a, b;
	struct mk_eplb_xfer x;
	int l, G = t->G;

	/* the shared numbering: the new plan's GPUs, and any old GPU id */
	for (l = 0; t->id != NULL && l < t->G_old; l++)
		G = t->id[l] >= G ? t->id[l] + 1 : G;
	if (t->id == NULL && t->G_old > G)
		G = t->G_old;
	if ((w = mk_eplb_xfer_work(G, t->E)) == NULL)
		return mk_err_data(e, "out of memory for the transfers of %d "
		    "GPUs", G);
	fprintf(fp, "layer,transfers,batches,max_batch_transfers,bytes,"
	    "sglang_p2p_ops,sglang_p2p_chunks,reloads\n");
	for (l = 0; l < t->L; l++) {
		a = (struct mk_eplb_side){ t->old + (size_t)l * t->R_old,
		    t->R_old, t->G_old, t->id };
		b = (struct mk_eplb_side){ t->new_ + (size_t)l * t->R, t->R,
		    t->G, NULL };
		mk_eplb_xfer(w, &a, &b, t->E, 0, 0, &x);
		fprintf(fp, "%d,%lld,%lld,%lld,", t->layer ? t->layer[l] : l,
		    (long long)x.transfers, (long long)x.batches,
		    (long long)x.max_batch);
		if (t->expert_bytes > 0)
			fprintf(fp, "%.17g", (double)x.transfers *
			    t->expert_bytes);
		fprintf(fp, ",%lld,%lld,%lld\n", (long long)x.p2p_ops,
		    (long long)x.p2p_chunks, (long long)x.reloads);
	}
	mk_eplb_xfer_work_free(w);
	return 0;
}
