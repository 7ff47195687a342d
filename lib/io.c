/* io.c - checked, atomic outputs; see io.h. */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csvio.h"
#include "errmsg.h"
#include "io.h"
#include "npy.h"

/* Outputs whose temporary files must vanish if we exit early. */
#define MAX_PENDING	8
static struct mk_out *pending[MAX_PENDING];

void
mk_out_abandon(void)
{
	int i;

	for (i = 0; i < MAX_PENDING; i++) {
		if (pending[i] != NULL && pending[i]->tmp != NULL) {
			unlink(pending[i]->tmp);
			free(pending[i]->tmp);
			pending[i]->tmp = NULL;
		}
		pending[i] = NULL;
	}
}

/* Swap was for o in the pending list; only adding can fail. */
static void
track(struct mk_out *o, struct mk_out *was)
{
	int i;

	for (i = 0; i < MAX_PENDING; i++)
		if (pending[i] == was) {
			pending[i] = o;
			return;
		}
	if (was == NULL)
		errx(MK_EXIT_DATA, "too many output files");
}

/* A write error: quiet for a closed pipe, one line otherwise. */
static void __attribute__((noreturn))
write_failed(struct mk_out *o, int errnum)
{
	mk_out_abandon();
	if (errnum == EPIPE)
		exit(MK_EXIT_DATA);
	errno = errnum;
	err(MK_EXIT_DATA, "%s", o->name);
}

struct mk_out *
mk_out_open(const char *path, enum mk_fmt fmt)
{
	static int registered;
	struct mk_out *o;
	struct stat st;
	mode_t mask;
	int fd;

	if ((o = calloc(1, sizeof(*o))) == NULL)
		err(MK_EXIT_DATA, NULL);
	o->fmt = fmt;
	if (!registered) {
		atexit(mk_out_abandon);
		registered = 1;
	}
	if (path == NULL || strcmp(path, "-") == 0) {
		if (fmt == MK_FMT_NPY && isatty(STDOUT_FILENO))
			errx(MK_EXIT_USAGE, "refusing to write NPY to a "
			    "terminal (use -f csv, -o FILE or a pipe)");
		o->fp = stdout;
		o->name = "stdout";
		setvbuf(stdout, NULL, _IOFBF, 1 << 17);
		return o;
	}
	o->name = path;
	/*
	 * Devices, FIFOs and the like (/dev/null, /dev/stdout, a named pipe)
	 * are written in place: renaming over them would replace the device.
	 */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if ((o->fp = fopen(path, "w")) == NULL)
			err(MK_EXIT_DATA, "%s", path);
		setvbuf(o->fp, NULL, _IOFBF, 1 << 17);
		return o;
	}
	if ((o->path = strdup(path)) == NULL ||
	    asprintf(&o->tmp, "%s.XXXXXX", path) < 0)
		err(MK_EXIT_DATA, NULL);
	if ((fd = mkstemp(o->tmp)) < 0) {
		free(o->tmp);
		o->tmp = NULL;
		err(MK_EXIT_DATA, "%s", path);
	}
	track(o, NULL);
	/* mkstemp makes the file 0600; give it the mode a plain create would. */
	mask = umask(0);
	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
	if ((o->fp = fdopen(fd, "w")) == NULL) {
		close(fd);
		err(MK_EXIT_DATA, "%s", path);
	}
	setvbuf(o->fp, NULL, _IOFBF, 1 << 17);
	return o;
}

void
mk_out_begin(struct mk_out *o, const char *name, enum mk_dtype dtype,
    int ndim, const int64_t *shape)
{
	char hdr[MK_MAXDIM * 24 + 256], idx[32];
	struct mk_err e;
	int64_t n;
	size_t hl;
	int r;

	n = mk_shape_nelem(ndim, shape, mk_dtype_size(dtype));
	o->dtype = dtype;
	o->want = n < 0 ? 0 : (size_t)n;
	o->done = 0;
	o->cols = ndim >= 2 ? (size_t)shape[ndim - 1] : 1;
	snprintf(idx, sizeof(idx), "%d", o->count);
	errno = 0;
	if (o->fmt == MK_FMT_CSV) {
		r = mk_csv_write_head(o->fp, name ? name : idx, dtype, ndim,
		    shape, &e);
	} else {
		hl = mk_npy_format_header(hdr, sizeof(hdr), dtype, ndim, shape);
		r = fwrite(hdr, 1, hl, o->fp) == hl ? 0 : -1;
	}
	if (r < 0 || ferror(o->fp))
		write_failed(o, errno ? errno : EIO);
}

void
mk_out_data(struct mk_out *o, const void *data, size_t nelem)
{
	struct mk_err e;
	size_t pos = o->done, nb = nelem * mk_dtype_size(o->dtype);
	int r;

	if (o->done + nelem > o->want)
		errx(MK_EXIT_DATA, "internal error: %zu elements written to a "
		    "tensor of %zu", o->done + nelem, o->want);
	errno = 0;
	if (o->fmt == MK_FMT_CSV)
		r = mk_csv_write_values(o->fp, o->dtype, data, nelem, o->cols,
		    &pos, &e);
	else
		r = nb == 0 || fwrite(data, 1, nb, o->fp) == nb ? 0 : -1;
	if (r < 0 || ferror(o->fp))
		write_failed(o, errno ? errno : EIO);
	o->done += nelem;
}

void
mk_out_end(struct mk_out *o)
{
	if (o->done != o->want)
		errx(MK_EXIT_DATA, "internal error: %zu of %zu elements "
		    "written", o->done, o->want);
	o->count++;
}

void
mk_out_tensor(struct mk_out *o, const struct mk_tensor *t,
    const char *fallback)
{
	mk_out_begin(o, t->name ? t->name : fallback, t->dtype, t->ndim,
	    t->shape);
	mk_out_data(o, t->data, t->nelem);
	mk_out_end(o);
}

void
mk_out_close(struct mk_out *o)
{
	int e = 0;

	errno = 0;
	if (fflush(o->fp) != 0 || ferror(o->fp))
		e = errno ? errno : EIO;
	if (o->fp != stdout) {
		if (fclose(o->fp) != 0 && e == 0)
			e = errno ? errno : EIO;
	}
	if (e != 0)
		write_failed(o, e);
	if (o->tmp != NULL) {
		if (rename(o->tmp, o->path) != 0)
			err(MK_EXIT_DATA, "%s", o->path);
		free(o->tmp);
		o->tmp = NULL;
	}
	track(NULL, o);
	free(o->path);
	free(o);
}
