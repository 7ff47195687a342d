/* jsonl.c - JSON lines of routing records as a trace; see jsonl.h. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "moe/step.h"
#include "moe/jsonl.h"
#include "tensor/json.h"
#include "tensor/npy.h"

#define rec	mk_moe_rec

/* The next integer value (an id, a layer): 0, or -1 naming the field. */
static int
integer(struct mk_json *j, const char *field, int64_t lo, int64_t hi,
    int64_t *out)
{
	double v;

	if (mk_json_number(j, &v) < 0)
		return -1;
	if (v != floor(v) || v < (double)lo || v > (double)hi)
		return mk_json_fail(j, "%s: %.17g is not an integer in [%lld, "
		    "%lld]", field, v, (long long)lo, (long long)hi);
	*out = (int64_t)v;
	return 0;
}

/*
 * One record (a line) into r; *seen gains 4 and 8 where it has the
 * sequence and token fields.  Returns 0 or -1.
 */
static int
record(struct mk_json *j, const struct mk_moe_jsonl *o, struct rec *r,
    int *seen)
{
	char key[64];
	int64_t x;
	int got = 0, k;

	if (mk_json_peek(j) != MK_JSON_OBJECT)
		return mk_json_fail(j, "expected a routing record (an object)");
	while ((k = mk_json_key(j, key, sizeof(key))) > 0) {
		if (strcmp(key, o->experts) == 0) {
			got |= 1;
			r->k = 0;
			if (mk_json_peek(j) != MK_JSON_ARRAY)
				return mk_json_fail(j, "%s: expected an array of "
				    "expert ids", o->experts);
			while ((k = mk_json_item(j)) > 0) {
				if (r->k == MK_MOE_MAX_TOPK)
					return mk_json_fail(j, "%s: more than %d "
					    "experts (DeepEP's top-k limit)",
					    o->experts, MK_MOE_MAX_TOPK);
				if (integer(j, o->experts, -1, INT32_MAX, &x) <
				    0)
					return -1;
				r->ids[r->k++] = (int32_t)x;
			}
			if (k < 0)
				return -1;
		} else if (strcmp(key, o->step) == 0) {
			got |= 2;
			if (integer(j, o->step, 0, INT32_MAX, &r->step) < 0)
				return -1;
		} else if (o->seq != NULL && strcmp(key, o->seq) == 0) {
			*seen |= 4;
			if (integer(j, o->seq, INT64_MIN / 2, INT64_MAX / 2,
			    &r->seq) < 0)
				return -1;
		} else if (o->token != NULL && strcmp(key, o->token) == 0) {
			*seen |= 8;
			if (integer(j, o->token, INT64_MIN / 2, INT64_MAX / 2,
			    &r->tok) < 0)
				return -1;
		} else if (mk_json_skip(j) < 0) {
			return -1;
		}
	}
	if (k < 0 || mk_json_end(j) < 0)
		return -1;
	if (!(got & 1))
		return mk_json_fail(j, "the record has no \"%s\" (--fields "
		    "names the experts field)", o->experts);
	if (!(got & 2))
		return mk_json_fail(j, "the record has no \"%s\" (--fields "
		    "names the step field)", o->step);
	return 0;
}

static int
by_step_seq_token(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->tok != y->tok)
		return x->tok < y->tok ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int
absent(const char *name, const char *field, const char *what,
    struct mk_err *e)
{
	return mk_err_usage(e, "--fields: no record of %s has a \"%s\" "
	    "field (the %s field; - when the records have none)", name, field,
	    what);
}

/* Parse every line of text into *recs (*n of them). */
static int
parse(const char *text, size_t len, const char *name,
    const struct mk_moe_jsonl *o, struct rec **recs, size_t *n,
    struct mk_err *e)
{
	size_t cap = 0, line = 0, at = 0, end;
	struct mk_json j;
	struct rec *r;
	int seen = 0;

	*recs = NULL;
	*n = 0;
	for (; at < len; at = end + 1) {
		const char *nl = memchr(text + at, '\n', len - at);

		end = nl ? (size_t)(nl - text) : len;
		line++;
		if (mk_json_blank_line(text + at, end - at))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			if ((r = realloc(*recs, sizeof(*r) * cap)) == NULL)
				return mk_err_data(e, "%s: out of memory after "
				    "%zu records", name, *n);
			*recs = r;
		}
		r = &(*recs)[*n];
		memset(r, 0, sizeof(*r));
		r->line = line;
		/*
		 * each line its own document, the cursor over the whole text
		 * so that messages count lines from the file's start
		 */
		mk_json_init(&j, text, end, name, e);
		j.p = text + at;
		if (record(&j, o, r, &seen) < 0)
			return -1;
		(*n)++;
	}
	if (*n == 0)
		return mk_err_data(e, "%s: no routing records", name);
	/* a field named on the command line that no record has: misspelled */
	if (o->named && o->seq != NULL && !(seen & 4))
		return absent(name, o->seq, "SEQ", e);
	if (o->named && o->token != NULL && !(seen & 8))
		return absent(name, o->token, "TOKEN", e);
	return 0;
}

