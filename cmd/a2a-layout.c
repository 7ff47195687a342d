/*
 * a2a-layout - read a routing trace (topk ids of every rank of an EP
 * group) and write what DeepEP or Triton-distributed compute before an
 * all-to-all dispatch: counts, prefix matrices, receive offsets, per-token
 * heads, and (--report) the buffer sizes to allocate.
 */
#include <err.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <argtable2.h>

#include "moekit.h"
#include "a2a.h"
#include "a2a_trace.h"

/* Where an output's data lives: a group array or a rank array. */
enum { G_TPR, G_TPN, G_TPE, G_CP, G_RCP, G_RP, G_RRP, G_RDRP, G_RT, G_RDRT,
    G_RPE, G_LLC, G_LLR, G_FS, G_IT, G_RO, G_RR, G_ROWS,
    P_INR, P_SH, P_RSI, P_RTK, P_RCP, P_RRCP, P_META, P_NVL, P_SCAT, P_REQ };

struct out {
	const char	*name;
	int		 src;		/* G_... or P_... */
	int		 ndim;		/* without the step dimension */
	int64_t		 shape[3];
	enum mk_dtype	 dtype;
	FILE		*spill;		/* stepped traces: data so far */
};

#define MAX_OUT	24

struct opts {
	struct mk_opts	 c;
	struct mk_a2a_cfg cfg;
	int		 R, rank, step, report, has_config, num_sms;
	int64_t		 hidden, hidden_bytes, max_tokens;
	int		 fp8;
	struct mk_a2a_dcfg dcfg;
	const char	*phy2log, *input;
	int		 layer;
	int		 threads_given;	/* --threads on the command line */
};

static const struct mk_usage usage = {
	"-E E [-R R] [--style deepep|triton-dist] [--num-sms N] [--rank r] "
	    "[--step s] [--phy2log PLAN [--layer L]] [--hidden H] "
	    "[--hidden-bytes B] [--dtype bf16|fp8] [--expert-alignment A] "
	    "[--config NS,NR,RS,RR] [--max-tokens M] [--lenient] [--report] "
	    "[-f csv|npy] [--emit LIST] [-o FILE] [--threads N] [-hVv] [FILE]",
	"Compute expert-parallel all-to-all dispatch layouts and buffer sizes "
	    "from routing traces.",
	"FILE: topk ids [R,T,K], one [T_r,K] per rank, or [S,R,T,K] (i32/i64);\n"
	    "none or -: stdin.  With --phy2log, PLAN or FILE (not both) may "
	    "be -.\nMOEKIT_A2A_READ=pread|map: how a trace file is read "
	    "(default: timed both ways).\n",
};

