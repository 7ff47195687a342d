/*
 * eplb_xfer.h - what a change of placement sends between GPUs, as vLLM
 * schedules it (PR #52641, vllm/distributed/eplb/migration_scheduler.py):
 * the transfers, the conflict-free batches they run in, and SGLang's P2P
 * operations (chunks of 32, SGLANG_EPLB_P2P_BATCH_CHUNK_SIZE).
 *
 * For each expert in turn, its senders are the GPUs that hold it before,
 * its receivers those that hold it after and not before, both ascending;
 * the receivers are dealt to the senders in blocks of
 * receivers / senders, then the remainder one each to the first senders.
 * The transfers of one (source, destination) pair are a flow, kept in the
 * order of its first transfer; each flow goes to the first batch in which
 * neither GPU is busy, else a new batch: a GPU talks to one peer a batch.
 * An expert a GPU receives that no GPU held before (its copies lost with
 * their GPUs) comes from elsewhere (host memory, a checkpoint): a reload,
 * no transfer.
 */
#ifndef MK_EPLB_XFER_H
#define MK_EPLB_XFER_H

#include <stdint.h>
#include <stdio.h>

#include "base/errmsg.h"

/*
 * One layer's placement on its GPUs: p2l[R] slots, R/G a GPU in order;
 * id[g] names GPU g in the numbering both sides share (NULL: g itself; -1:
 * the GPU is gone and sends nothing).
 */
struct mk_eplb_side {
	const int64_t	*p2l;
	int		 R, G;
	const int	*id;
};

/* What one layer's change sends. */
struct mk_eplb_xfer {
	int64_t	 transfers;	/* expert copies sent GPU to GPU */
	int64_t	 batches;	/* rounds of flows, no GPU twice in one */
	int64_t	 max_batch;	/* transfers in the fullest batch */
	int64_t	 reloads;	/* experts received that no GPU held */
	int64_t	 p2p_ops;	/* SGLang: the most P2P operations (sends
				 * and receives) on one GPU */
	int64_t	 p2p_chunks;	/* its batches of 32 */
	double	 move_s;	/* batches one after another, each its
				 * largest flow's bytes over the link */
};

/* Scratch for up to G GPUs (the shared numbering) and E experts. */
struct mk_eplb_xfer_work;

struct mk_eplb_xfer_work	*mk_eplb_xfer_work(int G, int E);
void	mk_eplb_xfer_work_free(struct mk_eplb_xfer_work *w);

/*
 * The transfers from old to new (both of E experts, G GPUs at most in the
 * shared numbering) into *x; move_s with expert_bytes bytes an expert
 * over a link of gbps gigabits a second (0 either: move_s 0).
 */
void	mk_eplb_xfer(struct mk_eplb_xfer_work *w, const struct mk_eplb_side *old,
	    const struct mk_eplb_side *new_, int E, double expert_bytes,
	    double gbps, struct mk_eplb_xfer *x);

/*
 * eplb-plan --transfers: a CSV row a layer,
 * layer,transfers,batches,max_batch_transfers,bytes,sglang_p2p_ops,
 * sglang_p2p_chunks,reloads, from old [L][R_old] on G_old GPUs (id as in
 * struct mk_eplb_side, or NULL) to new [L][R] on G GPUs, layer[l] the
 * row's model layer (NULL: l), bytes empty without expert_bytes.
 * Returns 0, or -1 with e filled (out of memory).  Write errors are fp's.
 */
struct mk_eplb_xfer_table {
	const int64_t	*old, *new_;
	int		 L, R_old, G_old, R, G, E;
	const int	*id;
	const int	*layer;
	double		 expert_bytes;
};

int	mk_eplb_xfer_write(FILE *fp, const struct mk_eplb_xfer_table *t,
	    struct mk_err *e);

#endif
