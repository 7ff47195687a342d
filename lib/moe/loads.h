/*
 * loads.h - expert load logs, as eplb-plan reads them.
 *
 * Forms accepted (eplb-plan(1)), all reduced to S scenarios of L x E loads
 * (doubles):
 *   - a tensor [E] (one layer), [L, E], or a load log [T, L, E] whose last
 *     `window` steps are summed (default: all), from NPY or CSV; with
 *     `history` K > 1, the last K windows of `window` steps are K
 *     scenarios, oldest first;
 *   - the long CSV form: a header naming the columns layer,expert,load
 *     (optionally step first); duplicate (layer, expert) rows are summed,
 *     missing ones are 0, and windows count distinct steps;
 *   - SGLang's expert-distribution dump {"logical_count": [[...]]}, [L, E]
 *     or [T, L, E];
 *   - the vLLM/ADRS evaluator's load history {"load_history":
 *     [{"logical_expert_load": [[...]]}, ...]}, [T, L, E] (vLLM itself
 *     writes no such file; the OpenEvolve/ADRS EPLB evaluator reads it).
 * Several inputs are several scenarios of one model (mk_loads_join).
 * Loads must be finite and >= 0, and each layer's sum finite.  Layers
 * whose loads are all zero in every scenario (dense layers in SGLang
 * dumps) can be dropped; their original indices are kept.
 */
#ifndef MK_LOADS_H
#define MK_LOADS_H

#include <stddef.h>

#include "base/errmsg.h"

struct mk_src;
struct mk_tensor;

#define MK_LOADS_MAX_CELLS	(1 << 26)	/* L * E, and T * L * E read */
/* every step its own scenario (history MK_LOADS_STEPS: eplb-replay's
 * log), up to this many loads in all (2 GiB) */
#define MK_LOADS_STEPS		(-1)
#define MK_LOADS_MAX_STEP_CELLS	(1 << 28)

/* The step numbers a log's records carry (vLLM's "step"), where it has
 * them: the first, the last, and the gap between two (-1: uneven; 0:
 * none numbered). */
struct mk_loads_steps {
	double	 first, last, gap;
};

struct mk_loads {
	int	 S, L, E;	/* scenarios, layers, experts */
	double	*w;		/* [S][L][E] */
	int	*layer;		/* [L] the input's index of each row */
	int	 L0;		/* layers in the input */
	char	**name;		/* [S] the input each scenario came from */
	int	 T;		/* steps in the log (0: no step dimension) */
	int	 used;		/* steps summed per scenario */
	int	 nzero;		/* all-zero layers seen */
	int	*zero;		/* their input indices */
	int	 skipped;	/* 1 if they were dropped from w */
	struct mk_tensor *log;	/* a log used in place (w NULL), or NULL */
	struct mk_loads_steps steps;
	int	 layers;	/* what layer[] numbers: enum mk_loads_layers */
	int	 trtllm;	/* TensorRT-LLM's statistics: E is their width,
				 * meta_info.json's num_experts: the slots,
				 * where its load balancer was on */
};

/*
 * What a load input's layer indices are: the model's (SGLang's dumps,
 * TensorRT-LLM's statistics, a layer column), MoE layers counted from 0
 * (vLLM's records and load history), or not said (a tensor).
 */
enum mk_loads_layers { MK_LAYERS_UNSAID, MK_LAYERS_MODEL, MK_LAYERS_MOE };

/*
 * What an expert-load input is, recognised here for every tool:
 * TensorRT-LLM's statistics directory (path a directory), routing records
 * (the n bytes at p, of format fmt, as mk_moe_routing_is sees them with
 * fields, NULL: the default ones), or loads in any form above.  p may be
 * NULL where path is a directory or only that is asked.
 */
enum mk_moe_input { MK_MOE_LOADS, MK_MOE_TRTLLM, MK_MOE_ROUTING };
struct mk_moe_jsonl;
int	mk_moe_input_kind(const char *path, const unsigned char *p, size_t n,
	    int fmt, const struct mk_moe_jsonl *fields);

/*
 * Read the loads of s (any form above) as `history` scenarios (1: one;
 * MK_LOADS_STEPS: each step of a log, which must have steps, window
 * ignored).  window: steps per scenario (0: all; with one scenario, more
 * than the log holds: all).  Returns 0 with *out filled (free with
 * mk_loads_free), or -1 with e filled (file, place, value).
 */
int	mk_loads_read(struct mk_src *s, int window, int history,
	    struct mk_loads *out, struct mk_err *e);

/*
 * Append the scenarios of src (emptied) to dst (empty: src's become
 * dst's).  They must have the same L and E.  Returns 0, or -1 with e.
 */
int	mk_loads_join(struct mk_loads *dst, struct mk_loads *src,
	    struct mk_err *e);

/*
 * Once every input is read: check each layer's sum is finite, find the
 * layers that are all zero in every scenario and drop them if skip (at
 * least one must remain).  Returns 0, or -1 with e.
 */
int	mk_loads_finish(struct mk_loads *l, int skip, struct mk_err *e);

/* What to read of the inputs: mk_loads_read's window and history, and
 * whether to drop all-zero layers (mk_loads_finish's skip). */
struct mk_loads_want {
	int	 window, history, skip;
};

/*
 * All of it: the inputs paths[0..n) (n 0: stdin) read, joined and
 * finished as want says; *fmt the first input's format.  Returns 0, or -1
 * with e.
 */
int	mk_loads_read_all(const char *const *paths, int n,
	    const struct mk_loads_want *want, struct mk_loads *l, int *fmt,
	    struct mk_err *e);

/*
 * The note users need about all-zero layers (dense layers of SGLang's
 * dumps), without "tool: " or newline, into buf: which were dropped, or
 * that they were kept and planned.  Returns 0 if there is nothing to say.
 */
int	mk_loads_note(const struct mk_loads *l, char *buf, size_t size);

/*
 * The note users need where a log's records are not a step apart (vLLM's
 * expert_load_stats_interval): records g steps apart each stand for g
 * steps (windows and intervals stay the engine's steps); at uneven steps
 * each is one step (windows and intervals count records).  Returns 0 if
 * there is nothing to say.
 */
int	mk_loads_steps_note(const struct mk_loads *l, char *buf, size_t size);

/*
 * A load log of steps for eplb-replay: every step its own scenario.  An
 * NPY log [T, L, E] is used where it lies (path read again, mapped, when
 * s is a file's; no copy in doubles): every value checked, the all-zero
 * layers found (and dropped if skip), l->w NULL and l->log the tensor;
 * any other form is read by mk_loads_read into l->w.  Returns 0, or -1
 * with e filled.
 */
int	mk_loads_read_steps(struct mk_src *s, const char *path, int skip,
	    struct mk_loads *l, struct mk_err *e);

/* Step st of such a log: its kept layers' loads into dst[l->L][l->E]. */
void	mk_loads_step(const struct mk_loads *l, int st, double *dst);

/*
 * TensorRT-LLM's expert statistics: whether path is a directory (of them,
 * it is then taken to be), and its log read as mk_loads_read reads a
 * source (loads_trtllm.c).
 */
int	mk_loads_is_trtllm_dir(const char *path);
int	mk_loads_read_trtllm(const char *dir, int window, int history,
	    struct mk_loads *l, struct mk_err *e);

/* Whether that reader reads a file of this name in the directory
 * (rank*.safetensors but rank*_raw.safetensors, as TensorRT-LLM's). */
int	mk_loads_trtllm_reads(const char *name);

void	mk_loads_free(struct mk_loads *l);

#endif
