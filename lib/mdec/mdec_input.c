/*
 * mdec_input.c - mdecode's inputs and outputs: reading q, k, v and the
 * mask (one stream, or a file each) and the paged cache's block table and
 * lengths, and the outputs converted to the dtype asked for.  What the
 * shapes mean is mdec_setup.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fp8.h"
#include "simd/kern.h"
#include "mdec/mdec.h"
#include "tensor/stream.h"
#include "tensor/tensor.h"

/* The names of the inputs, in stream order, then the paged cache's. */
static const char *const tname[MK_MDEC_NIN] = { "q", "k", "v", "mask",
    "the block table", "the lengths" };
static const char *const topt[MK_MDEC_NIN] = { "-q", "-k", "-v", "-m",
    "--block-table", "--seq-lens" };

/* Fail with e unless s holds nothing more (-q -k -v -m take one each). */
static int
no_more(struct mk_src *s, const char *what, struct mk_err *e)
{
	struct mk_tensor extra;
	int r;

	mk_tensor_init(&extra);
	r = mk_src_next(s, &extra, e);
	mk_tensor_free(&extra);
	if (r > 0)
		return mk_err_data(e, "%s", what);
	return r < 0 ? -1 : 0;
}

/*
 * The names an archive's members may have, for q, k, v and the mask
 * (moekit's, and what torch and vLLM users call them).  torch's attn_mask is
 * not among them: True there means attend, here masked out.
 */
static const char *const names[4][5] = {
	{ "q", "query", NULL },
	{ "k", "key", "k_cache", "key_cache", NULL },
	{ "v", "value", "v_cache", "value_cache", NULL },
	{ "mask", NULL },
};

/* Which input a member named name is (0..3), or -1. */
static int
role(const char *name)
{
	int i, j;

	for (i = 0; i < 4; i++)
		for (j = 0; names[i][j] != NULL; j++)
			if (strcmp(name, names[i][j]) == 0)
				return i;
	return -1;
}

/*
 * Put named tensors got[0..n) in their places q, k, v, mask: every name
 * must be one of names[], once.  Returns 0, or -1 with e.
 */
static int
by_name(struct mk_mdec_io *io, struct mk_tensor *got, int n, int nov,
    const char *src, struct mk_err *e)
{
	int i, r, have[4] = { -1, -1, -1, -1 };

	for (i = 0; i < n; i++) {
		if ((r = role(got[i].name)) < 0)
			return mk_err_data(e, "%s: a member named \"%s\": mdecode "
			    "takes q (or query), k (key, k_cache, key_cache), v "
			    "(value, v_cache, value_cache) and mask (true: "
			    "masked out; torch's attn_mask means the opposite)",
			    src, got[i].name);
		if (have[r] >= 0)
			return mk_err_data(e, "%s: \"%s\" and \"%s\" are both %s",
			    src, got[have[r]].name, got[i].name, tname[r]);
		if (r == 2 && nov)
			return mk_err_data(e, "%s: a member \"%s\": with --v-dim "
			    "V is part of K, and no v is read", src,
			    got[i].name);
		have[r] = i;
	}
	for (r = 0; r < 3; r++)
		if (have[r] < 0 && !(r == 2 && nov))
			return mk_err_data(e, "%s: no member for %s (named %s, "
			    "or %s)", src, tname[r], names[r][0], names[r][1]);
	for (r = 0; r < 4; r++) {
		if (have[r] < 0)
			continue;
		io->t[r] = got[have[r]];
		mk_tensor_init(&got[have[r]]);
		snprintf(io->name[r], sizeof(io->name[r]), "%s: %s", src,
		    io->t[r].name);
	}
	io->has_mask = have[3] >= 0;
	return 0;
}

/*
 * q, k, v[, mask] as one stream (q, k[, mask] with --v-dim: nov): by name
 * where its tensors have names (an .npz), else in this order.
 */
static int
read_stream(struct mk_mdec_io *io, const char *file, int nov,
    struct mk_err *e)
{
	struct mk_tensor got[5];
	struct mk_src *s;
	int r = 0, n, i, named = 0;

