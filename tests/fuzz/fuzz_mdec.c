/*
 * fuzz_mdec - mdecode's inputs: q, k, v and a mask as one stream, or with
 * a block table and sequence lengths (a paged cache), read and checked as
 * mdecode does, then computed when they pass.
 *   byte 0   bits 0-1: layout (-1 from the shapes, bhmd, bmhd, paged);
 *            bit 2: the last two tensors of the stream are the table
 *            and the lengths; bits 3-4: --kv-heads 0, 1, 2, 4;
 *            bits 5-7: --valid-length 0 (all) or 1-7
 *   the rest: a tensor stream (NPY, CSV or .npz)
 * Invariants: an error is one line; inputs that pass compute, with lse
 * and out for every q head.
 */
#include <string.h>

#include "fuzz.h"
#include "mdec/mdec.h"
#include "memfile.h"
#include "moekit.h"
#include "tensor/npy.h"
#include "tensor/stream.h"

/* Tensors t[from..to) of a stream, as NPY, into a memory file. */
static int
npy_file(const struct mk_tensor *t, int from, int to, char path[32])
{
	struct mk_err e;
	FILE *fp;
	int fd = memfile("", 0, path), k;

	FUZZ_CHECK((fp = fdopen(dup(fd), "w")) != NULL);
	for (k = from; k < to; k++)
		FUZZ_CHECK(mk_npy_write(fp, &t[k], &e) == 0);
	FUZZ_CHECK(fclose(fp) == 0);
	return fd;
}

/*
 * The stream p[0..n) as mdecode's files: whole (fds[0]), or with paged
 * set and six tensors in it, q, k, v, mask in fds[0] and the block table
 * and lengths in fds[1], fds[2].  Returns whether it was split.
 */
static int
split(const uint8_t *p, size_t n, int paged, char paths[3][32], int fds[3])
{
	struct mk_tensor t[6];
	struct mk_src *s;
	struct mk_err e;
	int k = 0, i;

	fds[1] = fds[2] = -1;
	for (i = 0; i < 6; i++)
		mk_tensor_init(&t[i]);
	if (paged) {
		FUZZ_CHECK((s = mk_src_mem(p, n, "fuzz", 0)) != NULL);
		while (k < 6 && mk_src_next(s, &t[k], &e) == 1)
			k++;
		mk_src_close(s);
	}
	if (k == 6) {
		fds[0] = npy_file(t, 0, 4, paths[0]);
		fds[1] = npy_file(t, 4, 5, paths[1]);
		fds[2] = npy_file(t, 5, 6, paths[2]);
	} else {
		fds[0] = memfile(p, n, paths[0]);
	}
	for (i = 0; i < 6; i++)
		mk_tensor_free(&t[i]);
	return k == 6;
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	static const int kvh[4] = { 0, 1, 2, 4 };
	const char *path[MK_MDEC_NIN] = { NULL };
	struct mk_mdec_in in = { -1, 0, 0, 0, 0, 0, -1, 0, 1, 1, 0 };
	struct mk_mdec_io io;
	struct mk_err e;
	char paths[3][32];
	int fds[3], r;

	if (size < 1)
		return 0;
	in.layout = (data[0] & 3) - 1;
	in.kv_heads = kvh[data[0] >> 3 & 3];
	in.valid = data[0] >> 5;
	in.fp8 = (int)(size % 3);	/* none, E4M3, E5M2: u8 k and v */
	in.v_dim = size % 5 == 0 ? (int)(size % 7) + 1 : 0;	/* MLA */
	if (split(data + 1, size - 1, data[0] >> 2 & 1, paths, fds)) {
		path[4] = paths[1];
		path[5] = paths[2];
	}
	memset(&io, 0, sizeof(io));
	e.msg[0] = '\0';
	r = mk_mdec_load(&io, paths[0], path, &in, &e);
	if (r == 0) {
		/* small enough to compute: the stream is under a few MB */
		if (mk_mdec_compute(&io, 1, -1, &e) == 0)
			FUZZ_CHECK(io.lse != NULL && io.out != NULL);
		else
			FUZZ_CHECK(e.msg[0] != '\0' && strchr(e.msg, '\n') ==
			    NULL);
	} else {
		FUZZ_CHECK(e.msg[0] != '\0' && strchr(e.msg, '\n') == NULL);
	}
	mk_mdec_io_free(&io);
	for (r = 0; r < 3; r++)
		if (fds[r] >= 0)
			close(fds[r]);
	return 0;
}
