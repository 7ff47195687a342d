/*
 * fuzz_loads - eplb-plan's load reader over every form it takes (NPY,
 * CSV and the long CSV table, SGLang's and the ADRS evaluator's JSON,
 * torch .pt zips), all at once and in drips, with --window/--history
 * derived from the data so corpus files stay plain load files.
 * Invariants: a read gives the scenarios asked for, of at least one layer
 * and expert within the cell limit, every load finite and >= 0; finishing
 * (dropping all-zero layers) keeps the input's layer order and leaves no
 * all-zero layer; an error is one line.
 */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "moekit.h"
#include "moe/loads.h"

static void
check_loads(const struct mk_loads *l, int history)
{
	size_t i, n = (size_t)l->S * (size_t)l->L * (size_t)l->E;

	FUZZ_CHECK(l->S == history && l->L >= 1 && l->E >= 1);
	FUZZ_CHECK(n <= MK_LOADS_MAX_CELLS);
	for (i = 0; i < n; i++)
		FUZZ_CHECK(isfinite(l->w[i]) && l->w[i] >= 0);
}

static void
check_finished(const struct mk_loads *l)
{
	int i, k, x, any;

	for (i = 0; i < l->L; i++) {
		FUZZ_CHECK(l->layer[i] >= 0 && l->layer[i] < l->L0);
		FUZZ_CHECK(i == 0 || l->layer[i] > l->layer[i - 1]);
		for (any = 0, k = 0; k < l->S; k++)
			for (x = 0; x < l->E; x++)
				any |= l->w[((size_t)k * l->L + i) * l->E +
				    x] != 0;
		FUZZ_CHECK(any);
	}
}

static void
run(const uint8_t *data, size_t size, size_t drip, int window, int history)
{
	struct mk_loads l;
	struct mk_src *s;
	struct mk_err e;
	int r;

	if ((s = mk_src_mem(data, size, "fuzz", drip)) == NULL)
		return;
	e.msg[0] = '\0';
	if ((r = mk_loads_read(s, window, history, &l, &e)) == 0) {
		check_loads(&l, history);
		if ((r = mk_loads_finish(&l, 1, &e)) == 0)
			check_finished(&l);
		mk_loads_free(&l);
	}
	FUZZ_CHECK(r == 0 || (e.msg[0] != '\0' && strchr(e.msg, '\n') ==
	    NULL));
	mk_src_close(s);
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	unsigned h = size ? data[size - 1] : 0;

	run(data, size, 0, 0, 1);
	run(data, size, 1 + (size * 31 + h) % 61, 1 + h % 3, 1 + h / 64);
	return 0;
}
