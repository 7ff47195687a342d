/* a2a_report.c - the buffer-size report; see a2a_report.h. */
#include <limits.h>
#include <string.h>

#include "a2a/a2a_report.h"

void
mk_a2a_tally_step(struct mk_a2a_tally *t, const struct mk_a2a_cfg *c,
    const struct mk_a2a_group *g, int step, int64_t rows)
{
	int r, n = c->E / c->R * c->R;

	for (r = 0; r < n; r++) {
		if (g->ll_count[r] > t->max_expert)
			t->max_expert = g->ll_count[r];
		if (g->ll_count[r] > 0 && r >= t->used)
			t->used = r + 1;
	}
	for (r = 0; r < c->R; r++) {
		t->sum_recv += g->recv_tokens[r];
		if (g->recv_tokens[r] > t->max_recv) {
			t->max_recv = g->recv_tokens[r];
			t->max_rank = r;
			t->max_step = step;
		}
		/*
		 * Internode, DeepEP (567632d) also sets num_rdma_recv_tokens
		 * to num_worst_tokens, which sizes send_nvl_head: the
		 * forwarder writes rows up to the real count.
		 */
		if (g->recv_tokens[r] > t->max_worst)
			t->max_worst = g->recv_tokens[r];
		if (mk_a2a_internode(c) && g->rdma_recv_tokens[r] > t->max_worst)
			t->max_worst = g->rdma_recv_tokens[r];
		if (g->recv_rows[r] > t->max_rows)
			t->max_rows = g->recv_rows[r];
	}
	t->rows = rows;
	t->steps++;
}

int
mk_a2a_configs(const struct mk_a2a_sizing *sz, int R,
    struct mk_a2a_dcfg *d, struct mk_a2a_dcfg *cb, struct mk_err *e)
{
	if (sz->has_config)
		*d = *cb = sz->dcfg;
	else if (mk_a2a_deepep_config(R, sz->num_sms, d, cb) < 0)
		return 1;
	d->idx_bytes = cb->idx_bytes = sz->idx_bytes;
	if (mk_a2a_config_check(d, e) < 0 || mk_a2a_config_check(cb, e) < 0)
		return -1;
	return 0;
}

static void
row(FILE *fp, const char *q, uint64_t bytes)
{
	fprintf(fp, "%s,%llu,%.2f\n", q, (unsigned long long)bytes,
	    (double)bytes / 1048576.0);
}

static void
count_row(FILE *fp, const char *q, long long v)
{
	fprintf(fp, "%s,%lld,\n", q, v);
}

/* The bytes DeepEP's kernels assert on, intranode or internode. */
static void
needs(FILE *fp, const struct mk_a2a_sizing *sz, const struct mk_a2a_cfg *c,
    const struct mk_a2a_dcfg *d, const struct mk_a2a_dcfg *cb)
{
	uint64_t xb = (uint64_t)(sz->fp8 ? sz->hidden : sz->hidden * 2), v;
	uint64_t bf16 = (uint64_t)sz->hidden * 2;
	int R = c->R, scales = sz->fp8 ? (int)(sz->hidden / 128) : 0;

	if (R <= MK_A2A_NVL) {
		row(fp, "intranode.notify_need", (uint64_t)R * (uint64_t)(R +
		    c->E / R) * 4);
		row(fp, "intranode.dispatch_need", mk_a2a_intra_dispatch_need(d,
		    R, xb, c->K, scales));
		row(fp, "intranode.combine_need", mk_a2a_intra_combine_need(cb,
		    R, bf16, c->K));
		return;
	}
	v = mk_a2a_bytes_per_token(xb, scales, c->K, c->K);
	row(fp, "internode.bytes_per_token.dispatch", v);
	row(fp, "internode.rdma_need.dispatch", mk_a2a_inter_rdma_need(d, R,
	    v));
	row(fp, "internode.nvl_need.dispatch", mk_a2a_inter_nvl_need(d, R, v));
	v = mk_a2a_bytes_per_token(bf16, 0, 0, c->K);
	row(fp, "internode.bytes_per_token.combine", v);
	row(fp, "internode.rdma_need.combine", mk_a2a_inter_rdma_need(cb, R,
	    v));
	row(fp, "internode.nvl_need.combine", mk_a2a_inter_nvl_need(cb, R, v));
}

uint64_t
mk_a2a_token_bytes(const struct mk_a2a_sizing *sz)
{
	return (uint64_t)(sz->fp8 ? sz->hidden : sz->hidden * 2);
}

/* The tokens a rank's buffers hold: --max-tokens, else the trace's most. */
static int64_t
buffer_tokens(const struct mk_a2a_sizing *sz, const struct mk_a2a_tally *t)
{
	return sz->max_tokens > 0 ? sz->max_tokens : t->max_T;
}

