/*
 * eplb_sweep_run.c - eplb-replay's configurations: the cross product of
 * its lists, each engine taking the dimensions its loop has (the others
 * collapse to one row) and the defaults it runs with; a value an engine
 * cannot run is a usage error naming why (eplb_run.h).
 */
#include <string.h>

#include "eplb/eplb_run.h"

/* The sweep's dimensions. */
enum { D_ENG, D_R, D_G, D_N, D_K, D_POL, D_ALGO, D_WIN, D_ITV, D_HIS, D_MOV,
	D_GAIN, D_BYTES, D_ASYNC, D_CHUNK, D_UPD, ND };

static const char *const engines[MK_NENGINE] = { "ideal", "vLLM", "SGLang",
    "TensorRT-LLM" };

/* Whether engine eng's loop has dimension d. */
static int
uses(int eng, int d)
{
	switch (d) {
	case D_HIS:
	case D_MOV:
	case D_GAIN:
		return eng == MK_ENGINE_IDEAL;
	case D_K:
	case D_POL:
	case D_ALGO:
	case D_WIN:
	case D_ITV:
		return eng != MK_ENGINE_TRTLLM;
	case D_ASYNC:
		return eng == MK_ENGINE_VLLM;
	case D_CHUNK:
		return eng == MK_ENGINE_SGLANG;
	case D_UPD:
		return eng == MK_ENGINE_TRTLLM;
	default:
		return 1;
	}
}

/* An option given that no engine of the list runs is refused. */
static void
check_given(const struct mk_eplb_replay_job *j)
{
	const struct {
		int	 d, given;
		const char *name, *why;
	} rule[] = {
		{ D_HIS, j->given[MK_EPLB_O_HISTORY], "--history", "no engine "
		    "plans on several windows" },
		{ D_MOV, j->given[MK_EPLB_O_MOVES], "--max-moves", "no engine "
		    "limits its moves" },
		{ D_GAIN, j->given[MK_EPLB_O_GAIN], "--min-gain", "no engine "
		    "keeps its placement for a small gain" },
		{ D_WIN, j->given[MK_EPLB_O_WINDOW], "--window", "TensorRT-LLM "
		    "keeps a decayed load, no window" },
		{ D_ITV, j->interval_given, "--interval", "TensorRT-LLM "
		    "re-plans every iteration (--layer-updates-per-iter "
		    "layers each)" },
		{ D_K, j->given[MK_EPLB_O_K], "--groups", "TensorRT-LLM places "
		    "without expert groups" },
		{ D_POL, j->given[MK_EPLB_O_POLICY], "--policy", "TensorRT-LLM "
		    "places without groups or nodes" },
		{ D_ALGO, j->given[MK_EPLB_O_ALGO], "--algo", "TensorRT-LLM runs "
		    "its own greedy replication and placement" },
	};
	size_t r;
	int i, any, has[MK_NENGINE] = { 0 };

	for (i = 0; i < j->neng; i++)
		has[j->eng[i]] = 1;
	if (j->async_given && !has[MK_ENGINE_VLLM])
		mk_usage_error("--async is vLLM's EPLB mode (--engine vllm)");
	if (j->chunk_given && !has[MK_ENGINE_SGLANG])
		mk_usage_error("--layers-per-chunk is SGLang's "
		    "(--eplb-rebalance-layers-per-chunk; --engine sglang)");
	if (j->upd[0] > 0 && !has[MK_ENGINE_TRTLLM])
		mk_usage_error("--layer-updates-per-iter is TensorRT-LLM's "
		    "(--engine trtllm)");
	if (has[MK_ENGINE_TRTLLM] && j->upd[0] == 0)
		mk_usage_error("--engine trtllm needs --layer-updates-per-iter "
		    "LIST: the layers TensorRT-LLM re-plans an iteration (its "
		    "default 0 balances offline only)");
	for (r = 0; r < sizeof(rule) / sizeof(rule[0]); r++) {
		if (!rule[r].given)
			continue;
		for (any = 0, i = 0; i < j->neng; i++)
			any |= uses(j->eng[i], rule[r].d);
		if (!any)
			mk_usage_error("%s: %s (%s)", rule[r].name, rule[r].why,
			    rule[r].d == D_HIS || rule[r].d == D_MOV ||
			    rule[r].d == D_GAIN ? "--engine ideal replays it" :
			    "--engine ideal, vllm or sglang take it");
	}
}

