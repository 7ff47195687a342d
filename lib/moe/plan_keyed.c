/*
 * plan_keyed.c - the engines' placement files read back as a phy2log:
 * vLLM's initial mapping line ({"initial_global_assignments": {"0":
 * [...], ...}}, JSON) and TensorRT-LLM's load-balancer YAML
 * (initial_global_assignments: then "  LAYER: [e, e, ...]" a line), as
 * eplb-plan -f vllm and -f trtllm write them (plan_write.c).  Rows keyed
 * 0 to n-1 are the rows of the layers planned, in order; other keys are
 * the model's layer numbers (pl->has marks the rows given).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "moe/plan_impl.h"

/* Rows as they come, keyed. */
struct keyed {
	int	 n, cap, R;
	int	*key;
	int64_t	*v;		/* [n][R] */
};

static void
keyed_free(struct keyed *k)
{
	free(k->key);
	free(k->v);
}

/* Row (key, x[0..R)) appended; 0, or -1 with e (memory, other widths). */
static int
keyed_add(struct keyed *k, int key, const double *x, size_t R,
    const char *what, struct mk_err *e)
{

	if (k->n > 0 && (size_t)k->R != R)
		return mk_err_data(e, "%s: layer %d has %zu slots, layer %d has "
		    "%d", what, key, R, k->key[0], k->R);
	if (R == 0 || R > (size_t)1 << 24)
		return mk_err_data(e, "%s: layer %d has %zu slots (1 to %d)",
		    what, key, R, 1 << 24);
	if (k->n == k->cap) {
		int cap = k->cap ? 2 * k->cap : 64;
		int *nk = realloc(k->key, sizeof(int) * (size_t)cap);
		int64_t *nv;

		if (nk == NULL)
			return mk_err_data(e, "%s: out of memory", what);
		k->key = nk;
		if ((nv = realloc(k->v, sizeof(int64_t) * (size_t)cap * R)) ==
		    NULL)
			return mk_err_data(e, "%s: out of memory", what);
		k->v = nv;
		k->cap = cap;
	}
	k->R = (int)R;
	if (mk_phy2log_ids(x, R, k->v + (size_t)k->n * R, what, key, e) < 0)
		return -1;
	k->key[k->n++] = key;
	return 0;
}

/* The rows into pl: in order where keyed 0..n-1, else by layer number. */
static int
keyed_take(struct keyed *k, const char *what, struct mk_phy2log *pl,
    struct mk_err *e)
{
	int i, L = 0, seq = 1;
	size_t R = (size_t)k->R;

	if (k->n == 0)
		return mk_err_data(e, "%s: initial_global_assignments holds no "
		    "layer", what);
	for (i = 0; i < k->n; i++) {
		seq &= k->key[i] == i;
		L = k->key[i] + 1 > L ? k->key[i] + 1 : L;
	}
	pl->ndim = 2;
	pl->R = k->R;
	pl->L = seq ? k->n : L;
	pl->shape[0] = pl->L;
	pl->shape[1] = pl->R;
	pl->dtype = MK_I64;
	pl->max = -1;
	if (seq) {
		pl->p = k->v;
		k->v = NULL;
	} else {
		pl->p = malloc(sizeof(int64_t) * (size_t)L * R + 1);
		pl->has = calloc((size_t)L + 1, 1);
		if (pl->p == NULL || pl->has == NULL)
			return mk_err_data(e, "%s: out of memory", what);
		for (i = 0; i < (int)((size_t)L * R); i++)
			pl->p[i] = -1;
		for (i = 0; i < k->n; i++) {
			if (pl->has[k->key[i]])
				return mk_err_data(e, "%s: layer %d given twice",
				    what, k->key[i]);
			pl->has[k->key[i]] = 1;
			memcpy(pl->p + (size_t)k->key[i] * R, k->v + (size_t)i *
			    R, sizeof(int64_t) * R);
		}
	}
	for (i = 0; i < (int)((size_t)pl->L * R); i++)
		pl->max = pl->p[i] > pl->max ? pl->p[i] : pl->max;
	return 0;
}

/* A layer key: a decimal integer in [0, 2^20). */
static int
layer_key(const char *s, size_t n, int *key)
{
	size_t i;
	long v = 0;

	if (n == 0 || n > 7)
		return -1;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v >= 1 << 20)
		return -1;
	*key = (int)v;
	return 0;
}

int
mk_phy2log_keyed_json(struct mk_json *j, const char *what,
    struct mk_phy2log *pl, struct mk_err *e)
{
	struct keyed k = { 0 };
	char key[32], name[64];
	size_t nd1;
	double *v = NULL;
	int r, key_n, nd;

