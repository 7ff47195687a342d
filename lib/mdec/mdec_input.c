/*
 * mdec_input.c - mdecode's inputs and outputs: reading q, k, v and the
 * mask (one stream, or a file each), turning them into a problem (the
 * layouts of SPEC §6, the shape checks and their messages), and the
 * outputs converted to the dtype asked for.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simd/kern.h"
#include "mdec/mdec.h"
#include "tensor/stream.h"
#include "tensor/tensor.h"

/* The dtype t's data holds for attention, or -1 if it cannot be used. */
static int
attn_dtype(const struct mk_tensor *t, const struct mk_mdec_in *in)
{
	switch (t->dtype) {
	case MK_F16:
	case MK_BF16:
	case MK_F32:
		return t->dtype;
	case MK_U16:
		return in->bf16 ? MK_BF16 : -1;
	default:
		return -1;
	}
}

static int
bad_dtype(struct mk_err *e, const char *name, const struct mk_tensor *t,
    const struct mk_mdec_in *in)
{
	if (t->dtype == MK_U16 && !in->bf16)
		return mk_err_data(e, "%s: dtype u16: give --dtype bf16 if it "
		    "holds bf16 bits (f16, bf16 and f32 are read)", name);
	return mk_err_data(e, "%s: dtype %s: q, k and v must be f16, bf16 "
	    "or f32", name, mk_dtype_name(t->dtype));
}

static const char *
shape(char *buf, size_t n, const struct mk_tensor *t)
{
	return mk_shape_str(buf, n, t->ndim, t->shape);
}

/* q [B, QH, 1, D] or [B, QH, D]: B, QH and D. */
static int
check_q(const struct mk_tensor *q, const char *name, struct mk_mdec *p,
    struct mk_err *e)
{
	char sh[128];

	if (q->ndim == 4 && q->shape[2] != 1)
		return mk_err_data(e, "%s: q has shape %s: one query token per "
		    "sequence is decoded (dimension 2 must be 1)", name,
		    shape(sh, sizeof(sh), q));
	if (q->ndim != 3 && q->ndim != 4)
		return mk_err_data(e, "%s: q has shape %s: expected "
		    "[B, QH, 1, D] or [B, QH, D]", name,
		    shape(sh, sizeof(sh), q));
	if (q->shape[0] < 1 || q->shape[1] < 1 || q->shape[q->ndim - 1] < 1)
		return mk_err_data(e, "%s: q has shape %s: B, QH and D must be "
		    "at least 1", name, shape(sh, sizeof(sh), q));
	if (q->shape[0] > INT32_MAX || q->shape[1] > INT32_MAX ||
	    q->shape[q->ndim - 1] > 65536)
		return mk_err_data(e, "%s: q has shape %s: too large (B and QH "
		    "at most %d, D at most 65536)", name,
		    shape(sh, sizeof(sh), q), INT32_MAX);
	p->B = (int)q->shape[0];
	p->QH = (int)q->shape[1];
	p->D = (int)q->shape[q->ndim - 1];
	return 0;
}

/* KV cache: k, v [B, KH, M, D], mask [B, KH, M'] with M' >= V. */
static int
check_cache(const struct mk_tensor *const t[4], const char *const name[4],
    const struct mk_mdec_in *in, struct mk_mdec *p, struct mk_err *e)
{
	const struct mk_tensor *k = t[1], *m = t[3];
	char sh[128], sq[128];
	int i;

	if (k->shape[0] != p->B || k->shape[3] != p->D)
		return mk_err_data(e, "%s: k has shape %s, q %s: a KV cache "
		    "must be [B, KH, M, D] with q's B = %d and D = %d",
		    name[1], shape(sh, sizeof(sh), k),
		    shape(sq, sizeof(sq), t[0]), p->B, p->D);
	if (k->shape[1] < 1 || k->shape[1] > INT32_MAX || k->shape[2] < 1)
		return mk_err_data(e, "%s: k has shape %s: KH and M must be at "
		    "least 1", name[1], shape(sh, sizeof(sh), k));
	for (i = 0; i < 4; i++)
		if (t[2]->shape[i] != k->shape[i])
			return mk_err_data(e, "%s: v has shape %s, k %s: they "
			    "must be equal", name[2],
			    shape(sh, sizeof(sh), t[2]),
			    shape(sq, sizeof(sq), k));
	if (in->kv_heads > 0 && in->kv_heads != k->shape[1])
		return mk_err_usage(e, "--kv-heads %d: k (%s) has %lld kv "
		    "heads", in->kv_heads, shape(sh, sizeof(sh), k),
		    (long long)k->shape[1]);
	p->KH = (int)k->shape[1];
	p->layout = MK_MDEC_BHMD;
	p->M = k->shape[2];
	p->V = in->valid > 0 ? in->valid : k->shape[2];
	if (p->V > k->shape[2])
		return mk_err_usage(e, "--valid-length %lld: larger than the "
		    "cache's M = %lld (k %s)", (long long)p->V,
		    (long long)k->shape[2], shape(sh, sizeof(sh), k));
	if (m == NULL)
		return 0;
	if (m->ndim != 3 || m->shape[0] != p->B || m->shape[1] != p->KH ||
	    m->shape[2] < p->V)
		return mk_err_data(e, "%s: mask has shape %s: with a KV cache "
		    "it must be [B, KH, M] = [%d, %d, >= %lld]", name[3],
		    shape(sh, sizeof(sh), m), p->B, p->KH, (long long)p->V);
	p->mrow = m->shape[2];
	return 0;
}

