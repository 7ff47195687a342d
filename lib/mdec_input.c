/*
 * mdec_input.c - turning mdecode's input tensors into a problem: the two
 * layouts of SPEC §6, the shape checks and their messages.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern.h"
#include "mdec.h"
#include "tensor.h"

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
	p->row = k->shape[2];
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
	p->row = p->V;
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
