/*
 * fuzz_trtllm - TensorRT-LLM's expert statistics: a directory of
 * rank*.safetensors files (a u64 header length, a JSON header of
 * "{iter}_{layer}" tensors, their bytes), read and summed key-wise into a
 * load log.  The input is cut into up to three rank files at offsets its
 * last bytes choose, written into a fresh directory and read there, with
 * --window/--history derived from the data.
 * Invariants as fuzz_loads': a read gives the scenarios asked for, within
 * the cell limit, every load finite and >= 0, the layers the model's in
 * ascending order; an error is one line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <math.h>

#include "fuzz.h"
#include "moekit.h"
#include "moe/loads.h"

static char dir[1024];

static void put(const char *name, const uint8_t *p, size_t n);

/* At exit: the scratch directory goes. */
static void
clean(void)
{
	put("rank0.safetensors", NULL, 0);
	put("rank1.safetensors", NULL, 0);
	put("rank2.safetensors", NULL, 0);
	rmdir(dir);
}

/* The scratch directory, made once a process. */
static const char *
scratch(void)
{
	if (dir[0] == '\0') {
		const char *t = getenv("TMPDIR");

		if (t == NULL || strlen(t) > 900)
			t = "/tmp";
		snprintf(dir, sizeof(dir), "%s/fuzz_trtllm.XXXXXX", t);
		if (mkdtemp(dir) == NULL)
			abort();
		atexit(clean);
	}
	return dir;
}

static void
put(const char *name, const uint8_t *p, size_t n)
{
	char path[1100];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", scratch(), name);
	if (p == NULL) {
		unlink(path);
		return;
	}
	if ((fp = fopen(path, "wb")) == NULL)
		abort();
	if (n > 0 && fwrite(p, 1, n, fp) != n)
		abort();
	fclose(fp);
}

static void
check(const struct mk_loads *l, int history)
{
	size_t i, n = (size_t)l->S * (size_t)l->L * (size_t)l->E;
	int k;

	FUZZ_CHECK(l->S == history && l->L >= 1 && l->E >= 1);
	FUZZ_CHECK(n <= MK_LOADS_MAX_CELLS);
	for (i = 0; i < n; i++)
		FUZZ_CHECK(isfinite(l->w[i]) && l->w[i] >= 0);
	for (k = 0; k < l->L; k++)
		FUZZ_CHECK(l->layer[k] >= 0 && l->layer[k] < l->L0 &&
		    (k == 0 || l->layer[k] > l->layer[k - 1]));
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	unsigned h = size ? data[size - 1] : 0, g = size > 1 ?
	    data[size - 2] : 0;
	size_t a = size ? (size * h / 256) : 0, b = a + (size - a) * g / 256;
	struct mk_loads l;
	struct mk_err e;
	int r, window = h % 3, history = 1 + (g % 4 == 0);

	/* rank0 [0, a), rank1 [a, b), rank2 [b, size): some may be empty */
	put("rank0.safetensors", data, a);
	put("rank1.safetensors", h & 1 ? data + a : NULL, b - a);
	put("rank2.safetensors", h & 2 ? data + b : NULL, size - b);
	e.msg[0] = '\0';
	if ((r = mk_loads_read_trtllm(scratch(), window ? window : 0,
	    window ? history : 1, &l, &e)) == 0) {
		check(&l, window ? history : 1);
		mk_loads_free(&l);
	}
	FUZZ_CHECK(r == 0 || (e.msg[0] != '\0' && strchr(e.msg, '\n') ==
	    NULL));
	return 0;
}
