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

/* The one output whose temporary file must vanish if we exit early. */
static struct mk_out *pending;

void
mk_out_abandon(void)
{
	if (pending != NULL && pending->tmp != NULL) {
		unlink(pending->tmp);
		free(pending->tmp);
		pending->tmp = NULL;
	}
	pending = NULL;
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
		setvbuf(stdout, NULL, _IOFBF, 1 << 20);
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
		setvbuf(o->fp, NULL, _IOFBF, 1 << 20);
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
	pending = o;
	/* mkstemp makes the file 0600; give it the mode a plain create would. */
	mask = umask(0);
	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
	if ((o->fp = fdopen(fd, "w")) == NULL) {
		close(fd);
		err(MK_EXIT_DATA, "%s", path);
	}
	setvbuf(o->fp, NULL, _IOFBF, 1 << 20);
	return o;
}

void
mk_out_tensor(struct mk_out *o, const struct mk_tensor *t,
    const char *fallback)
{
	struct mk_err e;
	char idx[32];
	int r;

	snprintf(idx, sizeof(idx), "%d", o->count);
	errno = 0;
	if (o->fmt == MK_FMT_CSV)
		r = mk_csv_write(o->fp, t, fallback ? fallback : idx, &e);
	else
		r = mk_npy_write(o->fp, t, &e);
	if (r < 0 || ferror(o->fp))
		write_failed(o, errno ? errno : EIO);
	o->count++;
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
	if (pending == o)
		pending = NULL;
	free(o->path);
	free(o);
}