static void
parse_args(int argc, char **argv, struct opts *o)
{
	struct mk_common c;
	struct arg_str *E, *R, *style, *sms, *rank, *step, *layer, *hidden,
	    *hb, *dtype, *align, *config, *maxtok;
	struct arg_lit *lenient, *report;
	struct arg_file *plan, *file;
	struct arg_end *end;
	int v[4], n;

	mk_common_args(&c, MK_OPT_FORMAT | MK_OPT_EMIT | MK_OPT_OUTPUT |
	    MK_OPT_THREADS);
	E = arg_str0("E", "experts", "E", "experts (required unless "
	    "--phy2log)");
	R = arg_str0("R", "ranks", "R", "ranks (default: from the input)");
	style = arg_str0(NULL, "style", "deepep|triton-dist",
	    "whose layout (default deepep)");
	sms = arg_str0(NULL, "num-sms", "N", "SMs of the dispatch; channels = "
	    "N/2 (default 20)");
	rank = arg_str0(NULL, "rank", "r", "also write the per-token tensors "
	    "of rank r");
	step = arg_str0(NULL, "step", "s", "the step of a [S,R,T,K] trace "
	    "whose per-token tensors --rank writes");
	plan = arg_file0(NULL, "phy2log", "PLAN", "route logical ids through "
	    "this eplb-plan phy2log");
	layer = arg_str0(NULL, "layer", "L", "the layer of PLAN (default 0)");
	hidden = arg_str0(NULL, "hidden", "H", "hidden size (default 7168)");
	hb = arg_str0(NULL, "hidden-bytes", "B", "bytes per token for the "
	    "hints (default H*2, bf16)");
	dtype = arg_str0(NULL, "dtype", "bf16|fp8", "dispatched data (fp8: "
	    "H/128 scales)");
	align = arg_str0(NULL, "expert-alignment", "A", "align per-expert "
	    "receive counts up to A (default 1)");
	config = arg_str0(NULL, "config", "NS,NR,RS,RR", "DeepEP chunk sizes "
	    "(default: DeepEP's table for R)");
	maxtok = arg_str0(NULL, "max-tokens", "M", "low-latency M / "
	    "Triton-distributed max_tokens");
	lenient = arg_lit0(NULL, "lenient", "ignore ids out of range, as "
	    "DeepEP's get_dispatch_layout does");
	report = arg_lit0(NULL, "report", "write the buffer-size table (CSV; "
	    "stderr when tensors go to stdout)");
	file = arg_file0(NULL, NULL, "FILE", "routing trace (default: stdin)");
	end = arg_end(20);
	void *argtable[] = { E, R, style, sms, rank, step, plan, layer,
	    hidden, hb, dtype, align, config, maxtok, lenient, report,
	    c.format, c.emit, c.output, c.threads, c.verbose, c.help,
	    c.version, file, end };

	mk_cli_parse(argc, argv, argtable, &c, &usage, &o->c);
	o->threads_given = c.threads->count > 0;
	memset(&o->cfg, 0, sizeof(o->cfg));
	o->phy2log = plan->count ? plan->filename[0] : NULL;
	o->input = file->count ? file->filename[0] : NULL;
	if (E->count)
		o->cfg.E = (int)mk_opt_int(E->sval[0], 1, 1 << 24, "--experts");
	else if (o->phy2log == NULL)
		mk_usage_error("--experts E is required (or --phy2log PLAN)");
	o->R = R->count ? (int)mk_opt_int(R->sval[0], 1, MK_A2A_MAX_RANKS,
	    "--ranks") : 0;
	o->cfg.style = MK_A2A_DEEPEP;
	if (style->count && strcmp(style->sval[0], "triton-dist") == 0)
		o->cfg.style = MK_A2A_TRITON;
	else if (style->count && strcmp(style->sval[0], "deepep") != 0)
		mk_usage_error("--style: '%s' is not deepep or triton-dist",
		    style->sval[0]);
	o->num_sms = sms->count ? (int)mk_opt_int(sms->sval[0], 2, 1 << 16,
	    "--num-sms") : 20;
	if (o->num_sms % 2 != 0)
		mk_usage_error("--num-sms %d is odd: DeepEP requires an even "
		    "number (one sender and one receiver SM per channel)",
		    o->num_sms);
	o->cfg.C = o->num_sms / 2;
	o->rank = rank->count ? (int)mk_opt_int(rank->sval[0], 0,
	    MK_A2A_MAX_RANKS - 1, "--rank") : -1;
	o->step = step->count ? (int)mk_opt_int(step->sval[0], 0, INT32_MAX,
	    "--step") : -1;
	o->layer = layer->count ? (int)mk_opt_int(layer->sval[0], 0,
	    INT32_MAX, "--layer") : 0;
	if (layer->count && o->phy2log == NULL)
		mk_usage_error("--layer needs --phy2log");
	o->hidden = hidden->count ? mk_opt_int(hidden->sval[0], 1,
	    (int64_t)1 << 24, "--hidden") : 7168;
	o->hidden_bytes = hb->count ? mk_opt_int(hb->sval[0], 1,
	    (int64_t)1 << 30, "--hidden-bytes") : o->hidden * 2;
	o->fp8 = dtype->count && strcmp(dtype->sval[0], "fp8") == 0;
	if (dtype->count && !o->fp8 && strcmp(dtype->sval[0], "bf16") != 0)
		mk_usage_error("--dtype: '%s' is not bf16 or fp8",
		    dtype->sval[0]);
	if (o->fp8 && o->hidden % 128 != 0)
		mk_usage_error("--dtype fp8 needs --hidden %lld to be a multiple "
		    "of 128 (one scale per 128 values)", (long long)o->hidden);
	o->cfg.align = align->count ? (int)mk_opt_int(align->sval[0], 1,
	    1 << 20, "--expert-alignment") : 1;
	o->max_tokens = maxtok->count ? mk_opt_int(maxtok->sval[0], 1,
	    (int64_t)1 << 30, "--max-tokens") : 0;
	o->cfg.lenient = lenient->count > 0;
	o->report = report->count > 0;
	o->has_config = config->count > 0;
	if (o->has_config) {
		if (sscanf(config->sval[0], "%d,%d,%d,%d%n", &v[0], &v[1],
		    &v[2], &v[3], &n) != 4 || config->sval[0][n] != '\0')
			mk_usage_error("--config: '%s' is not NS,NR,RS,RR "
			    "(nvl_send,nvl_recv,rdma_send,rdma_recv)",
			    config->sval[0]);
		o->dcfg.num_sms = o->num_sms;
		o->dcfg.nvl_send = v[0];
		o->dcfg.nvl_recv = v[1];
		o->dcfg.rdma_send = v[2];
		o->dcfg.rdma_recv = v[3];
	}
	if (o->phy2log && o->input && strcmp(o->phy2log, "-") == 0 &&
	    strcmp(o->input, "-") == 0)
		mk_usage_error("--phy2log - and the trace cannot both be stdin");
	if (o->phy2log && !o->input && strcmp(o->phy2log, "-") == 0)
		mk_usage_error("--phy2log -: the trace is on stdin already; "
		    "give the trace as FILE");
}