/* Said after buffer_tokens' figure in a heading. */
static const char *
buffer_tokens_note(const struct mk_a2a_sizing *sz)
{
	return sz->max_tokens > 0 ? "" : " (the trace's most; give "
	    "--max-tokens)";
}

/*
 * EPv2's ElasticBuffer hint, hybrid (its default) and flat, for the
 * trace's K and M tokens a rank.
 */
static void
elastic_rows(FILE *fp, const struct mk_a2a_sizing *sz,
    const struct mk_a2a_cfg *c, const struct mk_a2a_tally *t)
{
	struct mk_a2a_elastic in;
	struct mk_a2a_elastic_bytes b;

	memset(&in, 0, sizeof(in));
	in.R = c->R;
	in.nvl = sz->scaleup > 0 ? sz->scaleup : c->nodes > 0 ? c->R /
	    c->nodes : mk_a2a_node_ranks(c->R);
	in.K = c->K;
	in.fp8 = sz->fp8;
	in.multi_reduction = 1;
	in.M = buffer_tokens(sz, t);
	in.H = sz->hidden;
	fprintf(fp, "# EPv2 ElasticBuffer: %d ranks in NVLink domains of %d, "
	    "num_max_tokens_per_rank=%lld%s, allow_multiple_reduction\n",
	    c->R, in.nvl, (long long)in.M, buffer_tokens_note(sz));
	in.hybrid = 1;
	mk_a2a_elastic_size(&in, &b);
	row(fp, "elastic.dispatch_bytes", b.dispatch);
	row(fp, "elastic.combine_bytes", b.combine);
	row(fp, "elastic_buffer_size_hint", b.total);
	in.hybrid = 0;
	mk_a2a_elastic_size(&in, &b);
	row(fp, "elastic_buffer_size_hint.no_hybrid", b.total);
}

/* The tokens ranks received over the trace: the most, where, the mean. */
static void
recv_rows(FILE *fp, const struct mk_a2a_cfg *c, const struct mk_a2a_tally *t)
{
	double n = (double)t->steps * c->R;

	count_row(fp, "trace.steps", t->steps);
	count_row(fp, "trace.max_recv_tokens", t->max_recv);
	fprintf(fp, "trace.mean_recv_tokens,%.1f,\n", t->sum_recv /
	    (n > 0 ? n : 1));
	count_row(fp, "trace.max_recv_rank", t->max_rank);
	count_row(fp, "trace.max_recv_step", t->max_step);
}

/* The trace's worst case. */
static void
trace_rows(FILE *fp, const struct mk_a2a_sizing *sz,
    const struct mk_a2a_cfg *c, const struct mk_a2a_tally *t)
{
	uint64_t xb = mk_a2a_token_bytes(sz);

	recv_rows(fp, c, t);
	count_row(fp, "trace.num_worst_tokens", t->max_worst);
	if (mk_a2a_internode(c))
		fprintf(fp, "# trace.num_worst_tokens internode: the larger of "
		    "the tokens a rank receives and those its RDMA rank "
		    "receives (DeepEP 567632d); today's DeepEP refuses "
		    "num_worst_tokens > 0 for internode dispatch\n");
	row(fp, "trace.recv_x_bytes", (uint64_t)t->max_recv * xb);
	count_row(fp, "trace.triton_recv_rows", t->max_rows);
	count_row(fp, "trace.triton_output_rows", t->rows);
}

/*
 * Triton-distributed's EPAll2AllLayer buffers (DispatchCombineContext.
 * create, capacity 2; the output rows as the trace left them: weights
 * become [rows, K] once they grow) and EPLowLatencyAllToAllLayer's (two
 * phases of dispatch and combine buffers, fp8 with 128-wide groups).
 */
