/*
 * eplb_run.h - the stories of eplb-plan and eplb-replay: the options both
 * take, declared once, and each tool's run from parsed options to written
 * outputs.  Like cli/, this floor of the wing writes and exits: a run's
 * outputs are committed together or not at all (cli/io.h), a bad input
 * ends it with one line and status 1 or 2.
 */
#ifndef MK_EPLB_RUN_H
#define MK_EPLB_RUN_H

#include <stdint.h>

#include "cli/opt.h"
#include "eplb/eplb.h"
#include "eplb/eplb_replay.h"

struct mk_moe_jsonl;
struct mk_loads;

/*
 * The options both tools take, by their index in a tool's table; a tool's
 * own follow from MK_EPLB_O_OWN.
 */
enum {
	MK_EPLB_O_R, MK_EPLB_O_NRED, MK_EPLB_O_G, MK_EPLB_O_N, MK_EPLB_O_K,
	MK_EPLB_O_POLICY, MK_EPLB_O_ALGO, MK_EPLB_O_WINDOW, MK_EPLB_O_HISTORY,
	MK_EPLB_O_MOVES, MK_EPLB_O_GAIN, MK_EPLB_O_BYTES, MK_EPLB_O_SKIP,
	MK_EPLB_O_OWN
};

/*
 * Declare them into t[0..MK_EPLB_O_OWN): eplb-replay's take a LIST each
 * (a sweep), eplb-plan's one value.
 */
void	mk_eplb_opts_declare(struct mk_opt *t, int lists);

/*
 * An input of the run (NULL: none), which no output may replace: a file,
 * or TensorRT-LLM's statistics directory, whose rank files (those there
 * and those its next read would take) no output may be.
 */
void	mk_eplb_input(const char *path);

#define MK_EPLB_LIST	32	/* values a list may hold */
#define MK_EPLB_LOST_MAX 4096	/* GPUs --lost-gpus may name */

/* Their values, as lists (one value each for eplb-plan). */
struct mk_eplb_lists {
	int	 r[MK_EPLB_LIST], nr;		/* -r, or nr 0 */
	int	 red[MK_EPLB_LIST], nred;	/* --num-redundant-experts */
	int	 g[MK_EPLB_LIST], ng;
	int	 n[MK_EPLB_LIST], nn;
	int	 k[MK_EPLB_LIST], nk;
	int	 pol[MK_EPLB_LIST], npol;	/* enum mk_eplb_policy */
	int	 algo[MK_EPLB_LIST], nalgo;	/* enum mk_eplb_algo */
	int	 pol_given, algo_given;	/* not the defaults (auto, best) */
	int	 win[MK_EPLB_LIST], nwin;	/* 0: not given */
	int	 his[MK_EPLB_LIST], nhis;
	int64_t	 mov[MK_EPLB_LIST];		/* -1: none */
	double	 gain[MK_EPLB_LIST];		/* -1: none */
	double	 bytes[MK_EPLB_LIST];		/* 0: not given */
	int	 nmov, ngain, nbytes;
	int	 skip;				/* --skip-zero-layers */
};

/*
 * Read them from t, checked; the values left out get the defaults the
 * man pages give (window: win_def).  With one_value (eplb-plan) a list of
 * more than one value is a usage error naming eplb-replay.
 */
void	mk_eplb_opts_read(const struct mk_opt *t, int one_value, int win_def,
	    struct mk_eplb_lists *l);

/* What eplb-plan was asked. */
struct mk_eplb_plan_job {
	struct mk_opts	 c;		/* the common options */
	struct mk_eplb_cfg cfg;		/* R (0: from redundant), G, N, K,
					 * algo, effort, objective */
	int		 redundant;	/* --num-redundant-experts, or -1 */
	int		 policy;	/* enum mk_eplb_policy */
	int		 window, history, skip_zero, width_max, stats;
	int		 eval_by_index;	/* --eval's plan: planned layers only
					 * (set by the run) */
	int		 eval_spread;	/* --eval's plan spreads groups over
					 * nodes: global (set by the run) */
	double		 min_gain;	/* -1: always the new plan */
	int64_t		 max_moves;	/* -1: no limit */
	double		 expert_bytes;	/* 0: not given */
	int		 updates;	/* -f trtllm's layer_updates_per_iter */
	const char	*report, *prev, *eval, *plot, *routing;
	const char	*transfers;	/* --transfers FILE (with --prev) */
	int		 lost[MK_EPLB_LOST_MAX], nlost;	/* --lost-gpus: OLD's
					 * GPUs gone (-r, -G describe OLD) */
	int		 prev_gpus;	/* --prev-gpus: OLD's GPUs, or 0 */
	int		 first_moe;	/* --first-moe-layer, or -1 */
	const char	**files;	/* none: stdin */
	int		 nfiles;
};

