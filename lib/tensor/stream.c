/*
 * stream.c - recognising an input's format and reading its tensors; see
 * stream.h.
 */
#include <string.h>
#include <strings.h>

#include "tensor/csvio.h"
#include "tensor/npy.h"
#include "tensor/src_impl.h"
#include "tensor/stream.h"
#include "tensor/npz.h"
#include "tensor/zip.h"

/* Does the file name end in ext (case-insensitively)? */
static int
named(const char *name, const char *ext)
{
	size_t n = strlen(name), k = strlen(ext);

	return n > k && strcasecmp(name + n - k, ext) == 0;
}

int
mk_src_format(struct mk_src *s, struct mk_err *e)
{
	int64_t have;
	size_t i;

	if (s->fmt != MK_FMT_AUTO)
		return s->fmt;
	if ((have = src_fill(s, MK_NPY_MAGIC_LEN, e)) < 0)
		return -1;
	if (have == 0)
		return s->fmt = MK_FMT_EMPTY;
	if (s->p[s->pos] == 0x93)
		return s->fmt = MK_FMT_NPY;
	/* a local header, or the end record of an archive with no member */
	if (have >= MK_ZIP_MAGIC_LEN && (memcmp(s->p + s->pos, MK_ZIP_MAGIC,
	    MK_ZIP_MAGIC_LEN) == 0 || memcmp(s->p + s->pos, "PK\5\6", 4) == 0))
		return s->fmt = MK_FMT_ZIP;
	/* pickle's PROTO opcode: torch.save's format before the zip one */
	if (have >= 2 && s->p[s->pos] == 0x80 && s->p[s->pos + 1] >= 2 &&
	    s->p[s->pos + 1] <= 5)
		return mk_err_data(e, "%s: a Python pickle (torch.save(..., "
		    "_use_new_zipfile_serialization=False)?), which is not "
		    "read: torch.save it again in torch's zip format (the "
		    "default since torch 1.6)", s->name);
	if (named(s->name, ".npy") || named(s->name, ".npz") ||
	    named(s->name, ".pt") || named(s->name, ".pth"))
		return mk_err_data(e, "%s: not %s: the file does not start as "
		    "one (%s)", s->name, named(s->name, ".npy") ? "NPY" :
		    named(s->name, ".npz") ? "an .npz (a zip archive)" :
		    "a torch.save file (a zip archive)", named(s->name, ".npy") ?
		    "\\x93NUMPY" : "PK\\3\\4");
	for (i = 0; ; i++) {
		if ((size_t)have <= i) {
			if ((have = src_fill(s, i + 1, e)) < 0)
				return -1;
			if ((size_t)have <= i)
				break;
		}
		if (strchr(" \t\r\n", s->p[s->pos + i]) == NULL)
			break;
	}
	if ((size_t)have > i && (s->p[s->pos + i] == '{' ||
	    s->p[s->pos + i] == '['))
		return s->fmt = MK_FMT_JSON;
	return s->fmt = MK_FMT_CSV;
}

int
mk_src_next(struct mk_src *s, struct mk_tensor *t, struct mk_err *e)
{
	int fmt, r;

	if ((fmt = mk_src_format(s, e)) < 0)
		return -1;
	switch (fmt) {
	case MK_FMT_NPY:
		r = mk_npy_read(s, t, e);
		break;
	case MK_FMT_CSV:
		r = mk_csv_read(s, t, e);
		break;
	case MK_FMT_JSON:
		return mk_err_data(e, "%s: JSON input is not a tensor stream "
		    "(eplb-plan reads JSON load files, a2a-layout JSON lines "
		    "of routing records)", s->name);
	case MK_FMT_ZIP:
		r = mk_npz_read(s, t, e);
		break;
	default:
		r = 0;
		break;
	}
	if (r == 0 && s->index == 0)
		return mk_err_data(e, "%s: empty input (no tensor)", s->name);
	return r;
}

