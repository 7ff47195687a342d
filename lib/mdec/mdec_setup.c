/*
 * mdec_setup.c - what mdecode's inputs mean: q, and K and V as a cache
 * [B, KH, M, D] or [B, M, KH, D], flat buffers (mdecode(1)) or a paged cache
 * with its block table and lengths; the shape checks and their messages.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simd/kern.h"
#include "mdec/mdec.h"
#include "tensor/tensor.h"

/*
 * The dtype t's data holds for attention, or -1 if it cannot be used; kv:
 * t is k or v, whose u8 or i8 bytes may be FP8 (MK_U8).
 */
static int
attn_dtype(const struct mk_tensor *t, const struct mk_mdec_in *in, int kv)
{
	switch (t->dtype) {
	case MK_F16:
	case MK_BF16:
	case MK_F32:
		return t->dtype;
	case MK_U16:	/* bf16 bits: NumPy has no bf16 (beside FP8 k and
			 * v, a q of u16 can be nothing else) */
		return in->bf16 || (!kv && in->fp8 != MK_FP8_NONE) ? MK_BF16 :
		    -1;
	case MK_U8:
	case MK_I8:
		return kv && in->fp8 != MK_FP8_NONE ? MK_U8 : -1;
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
	if ((t->dtype == MK_U8 || t->dtype == MK_I8) && in->fp8 != MK_FP8_NONE)
		return mk_err_data(e, "%s: dtype %s: q is f16, bf16 or f32 "
		    "(only k and v hold FP8 bytes)", name,
		    mk_dtype_name(t->dtype));
	if (t->dtype == MK_U8 || t->dtype == MK_I8)
		return mk_err_data(e, "%s: dtype %s: give --dtype fp8_e4m3 or "
		    "fp8_e5m2 if it holds an FP8 cache's bytes (f16, bf16 and "
		    "f32 are read)", name, mk_dtype_name(t->dtype));
	return mk_err_data(e, "%s: dtype %s: q, k and v must be f16, bf16 "
	    "or f32", name, mk_dtype_name(t->dtype));
}

static const char *
shape(char *buf, size_t n, const struct mk_tensor *t)
{
	return mk_shape_str(buf, n, t->ndim, t->shape);
}

/* q [B, QH, Q, D] or [B, QH, D]: B, QH, Q and D. */
static int
check_q(const struct mk_tensor *q, const char *name, struct mk_mdec *p,
    struct mk_err *e)
{
	char sh[128];

	if (q->ndim == 4 && (q->shape[2] < 1 || q->shape[2] > MK_MDEC_MAX_Q))
		return mk_err_data(e, "%s: q has shape %s: 1 to %d query "
		    "tokens a sequence (dimension 2)", name,
		    shape(sh, sizeof(sh), q), MK_MDEC_MAX_Q);
	if (q->ndim != 3 && q->ndim != 4)
		return mk_err_data(e, "%s: q has shape %s: expected "
		    "[B, QH, Q, D] or [B, QH, D]", name,
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
	p->Q = q->ndim == 4 ? (int)q->shape[2] : 1;
	p->D = (int)q->shape[q->ndim - 1];
	return 0;
}

/* Every sequence holds its Q new tokens among its valid positions. */
static int
check_tokens(const struct mk_mdec *p, const char *name, struct mk_err *e)
{
	int b;

	for (b = 0; b < p->B && p->Q > 1; b++)
		if (mk_mdec_len(p, b) < p->Q)
			return mk_err_data(e, "%s: %d query tokens, but sequence "
			    "%d has %lld valid positions: the tokens are the "
			    "last %d of them (--valid-length, --seq-lens)",
			    name, p->Q, b, (long long)mk_mdec_len(p, b), p->Q);
	return 0;
}

/* The mask [B, KH, M'] with M' >= the longest sequence, if any. */
static int
check_mask(const struct mk_tensor *m, const char *name, struct mk_mdec *p,
    const char *what, struct mk_err *e)
{
	char sh[128];

	if (m == NULL)
		return 0;
	if (m->ndim != 3 || m->shape[0] != p->B || m->shape[1] != p->KH ||
	    m->shape[2] < p->V)
		return mk_err_data(e, "%s: mask has shape %s: with %s it must "
		    "be [B, KH, M] = [%d, %d, >= %lld]", name,
		    shape(sh, sizeof(sh), m), what, p->B, p->KH,
		    (long long)p->V);
	p->mrow = m->shape[2];
	return 0;
}

/* v must have k's 4-D shape. */
static int
same_kv(const struct mk_tensor *const t[MK_MDEC_NIN],
    const char *const name[MK_MDEC_NIN], struct mk_err *e)
{
	char sh[128], sk[128];
	int i;

	for (i = 0; i < 4; i++)
		if (t[2]->shape[i] != t[1]->shape[i])
			return mk_err_data(e, "%s: v has shape %s, k %s: they "
			    "must be equal", name[2],
			    shape(sh, sizeof(sh), t[2]),
			    shape(sk, sizeof(sk), t[1]));
	return 0;
}

/* Whether kv heads h fit q (and --kv-heads). */
static int
heads_fit(const struct mk_mdec *p, const struct mk_mdec_in *in, int64_t h)
{
	return h >= 1 && h <= INT32_MAX && p->QH % h == 0 &&
	    (in->kv_heads == 0 || in->kv_heads == h);
}

/*
 * A 4-D cache: [B, KH, M, D] (bhmd) or [B, M, KH, D] (bmhd), as named, or
 * as the heads allow; a shape both fit is refused (the two read the same
 * bytes differently).
 */
static int
pick_layout(const struct mk_tensor *k, const char *name,
    const struct mk_mdec_in *in, const struct mk_mdec *p, struct mk_err *e)
{
	int a = heads_fit(p, in, k->shape[1]), b = heads_fit(p, in,
	    k->shape[2]);
	char sh[128];

	if (in->layout == MK_MDEC_BHMD || in->layout == MK_MDEC_BMHD)
		return in->layout;
	if (a && b)
		return mk_err_usage(e, "%s: k of shape %s fits both [B, KH, M, D] (KH "
		    "%lld) and [B, M, KH, D] (KH %lld): name it with "
		    "--kv-layout bhmd or bmhd", name, shape(sh, sizeof(sh), k),
		    (long long)k->shape[1], (long long)k->shape[2]);
	return b ? MK_MDEC_BMHD : MK_MDEC_BHMD;
}

/* KV cache: k, v [B, KH, M, D] or [B, M, KH, D]; mask [B, KH, M']. */
static int
check_cache(const struct mk_tensor *const t[MK_MDEC_NIN],
    const char *const name[MK_MDEC_NIN], const struct mk_mdec_in *in,
    struct mk_mdec *p, struct mk_err *e)
{
	const struct mk_tensor *k = t[1];
	char sh[128], sq[128];
	int lay, hd;

	if (k->shape[0] != p->B || k->shape[3] != p->D)
		return mk_err_data(e, "%s: k has shape %s, q %s: a KV cache "
		    "must be [B, KH, M, D] or [B, M, KH, D] with q's B = %d "
		    "and D = %d", name[1], shape(sh, sizeof(sh), k),
		    shape(sq, sizeof(sq), t[0]), p->B, p->D);
	if (k->shape[1] < 1 || k->shape[1] > INT32_MAX || k->shape[2] < 1 ||
	    k->shape[2] > INT32_MAX)
		return mk_err_data(e, "%s: k has shape %s: KH and M must be at "
		    "least 1", name[1], shape(sh, sizeof(sh), k));
	if (same_kv(t, name, e) < 0)
		return -1;
	if ((lay = pick_layout(k, name[1], in, p, e)) < 0)
		return -1;
	hd = lay == MK_MDEC_BMHD ? 2 : 1;
	if (in->kv_heads > 0 && in->kv_heads != k->shape[hd])
		return mk_err_usage(e, "--kv-heads %d: k (%s, %s) has %lld kv "
		    "heads", in->kv_heads, shape(sh, sizeof(sh), k),
		    lay == MK_MDEC_BMHD ? "[B, M, KH, D]" : "[B, KH, M, D]",
		    (long long)k->shape[hd]);
	p->layout = lay;
	p->KH = (int)k->shape[hd];
	p->M = k->shape[3 - hd];
	p->V = in->valid > 0 ? in->valid : p->M;
	if (p->V > p->M)
		return mk_err_usage(e, "--valid-length %lld: larger than the "
		    "cache's M = %lld (k %s)", (long long)p->V,
		    (long long)p->M, shape(sh, sizeof(sh), k));
	return check_mask(t[3], name[3], p, "a KV cache", e);
}

/* An integer tensor's element i, or -1 with e if it is not an integer. */
static int
int_elem(const struct mk_tensor *t, size_t i, int64_t *v)
{
	double x;

	if (mk_dtype_kind(t->dtype) == MK_KIND_FLOAT) {
		x = mk_tensor_get_f64(t, i);
		if (!(x == floor(x) && fabs(x) < 9e15))
			return -1;
		*v = (int64_t)x;
		return 0;
	}
	*v = mk_tensor_get_i64(t, i);
	return 0;
}

/* The sequences' lengths: --seq-lens, else --valid-length, else all. */
static int
paged_lens(const struct mk_tensor *lt, const char *name,
    const struct mk_mdec_in *in, int64_t cap, struct mk_mdec *p,
    struct mk_err *e)
{
	int64_t *lens, v;
	char sh[128];
	int b;

	if ((lens = malloc(sizeof(int64_t) * (size_t)p->B)) == NULL)
		return mk_err_data(e, "out of memory for the lengths");
	p->lens = lens;
	if (lt != NULL && (lt->ndim != 1 || lt->shape[0] != p->B))
		return mk_err_data(e, "%s: lengths have shape %s: expected "
		    "[B] = [%d]", name, shape(sh, sizeof(sh), lt), p->B);
	p->V = 0;
	for (b = 0; b < p->B; b++) {
		v = in->valid > 0 ? in->valid : cap;
		if (lt != NULL && int_elem(lt, (size_t)b, &v) < 0)
			return mk_err_data(e, "%s: sequence %d: length %g is "
			    "not an integer", name, b,
			    mk_tensor_get_f64(lt, (size_t)b));
		if (v < 0 || v > cap)
			return mk_err_data(e, "%s: sequence %d: length %lld is "
			    "not in [0, %lld] (block table width x block "
			    "size)", lt ? name : "--valid-length", b,
			    (long long)v, (long long)cap);
		lens[b] = v;
		p->V = v > p->V ? v : p->V;
	}
	return 0;
}

/* The block table [B, MB] as int32, its used entries in [0, blocks). */
static int
paged_table(const struct mk_tensor *tt, const char *name, int64_t blocks,
    struct mk_mdec *p, struct mk_err *e)
{
	int32_t *tab;
	int64_t v, j, used;
	int b;

	if ((tab = malloc(sizeof(int32_t) * (size_t)(p->B * p->tw))) == NULL)
		return mk_err_data(e, "out of memory for the block table");
	p->table = tab;
	for (b = 0; b < p->B; b++) {
		used = (p->lens[b] + p->bs - 1) / p->bs;
		for (j = 0; j < p->tw; j++) {
			if (int_elem(tt, (size_t)(b * p->tw + j), &v) < 0)
				return mk_err_data(e, "%s: sequence %d, block "
				    "%lld: %g is not an integer", name, b,
				    (long long)j, mk_tensor_get_f64(tt,
				    (size_t)(b * p->tw + j)));
			/* entries past the length (vLLM pads them) unused */
			if (j < used && (v < 0 || v >= blocks))
				return mk_err_data(e, "%s: sequence %d, block "
				    "%lld: block id %lld is not in [0, %lld) "
				    "(the cache's blocks)", name, b,
				    (long long)j, (long long)v,
				    (long long)blocks);
			tab[b * p->tw + j] = j < used ? (int32_t)v : 0;
		}
	}
	return 0;
}

/* A paged cache: k, v [blocks, bs, KH, D], table [B, MB], lens [B]. */
static int
check_paged(const struct mk_tensor *const t[MK_MDEC_NIN],
    const char *const name[MK_MDEC_NIN], const struct mk_mdec_in *in,
    struct mk_mdec *p, struct mk_err *e)
{
	const struct mk_tensor *k = t[1], *tt = t[4];
	char sh[128];

	if (in->layout >= 0 && in->layout != MK_MDEC_PAGED)
		return mk_err_usage(e, "--block-table makes the cache paged: "
		    "--kv-layout %s does not apply",
		    mk_mdec_layout_name(in->layout));
	if (k->ndim != 4 || k->shape[3] != p->D || k->shape[0] < 1 ||
	    k->shape[0] > INT32_MAX || k->shape[1] < 1 ||
	    k->shape[1] > INT32_MAX || k->shape[2] < 1)
		return mk_err_data(e, "%s: k has shape %s: a paged cache is "
		    "[blocks, block size, KH, D] with q's D = %d", name[1],
		    shape(sh, sizeof(sh), k), p->D);
	if (same_kv(t, name, e) < 0)
		return -1;
	if (!heads_fit(p, in, k->shape[2]))
		return in->kv_heads > 0 && in->kv_heads != k->shape[2] ?
		    mk_err_usage(e, "--kv-heads %d: k (%s, [blocks, block "
		    "size, KH, D]) has %lld kv heads", in->kv_heads,
		    shape(sh, sizeof(sh), k), (long long)k->shape[2]) :
		    mk_err_data(e, "%s: q has %d heads, not a multiple of the "
		    "%lld kv heads of the paged cache k %s ([blocks, block "
		    "size, KH, D])", name[0], p->QH,
		    (long long)k->shape[2], shape(sh, sizeof(sh), k));
	if (tt->ndim != 2 || tt->shape[0] != p->B || tt->shape[1] < 1 ||
	    mk_dtype_kind(tt->dtype) == 0 || tt->dtype == MK_BOOL)
		return mk_err_data(e, "%s: block table has shape %s (%s): "
		    "expected integers [B, blocks per sequence] with q's B = "
		    "%d", name[4], shape(sh, sizeof(sh), tt),
		    mk_dtype_name(tt->dtype), p->B);
	p->layout = MK_MDEC_PAGED;
	p->KH = (int)k->shape[2];
	p->bs = (int)k->shape[1];
	p->tw = tt->shape[1];
	if (p->tw > INT64_MAX / p->bs)
		return mk_err_data(e, "%s: block table of %lld blocks of %d: "
		    "too long", name[4], (long long)p->tw, p->bs);
	if (paged_lens(t[5], name[5], in, p->tw * p->bs, p, e) < 0 ||
	    paged_table(tt, name[4], k->shape[0], p, e) < 0)
		return -1;
	return check_mask(t[3], name[3], p, "a paged cache", e);
}

/* Flat buffers: the first B*KH*V*D elements, a valid length per head. */
static int
check_flat(const struct mk_tensor *const t[MK_MDEC_NIN],
    const char *const name[MK_MDEC_NIN],
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
mk_mdec_setup(struct mk_mdec *p, const struct mk_tensor *const t[MK_MDEC_NIN],
    const char *const name[MK_MDEC_NIN], const struct mk_mdec_in *in,
    struct mk_err *e)
{
	const struct mk_tensor *q = t[0], *k = t[1], *v = t[2], *m = t[3];
	int qd, kd, vd;
	float *qf;
	size_t n, i;

	memset(p, 0, sizeof(*p));
	if ((qd = attn_dtype(q, in, 0)) < 0)
		return bad_dtype(e, name[0], q, in);
	if ((kd = attn_dtype(k, in, 1)) < 0)
		return bad_dtype(e, name[1], k, in);
	if ((vd = attn_dtype(v, in, 1)) < 0)
		return bad_dtype(e, name[2], v, in);
	if (in->fp8 != MK_FP8_NONE && kd != MK_U8)
		return mk_err_data(e, "%s: dtype %s: an FP8 cache (--dtype "
		    "%s) is given as its bytes, u8 or i8 (torch: "
		    ".view(torch.uint8))", name[1], mk_dtype_name(k->dtype),
		    mk_mdec_kvt_name(MK_U8, in->fp8));
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
	if (t[5] != NULL && t[4] == NULL)
		return mk_err_usage(e, "--seq-lens needs --block-table (the "
		    "lengths of a paged cache's sequences)");
	if (t[4] != NULL ? check_paged(t, name, in, p, e) :
	    in->layout == MK_MDEC_PAGED ? mk_err_usage(e, "--kv-layout "
	    "paged needs --block-table FILE") :
	    k->ndim == 4 ? check_cache(t, name, in, p, e) :
	    k->ndim == 1 && in->layout < 0 ? check_flat(t, name, in, p, e) :
	    mk_err_data(e, "%s: k has %d dimensions: expected a KV cache "
	    "[B, KH, M, D], [B, M, KH, D], a paged cache with "
	    "--block-table, or a flat buffer (with --kv-heads)", name[1],
	    k->ndim))
		return -1;
	if (p->QH % p->KH != 0)
		return mk_err_data(e, "%s: q has %d heads, not a multiple of "
		    "the %d kv heads (grouped-query attention needs QH %% KH "
		    "== 0)", name[0], p->QH, p->KH);
	if (check_tokens(p, name[0], e) < 0)
		return -1;
	p->dtype = kd;
	p->fp8 = kd == MK_U8 ? in->fp8 : MK_FP8_NONE;
	p->scale = in->has_scale ? in->scale : 1.0 / sqrt((double)p->D);
	p->k = k->data;
	p->v = v->data;
	p->mask = m != NULL ? m->data : NULL;
	n = (size_t)p->B * (size_t)p->QH * (size_t)p->Q * (size_t)p->D;
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

void
mk_mdec_forget(struct mk_mdec *p)
{
	free((void *)p->q);
	free((void *)p->table);
	free((void *)p->lens);
	memset(p, 0, sizeof(*p));
}
