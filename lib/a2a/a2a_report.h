/*
 * a2a_report.h - what a2a-layout --report prints (a2a-layout(1), "Buffer
 * sizes"): DeepEP's size hints and the bytes its kernels assert on, for a
 * hidden size, dtype and config, beside the worst case the trace needed.
 * The tally gathers that worst case a step at a time; the report is a
 * CSV table "quantity,bytes,mib" (with # comment lines) written to a
 * stream the caller owns.
 */
#ifndef MK_A2A_REPORT_H
#define MK_A2A_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "a2a/a2a.h"
#include "base/errmsg.h"

/* What the sizes depend on besides the group (the command's options). */
struct mk_a2a_sizing {
	int64_t		 hidden;	/* H */
	int64_t		 hidden_bytes;	/* the hints' argument: H * 2 */
	int		 fp8;		/* x is fp8 with H/128 scales */
	int		 num_sms;
	int64_t		 max_tokens;	/* low-latency M, or 0 */
	int		 has_config;	/* dcfg holds --config */
	struct mk_a2a_dcfg dcfg;
	int		 scaleup;	/* EPv2: ranks per NVLink domain (0:
					 * 8, or R below 8) */
	int		 idx_bytes;	/* sizeof(topk_idx_t) of the DeepEP
					 * build: 8, or 4 (TOPK_IDX_BITS=32) */
};

/* The worst case over the steps of a trace. */
struct mk_a2a_tally {
	int	 steps;
	int64_t	 max_recv;	/* tokens a rank received, at most */
	int64_t	 max_worst;	/* num_worst_tokens that suffices: also
				 * num_rdma_recv_tokens internode */
	int	 max_rank, max_step;	/* where (the first such) */
	double	 sum_recv;	/* over steps and ranks, for the mean */
	int64_t	 max_rows;	/* Triton-distributed rows a rank needed */
	int64_t	 rows;		/* its output capacity after the last step */
	int64_t	 max_T;		/* tokens on a rank, at most */
	int64_t	 max_expert;	/* tokens a local expert received (the
				 * low-latency packed_recv_count), at most */
	int	 used;		/* 1 + the highest expert given a token */
};

/* The bytes of one dispatched token's x: H*2 (bf16) or H (fp8). */
uint64_t	mk_a2a_token_bytes(const struct mk_a2a_sizing *sz);

/* Add step `step` (group result g, capacity rows) to t. */
void	mk_a2a_tally_step(struct mk_a2a_tally *t, const struct mk_a2a_cfg *c,
	    const struct mk_a2a_group *g, int step, int64_t rows);

/*
 * The dispatch and combine configs of sz for R ranks: --config for both,
 * else DeepEP's table.  Returns 0, 1 if R has no table entry (and no
 * --config was given), or -1 with a usage error quoting the DeepEP rule
 * a config breaks.
 */
int	mk_a2a_configs(const struct mk_a2a_sizing *sz, int R,
	    struct mk_a2a_dcfg *dispatch, struct mk_a2a_dcfg *combine,
	    struct mk_err *e);

/*
 * Write the report for group c and tally t to fp.  Returns 0, or -1 with
 * e filled when the configs cannot be had (see mk_a2a_configs).  Write
 * errors are fp's to report (ferror).
 */
int	mk_a2a_report_write(FILE *fp, const struct mk_a2a_sizing *sz,
	    const struct mk_a2a_cfg *c, const struct mk_a2a_tally *t,
	    struct mk_err *e);

#endif
