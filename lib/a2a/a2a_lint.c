/* a2a_lint.c - the libraries' hard limits; see a2a_lint.h. */
#include <limits.h>

#include "a2a/a2a_lint.h"

/* The tokens a rank's buffers are sized for: --max-tokens, else the
 * trace's most. */
static int64_t
tokens(const struct mk_a2a_lint_in *in)
{
	return in->sz->max_tokens > 0 ? in->sz->max_tokens : in->T;
}

/* NCCL EP's high-throughput kernels take tokens a rank in multiples of
 * 64 (Megatron-LM #7578 pads for them). */
static int
nccl_ht(FILE *fp, const struct mk_a2a_lint_in *in)
{
	int64_t M = tokens(in);

	if (M % 64 == 0)
		return 0;
	fprintf(fp, "nccl_ep: high-throughput tokens a rank, %lld, are not a "
	    "multiple of 64 (NVIDIA/Megatron-LM #7578): --max-tokens %lld\n",
	    (long long)M, (long long)((M + 63) / 64 * 64));
	return 1;
}

/* pplx-garden's kernels take 1024 experts at most (#9 would lift it). */
static int
pplx_experts(FILE *fp, const struct mk_a2a_lint_in *in)
{
	if (in->c->E <= 1024)
		return 0;
	fprintf(fp, "pplx: %d experts, over its 1024 (perplexityai/pplx-garden "
	    "#9): no option; fewer experts a layer (or #9's branch)\n",
	    in->c->E);
	return 1;
}

/* Whether DeepEP's low-latency buffer for M tokens is over its bound. */
static int
ll_over(const struct mk_a2a_lint_in *in, int64_t M)
{
	return mk_a2a_ll_hint((uint64_t)M, (uint64_t)in->sz->hidden,
	    in->c->E) >= MK_A2A_BYTES_CAP;
}

/*
 * DeepEP's low-latency dispatch: ranks x num_max_dispatch_tokens_per_rank
 * is a multiple of 4 (TMA), and its buffer in 16-byte units an int
 * (csrc/deep_ep.cpp at 567632d).  Only with --max-tokens, which names
 * that M (and which a2a-layout holds to the trace's tokens a rank).
 */
static int
deepep_ll(FILE *fp, const struct mk_a2a_lint_in *in)
{
	int64_t M = in->sz->max_tokens, fit, lo, hi, mid;
	int n = 0;

	if (M <= 0)
		return 0;
	if (in->c->R * M % 4 != 0) {
		for (fit = M; in->c->R * fit % 4 != 0; fit++)
			;
		fprintf(fp, "deepep: ranks x num_max_dispatch_tokens_per_rank = "
		    "%lld is not a multiple of 4 (csrc/deep_ep.cpp at 567632d: "
		    "TMA): --max-tokens %lld\n", (long long)(in->c->R * M),
		    (long long)fit);
		n++;
	}
	if (ll_over(in, M)) {
		lo = 0;		/* the largest M' under the bound, by halves */
		hi = M;
		while (hi - lo > 1) {
			mid = lo + (hi - lo) / 2;
			if (ll_over(in, mid))
				hi = mid;
			else
				lo = mid;
		}
		fit = lo;
		fprintf(fp, "deepep: the low-latency buffer of %llu bytes is over "
		    "the int bound (csrc/deep_ep.cpp at 567632d: bytes / 16 < "
		    "INT_MAX): --max-tokens %lld\n", (unsigned long long)
		    mk_a2a_ll_hint((uint64_t)M, (uint64_t)in->sz->hidden,
		    in->c->E), (long long)fit);
		n++;
	}
	return n;
}

/*
 * UCCL-EP allocates 1 GB of RDMA buffer unless told; an 8-node group
 * needed 1.6 GB (uccl-project/uccl #670): internode, where DeepEP's hint
 * for the trace's group is over 1 GiB.
 */
static int
uccl_rdma(FILE *fp, const struct mk_a2a_lint_in *in)
{
	struct mk_a2a_dcfg d, cb;
	struct mk_err e;
	uint64_t need, ll;

	if (!mk_a2a_internode(in->c) || mk_a2a_configs(in->sz, in->c->R, &d,
	    &cb, &e) != 0)
		return 0;
	need = mk_a2a_rdma_hint(&d, (uint64_t)in->sz->hidden_bytes, in->c->R);
	if (mk_a2a_rdma_hint(&cb, (uint64_t)in->sz->hidden_bytes, in->c->R) >
	    need)
		need = mk_a2a_rdma_hint(&cb, (uint64_t)in->sz->hidden_bytes,
		    in->c->R);
	ll = in->sz->max_tokens > 0 ? mk_a2a_ll_hint((uint64_t)
	    in->sz->max_tokens, (uint64_t)in->sz->hidden, in->c->E) : 0;
	need = ll > need ? ll : need;
	if (need <= (uint64_t)1 << 30)
		return 0;
	fprintf(fp, "uccl: the RDMA buffer needs %llu bytes, over UCCL-EP's 1 GB "
	    "default (uccl-project/uccl #670): give it get_rdma_buffer_size_hint's "
	    "%llu\n", (unsigned long long)need, (unsigned long long)need);
	return 1;
}

/*
 * Triton-distributed's dispatch output holds max_tokens x K x 2 rows (more
 * when a step needs them), its offsets int32 elements
 * (ByteDance-Seed/Triton-distributed #203).
 */
static int
triton_offsets(FILE *fp, const struct mk_a2a_lint_in *in)
{
	int64_t M = tokens(in), H = in->sz->hidden, K = in->c->K;
	int64_t rows = mk_a2a_triton_rows(0, M, (int)K, in->rows);

	if (rows * H <= INT32_MAX)
		return 0;
	fprintf(fp, "triton-dist: %lld output rows x hidden %lld overflow its "
	    "int32 offsets (ByteDance-Seed/Triton-distributed #203): "
	    "--max-tokens %lld\n", (long long)rows, (long long)H,
	    (long long)(INT32_MAX / (2 * K * H)));
	return 1;
}

int
mk_a2a_lint(FILE *fp, const struct mk_a2a_lint_in *in)
{
	return nccl_ht(fp, in) + pplx_experts(fp, in) + deepep_ll(fp, in) +
	    uccl_rdma(fp, in) + triton_offsets(fp, in);
}