/*
 * vLLM and SGLang run DeepSeek's algorithm; vLLM hierarchical exactly
 * where groups % nodes == 0 (policy/default.py).
 */
static void
engine_rules(struct mk_replay_cfg *x, const struct mk_eplb_lists *l)
{
	const char *who = engines[x->engine];

	if (x->engine == MK_ENGINE_TRTLLM) {
		x->policy = MK_EPLB_GLOBAL;
		x->c.K = 1;
		x->c.algo = MK_EPLB_DEEPSEEK;	/* unused: its own */
		return;
	}
	if (x->engine == MK_ENGINE_IDEAL)
		return;
	if (l->algo_given && x->c.algo != MK_EPLB_DEEPSEEK)
		mk_usage_error("-a %s: %s runs DeepSeek's algorithm (-a "
		    "deepseek; --engine ideal runs the others)",
		    mk_eplb_algo_names[x->c.algo], who);
	x->c.algo = MK_EPLB_DEEPSEEK;
	if (x->engine != MK_ENGINE_VLLM)
		return;
	if (l->pol_given && x->policy != MK_EPLB_AUTO &&
	    (x->policy == MK_EPLB_HIER) != (x->c.K % x->c.N == 0))
		mk_usage_error("--policy %s: vLLM runs the hierarchical policy "
		    "exactly where groups %% nodes == 0 (here %d %% %d); open "
		    "PR #51988 adds a switch", mk_eplb_policy_names[x->policy],
		    x->c.K, x->c.N);
	x->policy = x->c.K % x->c.N == 0 ? MK_EPLB_HIER : MK_EPLB_GLOBAL;
}

/* The window and interval of x (0: its engine's defaults). */
static void
engine_steps(struct mk_replay_cfg *x)
{
	if (x->engine == MK_ENGINE_TRTLLM) {
		x->window = x->interval = 0;
		return;
	}
	if (x->interval == 0)
		x->interval = x->engine == MK_ENGINE_SGLANG ? 1000 : 3000;
	if (x->window == 0)
		x->window = x->engine == MK_ENGINE_SGLANG ? x->interval : 1000;
	if (x->engine == MK_ENGINE_SGLANG && x->window > x->interval)
		mk_usage_error("--window %d: SGLang's recorder buffer may not "
		    "exceed its rebalance interval (--interval %d; its "
		    "EPLBManager asserts so)", x->window, x->interval);
}

/* --lose-gpu's GPUs must be x's, not all, and leave a slot an expert. */
static void
lose_rules(const struct mk_eplb_replay_job *j, const struct mk_replay_cfg *x)
{
	char lab[300];
	int i;

	for (i = 0; i < j->nlose; i++)
		if (j->lose[i] >= x->c.G)
			mk_usage_error("--lose-gpu: GPU %d, but the configuration "
			    "has %d GPUs (%s)", j->lose[i], x->c.G,
			    mk_eplb_replay_label(x, lab, sizeof(lab)));
	if (j->nlose >= x->c.G)
		mk_usage_error("--lose-gpu: all %d GPUs lost (%s)", x->c.G,
		    mk_eplb_replay_label(x, lab, sizeof(lab)));
	if ((int64_t)(x->c.R / x->c.G) * (x->c.G - j->nlose) < x->c.E)
		mk_usage_error("--lose-gpu: the survivors' %d slots cannot hold "
		    "the %d experts (%s)", x->c.R / x->c.G * (x->c.G -
		    j->nlose), x->c.E, mk_eplb_replay_label(x, lab,
		    sizeof(lab)));
}

