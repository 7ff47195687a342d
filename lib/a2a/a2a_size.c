/*
 * a2a_size.c - DeepEP's buffer sizing: its default configs, size hints
 * and the byte counts its kernels assert on (DeepEP's get_*_size_hint and buffer checks).  All in
 * 64-bit arithmetic, as DeepEP's size_t.
 */
#include "a2a/a2a.h"

static uint64_t
align_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b * b;
}

/*
 * Buffer.get_dispatch_config / get_combine_config at DeepEP 567632d:
 * (nvl_send, nvl_recv, rdma_send, rdma_recv) by group size.
 */
static const struct {
	int	R;
	int	d[4], c[4];
} table[] = {
	{ 2,   { 24, 256, 6, 128 },  { 10, 256, 6, 128 } },
	{ 4,   { 6, 256, 6, 128 },   { 9, 256, 6, 128 } },
	{ 8,   { 6, 256, 6, 128 },   { 4, 256, 6, 128 } },
	{ 16,  { 36, 288, 20, 128 }, { 4, 288, 12, 128 } },
	{ 24,  { 32, 288, 8, 128 },  { 1, 288, 8, 128 } },
	{ 32,  { 32, 288, 8, 128 },  { 1, 288, 8, 128 } },
	{ 48,  { 32, 288, 8, 128 },  { 1, 288, 8, 128 } },
	{ 64,  { 32, 288, 8, 128 },  { 1, 288, 8, 128 } },
	{ 96,  { 20, 480, 12, 128 }, { 1, 480, 8, 128 } },
	{ 128, { 20, 560, 12, 128 }, { 1, 560, 8, 128 } },
	{ 144, { 32, 720, 12, 128 }, { 2, 720, 8, 128 } },
	{ 160, { 28, 720, 12, 128 }, { 2, 720, 8, 128 } },
};

static void
fill(struct mk_a2a_dcfg *d, int num_sms, const int *v)
{
	d->num_sms = num_sms;
	d->nvl_send = v[0];
	d->nvl_recv = v[1];
	d->rdma_send = v[2];
	d->rdma_recv = v[3];
}

int
mk_a2a_deepep_config(int R, int num_sms, struct mk_a2a_dcfg *dispatch,
    struct mk_a2a_dcfg *combine)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].R == R) {
			fill(dispatch, num_sms, table[i].d);
			fill(combine, num_sms, table[i].c);
			return 0;
		}
	return -1;
}

int
mk_a2a_config_check(struct mk_a2a_dcfg *d, struct mk_err *e)
{
	if (d->num_sms < 0 || d->nvl_send <= 0 || d->nvl_recv <= 0 ||
	    d->rdma_send <= 0 || d->rdma_recv <= 0)
		return mk_err_usage(e, "config %d,%d,%d,%d: DeepEP's Config "
		    "needs positive chunk sizes", d->nvl_send, d->nvl_recv,
		    d->rdma_send, d->rdma_recv);
	if (d->nvl_send >= d->nvl_recv)
		return mk_err_usage(e, "config: nvl_send %d must be below "
		    "nvl_recv %d (DeepEP: num_max_nvl_chunked_send_tokens < "
		    "num_max_nvl_chunked_recv_tokens)", d->nvl_send,
		    d->nvl_recv);
	/* DeepEP's constructor rounds rdma_recv up to rdma_send first. */
	d->rdma_recv = (int)align_up((uint64_t)d->rdma_recv,
	    (uint64_t)d->rdma_send);
	if (d->rdma_send >= d->rdma_recv || d->rdma_send > d->rdma_recv / 2)
		return mk_err_usage(e, "config: rdma_send %d must be at most "
		    "half of rdma_recv %d (DeepEP: num_max_rdma_chunked_send_"
		    "tokens <= num_max_rdma_chunked_recv_tokens / 2)",
		    d->rdma_send, d->rdma_recv);
	return 0;
}

