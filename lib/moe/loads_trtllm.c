/*
 * loads_trtllm.c - expert loads from TensorRT-LLM's expert statistics: a
 * directory (EXPERT_STATISTIC_PATH) of rank<r>.safetensors, one a rank of
 * that rank's tokens, each tensor "<iter>_<layer>" the count of every
 * expert id (I64, or I32) in that iteration and model layer, and
 * meta_info.json.  As its reader (utils.load_expert_statistic) does:
 * every rank*.safetensors but rank*_raw.safetensors is read and summed key
 * by key; the iterations must be contiguous and every (iteration, layer)
 * present; the log is [iterations, layers in ascending order, width], a
 * row's layer the model's index.
 *
 * safetensors: a little-endian u64 n, n bytes of JSON {"name": {"dtype",
 * "shape", "data_offsets": [begin, end)}, "__metadata__": {...}}, then the
 * data, offsets from byte 8 + n.  Every size is checked against the file.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "moe/loads.h"
#include "moe/loads_impl.h"
#include "tensor/json.h"
#include "tensor/src.h"

/* The counts a file holds, summed into a table of (iter, layer) keys. */
struct key {
	int64_t	 iter, layer;
	double	*v;		/* [width] */
};

struct table {
	struct key *k;
	size_t	 n, cap;
	size_t	*slot;		/* [cap * 2] open addressing: k index + 1 */
	size_t	 width;
};

static void
table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->k[i].v);
	free(t->k);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

static size_t
hash(int64_t iter, int64_t layer, size_t mask)
{
	uint64_t h = (uint64_t)iter * 0x9e3779b97f4a7c15ull ^ (uint64_t)layer *
	    0xc2b2ae3d27d4eb4full;

	return (size_t)(h ^ h >> 29) & mask;
}

/* Room for twice as many keys, the index rebuilt. */
static int
table_grow(struct table *t)
{
	size_t cap = t->cap ? 2 * t->cap : 256, i, h;
	struct key *k;

	if ((k = realloc(t->k, sizeof(*k) * cap)) == NULL)
		return -1;
	t->k = k;
	free(t->slot);
	if ((t->slot = calloc(2 * cap, sizeof(size_t))) == NULL)
		return -1;
	t->cap = cap;
	for (i = 0; i < t->n; i++) {
		for (h = hash(k[i].iter, k[i].layer, 2 * cap - 1); t->slot[h];
		    h = (h + 1) & (2 * cap - 1))
			;
		t->slot[h] = i + 1;
	}
	return 0;
}

/* The entry of (iter, layer), made with zero counts if new; NULL: memory. */
static struct key *
table_get(struct table *t, int64_t iter, int64_t layer)
{
	struct key *k;
	size_t h;

	if (t->n == t->cap && table_grow(t) < 0)
		return NULL;
	for (h = hash(iter, layer, 2 * t->cap - 1); t->slot[h];
	    h = (h + 1) & (2 * t->cap - 1)) {
		k = &t->k[t->slot[h] - 1];
		if (k->iter == iter && k->layer == layer)
			return k;
	}
	k = &t->k[t->n];
	if ((k->v = calloc(t->width, sizeof(double))) == NULL)
		return NULL;
	k->iter = iter;
	k->layer = layer;
	t->slot[h] = ++t->n;
	return k;
}

/* "<iter>_<layer>", two integers below 2^40. */
static int
parse_key(const char *s, int64_t *iter, int64_t *layer)
{
	char *end;
	long long a, b;

	if (*s < '0' || *s > '9')
		return -1;
	a = strtoll(s, &end, 10);
	if (*end != '_' || end[1] < '0' || end[1] > '9')
		return -1;
	b = strtoll(end + 1, &end, 10);
	if (*end != '\0' || a >= 1LL << 40 || b >= 1LL << 40)
		return -1;
	*iter = a;
	*layer = b;
	return 0;
}

/* The index of the first of v[0..n) that is not an integer, or -1. */
static long
first_fraction(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] != floor(v[i]))
			return (long)i;
	return -1;
}