	for (i = 0; i < 5; i++)
		mk_tensor_init(&got[i]);
	if ((s = mk_src_open(file, e)) == NULL)
		return -1;
	for (n = 0; n < 5; n++) {
		if ((r = mk_src_next(s, &got[n], e)) <= 0)
			break;
		named += got[n].name != NULL;
	}
	if (r >= 0 && n >= 5 - nov)
		r = mk_err_data(e, "%s: a %s tensor: mdecode reads q, k, %sand "
		    "an optional mask", mk_src_name(s), nov ? "fourth" :
		    "fifth", nov ? "(--v-dim: no v) " : "v ");
	else if (r >= 0 && named > 0 && named < n)
		r = mk_err_data(e, "%s: some tensors are named and some not: "
		    "name all (q, k, v, mask) or none (then in that order)",
		    mk_src_name(s));
	else if (r >= 0 && named > 0)
		r = by_name(io, got, n, nov, mk_src_name(s), e);
	else if (r >= 0 && n < 3 - nov)
		r = mk_err_data(e, "%s: %d tensor%s: mdecode reads q, k, %sand "
		    "an optional mask", mk_src_name(s), n, n == 1 ? "" : "s",
		    nov ? "(--v-dim: no v) " : "v ");
	else if (r >= 0) {
		for (i = 0; i < n; i++) {
			/* with --v-dim the third tensor is the mask */
			int to = nov && i == 2 ? 3 : i;

			io->t[to] = got[i];
			mk_tensor_init(&got[i]);
			snprintf(io->name[to], sizeof(io->name[to]), "%s: "
			    "tensor %d (%s)", mk_src_name(s), i, tname[to]);
		}
		io->has_mask = n == 4 - nov;
	}
	for (i = 0; i < 5; i++)
		mk_tensor_free(&got[i]);
	mk_src_close(s);
	return r < 0 ? -1 : 0;
}

/* -q, -k, -v [-m], --block-table, --seq-lens: a tensor in each file. */
static int
read_files(struct mk_mdec_io *io, const char *const path[MK_MDEC_NIN],
    int from, struct mk_err *e)
{
	struct mk_src *s;
	char what[300];
	int i, r;

	for (i = from; i < MK_MDEC_NIN; i++) {
		if (path[i] == NULL)
			continue;
		if ((s = mk_src_open(path[i], e)) == NULL)
			return -1;
		snprintf(io->name[i], sizeof(io->name[i]), "%s",
		    mk_src_name(s));
		snprintf(what, sizeof(what), "%s: more than one tensor: %s "
		    "takes a file holding %s alone", mk_src_name(s),
		    topt[i], tname[i]);
		r = mk_src_next(s, &io->t[i], e) < 0 ? -1 : no_more(s, what, e);
		mk_src_close(s);
		if (r < 0)
			return -1;
	}
	if (from == 0)
		io->has_mask = path[3] != NULL;
	return 0;
}

/*
 * vLLM's MLA cache is [blocks, block_size, 576], one latent row a
 * position: with a block table, a 3-dimensional k is that, read as
 * [blocks, block_size, 1, D].
 */
static void
paged_3d(struct mk_tensor *k, int paged)
{
	if (!paged || k->ndim != 3)
		return;
	k->shape[3] = k->shape[2];
	k->shape[2] = 1;
	k->ndim = 4;
}

int
mk_mdec_load(struct mk_mdec_io *io, const char *file,
    const char *const path[MK_MDEC_NIN], const struct mk_mdec_in *in,
    struct mk_err *e)
{
	const struct mk_tensor *tp[MK_MDEC_NIN];
	const char *np[MK_MDEC_NIN];
	int i;