/*
 * TensorRT-LLM's statistics of file (ld) counted by slot: with its load
 * balancer on, a count a slot (num_slots ids), not an expert.  Where the
 * width equals a slot count r[0..nr) asked for, and --num-redundant-
 * experts was not given (red_given), the two cannot be told apart: a
 * usage error saying what to do.
 */
void	mk_eplb_slot_counts(const char *file, const struct mk_loads *ld,
	    const int *r, int nr, int red_given);

/*
 * The plan before (--prev) as eplb-plan uses it.  With --lost-gpus or
 * --prev-gpus it was made for other GPUs (eplb_carry.h): carried onto
 * the new ones, and repaired.
 */
struct mk_eplb_prevs {
	int64_t	*rows;		/* [L][R] on the new GPUs (-1: an empty
				 * slot): what a plan is relabelled towards
				 * and changes counted from */
	int64_t	*whole;		/* [L][R] rows repaired, every expert held
				 * (rows itself without a carry) */
	int64_t	*old;		/* [L][R_old] as read */
	int	 R_old, G_old;
	int	*id;		/* [G_old] each old GPU's new one (-1: gone),
				 * NULL: the same GPUs */
	int64_t	 least;		/* slots any plan must change (the repair's) */
	char	 note[600];	/* the experts that lost every copy, said
				 * once all went well ("": none) */
	char	 note_policy[120];	/* why the survivors' plan is global */
};

/*
 * Read o->prev for the loads ld into *p, checked; with a carry, o->cfg
 * becomes the new group's and p->note names the experts that lost every
 * copy.  Exits on an error.
 */
void	mk_eplb_prevs_read(struct mk_eplb_plan_job *o, const struct mk_loads *ld,
	    struct mk_eplb_prevs *p);
void	mk_eplb_prevs_free(struct mk_eplb_prevs *p);

/*
 * eplb-plan: read the loads, plan (or score --eval's plan), write the
 * outputs and what --stats, --report and --plot ask.  Returns 0; exits on
 * an error (see above).
 */
int	mk_eplb_plan_run(struct mk_eplb_plan_job *j);

/* What eplb-replay was asked. */
struct mk_eplb_replay_job {
	struct mk_opts	 c;
	struct mk_eplb_lists l;		/* window 0: the engine's default */
	int		 itv[MK_EPLB_LIST], nitv;	/* --interval, 0: the
						 * engine's default */
	int		 eng[MK_NENGINE], neng;		/* --engine */
	int		 async[2], nasync;		/* --async off,on */
	int		 chunk[MK_EPLB_LIST], nchunk;	/* sglang's */
	int		 upd[MK_EPLB_LIST], nupd;	/* trtllm's (0: none
							 * given) */
	int		 score_from;	/* --score-from, or -1 */
	double		 link_gbps, moe_ms;	/* 0: not given */
	int		 lose_step;	/* --lose-gpu STEP:LIST */
	int		 lose[MK_EPLB_LOST_MAX], nlose;
	int		 shard, nshard;	/* --shard I/N: the I-th (from 1) of N
					 * slices of the configurations */
	int		 given[MK_EPLB_O_OWN];	/* which shared options were */
	int		 async_given, chunk_given, interval_given;	/* and
							 * these */
	int		 E, tps;	/* routing records: -E, tokens a step */
	const char	*plot, *steps, *file;
	const struct mk_moe_jsonl *fields;	/* routing records' fields */
};

/*
 * The configurations of j's lists for a log of E experts into rc[0..max),
 * checked (exits with status 2 naming a value an engine cannot run).
 * Returns how many.
 */
int	mk_eplb_sweep(const struct mk_eplb_replay_job *j, int E,
	    struct mk_replay_cfg *rc, int max);

/*
 * eplb-replay: read the log (or routing records), replay every
 * configuration of the lists and write the table, and --steps and --plot.
 * Returns 0; exits on an error.
 */
int	mk_eplb_replay_run(const struct mk_eplb_replay_job *j);

#endif