	while ((r = mk_json_key(j, key, sizeof(key))) > 0) {
		if (layer_key(key, strlen(key), &key_n) < 0) {
			keyed_free(&k);
			return mk_json_fail(j, "initial_global_assignments: key "
			    "'%s' is not a layer number", key);
		}
		snprintf(name, sizeof(name), "initial_global_assignments[%d]",
		    key_n);
		if (mk_json_numbers(j, name, 1, (size_t)1 << 24, &nd, &nd1,
		    &v) < 0 || keyed_add(&k, key_n, v, nd1, what, e) < 0) {
			free(v);
			keyed_free(&k);
			return -1;
		}
		free(v);
		v = NULL;
	}
	r = r < 0 ? -1 : keyed_take(&k, what, pl, e);
	keyed_free(&k);
	return r;
}

/* One "  LAYER: [e, e, ...]" line of n bytes into k. */
static int
yaml_row(struct keyed *k, const char *s, size_t n, const char *what,
    int line, struct mk_err *e)
{
	size_t i = 0, a, cap = 0, m = 0;
	double *x = NULL;
	char *end;
	int key, r;

	while (i < n && s[i] == ' ')
		i++;
	for (a = i; i < n && s[i] != ':'; i++)
		;
	if (i == n || layer_key(s + a, i - a, &key) < 0)
		goto bad;
	for (i++; i < n && s[i] == ' '; i++)
		;
	if (i == n || s[i++] != '[')
		goto bad;
	for (;;) {
		while (i < n && s[i] == ' ')
			i++;
		if (i < n && s[i] == ']' && m == 0)
			break;
		if (m == cap) {
			double *nx;

			cap = cap ? 2 * cap : 256;
			if (cap > (size_t)1 << 24 || (nx = realloc(x,
			    sizeof(double) * cap)) == NULL) {
				free(x);
				return mk_err_data(e, "%s:%d: too many slots",
				    what, line);
			}
			x = nx;
		}
		/* digits only (strtod alone would take "inf", hex, ...) */
		if (i >= n || !(isdigit((unsigned char)s[i]) || s[i] == '-'))
			goto bad;
		x[m++] = strtod(s + i, &end);
		i = (size_t)(end - s);
		while (i < n && s[i] == ' ')
			i++;
		if (i < n && s[i] == ',') {
			i++;
			continue;
		}
		if (i < n && s[i] == ']')
			break;
		goto bad;
	}
	for (i++; i < n && (s[i] == ' ' || s[i] == '\r'); i++)
		;
	if (i != n)
		goto bad;
	r = keyed_add(k, key, x, m, what, e);
	free(x);
	return r;
bad:
	free(x);
	return mk_err_data(e, "%s:%d: not 'LAYER: [e, e, ...]' (TensorRT-LLM's "
	    "initial_global_assignments, one layer a line, as eplb-plan -f "
	    "trtllm writes it)", what, line);
}

int
mk_phy2log_yaml(const unsigned char *p, size_t n, const char *what,
    struct mk_phy2log *pl, struct mk_err *e)
{
	const char *s = (const char *)p, *nl;
	struct keyed k = { 0 };
	size_t len;
	int line = 0, in = 0, seen = 0, r = 0;

	/* NUL bytes would cut the line scans short: not text */
	if (memchr(p, '\0', n) != NULL)
		return mk_err_data(e, "%s: a NUL byte: not YAML", what);
	for (; n > 0 && r == 0; n -= len + (nl != NULL), s += len + (nl !=
	    NULL)) {
		nl = memchr(s, '\n', n);
		len = nl != NULL ? (size_t)(nl - s) : n;
		line++;
		if (len == 0 || s[0] == '#' || mk_json_blank_line(s, len))
			continue;
		if (s[0] != ' ') {
			/* a top-level key: the map, or another we pass */
			in = len >= 27 && memcmp(s, "initial_global_assignments:",
			    27) == 0;
			seen += in;
			if (in && !mk_json_blank_line(s + 27, len - 27))
				r = mk_err_data(e, "%s:%d: initial_global_"
				    "assignments: its layers follow, one a "
				    "line", what, line);
			continue;
		}
		if (in)
			r = yaml_row(&k, s, len, what, line, e);
	}
	if (r == 0 && seen != 1)
		r = mk_err_data(e, "%s: %s initial_global_assignments (TensorRT-"
		    "LLM's load-balancer YAML)", what, seen ? "a second" : "no");
	if (r == 0)
		r = keyed_take(&k, what, pl, e);
	keyed_free(&k);
	return r;
}

int
mk_phy2log_is_yaml(const unsigned char *p, size_t n)
{
	size_t i = 0;

	/* a line "name:" before anything else: CSV never starts so */
	while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' ||
	    p[i] == '\t'))
		i++;
	while (i < n && (isalnum(p[i]) || p[i] == '_'))
		i++;
	return i < n && i > 0 && p[i] == ':' && (p[i - 1] != ' ');
}
