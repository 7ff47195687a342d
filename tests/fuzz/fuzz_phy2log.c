/*
 * fuzz_phy2log - the plan readers behind eplb-plan --prev/--eval and
 * a2a-layout --phy2log: a phy2log as NPY, CSV, .npz, SGLang's JSON, vLLM's
 * initial mapping line or TensorRT-LLM's YAML,
 * then its rows for a plan shape taken from the first bytes.
 *   byte 0   layers L (1-8) wanted; byte 1: slots R (1-64); byte 2:
 *            experts E (1-R); the rest: the plan file
 * Invariants: a plan read has L x R entries (or a row per input layer);
 * its rows hold experts in [0, E); an error is one line.
 */
#include <string.h>

#include "moe/plan.h"
#include "fuzz.h"
#include "memfile.h"
#include "moekit.h"

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	struct mk_phy2log pl;
	struct mk_err e;
	char path[32];
	int64_t *rows = NULL;
	int fd, L, R, E, layer[8], l, i;

	if (size < 3)
		return 0;
	L = 1 + data[0] % 8;
	R = 1 + data[1] % 64;
	E = 1 + data[2] % R;
	for (l = 0; l < L; l++)
		layer[l] = l;
	fd = memfile(data + 3, size - 3, path);
	e.msg[0] = '\0';
	if (mk_phy2log_read(path, "--prev", &pl, &e) == 0) {
		FUZZ_CHECK(pl.p != NULL || (int64_t)pl.L * pl.R == 0);
		FUZZ_CHECK(pl.L >= 0 && pl.R >= 0);
		if ((rows = mk_phy2log_rows(&pl, L, L, layer, R, E, &e)) !=
		    NULL)
			for (i = 0; i < L * R; i++)
				FUZZ_CHECK(rows[i] >= 0 && rows[i] < E);
		else
			FUZZ_CHECK(e.msg[0] != '\0' && strchr(e.msg, '\n') ==
			    NULL);
		free(rows);
	} else {
		FUZZ_CHECK(e.msg[0] != '\0' && strchr(e.msg, '\n') == NULL);
	}
	close(fd);
	return 0;
}