/* One tensor's header object at the cursor: dtype bytes, its shape's one
 * extent, its offsets. */
static int
tensor_header(struct mk_json *j, int *esz, size_t *w, double off[2])
{
	char key[32], dt[16];
	size_t dims[2];
	double *v;
	int r, nd, seen = 0;
	long frac;

	while ((r = mk_json_key(j, key, sizeof(key))) > 0) {
		if (strcmp(key, "dtype") == 0) {
			if (mk_json_string(j, dt, sizeof(dt)) < 0)
				return -1;
			*esz = strcmp(dt, "I64") == 0 ? 8 : strcmp(dt, "I32") ==
			    0 ? 4 : 0;
			if (*esz == 0) {
				char ex[64];	/* a string may hold anything */

				return mk_json_fail(j, "dtype \"%s\": the "
				    "counts are I64 or I32", mk_excerpt(ex,
				    sizeof(ex), dt, strlen(dt), 20));
			}
			seen |= 1;
		} else if (strcmp(key, "shape") == 0 ||
		    strcmp(key, "data_offsets") == 0) {
			if (mk_json_numbers(j, key, 1, 1 << 24, &nd, dims,
			    &v) < 0)
				return -1;
			if ((frac = first_fraction(v, dims[0])) >= 0) {
				double x = v[frac];

				free(v);
				return mk_json_fail(j, "%s: %.17g is not an "
				    "integer (safetensors' sizes are)", key, x);
			}
			if (key[0] == 's' && dims[0] == 1 && v[0] >= 1 &&
			    v[0] <= 1 << 24) {
				*w = (size_t)v[0];
				seen |= 2;
			} else if (key[0] == 'd' && dims[0] == 2) {
				off[0] = v[0];
				off[1] = v[1];
				seen |= 4;
			} else {
				free(v);
				return mk_json_fail(j, "%s: a count is one "
				    "vector", key);
			}
			free(v);
		} else if (mk_json_skip(j) < 0) {
			return -1;
		}
	}
	if (r < 0)
		return -1;
	return seen == 7 ? 0 : mk_json_fail(j, "a tensor without dtype, shape "
	    "or data_offsets");
}