	memset(io, 0, sizeof(*io));
	for (i = 0; i < MK_MDEC_NIN; i++)
		mk_tensor_init(&io->t[i]);
	if ((path[0] == NULL ? read_stream(io, file, in->v_dim > 0, e) :
	    read_files(io, path, 0, e)) < 0 ||
	    read_files(io, path, 4, e) < 0)
		return -1;
	for (i = 0; i < MK_MDEC_NIN; i++) {
		tp[i] = i < 3 || (i == 3 && io->has_mask) || (i > 3 &&
		    path[i] != NULL) ? &io->t[i] : NULL;
		np[i] = io->name[i];
	}
	io->vscale = 1;
	if (in->v_dim > 0) {
		/* MLA: V is K's own rows, read where K is; out keeps DV */
		paged_3d(&io->t[1], path[4] != NULL);
		tp[2] = &io->t[1];
		np[2] = io->name[1];
	}
	if (mk_mdec_setup(&io->p, tp, np, in, e) < 0)
		return -1;
	if (in->v_dim > 0 && in->v_dim > io->p.D)
		return mk_err_usage(e, "--v-dim %d: larger than K's rows of %d "
		    "(%s)", in->v_dim, io->p.D, io->name[1]);
	if (in->v_dim > 0)
		io->p.dv = in->v_dim;
	if (in->fp8 != MK_FP8_NONE) {
		/* real K = bytes x k_scale: the scores scale by it, out by
		 * v's; with --v-dim V is K's own bytes, so out takes K's */
		io->p.scale *= in->kscale > 0 ? in->kscale : 1;
		io->vscale = in->v_dim > 0 ? (in->kscale > 0 ? in->kscale :
		    1) : in->vscale > 0 ? in->vscale : 1;
	}
	return mk_mdec_scores_fit(&io->p, io->name[0], e);
}

int
mk_mdec_compute(struct mk_mdec_io *io, int threads, int out_dtype,
    struct mk_err *e)
{
	size_t bh = (size_t)io->p.B * (size_t)io->p.QH * (size_t)(io->p.Q > 1 ?
	    io->p.Q : 1), n, j;
	int i;

	n = bh * (size_t)io->p.D;
	/* K, V and the mask read in place from files: the pages read, once */
	for (i = 1; i < 4; i++) {
		if (io->t[i].buf == NULL || io->t[i].buf->mapped !=
		    MK_BUF_FILE)
			continue;
		if (i < 3)
			mk_mdec_populate_kv(&io->p, io->t[i].data,
			    mk_tensor_nbytes(&io->t[i]), threads);
		else
			mk_mdec_populate(io->t[i].data,
			    mk_tensor_nbytes(&io->t[i]), threads);
	}
	if ((io->lse = malloc(bh * sizeof(float))) == NULL ||
	    (io->out = malloc(n * sizeof(float))) == NULL)
		return mk_err_data(e, "out of memory for the outputs");
	if (mk_mdec_run(&io->p, NULL, threads, io->lse, io->out, e) < 0)
		return -1;
	for (j = 0; io->vscale != 1 && j < n; j++)
		io->out[j] *= (float)io->vscale;
	if (mk_mdec_dv(&io->p) < io->p.D) {
		/* --v-dim: the first DV of each row (the rest weighed K's
		 * rotary part) */
		for (j = 0; j < bh; j++)
			memmove(io->out + j * (size_t)io->p.dv, io->out + j *
			    (size_t)io->p.D, (size_t)io->p.dv * sizeof(float));
		n = bh * (size_t)io->p.dv;
	}
	io->out_dtype = out_dtype >= 0 ? out_dtype : io->p.qdtype;
	if (io->out_dtype == MK_F32) {
		io->odata = io->out;
		return 0;
	}
	if ((io->half = malloc(n * 2 + 2)) == NULL)
		return mk_err_data(e, "out of memory for the outputs");
	if (io->out_dtype == MK_F16)
		mk_kern()->f32_to_f16(io->half, io->out, n);
	else
		mk_kern()->f32_to_bf16(io->half, io->out, n);
	io->odata = io->half;
	return 0;
}

void
mk_mdec_io_free(struct mk_mdec_io *io)
{
	int i;

	mk_mdec_forget(&io->p);
	free(io->lse);
	free(io->out);
	free(io->half);
	for (i = 0; i < MK_MDEC_NIN; i++)
		mk_tensor_free(&io->t[i]);
	memset(io, 0, sizeof(*io));
}