/* The outputs of the chosen style and topology, in stream order. */
static int
list_outputs(const struct opts *o, const struct mk_a2a_cfg *c, int64_t T,
    int64_t N, int64_t Nr, struct out *out)
{
	int64_t R = c->R, E = c->E, C = c->C, K = c->K, epr = E / R;
	int64_t RR = R > MK_A2A_NVL ? R / MK_A2A_NVL : 1, nodes = R / c->local;
	int inter = R > MK_A2A_NVL, n = 0, per = o->rank >= 0;
#define ADD(nm, s, nd, a, b, d3, dt) do {				\
	out[n].name = nm; out[n].src = s; out[n].ndim = nd;		\
	out[n].shape[0] = a; out[n].shape[1] = b; out[n].shape[2] = d3;	\
	out[n].dtype = dt; out[n].spill = NULL; n++;			\
} while (0)

	if (c->style == MK_A2A_TRITON) {
		ADD("full_splits", G_FS, 2, R, E + 1, 0, MK_I32);
		ADD("num_input_tokens_per_rank", G_IT, 1, R, 0, 0, MK_I32);
		ADD("recv_buf_offset_per_expert", G_RO, 3, R, epr, R, MK_I32);
		ADD("num_recv_tokens_per_rank", G_RR, 1, R, 0, 0, MK_I32);
		ADD("dispatch_output_rows", G_ROWS, 1, R, 0, 0, MK_I64);
		ADD("packed_recv_count", G_LLC, 2, R, epr, 0, MK_I32);
		ADD("layout_range", G_LLR, 3, R, epr, R, MK_I64);
		if (per) {
			ADD("token_dst_scatter_idx", P_SCAT, 2, T, K, 0, MK_I32);
			ADD("send_reqs", P_REQ, 3, nodes, 2, T, MK_I32);
		}
		return n;
	}
	ADD("num_tokens_per_rank", G_TPR, 2, R, R, 0, MK_I32);
	if (inter)
		ADD("num_tokens_per_rdma_rank", G_TPN, 2, R, RR, 0, MK_I32);
	ADD("num_tokens_per_expert", G_TPE, 2, R, E, 0, MK_I32);
	if (inter) {
		ADD("gbl_channel_prefix_matrix", G_CP, 3, R, R, C, MK_I32);
		ADD("rdma_channel_prefix_matrix", G_RCP, 3, R, RR, C, MK_I32);
		ADD("recv_gbl_rank_prefix_sum", G_RRP, 2, R, R, 0, MK_I32);
		ADD("recv_rdma_rank_prefix_sum", G_RDRP, 2, R, RR, 0, MK_I32);
		ADD("num_recv_tokens", G_RT, 1, R, 0, 0, MK_I32);
		ADD("num_rdma_recv_tokens", G_RDRT, 1, R, 0, 0, MK_I32);
	} else {
		ADD("channel_prefix_matrix", G_CP, 3, R, R, C, MK_I32);
		ADD("rank_prefix_matrix", G_RP, 2, R, R, 0, MK_I32);
		ADD("num_recv_tokens", G_RT, 1, R, 0, 0, MK_I32);
	}
	ADD("num_recv_tokens_per_expert", G_RPE, 2, R, epr, 0, MK_I32);
	ADD("packed_recv_count", G_LLC, 2, R, epr, 0, MK_I32);
	ADD("layout_range", G_LLR, 3, R, epr, R, MK_I64);
	if (!per)
		return n;
	ADD("is_token_in_rank", P_INR, 2, T, R, 0, MK_BOOL);
	if (inter)
		ADD("send_rdma_head", P_SH, 2, T, RR, 0, MK_I32);
	else
		ADD("send_head", P_SH, 2, T, R, 0, MK_I32);
	ADD("recv_src_idx", P_RSI, 1, N, 0, 0, MK_I32);
	ADD("recv_topk_idx", P_RTK, 2, N, K, 0, MK_I64);
	if (inter) {
		ADD("recv_gbl_channel_prefix_matrix", P_RCP, 2, R, C, 0, MK_I32);
		ADD("recv_rdma_channel_prefix_matrix", P_RRCP, 2, RR, C, 0,
		    MK_I32);
		ADD("recv_src_meta", P_META, 2, N, 2, 0, MK_I32);
		ADD("send_nvl_head", P_NVL, 2, Nr, MK_A2A_NVL, 0, MK_I32);
	} else {
		ADD("recv_channel_prefix_matrix", P_RCP, 2, R, C, 0, MK_I32);
	}
	return n;