/* Configuration x of indices i[] into the lists, checked. */
static void
make_cfg(const struct mk_eplb_replay_job *j, int E, const int *i,
    struct mk_replay_cfg *x)
{
	const struct mk_eplb_lists *o = &j->l;
	struct mk_err e;
	char lab[300];

	memset(x, 0, sizeof(*x));
	x->engine = j->eng[i[D_ENG]];
	x->c.E = E;
	x->c.R = o->nr > 0 ? o->r[i[D_R]] : E + o->red[i[D_R]];
	x->c.G = o->g[i[D_G]];
	x->c.N = o->n[i[D_N]];
	x->c.K = o->k[i[D_K]];
	x->policy = o->pol[i[D_POL]];
	x->c.algo = o->algo[i[D_ALGO]];
	x->c.objective = MK_EPLB_MEAN;
	x->window = o->win[i[D_WIN]];
	x->interval = j->itv[i[D_ITV]];
	x->history = o->his[i[D_HIS]];
	/* measured held out on replay logs (RESULTS.md): on one window
	 * best's exact fit loses to DeepSeek's; on several it wins */
	if (!o->algo_given)
		x->c.algo = x->history > 1 ? MK_EPLB_BEST : MK_EPLB_DEEPSEEK;
	x->max_moves = x->engine == MK_ENGINE_IDEAL ? o->mov[i[D_MOV]] : -1;
	x->min_gain = x->engine == MK_ENGINE_IDEAL ? o->gain[i[D_GAIN]] : -1;
	x->expert_bytes = o->bytes[i[D_BYTES]];
	x->async = j->async[i[D_ASYNC]];
	x->chunk = j->chunk[i[D_CHUNK]];
	x->updates = j->upd[i[D_UPD]];
	if (x->engine != MK_ENGINE_IDEAL)
		x->history = 1;
	engine_rules(x, o);
	engine_steps(x);
	x->score_from = j->score_from >= 0 ? j->score_from : x->window;
	if (mk_eplb_config(&x->c, x->policy, &e) < 0 &&
	    (x->c.hier = x->policy != MK_EPLB_GLOBAL, 1))
		mk_usage_error("%s (configuration %s)", e.msg,
		    mk_eplb_replay_label(x, lab, sizeof(lab)));
	x->link_gbps = j->link_gbps;
	x->moe_ms = j->moe_ms;
	x->lose_step = j->lose_step;
	x->lose = j->lose;
	x->nlose = j->nlose;
	if (x->nlose > 0)
		lose_rules(j, x);
}

int
mk_eplb_sweep(const struct mk_eplb_replay_job *j, int E,
    struct mk_replay_cfg *rc, int max)
{
	const struct mk_eplb_lists *o = &j->l;
	const int lim[ND] = { j->neng, o->nr > 0 ? o->nr : o->nred, o->ng,
	    o->nn, o->nk, o->npol, o->nalgo, o->nwin, j->nitv, o->nhis,
	    o->nmov, o->ngain, o->nbytes, j->nasync, j->nchunk, j->nupd };
	int i[ND], m = 0, d, first;

	check_given(j);
	memset(i, 0, sizeof(i));
	for (;;) {
		/* a dimension the engine lacks: its first value only */
		for (d = 1; d < ND && (i[d] == 0 || uses(j->eng[i[D_ENG]], d));
		    d++)
			;
		if (d == ND) {
			if (m == max)
				mk_usage_error("the lists make more than %d "
				    "configurations", max);
			make_cfg(j, E, i, &rc[m++]);
		}
		for (d = 0; d < ND && ++i[d] == lim[d]; d++)
			i[d] = 0;
		if (d == ND)
			break;
	}
	/* rows compared are scored alike: from the latest first window */
	for (d = 0, first = 0; j->score_from < 0 && d < m; d++)
		first = rc[d].score_from > first ? rc[d].score_from : first;
	for (d = 0; j->score_from < 0 && d < m; d++)
		rc[d].score_from = first;
	return m;
}
