/* stack.c - outputs stacked a slice at a time; see stack.h. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errmsg.h"
#include "cli/stack.h"

struct mk_stack {
	const char	*name;
	enum mk_dtype	 dtype;
	int		 ndim;
	int64_t		 shape[3];
	size_t		 nelem;		/* of a slice */
	int64_t		 count;		/* slices pushed */
	FILE		*spill;		/* opened at the first push */
};

struct mk_stack *
mk_stack_new(const char *name, enum mk_dtype dtype, int ndim,
    const int64_t *shape)
{
	struct mk_stack *st;
	int i;

	if (ndim > 3 || (st = calloc(1, sizeof(*st))) == NULL)
		errx(MK_EXIT_DATA, "out of memory");
	st->name = name;
	st->dtype = dtype;
	st->ndim = ndim;
	st->nelem = 1;
	for (i = 0; i < ndim; i++) {
		st->shape[i] = shape[i];
		st->nelem *= (size_t)shape[i];
	}
	return st;
}

/* An unlinked temporary file: it vanishes however the program ends. */
static FILE *
spill_open(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	FILE *fp;
	int fd;

	snprintf(path, sizeof(path), "%s/moekit.XXXXXX",
	    dir && *dir ? dir : "/tmp");
	if ((fd = mkstemp(path)) < 0)
		err(MK_EXIT_DATA, "%s", path);
	unlink(path);
	if ((fp = fdopen(fd, "w+")) == NULL)
		err(MK_EXIT_DATA, "temporary file");
	return fp;
}

void
mk_stack_push(struct mk_stack *st, const void *slice)
{
	if (st->spill == NULL)
		st->spill = spill_open();
	if (fwrite(slice, mk_dtype_size(st->dtype), st->nelem, st->spill) !=
	    st->nelem)
		err(MK_EXIT_DATA, "temporary file");
	st->count++;
}

void
mk_stack_write(struct mk_stack *st, struct mk_out *w)
{
	size_t sz = mk_dtype_size(st->dtype), left, got;
	int64_t shape[4];
	char buf[1 << 16];
	int i;

	shape[0] = st->count;
	for (i = 0; i < st->ndim; i++)
		shape[i + 1] = st->shape[i];
	mk_out_begin(w, st->name, st->dtype, st->ndim + 1, shape);
	if (st->spill != NULL) {
		rewind(st->spill);
		for (left = st->nelem * (size_t)st->count; left > 0;
		    left -= got) {
			got = fread(buf, sz, sizeof(buf) / sz < left ?
			    sizeof(buf) / sz : left, st->spill);
			if (got == 0)
				err(MK_EXIT_DATA, "temporary file");
			mk_out_data(w, buf, got);
		}
		fclose(st->spill);
	}
	mk_out_end(w);
	free(st);
}