#undef ADD
}

/* The data of output x for this step. */
static const void *
data_of(const struct out *x, const struct mk_a2a_group *g,
    const struct mk_a2a_rank *pr, const int64_t *rows)
{
	switch (x->src) {
	case G_TPR:	return g->tokens_per_rank;
	case G_TPN:	return g->tokens_per_node;
	case G_TPE:	return g->tokens_per_expert;
	case G_CP:	return g->chan_prefix;
	case G_RCP:	return g->rdma_chan_prefix;
	case G_RP:	return g->rank_prefix;
	case G_RRP:	return g->recv_rank_prefix;
	case G_RDRP:	return g->rdma_rank_prefix;
	case G_RT:	return g->recv_tokens;
	case G_RDRT:	return g->rdma_recv_tokens;
	case G_RPE:	return g->recv_per_expert;
	case G_LLC:	return g->ll_count;
	case G_LLR:	return g->ll_range;
	case G_FS:	return g->full_splits;
	case G_IT:	return g->input_tokens;
	case G_RO:	return g->recv_offset;
	case G_RR:	return g->recv_rows;
	case G_ROWS:	return rows;
	case P_INR:	return pr->in_rank;
	case P_SH:	return pr->send_head;
	case P_RSI:	return pr->recv_src_idx;
	case P_RTK:	return pr->recv_topk;
	case P_RCP:	return pr->recv_chan_prefix;
	case P_RRCP:	return pr->recv_rdma_chan_prefix;
	case P_META:	return pr->recv_src_meta;
	case P_NVL:	return pr->send_nvl_head;
	case P_SCAT:	return pr->scatter_idx;
	default:	return pr->send_reqs;
	}
}

static size_t
nelem(const struct out *x)
{
	size_t n = 1;
	int i;

	for (i = 0; i < x->ndim; i++)
		n *= (size_t)x->shape[i];
	return n;
}

/* An unlinked temporary file for one output of a stepped trace. */
static FILE *
spill_open(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	FILE *fp;
	int fd;

	snprintf(path, sizeof(path), "%s/a2a-layout.XXXXXX",
	    dir && *dir ? dir : "/tmp");
	if ((fd = mkstemp(path)) < 0)
		err(MK_EXIT_DATA, "%s", path);
	unlink(path);
	if ((fp = fdopen(fd, "w+")) == NULL)
		err(MK_EXIT_DATA, "temporary file");
	return fp;
}

/* Write output x: its step slices from the spill, or data directly. */
static void
emit(struct mk_out *w, struct out *x, int S, const void *data)
{
	int64_t shape[4];
	size_t n = nelem(x), sz = mk_dtype_size(x->dtype), i, got;
	char buf[1 << 16];
	int d = 0, k;

	if (S > 0)
		shape[d++] = S;
	for (k = 0; k < x->ndim; k++)
		shape[d++] = x->shape[k];
	mk_out_begin(w, x->name, x->dtype, d, shape);
	if (x->spill == NULL) {
		mk_out_data(w, data, n);
	} else {
		rewind(x->spill);
		for (i = 0; i < n * (size_t)S; i += got) {
			got = fread(buf, sz, sizeof(buf) / sz, x->spill);
			if (got == 0)
				err(MK_EXIT_DATA, "temporary file");
			mk_out_data(w, buf, got);
		}
		fclose(x->spill);
	}
	mk_out_end(w);
}

/* What the report needs from the trace. */
struct trace_stats {
	int64_t	max_recv, max_rows, rows;
	double	sum_recv;
	int	max_rank, max_step, steps;
};

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

/*
 * The dispatch and combine configs: --config for both, or DeepEP's table
 * for R.  Exits with a usage error if one breaks DeepEP's rules; returns
 * -1 if R has no table entry and no --config was given.
 */
static int
configs(const struct opts *o, int R, struct mk_a2a_dcfg *d,
    struct mk_a2a_dcfg *cb)
{
	struct mk_err e;

