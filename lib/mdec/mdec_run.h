/*
 * mdec_run.h - mdecode's story: what it was asked (cmd/mdecode.c reads
 * its options into it), and a decode or a benchmark run to written
 * outputs.  Like cli/, this floor of the wing writes and exits: a run's
 * outputs are committed together or not at all (cli/io.h), a bad input
 * ends it with one line and status 1 or 2.
 */
#ifndef MK_MDEC_RUN_H
#define MK_MDEC_RUN_H

#include "cli/cli.h"
#include "mdec/mdec.h"
#include "mdec/mdec_bench.h"


/* What mdecode was asked. */
struct mk_mdecode_job {
	struct mk_opts	 c;		/* the common options */
	const char	*file;		/* FILE, the stream, or NULL */
	const char	*path[MK_MDEC_NIN];	/* -q -k -v -m, --block-table,
						 * --seq-lens */
	struct mk_mdec_in in;
	int		 out_dtype;	/* -1: q's */
	int		 bench;		/* 1: --bench, 2: --bench-kernel */
	const char	*plot;		/* --bench --plot FILE.svg */
	struct mk_mdec_bench b;
};


/*
 * mdecode: the decode (inputs read, attention computed, lse and out
 * written) or --bench / --bench-kernel (its table and picture).  Returns
 * 0; exits on an error.
 */
int	mk_mdecode_run(const struct mk_mdecode_job *j);

#endif
