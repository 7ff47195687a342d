/*
 * mdec_run.h - mdecode's story: what it was asked (cmd/mdecode.c reads
 * its options' values into it), the rules between them checked, and a
 * decode or a benchmark run to written outputs.  Like cli/, this floor of
 * the wing writes and exits: a run's outputs are committed together or
 * not at all (cli/io.h), a bad input ends it with one line and status 1
 * or 2.
 */
#ifndef MK_MDEC_RUN_H
#define MK_MDEC_RUN_H

#include "cli/cli.h"
#include "mdec/mdec.h"
#include "mdec/mdec_bench.h"


/* mdecode's options, by their index in its table (cmd/mdecode.c). */
enum {
	MK_MDECODE_O_Q, MK_MDECODE_O_K, MK_MDECODE_O_V, MK_MDECODE_O_M,
	MK_MDECODE_O_LAYOUT, MK_MDECODE_O_TABLE, MK_MDECODE_O_LENS,
	MK_MDECODE_O_KVH, MK_MDECODE_O_VALID, MK_MDECODE_O_SCALE,
	MK_MDECODE_O_DTYPE, MK_MDECODE_O_KSCALE, MK_MDECODE_O_VSCALE,
	MK_MDECODE_O_VDIM, MK_MDECODE_O_ODT, MK_MDECODE_O_THREADS,
	MK_MDECODE_O_BENCH, MK_MDECODE_O_PLOT, MK_MDECODE_O_BKERN,
	MK_MDECODE_O_BSZ, MK_MDECODE_O_QH, MK_MDECODE_O_MAXLEN,
	MK_MDECODE_O_DIM, MK_MDECODE_O_DENS, MK_MDECODE_O_BSIZE,
	MK_MDECODE_O_ISA, MK_MDECODE_O_REPS, MK_MDECODE_O_SEED,
	MK_MDECODE_O_QTOK, MK_MDECODE_O_FILE, MK_MDECODE_NOPT
};

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
	unsigned char	 given[MK_MDECODE_NOPT];	/* which options were:
						 * the rules between them are
						 * mk_mdecode_run's */
	struct mk_mdec_bench b;
};


/*
 * mdecode: the decode (inputs read, attention computed, lse and out
 * written) or --bench / --bench-kernel (its table and picture).  Returns
 * 0; exits on an error.
 */
int	mk_mdecode_run(const struct mk_mdecode_job *j);

#endif