	if (o->has_config)
		*d = *cb = o->dcfg;
	else if (mk_a2a_deepep_config(R, o->num_sms, d, cb) < 0)
		return -1;
	if (mk_a2a_config_check(d, &e) < 0 || mk_a2a_config_check(cb, &e) < 0)
		mk_usage_error("%s", e.msg);
	return 0;
}

static void
report(const struct opts *o, const struct mk_a2a_cfg *c,
    const struct trace_stats *ts, FILE *fp)
{
	struct mk_a2a_dcfg d, cb;
	uint64_t h = (uint64_t)o->hidden_bytes, nvl[2], rdma[2], ll = 0;
	uint64_t xb = (uint64_t)(o->fp8 ? o->hidden : o->hidden * 2), v;
	uint64_t rec_nvl, rec_rdma;
	int R = c->R, inter = R > MK_A2A_NVL, scales = o->fp8 ?
	    (int)(o->hidden / 128) : 0;

	if (configs(o, R, &d, &cb) < 0)
		return;		/* checked before any work: cannot happen */
	fprintf(fp, "quantity,bytes,mib\n");
	fprintf(fp, "# R=%d (%s), E=%d, K=%d, num_sms=%d (%d channels), "
	    "hidden=%lld, %s, hidden_bytes=%llu, dispatch config %d,%d,%d,%d, "
	    "combine config %d,%d,%d,%d\n", R, inter ? "internode" :
	    "intranode", c->E, c->K, o->num_sms, c->C, (long long)o->hidden,
	    o->fp8 ? "fp8" : "bf16", (unsigned long long)h, d.nvl_send,
	    d.nvl_recv, d.rdma_send, d.rdma_recv, cb.nvl_send, cb.nvl_recv,
	    cb.rdma_send, cb.rdma_recv);
	nvl[0] = mk_a2a_nvl_hint(&d, h, R);
	nvl[1] = mk_a2a_nvl_hint(&cb, h, R);
	rdma[0] = mk_a2a_rdma_hint(&d, h, R);
	rdma[1] = mk_a2a_rdma_hint(&cb, h, R);
	row(fp, "nvl_buffer_size_hint.dispatch", nvl[0]);
	row(fp, "nvl_buffer_size_hint.combine", nvl[1]);
	row(fp, "rdma_buffer_size_hint.dispatch", rdma[0]);
	row(fp, "rdma_buffer_size_hint.combine", rdma[1]);
	if (!inter) {
		row(fp, "intranode.notify_need", (uint64_t)R * (uint64_t)(R +
		    c->E / R) * 4);
		row(fp, "intranode.dispatch_need", mk_a2a_intra_dispatch_need(&d,
		    R, xb, c->K, scales));
		row(fp, "intranode.combine_need", mk_a2a_intra_combine_need(&cb,
		    R, (uint64_t)o->hidden * 2, c->K));
	} else {
		v = mk_a2a_bytes_per_token(xb, scales, c->K, c->K);
		row(fp, "internode.bytes_per_token.dispatch", v);
		row(fp, "internode.rdma_need.dispatch",
		    mk_a2a_inter_rdma_need(&d, R, v));
		row(fp, "internode.nvl_need.dispatch",
		    mk_a2a_inter_nvl_need(&d, R, v));
		v = mk_a2a_bytes_per_token((uint64_t)o->hidden * 2, 0, 0, c->K);
		row(fp, "internode.bytes_per_token.combine", v);
		row(fp, "internode.rdma_need.combine",
		    mk_a2a_inter_rdma_need(&cb, R, v));
		row(fp, "internode.nvl_need.combine",
		    mk_a2a_inter_nvl_need(&cb, R, v));
	}
	rec_nvl = nvl[0] > nvl[1] ? nvl[0] : nvl[1];
	rec_rdma = rdma[0] > rdma[1] ? rdma[0] : rdma[1];
	if (o->max_tokens > 0) {
		ll = mk_a2a_ll_hint((uint64_t)o->max_tokens,
		    (uint64_t)o->hidden, c->E);
		row(fp, "low_latency_rdma_size_hint", ll);
		if (ll > rec_rdma)
			rec_rdma = ll;
	}
	row(fp, "recommended_num_nvl_bytes", rec_nvl);
	row(fp, "recommended_num_rdma_bytes", rec_rdma);
	row(fp, "deepep_buffer_cap", MK_A2A_BYTES_CAP);
	count_row(fp, "trace.steps", ts->steps);
	count_row(fp, "trace.max_recv_tokens", ts->max_recv);
	fprintf(fp, "trace.mean_recv_tokens,%.1f,\n", ts->sum_recv /
	    ((double)ts->steps * R > 0 ? (double)ts->steps * R : 1));
	count_row(fp, "trace.max_recv_rank", ts->max_rank);
	count_row(fp, "trace.max_recv_step", ts->max_step);
	count_row(fp, "trace.num_worst_tokens", ts->max_recv);
	row(fp, "trace.recv_x_bytes", (uint64_t)ts->max_recv * xb);
	count_row(fp, "trace.triton_recv_rows", ts->max_rows);
	count_row(fp, "trace.triton_output_rows", ts->rows);
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
}