int
mk_moe_jsonl_read(struct mk_src *s, const struct mk_moe_jsonl *o,
    struct mk_moe_rec **recs, size_t *n, struct mk_err *e)
{
	const unsigned char *text;
	size_t len;

	*recs = NULL;
	if (mk_src_slurp(s, &text, &len, e) < 0 ||
	    parse((const char *)text, len, mk_src_name(s), o, recs, n, e) <
	    0) {
		free(*recs);
		*recs = NULL;
		return -1;
	}
	qsort(*recs, *n, sizeof(**recs), by_step_seq_token);
	/*
	 * no TOKEN field: a record's token is its place among its step's
	 * (and sequence's) records in file order, so that the k-th record
	 * of every layer is the same token
	 */
	if (o->token == NULL) {
		size_t i, k = 0;

		for (i = 0; i < *n; i++) {
			if (i > 0 && ((*recs)[i].step != (*recs)[i - 1].step ||
			    (*recs)[i].seq != (*recs)[i - 1].seq))
				k = 0;
			(*recs)[i].tok = (int64_t)k++;
		}
	}
	return 0;
}

int
mk_moe_jsonl_trace(struct mk_src *s, const struct mk_moe_jsonl *o,
    void **npy, size_t *n, struct mk_err *e)
{
	const char *name = mk_src_name(s);
	struct rec *recs = NULL;
	int64_t shape[4], S = 0, T = 0, cnt, i0, i, t, r;
	size_t nrec, hl, cells;
	char hdr[256];
	int32_t *ids;
	int K = 1, k;

	*npy = NULL;
	if (mk_moe_jsonl_read(s, o, &recs, &nrec, e) < 0)
		return -1;
	/* steps, the most tokens a step has, the longest expert list */
	for (i0 = 0; i0 < (int64_t)nrec; i0 = i) {
		for (i = i0; i < (int64_t)nrec && recs[i].step ==
		    recs[i0].step; i++)
			K = recs[i].k > K ? recs[i].k : K;
		cnt = (i - i0 + o->R - 1) / o->R;
		T = cnt > T ? cnt : T;
		S++;
	}
	shape[0] = S;
	shape[1] = o->R;
	shape[2] = T;
	shape[3] = K;
	cells = (size_t)S * (size_t)o->R * (size_t)T * (size_t)K;
	hl = mk_npy_format_header(hdr, sizeof(hdr), MK_I32, 4, shape);
	*n = hl + cells * 4;
	if ((*npy = malloc(*n)) == NULL) {
		free(recs);
		return mk_err_data(e, "%s: out of memory for a trace of %zu "
		    "ids", name, cells);
	}
	memcpy(*npy, hdr, hl);
	ids = (int32_t *)((char *)*npy + hl);
	for (i = 0; i < (int64_t)cells; i++)
		ids[i] = -1;
	/* step s's tokens: rank r holds tokens [r T_s, (r + 1) T_s) */
	S = 0;
	for (i0 = 0; i0 < (int64_t)nrec; i0 = i, S++) {
		for (i = i0; i < (int64_t)nrec && recs[i].step ==
		    recs[i0].step; i++)
			;
		cnt = (i - i0 + o->R - 1) / o->R;
		for (t = 0; t < i - i0; t++) {
			r = t / cnt;
			for (k = 0; k < recs[i0 + t].k; k++)
				ids[(((size_t)S * (size_t)o->R + (size_t)r) *
				    (size_t)T + (size_t)(t % cnt)) * (size_t)K +
				    (size_t)k] = recs[i0 + t].ids[k];
		}
	}
	free(recs);
	return 0;
}

int
mk_moe_jsonl_fields(const char *spec, struct mk_moe_jsonl *o, char *buf,
    size_t size, struct mk_err *e)
{
	char *f[4], *save = NULL, *tok;
	int n = 0;

	snprintf(buf, size, "%s", spec != NULL ? spec :
	    "layer,problem_id,token_idx,experts");
	for (tok = strtok_r(buf, ",", &save); tok != NULL && n < 4;
	    tok = strtok_r(NULL, ",", &save))
		f[n++] = tok;
	if (n != 4 || tok != NULL || strcmp(f[0], "-") == 0 ||
	    strcmp(f[3], "-") == 0)
		return mk_err_usage(e, "--fields %s: four names, STEP,SEQ,TOKEN,"
		    "EXPERTS (SEQ and TOKEN may be -)", spec);
	o->step = f[0];
	o->seq = strcmp(f[1], "-") ? f[1] : NULL;
	o->token = strcmp(f[2], "-") ? f[2] : NULL;
	o->experts = f[3];
	o->named = spec != NULL;
	return 0;
}