static void
triton_rows(FILE *fp, const struct mk_a2a_sizing *sz,
    const struct mk_a2a_cfg *c, const struct mk_a2a_tally *t)
{
	uint64_t W = (uint64_t)c->R, L = (uint64_t)c->local, n = W / L;
	uint64_t E = (uint64_t)c->E, K = (uint64_t)c->K, H = (uint64_t)sz->hidden;
	uint64_t M = (uint64_t)buffer_tokens(sz, t);
	uint64_t tb = mk_a2a_token_bytes(sz), epr = E / W;	/* tb: a token */
	uint64_t rows = (uint64_t)t->rows, init = M * K * 2, msg, dis, com;
	uint64_t sum = 0;
	uint64_t v[16];
	static const char *const name[16] = {
		"send_reqs_for_nodes_rdma", "send_reqs_recv_bufs_rdma",
		"token_send_buf_rdma", "dispatch_output_buf", "weight_recv_buf",
		"topk_indices_buf_rdma", "weight_send_buf_rdma", "signal_buf",
		"local_splits_buf", "full_splits_buf",
		"num_input_tokens_per_rank_comm_buf", "splits_signal_buf",
		"expert_indices_signal_buf", "intra_node_reduce_buf",
		"intra_node_dispatch_skipped_token_mapping_indices",
		"intra_node_dispatch_skipped_token_topk_mapping_indices",
	};
	char q[128];
	int i;

	if (rows < init)
		rows = init;
	v[0] = v[1] = n * 2 * M * 4;
	v[2] = n * M * tb;
	v[3] = rows * tb;
	v[4] = rows == init ? rows * 4 : rows * K * 4;
	v[5] = v[6] = n * M * K * 4;
	v[7] = W * 8;
	v[8] = (E + 1) * 4;
	v[9] = W * (E + 1) * 4;
	v[10] = W * 4;
	v[11] = v[12] = W * 8;
	v[13] = n * M * tb;
	v[14] = L * M * K * 8;
	v[15] = L * M * K * K * 8;
	for (i = 0; i < 16; i++) {
		snprintf(q, sizeof(q), "triton.%s", name[i]);
		row(fp, q, v[i]);
		sum += v[i];
	}
	row(fp, "triton.symmetric_total", sum);
	if (H % 128 != 0)
		return;
	msg = H + 16 + H / 128 * 4;
	dis = M * msg + epr * W * M * msg + 2 * W * epr * 4 + E * 8;
	com = epr * M * W * H * 2 + E * M * H * 2 + E * 8;
	row(fp, "triton_ll.msg_size", msg);
	row(fp, "triton_ll.dispatch_per_phase", dis);
	row(fp, "triton_ll.combine_per_phase", com);
	row(fp, "triton_ll.symmetric_total", 2 * dis + 2 * com);
}

/* What use_aot=True builds cover (aot_compile_spaces of ep_a2a.py). */
static void
triton_aot(FILE *fp, const struct mk_a2a_cfg *c)
{
	int epr = c->E / c->R, ok = 0, e;

	for (e = 2; e <= 64; e *= 2)
		ok |= epr == e;
	if (!ok)
		fprintf(fp, "# use_aot: %d experts per rank has no AOT kernel "
		    "(built for 2, 4, 8, 16, 32, 64)\n", epr);
	if (c->local != MK_A2A_NVL)
		fprintf(fp, "# use_aot: local_world_size %d has no AOT kernel "
		    "(built for 8)\n", c->local);
	if (c->E + 1 >= 512)
		fprintf(fp, "# use_aot: %d experts need a splits BLOCK_SIZE "
		    "above 512 (AOT builds 128, 256, 512)\n", c->E);
}

static int
triton_report(FILE *fp, const struct mk_a2a_sizing *sz,
    const struct mk_a2a_cfg *c, const struct mk_a2a_tally *t)
{
	fprintf(fp, "quantity,bytes,mib\n");
	fprintf(fp, "# Triton-distributed, W=%d, local_world_size=%d (%d "
	    "nodes), E=%d, K=%d, hidden=%lld, %s, max_tokens=%lld%s\n", c->R,
	    c->local, c->R / c->local, c->E, c->K, (long long)sz->hidden,
	    sz->fp8 ? "fp8" : "bf16", (long long)buffer_tokens(sz, t),
	    buffer_tokens_note(sz));
	triton_rows(fp, sz, c, t);
	trace_rows(fp, sz, c, t);
	triton_aot(fp, c);
	return 0;
}

/*
 * DeepEP's low-latency mode alone: its one buffer (RDMA, no NVL bytes)
 * and what the trace asked of it.
 */
static int
ll_report(FILE *fp, const struct mk_a2a_sizing *sz,
    const struct mk_a2a_cfg *c, const struct mk_a2a_tally *t)
{
	int64_t M = buffer_tokens(sz, t);
	uint64_t ll = mk_a2a_ll_hint((uint64_t)M, (uint64_t)sz->hidden, c->E);

	fprintf(fp, "quantity,bytes,mib\n");
	fprintf(fp, "# DeepEP low-latency mode alone: R=%d, E=%d, K=%d, "
	    "hidden=%lld, num_max_dispatch_tokens_per_rank=%lld%s\n", c->R,
	    c->E, c->K, (long long)sz->hidden, (long long)M,
	    buffer_tokens_note(sz));
	row(fp, "low_latency_rdma_size_hint", ll);
	row(fp, "recommended_num_nvl_bytes", 0);
	row(fp, "recommended_num_rdma_bytes", ll);
	row(fp, "deepep_buffer_cap", MK_A2A_BYTES_CAP);
	recv_rows(fp, c, t);
	count_row(fp, "trace.max_expert_recv_tokens", t->max_expert);
	if (ll >= MK_A2A_BYTES_CAP)
		fprintf(fp, "# low_latency_rdma_size_hint is over the 32 GiB "
		    "cap (DeepEP asserts bytes / 16 < INT_MAX): lower "
		    "--max-tokens\n");
	return 0;
}