/* Update the trace statistics with one step. */
static void
stats(struct trace_stats *ts, const struct mk_a2a_cfg *c,
    const struct mk_a2a_group *g, int step, int64_t rows)
{
	int r;

	for (r = 0; r < c->R; r++) {
		ts->sum_recv += g->recv_tokens[r];
		if (g->recv_tokens[r] > ts->max_recv) {
			ts->max_recv = g->recv_tokens[r];
			ts->max_rank = r;
			ts->max_step = step;
		}
		if (g->recv_rows[r] > ts->max_rows)
			ts->max_rows = g->recv_rows[r];
	}
	ts->rows = rows;
	ts->steps++;
}

/* The plan's layer as a row of physical slots; sets *P and *E. */
static int64_t *
read_plan(const struct opts *o, int *P, int *E)
{
	struct mk_tensor t;
	struct mk_src *s;
	struct mk_err e;
	int64_t *row, L;
	size_t i;
	int max = -1;

	if ((s = mk_src_open(o->phy2log, &e)) == NULL)
		mk_fail(NULL, &e);
	mk_tensor_init(&t);
	if (mk_src_next(s, &t, &e) < 0)
		mk_fail(s, &e);
	if ((t.ndim != 1 && t.ndim != 2) || mk_dtype_kind(t.dtype) ==
	    MK_KIND_FLOAT) {
		mk_err_data(&e, "--phy2log %s: not a phy2log [L, R] of integers",
		    mk_src_name(s));
		mk_tensor_free(&t);
		mk_fail(s, &e);
	}
	L = t.ndim == 2 ? t.shape[0] : 1;
	*P = (int)t.shape[t.ndim - 1];
	if (o->layer >= L) {
		mk_err_usage(&e, "--layer %d: %s has %lld layers", o->layer,
		    mk_src_name(s), (long long)L);
		mk_tensor_free(&t);
		mk_fail(s, &e);
	}
	if ((row = malloc(sizeof(int64_t) * (size_t)(*P + 1))) == NULL)
		err(MK_EXIT_DATA, NULL);
	for (i = 0; i < (size_t)*P; i++) {
		row[i] = mk_tensor_get_i64(&t, (size_t)o->layer * (size_t)*P + i);
		if (row[i] > max && row[i] < INT32_MAX)
			max = (int)row[i];
	}
	*E = o->cfg.E > 0 ? o->cfg.E : max + 1;
	mk_tensor_free(&t);
	mk_src_close(s);
	return row;
}

/*
 * Threads pay for themselves on traces of many steps, not on one step:
 * on a 2-CPU virtual machine one 32x4096x8 step took 7 ms on one thread
 * and 10 to 18 ms on two (waking and spinning cost more than the
 * counting).  Below 64 MiB of ids, one thread unless --threads says.
 */
static void
small_input_one_thread(const struct opts *o, const struct mk_a2a_trace *tr)
{
	double bytes = (double)(tr->S > 0 ? tr->S : 1) * tr->R *
	    (double)tr->max_T * tr->K * tr->elem;

	if (!o->threads_given && bytes < 64.0 * (1 << 20))
		omp_set_num_threads(1);
}

/* -v: how a file's steps were read, and what the trial steps took. */
static void
say_reading(const struct mk_a2a_trace *tr, int steps)
{
	if (tr->mapped == NULL)
		return;
	if (tr->read_as > 0)
		fprintf(stderr, "%s: %d steps, %s (MOEKIT_A2A_READ)\n",
		    mk_progname(), steps, tr->method == MK_A2A_BY_MAP ?
		    "mapped" : "read by pread");
	else if (tr->fastest[MK_A2A_BY_PREAD] > 0 &&
	    tr->fastest[MK_A2A_BY_MAP] > 0)
		fprintf(stderr, "%s: %d steps; trial steps took %.3f ms by "
		    "pread, %.3f ms mapped (the fastest of %d each); the rest "
		    "%s\n", mk_progname(), steps,
		    tr->fastest[MK_A2A_BY_PREAD] * 1e3,
		    tr->fastest[MK_A2A_BY_MAP] * 1e3, MK_A2A_TRIAL_STEPS,
		    tr->method == MK_A2A_BY_MAP ? "mapped" : "by pread");
	else
		fprintf(stderr, "%s: %d steps, read by pread\n", mk_progname(),
		    steps);
}

