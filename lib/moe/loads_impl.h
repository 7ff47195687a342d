/*
 * loads_impl.h - what the readers of each load form share (loads_read.c,
 * loads_tensor.c, loads_json.c; the helpers in loads_util.c); not part of
 * the library's interface.
 */
#ifndef MK_LOADS_IMPL_H
#define MK_LOADS_IMPL_H

#include <stddef.h>

#include "base/errmsg.h"
#include "moe/loads.h"

struct mk_json;
struct mk_src;
struct mk_tensor;

/*
 * Which steps of a log make which scenario: the last `history` windows of
 * `window` steps (window 0: all steps; one window longer than the log:
 * all steps).
 */
struct wins {
	int	 first;		/* the first step used */
	int	 n;		/* steps per scenario */
	int	 S;		/* scenarios */
	int	 steps;		/* each step a scenario (MK_LOADS_STEPS) */
};

/* The windows of input without steps: one scenario. */
#define LOADS_NO_STEPS	((struct wins){ 0, 1, 1, 0 })

/* The load of scenario k, layer i, expert j. */
static inline double *
loads_cell(struct mk_loads *l, int k, int i, int j)
{
	return l->w + ((size_t)k * (size_t)l->L + (size_t)i) * (size_t)l->E +
	    (size_t)j;
}

/* The scenario of step t, or -1 if it is not used. */
static inline int
loads_scenario(const struct wins *w, int t)
{
	return t < w->first ? -1 : (t - w->first) / w->n;
}

/* Room for the w->S scenarios of L x E loads (zeroed), named name. */
int	loads_alloc(struct mk_loads *l, const struct wins *w, int L, int E,
	    const char *name, struct mk_err *e);

/* One load value: finite and >= 0, or an error naming where (step -1:
 * none). */
int	loads_check(double v, const char *name, int step, int layer,
	    int expert, struct mk_err *e);

/* The windows of a log of T steps into *w (and l->T, l->used). */
int	loads_windows(int T, int window, int history, const char *name,
	    struct wins *w, struct mk_loads *l, struct mk_err *e);

/* A usage error if --window or --history was given for input without
 * steps (what says why it has none). */
int	loads_no_steps(int window, int history, const char *name,
	    const char *what, struct mk_err *e);

/* The forms: a dense tensor, any tensor (dense or the long table), a
 * JSON file, a torch .pt.  Each fills l, or returns -1 with e. */
int	loads_dense(const struct mk_tensor *t, const char *name, int window,
	    int history, struct mk_loads *l, struct mk_err *e);
int	loads_tensor(const struct mk_tensor *t, const char *name, int window,
	    int history, struct mk_loads *l, struct mk_err *e);
int	loads_json(struct mk_src *s, int window, int history,
	    struct mk_loads *l, struct mk_err *e);
int	loads_pt(struct mk_src *s, int window, int history,
	    struct mk_loads *l, struct mk_err *e);
/* vLLM's eplb_load_stats JSON lines, the text p[0..n) of file name. */
int	loads_vllm(const char *p, size_t n, const char *name, int window,
	    int history, struct mk_loads *l, struct mk_err *e);

/*
 * A log [T, L, E] used where it lies (mk_loads_read_steps): every value
 * checked, the all-zero layers found (dropped if skip).  Returns 0, or -1
 * with e.
 */
int	loads_in_place(const struct mk_tensor *t, const char *name, int skip,
	    struct mk_loads *l, struct mk_err *e);

#endif