/* Little-endian integer of esz bytes at p. */
static int64_t
le_int(const unsigned char *p, int esz)
{
	uint64_t v = 0;
	int i;

	for (i = esz - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return esz == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

/* A tensor of a file: its key and its bytes [b, e) in the data. */
struct span {
	double	 b, e;
	int64_t	 iter, layer;
};

static int
by_begin(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	return (a->b > b->b) - (a->b < b->b);
}

static int
by_key(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	return a->iter != b->iter ? (a->iter > b->iter) - (a->iter < b->iter) :
	    (a->layer > b->layer) - (a->layer < b->layer);
}

/*
 * What safetensors' own reader refuses: tensors whose bytes do not tile
 * the data from 0 to its end (a gap, an overlap, bytes past the last
 * one), and, as the counts would be read twice, a key given twice.
 */
static int
check_spans(const char *path, struct span *sp, size_t n, size_t bytes,
    struct mk_err *e)
{
	double at = 0;
	size_t i;

	if (n > 1)	/* sp may be NULL for none: qsort's is undefined */
		qsort(sp, n, sizeof(*sp), by_key);
	for (i = 1; i < n; i++)
		if (by_key(&sp[i - 1], &sp[i]) == 0)
			return mk_err_data(e, "%s: tensor \"%lld_%lld\" twice",
			    path, (long long)sp[i].iter, (long long)sp[i].layer);
	if (n > 1)
		qsort(sp, n, sizeof(*sp), by_begin);
	for (i = 0; i < n; at = sp[i++].e)
		if (sp[i].b != at)
			return mk_err_data(e, "%s: tensor \"%lld_%lld\" begins at "
			    "data byte %.17g, not at %.17g where the %s "
			    "(safetensors' tensors lie end to end from byte 0)",
			    path, (long long)sp[i].iter, (long long)sp[i].layer,
			    sp[i].b, at, i ? "tensor before it ends" : "data "
			    "begins");
	if (at != (double)bytes)
		return mk_err_data(e, "%s: %zu data bytes, the tensors end at "
		    "%.17g (safetensors' last tensor ends the file)", path,
		    bytes, at);
	return 0;
}

/* Add one rank file's counts into t. */
static int
add_file(const char *path, struct table *t, struct mk_err *e)
{
	const unsigned char *p, *data;
	struct mk_src *s;
	struct mk_json j;
	struct key *k;
	struct span *sp = NULL, *grown;
	char name[64];
	double off[2] = { 0, 0 };
	uint64_t hn;
	int64_t iter, layer, c;
	size_t n, w = 0, i, nsp = 0, cap = 0;
	int r, esz = 8;

	e->msg[0] = '\0';	/* a peek that fails says so; one that does
				 * not find its type leaves it to us */
	if ((s = mk_src_open(path, e)) == NULL)
		return -1;
	if (mk_src_slurp(s, &p, &n, e) < 0)
		goto fail;
	hn = n >= 8 ? (uint64_t)le_int(p, 8) : 0;
	if (n < 8 || hn > n - 8) {
		mk_err_data(e, "%s: not a safetensors file (a header of %llu "
		    "bytes in %zu)", path, (unsigned long long)hn, n);
		goto fail;
	}
	data = p + 8 + hn;
	mk_json_init(&j, (const char *)p + 8, (size_t)hn, path, e);
	if (mk_json_peek(&j) != MK_JSON_OBJECT) {
		if (e->msg[0] == '\0')
			mk_json_fail(&j, "the header is not an object");
		goto fail;
	}
	while ((r = mk_json_key(&j, name, sizeof(name))) > 0) {
		if (strcmp(name, "__metadata__") == 0) {
			if (mk_json_skip(&j) < 0)
				goto fail;
			continue;
		}
		if (parse_key(name, &iter, &layer) < 0) {
			char ex[100];	/* a name may hold anything */

			mk_json_fail(&j, "tensor \"%s\": expected "
			    "\"<iteration>_<layer>\"", mk_excerpt(ex,
			    sizeof(ex), name, strlen(name), 60));
			goto fail;
		}
		if (mk_json_peek(&j) != MK_JSON_OBJECT) {
			if (e->msg[0] == '\0')
				mk_json_fail(&j, "tensor \"%s\": not an "
				    "object", name);
			goto fail;
		}
		if (tensor_header(&j, &esz, &w, off) < 0)
			goto fail;
		if (t->width == 0)
			t->width = w;
		if (w != t->width || !(off[0] >= 0 && off[1] >= off[0] &&
		    off[1] <= (double)(n - 8 - hn)) ||
		    off[1] - off[0] != (double)(w * (size_t)esz)) {
			mk_json_fail(&j, "tensor \"%s\": %zu counts at [%.17g, "
			    "%.17g) of %zu data bytes (every tensor %zu wide)",
			    name, w, off[0], off[1], (size_t)(n - 8 - hn),
			    t->width);
			goto fail;
		}
		if (nsp == cap && (grown = realloc(sp, sizeof(*sp) * (cap ?
		    2 * cap : 64))) != NULL) {
			sp = grown;
			cap = cap ? 2 * cap : 64;
		}
		if (nsp == cap || (k = table_get(t, iter, layer)) == NULL) {
			mk_err_data(e, "%s: out of memory", path);
			goto fail;
		}
		sp[nsp++] = (struct span){ off[0], off[1], iter, layer };
		for (i = 0; i < w; i++) {
			c = le_int(data + (size_t)off[0] + i * (size_t)esz,
			    esz);
			if (c < 0 || c >= 1LL << 53) {
				mk_err_data(e, "%s: tensor \"%s\", expert %zu: "
				    "%lld is not a count", path, name, i,
				    (long long)c);
				goto fail;
			}
			k->v[i] += (double)c;
		}
	}
	if (r < 0 || mk_json_end(&j) < 0 ||
	    check_spans(path, sp, nsp, (size_t)(n - 8 - hn), e) < 0)
		goto fail;
	free(sp);
	mk_src_close(s);
	return 0;
fail:
	free(sp);
	mk_src_close(s);
	return -1;
}

int
mk_loads_trtllm_reads(const char *name)
{
	return fnmatch("rank*.safetensors", name, 0) == 0 &&
	    fnmatch("*_raw.safetensors", name, 0) != 0;
}

int
mk_loads_is_trtllm_dir(const char *path)
{
	struct stat st;

	return path != NULL && strcmp(path, "-") != 0 && stat(path, &st) == 0 &&
	    S_ISDIR(st.st_mode);
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The iterations and layers of t, checked complete, into the loads. */
static int
fill(struct table *t, const char *dir, int window, int history,
    struct mk_loads *l, struct mk_err *e)
{
	struct wins w = LOADS_NO_STEPS;
	int64_t *lay, i0 = INT64_MAX, i1 = -1;
	size_t i, nl = 0, T;
	int k, li, x, r = -1;

	if ((lay = malloc(sizeof(int64_t) * (t->n + 1))) == NULL)
		return mk_err_data(e, "%s: out of memory", dir);
	for (i = 0; i < t->n; i++) {
		i0 = t->k[i].iter < i0 ? t->k[i].iter : i0;
		i1 = t->k[i].iter > i1 ? t->k[i].iter : i1;
		lay[nl++] = t->k[i].layer;
	}
	qsort(lay, nl, sizeof(*lay), cmp_i64);
	for (i = 0, x = 0; i < nl; i++)
		if (i == 0 || lay[i] != lay[i - 1])
			lay[x++] = lay[i];
	nl = (size_t)x;
	T = (size_t)(i1 - i0 + 1);
	if (T * nl != t->n || T > INT32_MAX || lay[nl - 1] >= INT32_MAX) {
		mk_err_data(e, "%s: %zu tensors for iterations %lld-%lld and %zu "
		    "layers: every (iteration, layer) must be there once",
		    dir, t->n, (long long)i0, (long long)i1, nl);
		goto out;
	}
	if (loads_windows((int)T, window, history, dir, &w, l, e) < 0 ||
	    loads_alloc(l, &w, (int)nl, (int)t->width, dir, e) < 0)
		goto out;
	l->L0 = (int)lay[nl - 1] + 1;
	l->layers = MK_LAYERS_MODEL;
	l->trtllm = 1;
	for (i = 0; i < t->n; i++) {
		if ((k = loads_scenario(&w, (int)(t->k[i].iter - i0))) < 0)
			continue;
		for (li = 0; lay[li] != t->k[i].layer; li++)
			;
		for (x = 0; x < (int)t->width; x++)
			*loads_cell(l, k, li, x) += t->k[i].v[x];
	}
	for (i = 0; i < nl; i++)
		l->layer[i] = (int)lay[i];
	r = 0;
out:
	free(lay);
	return r;
}

int
mk_loads_read_trtllm(const char *dir, int window, int history,
    struct mk_loads *l, struct mk_err *e)
{
	struct table t = { 0 };
	struct dirent *d;
	char path[4096];
	int r = -1, files = 0;
	DIR *dp;

	memset(l, 0, sizeof(*l));
	if ((dp = opendir(dir)) == NULL)
		return mk_err_sys(e, dir);
	while ((d = readdir(dp)) != NULL) {
		if (!mk_loads_trtllm_reads(d->d_name))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, d->d_name) >=
		    (int)sizeof(path)) {
			mk_err_data(e, "%s: a path too long", dir);
			goto out;
		}
		if (add_file(path, &t, e) < 0)
			goto out;
		files++;
	}
	if (files == 0 || t.n == 0) {
		mk_err_data(e, "%s: a directory without TensorRT-LLM's "
		    "rank*.safetensors expert statistics (or with no tensor)",
		    dir);
		goto out;
	}
	r = fill(&t, dir, window, history, l, e);
out:
	if (r < 0)
		mk_loads_free(l);
	closedir(dp);
	table_free(&t);
	return r;
}