/*
 * MOEKIT_A2A_READ=pread or map: how a trace file is read, every step, in
 * place of the timed trial (for benchmarks and tests).
 */
static int
read_as(void)
{
	const char *v = getenv("MOEKIT_A2A_READ");

	if (v == NULL || *v == '\0')
		return 0;
	if (strcmp(v, "pread") == 0)
		return 1 + MK_A2A_BY_PREAD;
	if (strcmp(v, "map") == 0)
		return 1 + MK_A2A_BY_MAP;
	mk_usage_error("MOEKIT_A2A_READ=%s: pread or map", v);
	return 0;
}

/* Stepped: append this step of every selected group-wide output. */
static void
spill_step(struct out *out, const int *order, int nsel,
    const struct mk_a2a_group *g, const struct mk_a2a_rank *pr,
    const int64_t *rows)
{
	int i;

	for (i = 0; i < nsel; i++) {
		struct out *x = &out[order[i]];
		if (x->src >= P_INR)
			continue;
		if (x->spill == NULL)
			x->spill = spill_open();
		if (fwrite(data_of(x, g, pr, rows), mk_dtype_size(x->dtype),
		    nelem(x), x->spill) != nelem(x))
			err(MK_EXIT_DATA, "temporary file");
	}
}

static int
run(struct opts *o)
{
	struct mk_a2a_trace tr;
	struct mk_a2a_step st, ph, stv[MK_A2A_MAX_STEPS];
	struct mk_a2a_group g, gv[MK_A2A_MAX_STEPS];
	struct mk_a2a_rank pr;
	struct mk_a2a_phys map;
	struct mk_a2a_cfg *c = &o->cfg;
	struct trace_stats ts;
	struct out out[MAX_OUT], shaped[MAX_OUT];
	int32_t **pbuf = NULL;
	int64_t *plan = NULL, *rows, most;
	int order[MAX_OUT], nsel, nout, i, r, S, P = 0, Elog = 0, k, infmt;
	int nb, nbmax, b;
	const char *names[MAX_OUT];
	struct mk_src *s;
	struct mk_out *w;
	struct mk_err e;
	char where[MK_A2A_MAX_STEPS][64];
	const char *wherev[MK_A2A_MAX_STEPS];

	memset(&ts, 0, sizeof(ts));
	memset(&pr, 0, sizeof(pr));
	if (o->phy2log != NULL)
		plan = read_plan(o, &P, &Elog);
	if ((s = mk_src_open(o->input, &e)) == NULL)
		mk_fail(NULL, &e);
	if ((infmt = mk_src_format(s, &e)) < 0)
		mk_fail(s, &e);
	if (mk_a2a_trace_open(&tr, s, o->R, &e) < 0) {
		mk_a2a_trace_close(&tr);
		mk_fail(s, &e);
	}
	tr.read_as = read_as();
	c->R = tr.R;
	c->K = tr.K;
	small_input_one_thread(o, &tr);
	if (plan != NULL) {
		if (mk_a2a_phys_init(&map, plan, P, Elog, o->phy2log, &e) < 0)
			mk_fail(s, &e);
		c->E = P;
	}
	if (mk_a2a_config(c, &e) < 0)
		mk_usage_error("%s", e.msg);
	{
		struct mk_a2a_dcfg d, cb;
		if (configs(o, c->R, &d, &cb) < 0 && o->report)
			mk_usage_error("%d ranks: DeepEP has no default config; "
			    "give --config", c->R);
	}
	if (o->max_tokens > 0 && c->style == MK_A2A_DEEPEP && c->K > 11)
		mk_usage_error("--max-tokens: top-%d routing; DeepEP's "
		    "low-latency kernels need K <= 11", c->K);
	if (o->rank >= c->R)
		mk_usage_error("--rank %d: the trace has %d ranks", o->rank,
		    c->R);
	S = tr.S;
	if (o->rank >= 0 && S > 0 && o->step < 0)
		mk_usage_error("--rank on a trace of %d steps needs --step", S);
	if (o->step >= 0 && (S == 0 || o->step >= S))
		mk_usage_error("--step %d: the trace has %d steps", o->step, S);
	/* several steps of a file read in place; the mapping goes by one */
	nbmax = plan == NULL ? mk_a2a_trace_batch(&tr) : 1;
	memset(gv, 0, sizeof(gv));
	for (b = 0; b < nbmax; b++) {
		if (mk_a2a_group_alloc(&gv[b], c) < 0)
			err(MK_EXIT_DATA, NULL);
		wherev[b] = where[b];
	}
	if ((rows = calloc((size_t)c->R, sizeof(int64_t))) == NULL)
		err(MK_EXIT_DATA, NULL);
	if (plan != NULL) {
		if ((pbuf = calloc((size_t)c->R, sizeof(*pbuf))) == NULL)
			err(MK_EXIT_DATA, NULL);
		for (r = 0; r < c->R; r++)
			if ((pbuf[r] = malloc(sizeof(int32_t) * ((size_t)tr.max_T *
			    (size_t)c->K + 1))) == NULL)
				err(MK_EXIT_DATA, NULL);
	}
	/* The names, to resolve --emit; per-token shapes come later. */
	nout = list_outputs(o, c, 0, 0, 0, out);
	for (i = 0; i < nout; i++) {
		names[i] = out[i].name;
		order[i] = i;
	}
	nsel = nout;
	if (o->c.emit && (nsel = mk_select(o->c.emit, names, nout, order,
	    MAX_OUT, &e)) < 0)
		mk_usage_error("%s", e.msg);
	for (k = 0; ; k += nb) {
		if ((nb = mk_a2a_trace_next_steps(&tr, stv, nbmax, &e)) < 0)
			mk_fail(s, &e);
		if (nb == 0)
			break;
		for (b = 0; b < nb; b++)
			snprintf(where[b], sizeof(where[b]), S > 0 ? "step %d" :
			    "", k + b);
		/* the mapping reads every rank first */
		if (plan != NULL && (mk_a2a_step_load(&stv[0], &e) < 0 ||
		    mk_a2a_phys_map(&map, &stv[0], &ph, pbuf, c->lenient,
		    where[0], &e) < 0))
			mk_fail(s, &e);
		if (mk_a2a_layout_steps(c, plan ? &ph : stv, gv, nb, wherev,
		    &e) < 0)
			mk_fail(s, &e);
		for (b = 0; b < nb; b++) {
			g = gv[b];
			st = stv[b];
			/*
			 * Triton-distributed's output buffer persists across
			 * steps and grows when the largest receiver needs more
			 * rows; every rank allocates the same.
			 */
			for (r = 0, most = 0; r < c->R; r++)
				if (g.recv_rows[r] > most)
					most = g.recv_rows[r];
			rows[0] = mk_a2a_triton_rows(rows[0], o->max_tokens > 0 ?
			    o->max_tokens : tr.max_T, c->K, most);
			for (r = 1; r < c->R; r++)
				rows[r] = rows[0];
			stats(&ts, c, &g, k + b, rows[0]);
			if (o->rank >= 0 && (S == 0 || k + b == o->step)) {
				if (mk_a2a_rank(c, plan ? &ph : &st, &g, o->rank,
				    &pr, &e) < 0)
					mk_fail(s, &e);
				/* now the per-token shapes are known */
				list_outputs(o, c, pr.T, pr.N, pr.Nrdma, shaped);
				for (i = 0; i < nout; i++)
					if (out[i].src >= P_INR)
						memcpy(out[i].shape,
						    shaped[i].shape,
						    sizeof(out[i].shape));
			}
			if (S > 0)
				spill_step(out, order, nsel, &g, &pr, rows);
		}
		if (S == 0)
			break;
	}
	w = mk_out_open(o->c.output, o->c.format != MK_FMT_AUTO ? o->c.format :
	    infmt == MK_FMT_CSV ? MK_FMT_CSV : MK_FMT_NPY);
	for (i = 0; i < nsel; i++) {
		struct out *x = &out[order[i]];
		emit(w, x, x->src >= P_INR ? 0 : S, data_of(x, &g, &pr, rows));
	}
	if (o->report)
		report(o, c, &ts, o->c.output ? stdout : stderr);
	if (o->report && o->c.output && fflush(stdout) != 0)
		err(MK_EXIT_DATA, "stdout");
	mk_out_close(w);
	if (o->c.verbose > 0)
		say_reading(&tr, k);
	mk_a2a_rank_free(&pr);
	for (b = 0; b < nbmax; b++)
		mk_a2a_group_free(&gv[b]);
	mk_a2a_trace_close(&tr);
	mk_src_close(s);
	if (pbuf != NULL) {
		for (r = 0; r < c->R; r++)
			free(pbuf[r]);
		free(pbuf);
		mk_a2a_phys_free(&map);
	}
	free(plan);
	free(rows);
	return MK_EXIT_OK;
}

int
main(int argc, char *argv[])
{
	struct opts o;

	mk_init(argc, argv);
	parse_args(argc, argv, &o);
	return run(&o);
}