/* Constants of DeepEP's hints: kNumMaxTopK, kNumMaxScales, sizeof(...). */
#define MAX_TOPK	128u
#define MAX_SCALES	128u
#define SRC_META	8u

/* sizeof(topk_idx_t) of the build d describes */
static uint64_t
idx_bytes(const struct mk_a2a_dcfg *d)
{
	return d->idx_bytes > 0 ? (uint64_t)d->idx_bytes : 8;
}

uint64_t
mk_a2a_nvl_hint(const struct mk_a2a_dcfg *d, uint64_t h, int R)
{
	uint64_t C = (uint64_t)(d->num_sms / 2), N = R < 8 ? (uint64_t)R : 8;
	uint64_t RR = R / 8 > 1 ? (uint64_t)(R / 8) : 1, Q = (uint64_t)d->nvl_recv;
	uint64_t base = C * N * Q;

	return align_up(C * N * (2 * RR + 3) * 4 + base * h + base * SRC_META +
	    base * MAX_TOPK * idx_bytes(d) + base * MAX_TOPK * 4 +
	    base * MAX_SCALES * 4, 128);
}

uint64_t
mk_a2a_rdma_hint(const struct mk_a2a_dcfg *d, uint64_t h, int R)
{
	uint64_t C = (uint64_t)(d->num_sms / 2), RR = (uint64_t)(R / 8);
	uint64_t P = (uint64_t)d->rdma_recv, base = C * RR * P;

	if (R <= 8)
		return 0;
	return align_up(C * RR * (8 * 2 + 2) * 2 * 4 + base * h * 2 +
	    base * SRC_META * 2 + base * MAX_TOPK * idx_bytes(d) * 2 +
	    base * MAX_TOPK * 4 * 2 + base * MAX_SCALES * 4 * 2 +
	    base * 16 * 2, 128);
}

uint64_t
mk_a2a_intra_dispatch_need(const struct mk_a2a_dcfg *d, int R,
    uint64_t x_bytes, int K, int scales)
{
	uint64_t C = (uint64_t)(d->num_sms / 2), Q = (uint64_t)d->nvl_recv;
	uint64_t r = (uint64_t)R, k = (uint64_t)K;

	/* prefix matrix, channel start/end, head/tail, then the ring of
	 * x, src_idx, topk ids, weights and scales */
	return r * r * 4 + C * r * 4 * 4 + C * r * Q * (x_bytes + 4 +
	    k * idx_bytes(d) + k * 4 + (uint64_t)scales * 4);
}

uint64_t
mk_a2a_intra_combine_need(const struct mk_a2a_dcfg *d, int R,
    uint64_t x_bytes, int K)
{
	uint64_t C = (uint64_t)(d->num_sms / 2), Q = (uint64_t)d->nvl_recv;
	uint64_t r = (uint64_t)R;

	return C * r * 4 * 2 + C * r * Q * (x_bytes + 4 + (uint64_t)K * 4);
}

uint64_t
mk_a2a_bytes_per_token(uint64_t x_bytes, int scales, int topk_idx,
    int topk_weights)
{
	/* hidden as int4, SourceMeta, scales, topk ids (int32), weights */
	return align_up(x_bytes / 16 * 16 + SRC_META + (uint64_t)scales * 4 +
	    (uint64_t)topk_idx * 4 + (uint64_t)topk_weights * 4, 16);
}

uint64_t
mk_a2a_inter_rdma_need(const struct mk_a2a_dcfg *d, int R, uint64_t nbpt)
{
	uint64_t C = (uint64_t)(d->num_sms / 2), RR = (uint64_t)(R / 8);
	uint64_t P = (uint64_t)d->rdma_recv;
	uint64_t offset = nbpt * P * RR * 2 * C / 4;
	uint64_t count = (8 * 2 + 4) * RR * 2 * C;

	return (offset + count) * 4;
}