/* Flat buffers, as the seed reads them: the first B*KH*V*D elements. */
static int
check_flat(const struct mk_tensor *const t[4], const char *const name[4],
    const struct mk_mdec_in *in, struct mk_mdec *p, struct mk_err *e)
{
	const struct mk_tensor *k = t[1], *v = t[2], *m = t[3];
	int64_t per, need;
	char sh[128];

	if (in->kv_heads <= 0)
		return mk_err_usage(e, "%s: k is a flat buffer (%s): give "
		    "--kv-heads KH (a KV cache [B, KH, M, D] names it)",
		    name[1], shape(sh, sizeof(sh), k));
	if (v->ndim != 1)
		return mk_err_data(e, "%s: v has shape %s: k is flat, so v "
		    "must be too", name[2], shape(sh, sizeof(sh), v));
	p->KH = in->kv_heads;
	per = (int64_t)p->B * p->KH * p->D;	/* elements per position */
	if (in->valid > 0) {
		p->V = in->valid;
	} else if (k->shape[0] % per == 0 && k->shape[0] > 0) {
		p->V = k->shape[0] / per;
	} else {
		return mk_err_usage(e, "%s: k has %lld elements, not a "
		    "multiple of B*KH*D = %lld: give --valid-length",
		    name[1], (long long)k->shape[0], (long long)per);
	}
	if (p->V > INT64_MAX / per || (need = per * p->V) > k->shape[0] ||
	    need > v->shape[0])
		return mk_err_data(e, "%s: k has %lld and v %lld elements; "
		    "--valid-length %lld needs B*KH*V*D = %d*%d*%lld*%d",
		    name[1], (long long)k->shape[0], (long long)v->shape[0],
		    (long long)p->V, p->B, p->KH, (long long)p->V, p->D);
	p->layout = MK_MDEC_BHMD;
	p->M = p->V;
	if (m == NULL)
		return 0;
	if (m->ndim != 1 || m->shape[0] < (int64_t)p->B * p->KH * p->V)
		return mk_err_data(e, "%s: mask has shape %s: with flat k and "
		    "v it must be flat with at least B*KH*V = %lld elements",
		    name[3], shape(sh, sizeof(sh), m),
		    (long long)p->B * p->KH * p->V);
	p->mrow = p->V;
	return 0;
}

int
mk_mdec_setup(struct mk_mdec *p, const struct mk_tensor *const t[4],
    const char *const name[4], const struct mk_mdec_in *in,
    struct mk_err *e)
{
	const struct mk_tensor *q = t[0], *k = t[1], *v = t[2], *m = t[3];
	int qd, kd, vd;
	float *qf;
	size_t n, i;

	memset(p, 0, sizeof(*p));
	if ((qd = attn_dtype(q, in)) < 0)
		return bad_dtype(e, name[0], q, in);
	if ((kd = attn_dtype(k, in)) < 0)
		return bad_dtype(e, name[1], k, in);
	if ((vd = attn_dtype(v, in)) < 0)
		return bad_dtype(e, name[2], v, in);
	if (kd != vd)
		return mk_err_data(e, "%s: v is %s but k is %s: they must "
		    "have one dtype", name[2], mk_dtype_name(vd),
		    mk_dtype_name(kd));
	if (in->dtype >= 0 && kd != in->dtype)
		return mk_err_data(e, "%s: k and v are %s, not the --dtype "
		    "%s asked for", name[1], mk_dtype_name(kd),
		    mk_dtype_name(in->dtype));
	if (m != NULL && m->dtype != MK_BOOL && m->dtype != MK_U8)
		return mk_err_data(e, "%s: mask has dtype %s: it must be bool "
		    "or u8 (nonzero = masked out)", name[3],
		    mk_dtype_name(m->dtype));
	if (check_q(q, name[0], p, e) < 0)
		return -1;
	if (v->ndim != k->ndim)
		return mk_err_data(e, "%s: v has %d dimensions, k %d", name[2],
		    v->ndim, k->ndim);
	if (k->ndim == 4 ? check_cache(t, name, in, p, e) :
	    k->ndim == 1 ? check_flat(t, name, in, p, e) :
	    mk_err_data(e, "%s: k has %d dimensions: expected a KV cache "
	    "[B, KH, M, D] or a flat buffer (with --kv-heads)", name[1],
	    k->ndim))
		return -1;
	if (p->QH % p->KH != 0)
		return mk_err_data(e, "%s: q has %d heads, not a multiple of "
		    "the %d kv heads (grouped-query attention needs QH %% KH "
		    "== 0)", name[0], p->QH, p->KH);
	p->dtype = kd;
	p->scale = in->has_scale ? in->scale : 1.0 / sqrt((double)p->D);
	p->k = k->data;
	p->v = v->data;
	p->mask = m != NULL ? m->data : NULL;
	n = (size_t)p->B * (size_t)p->QH * (size_t)p->D;
	if ((qf = malloc(n * sizeof(float))) == NULL)
		return mk_err_data(e, "out of memory for q");
	switch (qd) {
	case MK_F16:
		mk_kern()->f16_to_f32(qf, q->data, n);
		break;
	case MK_BF16:
		mk_kern()->bf16_to_f32(qf, q->data, n);
		break;
	default:
		for (i = 0; i < n; i++)
			qf[i] = ((const float *)q->data)[i];
		break;
	}
	p->q = qf;
	p->qdtype = qd;
	return 0;
}