int
mk_a2a_report_write(FILE *fp, const struct mk_a2a_sizing *sz,
    const struct mk_a2a_cfg *c, const struct mk_a2a_tally *t,
    struct mk_err *e)
{
	struct mk_a2a_dcfg d, cb;
	uint64_t h = (uint64_t)sz->hidden_bytes, nvl[2], rdma[2], ll = 0;
	uint64_t rec_nvl, rec_rdma;
	int R = c->R, r;

	if (c->style == MK_A2A_TRITON)
		return triton_report(fp, sz, c, t);
	if (c->ll_only)
		return ll_report(fp, sz, c, t);
	if ((r = mk_a2a_configs(sz, R, &d, &cb, e)) != 0)
		return r < 0 ? -1 : mk_err_usage(e, "%d ranks: DeepEP has no "
		    "default config; give --config", R);
	fprintf(fp, "quantity,bytes,mib\n");
	fprintf(fp, "# R=%d (%s), E=%d, K=%d, num_sms=%d (%d channels), "
	    "hidden=%lld, %s, hidden_bytes=%llu, dispatch config %d,%d,%d,%d, "
	    "combine config %d,%d,%d,%d%s\n", R, R > MK_A2A_NVL ? "internode" :
	    "intranode", c->E, c->K, sz->num_sms, c->C, (long long)sz->hidden,
	    sz->fp8 ? "fp8" : "bf16", (unsigned long long)h, d.nvl_send,
	    d.nvl_recv, d.rdma_send, d.rdma_recv, cb.nvl_send, cb.nvl_recv,
	    cb.rdma_send, cb.rdma_recv, d.idx_bytes == 4 ?
	    ", TOPK_IDX_BITS=32" : "");
	nvl[0] = mk_a2a_nvl_hint(&d, h, R);
	nvl[1] = mk_a2a_nvl_hint(&cb, h, R);
	rdma[0] = mk_a2a_rdma_hint(&d, h, R);
	rdma[1] = mk_a2a_rdma_hint(&cb, h, R);
	row(fp, "nvl_buffer_size_hint.dispatch", nvl[0]);
	row(fp, "nvl_buffer_size_hint.combine", nvl[1]);
	row(fp, "rdma_buffer_size_hint.dispatch", rdma[0]);
	row(fp, "rdma_buffer_size_hint.combine", rdma[1]);
	needs(fp, sz, c, &d, &cb);
	rec_nvl = nvl[0] > nvl[1] ? nvl[0] : nvl[1];
	rec_rdma = rdma[0] > rdma[1] ? rdma[0] : rdma[1];
	if (sz->max_tokens > 0) {
		ll = mk_a2a_ll_hint((uint64_t)sz->max_tokens,
		    (uint64_t)sz->hidden, c->E);
		row(fp, "low_latency_rdma_size_hint", ll);
		if (ll > rec_rdma)
			rec_rdma = ll;
	}
	elastic_rows(fp, sz, c, t);
	row(fp, "recommended_num_nvl_bytes", rec_nvl);
	row(fp, "recommended_num_rdma_bytes", rec_rdma);
	row(fp, "deepep_buffer_cap", MK_A2A_BYTES_CAP);
	trace_rows(fp, sz, c, t);
	/* DeepEP asserts bytes / 16 < INT_MAX: flag what would fail */
	if (ll >= MK_A2A_BYTES_CAP)
		fprintf(fp, "# low_latency_rdma_size_hint is over the 32 GiB "
		    "cap (DeepEP asserts bytes / 16 < INT_MAX): lower "
		    "--max-tokens\n");
	if (rec_nvl >= MK_A2A_BYTES_CAP)
		fprintf(fp, "# recommended_num_nvl_bytes is over the 32 GiB "
		    "cap\n");
	if (rec_rdma >= MK_A2A_BYTES_CAP && rec_rdma != ll)
		fprintf(fp, "# recommended_num_rdma_bytes is over the 32 GiB "
		    "cap\n");
	/* the Buffer constructor's asserts for normal (not LL) mode */
	if (R > MK_A2A_NVL && rec_nvl > INT_MAX)
		fprintf(fp, "# recommended_num_nvl_bytes is above INT_MAX "
		    "(2147483647): DeepEP's Buffer asserts num_nvl_bytes <= "
		    "INT_MAX when num_rdma_bytes > 0 (internode); lower "
		    "--num-sms or the config's nvl_recv\n");
	if ((rdma[0] > INT_MAX || rdma[1] > INT_MAX))
		fprintf(fp, "# rdma_buffer_size_hint is above INT_MAX "
		    "(2147483647): DeepEP's Buffer asserts num_rdma_bytes <= "
		    "INT_MAX outside low-latency mode\n");
	return 0;
}