uint64_t
mk_a2a_inter_nvl_need(const struct mk_a2a_dcfg *d, int R, uint64_t nbpt)
{
	uint64_t C = (uint64_t)(d->num_sms / 2), RR = (uint64_t)(R / 8);
	uint64_t Q = (uint64_t)d->nvl_recv;
	uint64_t offset = Q * nbpt * 8 * C / 4;
	uint64_t count = 8 * (2 * RR + 2) * C;

	return (offset + count) * 4;
}

uint64_t
mk_a2a_ll_hint(uint64_t M, uint64_t hidden, int E)
{
	uint64_t ns = hidden / 128, e = (uint64_t)E;
	uint64_t dmsg = 16 + (hidden * 2 > hidden + ns * 4 ? hidden * 2 :
	    hidden + ns * 4);
	uint64_t cmsg = ns * 4 + hidden * 2;
	uint64_t send = M * dmsg > e * M * cmsg ? M * dmsg : e * M * cmsg;
	uint64_t recv = e * M * dmsg > e * M * cmsg ? e * M * dmsg :
	    e * M * cmsg;
	uint64_t signal = align_up(e * 4, 128);
	uint64_t total = 2 * send + 2 * recv + 2 * signal;

	/* DeepEP rounds with +128, not +127: always one block more */
	return (total + 128) / 128 * 128;
}

/*
 * EPv2's ElasticBuffer (today's DeepEP, csrc/elastic/buffer.hpp
 * calculate_buffer_size): a token's bytes in its buffers are the hidden
 * bytes, scale packs and metadata, each aligned to 32 (TMA); dispatch
 * metadata holds K int ids, K float weights and 1 + K source ints,
 * combine only the ids and weights.
 */
#define TMA_ALIGN	32u
#define ELASTIC_ALIGN	((uint64_t)2 << 20)	/* kNumAlignmentBytes */
#define MAX_CHANNELS	1280u	/* kNumMaxChannelsPerSM 8 * kNumMaxSMs 160 */

static uint64_t
token_bytes(uint64_t hidden_bytes, uint64_t sf_bytes, uint64_t meta_bytes)
{
	return align_up(hidden_bytes, TMA_ALIGN) + align_up(sf_bytes,
	    TMA_ALIGN) + align_up(meta_bytes, TMA_ALIGN);
}

static uint64_t
min_u(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

void
mk_a2a_elastic_size(const struct mk_a2a_elastic *in,
    struct mk_a2a_elastic_bytes *out)
{
	uint64_t R = (uint64_t)in->R, M = (uint64_t)in->M, H = (uint64_t)in->H;
	uint64_t K = in->K > 0 ? (uint64_t)in->K : 32;	/* 0: 32, the most */
	uint64_t up = in->hybrid ? (uint64_t)in->nvl : R;
	uint64_t out_ = in->hybrid ? R / (uint64_t)in->nvl : 1;
	int nvlink = up == (uint64_t)in->nvl, mr = in->multi_reduction;
	uint64_t td = token_bytes(H * (in->fp8 ? 1 : 2), in->fp8 ?
	    (H + 31) / 32 * 4 : 0, K * 8 + (1 + K) * 4);
	uint64_t tc = token_bytes(H * 2, 0, K * 8);

	if (out_ == 1) {
		out->dispatch = td * (nvlink ? 0 : 1) * M + td * R * M;
		out->combine = tc * (nvlink ? 0 : R) * (M * (mr ? 1 : K)) +
		    tc * (mr ? min_u(R, K) : K) * M;
	} else {
		out->dispatch = td * up * (out_ * M) + td * M +
		    td * out_ * (M + MAX_CHANNELS);
		out->combine = tc * (mr ? min_u(up, K) : K) * (out_ * M) +
		    tc * (mr ? min_u(out_, K) : K) * M +
		    tc * (mr ? 1 : K) * (out_ * (M + MAX_CHANNELS));
	}
	out->total = align_up(out->dispatch > out->combine ? out->dispatch :
	    out->combine, ELASTIC_ALIGN);
}