/* The names of the four inputs, in stream order. */
static const char *const tname[4] = { "q", "k", "v", "mask" };

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

/* q, k, v[, mask] as one stream. */
static int
read_stream(struct mk_mdec_io *io, const char *file, struct mk_err *e)
{
	struct mk_src *s;
	char what[300];
	int r = 0, n;

	if ((s = mk_src_open(file, e)) == NULL)
		return -1;
	for (n = 0; n < 4; n++) {
		if ((r = mk_src_next(s, &io->t[n], e)) <= 0)
			break;
		snprintf(io->name[n], sizeof(io->name[n]), "%s: tensor %d (%s)",
		    mk_src_name(s), n, tname[n]);
	}
	if (r >= 0 && n < 3)
		r = mk_err_data(e, "%s: %d tensor%s: mdecode reads q, k, v and "
		    "an optional mask", mk_src_name(s), n, n == 1 ? "" : "s");
	snprintf(what, sizeof(what), "%s: a fifth tensor: mdecode reads q, k, "
	    "v and an optional mask", mk_src_name(s));
	if (r >= 0 && n == 4)
		r = no_more(s, what, e);
	io->has_mask = n == 4;
	mk_src_close(s);
	return r < 0 ? -1 : 0;
}

/* -q, -k, -v [-m]: one tensor in each file. */
static int
read_files(struct mk_mdec_io *io, const char *const path[4],
    struct mk_err *e)
{
	struct mk_src *s;
	char what[300];
	int i, r;

	for (i = 0; i < 4; i++) {
		if (path[i] == NULL)
			continue;
		if ((s = mk_src_open(path[i], e)) == NULL)
			return -1;
		snprintf(io->name[i], sizeof(io->name[i]), "%s",
		    mk_src_name(s));
		snprintf(what, sizeof(what), "%s: more than one tensor: -%c "
		    "takes a file holding %s alone", mk_src_name(s), "qkvm"[i],
		    tname[i]);
		r = mk_src_next(s, &io->t[i], e) < 0 ? -1 : no_more(s, what, e);
		mk_src_close(s);
		if (r < 0)
			return -1;
	}
	io->has_mask = path[3] != NULL;
	return 0;
}

int
mk_mdec_load(struct mk_mdec_io *io, const char *file,
    const char *const path[4], const struct mk_mdec_in *in,
    struct mk_err *e)
{
	const struct mk_tensor *tp[4];
	const char *np[4];
	int i;

	memset(io, 0, sizeof(*io));
	for (i = 0; i < 4; i++)
		mk_tensor_init(&io->t[i]);
	if ((path[0] == NULL ? read_stream(io, file, e) :
	    read_files(io, path, e)) < 0)
		return -1;
	for (i = 0; i < 4; i++) {
		tp[i] = i < 3 || io->has_mask ? &io->t[i] : NULL;
		np[i] = io->name[i];
	}
	return mk_mdec_setup(&io->p, tp, np, in, e);
}

int
mk_mdec_compute(struct mk_mdec_io *io, int threads, int out_dtype,
    struct mk_err *e)
{
	size_t bh = (size_t)io->p.B * (size_t)io->p.QH, n;
	int i;

	n = bh * (size_t)io->p.D;
	/* K, V and the mask read in place from files: their pages, once */
	for (i = 1; i < 4; i++)
		if (io->t[i].buf != NULL && io->t[i].buf->mapped)
			mk_mdec_populate(io->t[i].data,
			    mk_tensor_nbytes(&io->t[i]), threads);
	if ((io->lse = malloc(bh * sizeof(float))) == NULL ||
	    (io->out = malloc(n * sizeof(float))) == NULL)
		return mk_err_data(e, "out of memory for the outputs");
	if (mk_mdec_run(&io->p, NULL, threads, io->lse, io->out, e) < 0)
		return -1;
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

	free((void *)io->p.q);
	free(io->lse);
	free(io->out);
	free(io->half);
	for (i = 0; i < 4; i++)
		mk_tensor_free(&io->t[i]);
	memset(io, 0, sizeof(*io));
}
