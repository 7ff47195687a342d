/*
 * plan.h - a plan read back: the phy2log [L, R] that eplb-plan writes
 * first (or [R] for one layer), as eplb-plan --prev and a2a-layout
 * --phy2log take it.  One reader for both, so that a plan means the same
 * to every tool.
 */
#ifndef MK_MOE_PLAN_H
#define MK_MOE_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "base/errmsg.h"

struct mk_phy2log {
	int	 L, R;		/* layers, physical slots */
	int64_t	*p;		/* [L][R] logical expert of each slot */
	int64_t	 max;		/* the largest expert id (-1: none) */
	int	 ndim;		/* the tensor read: 1 or 2 */
	int64_t	 shape[2];
	int	 dtype;		/* enum mk_dtype */
	char	 what[256];	/* "OPT FILE", naming the plan in messages */
	unsigned char *has;	/* [L] rows given, where the file keys them by
				 * the model's layer (TensorRT-LLM's YAML);
				 * NULL: every row */
};

/*
 * Read the first tensor of path (NULL or "-": stdin) as a phy2log: an
 * integer tensor [L, R] or [R], or an engine's placement file (SGLang's
 * JSON, vLLM's initial mapping line, TensorRT-LLM's YAML).  opt names the
 * option in messages ("--prev FILE: ...").  Returns 0 with *pl filled
 * (free with mk_phy2log_free), or -1 with e filled.
 */
int	mk_phy2log_read(const char *path, const char *opt,
	    struct mk_phy2log *pl, struct mk_err *e);

/*
 * Check that row l (-1: every row) holds only experts in [0, E), each of
 * them: returns 0, or -1 with "OPT FILE: row L, slot S: expert X is not
 * in [0, E)" or "OPT FILE: row L: expert X has no replica" in e (what =
 * "OPT FILE"; rows counted in the file).
 */
int	mk_phy2log_check(const struct mk_phy2log *pl, int l, int E,
	    const char *what, struct mk_err *e);

/*
 * The rows of pl (consumed) for a plan of L layers of R slots over E
 * experts: pl has those L rows, or a row for each of the input's L0
 * layers (SGLang's map of every layer), of which the input layers
 * layer[0..L) are taken.  Messages name the plan by pl->what.  Returns
 * the [L, R] rows (free them), or NULL with e filled.
 */
int64_t	*mk_phy2log_rows(struct mk_phy2log *pl, int L, int L0,
	    const int *layer, int R, int E, struct mk_err *e);

void	mk_phy2log_free(struct mk_phy2log *pl);

/* A plan's rows as an engine's placement file takes them. */
struct mk_moe_plan_rows {
	const int64_t	*phy2log;	/* [L][R] */
	int		 L, R, E;
	const int	*layer;		/* [L] each row's model layer,
					 * ascending */
	int		 L0;		/* the model's layers */
	int		 updates;	/* TensorRT-LLM's layer_updates_per_iter
					 * (0: a static placement) */
};

/*
 * The placement files (plan_write.c), written to fp (write errors are
 * fp's):
 *   SGLang's --init-expert-location JSON {"physical_to_logical_map":
 *     [[R slots] x L0]}: a row for every model layer, rows not planned
 *     SGLang's trivial map (slot p holds expert p mod E);
 *   vLLM's initial_mapping_path JSON line {"record_type":
 *     "eplb_initial_mapping", "version": 1, "num_redundant_experts",
 *     "num_slots", "initial_global_assignments": {"<MoE layer>": [R]}}, as
 *     tools/eplb/generate_static_mapping.py writes it (json.dumps): keys
 *     the MoE layers 0..L-1 (no dense layer may be among the rows);
 *   TensorRT-LLM's moe_config.load_balancer YAML, as its
 *     save_eplb_config writes it: initial_global_assignments (keys the
 *     model's layers, dense ones absent), layer_updates_per_iter (0: a
 *     static placement; k: k layers re-planned an iteration, starting
 *     from these), num_slots; no other key (its config forbids
 *     them).
 */
void	mk_moe_write_sglang(FILE *fp, const struct mk_moe_plan_rows *p);
void	mk_moe_write_vllm(FILE *fp, const struct mk_moe_plan_rows *p);
void	mk_moe_write_trtllm(FILE *fp, const struct mk_moe_plan_rows *p);

#endif
