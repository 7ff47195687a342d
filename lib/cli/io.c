/* io.c - checked, atomic outputs; see io.h. */
#include <sys/stat.h>
#include <sys/vfs.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tensor/csvio.h"
#include "base/errmsg.h"
#include "base/threads.h"
#include "cli/dest_impl.h"
#include "cli/io.h"
#include "tensor/npy.h"

/*
 * The outputs of this run, in the order they were opened, until they are
 * committed: every temporary file is renamed into place and every held
 * stdout copied out only once all of them have closed cleanly.
 */
#define MAX_PENDING	8
static struct mk_out *pending[MAX_PENDING];
static int npending;

/*
 * The temporary files, for a signal handler: it may run at any moment, so
 * it reads only this array of paths that stay allocated while listed.
 */
static char *volatile tmps[MAX_PENDING];

/* Forget temporary file path (renamed or removed). */
static void
untrack_tmp(const char *path)
{
	int i;

	for (i = 0; i < MAX_PENDING; i++)
		if (tmps[i] == path)
			tmps[i] = NULL;
}

/*
 * SIGINT, SIGTERM, SIGHUP, SIGPIPE: remove every temporary file, then
 * end as the signal would have (its usual status, quietly).
 */
static void
on_signal(int sig)
{
	int i;

	for (i = 0; i < MAX_PENDING; i++)
		if (tmps[i] != NULL)
			unlink(tmps[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
say(const char *s)
{
	(void)!write(STDERR_FILENO, s, strlen(s));
}

/*
 * SIGBUS: a page of a mapped input is gone because another program
 * shortened the file.  Remove the temporaries and say which file, as the
 * pread path says it; any other bus error ends as a bus error.
 */
static void
on_bus(int sig, siginfo_t *si, void *uc)
{
	const char *name = mk_mapped_file_at(si->si_addr);
	int i;

	(void)uc;
	for (i = 0; i < MAX_PENDING; i++)
		if (tmps[i] != NULL)
			unlink(tmps[i]);
	if (name == NULL) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	say(program_invocation_short_name);
	say(": ");
	say(name);
	say(": the file shrank while it was being read\n");
	_exit(MK_EXIT_DATA);
}

void
mk_out_catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	static int done;
	struct sigaction sa, old;
	size_t i;

	if (done++)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask);
	/* a signal ignored from the start (nohup, a shell's & without job
	 * control) stays ignored */
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler != SIG_IGN)
			(void)sigaction(sigs[i], &sa, NULL);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_bus;
	sa.sa_flags = SA_SIGINFO;
	(void)sigaction(SIGBUS, &sa, NULL);
}

/* Free an output (its files are dealt with already). */
static void
release(struct mk_out *o)
{
	/* on an error, what is still buffered must not reach a device */
	if (o->fp != NULL && !o->closed)
		__fpurge(o->fp);
	if (o->fp != NULL && o->fp != stdout)
		fclose(o->fp);
	mk_npzw_free(&o->npz);
	free(o->tmp);
	free(o->path);
	free(o);
}

void
mk_out_abandon(void)
{
	int i;

	for (i = 0; i < npending; i++) {
		if (pending[i]->tmp != NULL) {
			unlink(pending[i]->tmp);
			untrack_tmp(pending[i]->tmp);
		}
		release(pending[i]);
		pending[i] = NULL;
	}
	npending = 0;
}

/* A write error: quiet for a closed pipe, one line otherwise. */
static void __attribute__((noreturn))
write_failed(const char *name, int errnum)
{
	mk_out_abandon();
	if (errnum == EPIPE)
		exit(MK_EXIT_DATA);
	errno = errnum;
	err(MK_EXIT_DATA, "%s", name);
}

static void
track(struct mk_out *o)
{
	if (npending == MAX_PENDING)
		errx(MK_EXIT_DATA, "too many output files");
	pending[npending++] = o;
}

/* Stdout for an output: held in an unlinked file when another is open. */
static void
open_stdout(struct mk_out *o)
{
	o->name = "stdout";
	if (npending > 0) {
		if ((o->fp = tmpfile()) == NULL)
			err(MK_EXIT_DATA, "temporary file");
		o->held = 1;
		return;
	}
	o->fp = stdout;
	setvbuf(stdout, NULL, _IOFBF, 1 << 17);
}

/*
 * Renaming a new file over an old one on ext4 (as every run that replaces
 * its output does) makes ext4 allocate and start writing the new file's
 * delayed blocks inside rename(2), which then takes as long as writing
 * them; a file whose blocks fallocate(2) had allocated renames at once,
 * and is written no slower.
 * So an NPY or NPZ file's blocks are allocated as each tensor (or the
 * zip directory) begins, every byte of the file among them (a byte left
 * to delayed allocation would bring the whole file's writing back into
 * the rename, as an NPZ whose directory was not allocated showed).  Only
 * on ext4, where it was measured: on tmpfs, for one, it would zero the
 * pages twice.
 */
#define EXT4_MAGIC	0xEF53

static int
on_ext4(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 && sf.f_type == EXT4_MAGIC;
}

/* Blocks for the next n bytes of o's file.  A full disk fails now. */
static void
prealloc(struct mk_out *o, size_t n)
{
	off_t at;

	if (!o->prealloc || n == 0 || (at = ftello(o->fp)) < 0)
		return;
	if (fallocate(fileno(o->fp), 0, at, (off_t)n) != 0 &&
	    (errno == ENOSPC || errno == EFBIG || errno == EDQUOT))
		write_failed(o->name, errno);
}

/* The files this run reads: no output may replace one of them. */
static struct input { dev_t dev; ino_t ino; const char *path; } *inputs;
static int ninputs;

/* The folders this run reads files from, and which names it reads there. */
static struct indir {
	dev_t		 dev;
	ino_t		 ino;
	const char	*path;
	int		(*reads)(const char *name);
} *indirs;
static int nindirs;

/* The files this run writes by renaming, as canon() names them. */
static char **outputs;
static int noutputs;

/* The name of the output that went to standard output, if one did. */
static const char *on_stdout;

void
mk_out_input(const char *path)
{
	struct stat st;

	struct input *p;

	if (path == NULL || strcmp(path, "-") == 0 || stat(path, &st) != 0 ||
	    !S_ISREG(st.st_mode))
		return;
	if ((p = realloc(inputs, sizeof(*p) * (size_t)(ninputs + 1))) == NULL)
		err(MK_EXIT_DATA, NULL);
	inputs = p;
	inputs[ninputs].dev = st.st_dev;
	inputs[ninputs].ino = st.st_ino;
	inputs[ninputs++].path = path;
}

void
mk_out_input_dir(const char *dir, int (*reads)(const char *name))
{
	struct stat st;
	struct indir *p;

	if (dir == NULL || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return;
	if ((p = realloc(indirs, sizeof(*p) * (size_t)(nindirs + 1))) == NULL)
		err(MK_EXIT_DATA, NULL);
	indirs = p;
	indirs[nindirs] = (struct indir){ st.st_dev, st.st_ino, dir, reads };
	nindirs++;
}

/* Refuse an output that is one of the run's inputs (st: the output's). */
static void
guard(const char *path, const struct stat *st)
{
	int i;

	for (i = 0; i < ninputs; i++)
		if (S_ISREG(st->st_mode) && st->st_dev == inputs[i].dev &&
		    st->st_ino == inputs[i].ino)
			errx(MK_EXIT_USAGE, "%s: %s%s of this run: writing it "
			    "would replace what is being read (name another "
			    "file)", path, strcmp(path, inputs[i].path) ? "the "
			    "same file as the input " : "an input",
			    strcmp(path, inputs[i].path) ? inputs[i].path : "");
}

/*
 * Refuse an output at file (where name's links end) that a folder this
 * run reads would read: one there now, or one that the next read of the
 * folder would take (TensorRT-LLM's rank<r>.safetensors).
 */
static void
guard_dir(const char *name, const char *file)
{
	const char *slash = strrchr(file, '/');
	struct stat st;
	char *dir;
	int i;

	if (nindirs == 0)
		return;
	if ((dir = slash == NULL ? strdup(".") : slash == file ? strdup("/") :
	    strndup(file, (size_t)(slash - file))) == NULL)
		err(MK_EXIT_DATA, NULL);
	for (i = 0; i < nindirs && stat(dir, &st) == 0; i++)
		if (st.st_dev == indirs[i].dev && st.st_ino == indirs[i].ino &&
		    indirs[i].reads(slash ? slash + 1 : file))
			errx(MK_EXIT_USAGE, "%s: a file this run reads from the "
			    "input folder %s: writing it would change what is "
			    "read, now or next time (name another file)",
			    name, indirs[i].path);
	free(dir);
}

/* path as its directory's real path and its name (malloc'd). */
static char *
canon(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir, *real, *out;

	if ((dir = slash == NULL ? strdup(".") : slash == path ? strdup("/") :
	    strndup(path, (size_t)(slash - path))) == NULL)
		err(MK_EXIT_DATA, NULL);
	real = realpath(dir, NULL);
	if (asprintf(&out, "%s/%s", real ? real : dir, slash ? slash + 1 :
	    path) < 0)
		err(MK_EXIT_DATA, NULL);
	free(real);
	free(dir);
	return out;
}

/* Refuse a second output of this run into the same file. */
static void
once(const char *name, const char *path)
{
	char *c = canon(path), **p;
	int i;

	for (i = 0; i < noutputs; i++)
		if (strcmp(outputs[i], c) == 0)
			errx(MK_EXIT_USAGE, "%s: named for two outputs of this "
			    "run (-o, --report, --plot, --steps): one would "
			    "replace the other (name another file)", name);
	if ((p = realloc(outputs, sizeof(*p) * (size_t)(noutputs + 1))) ==
	    NULL)
		err(MK_EXIT_DATA, NULL);
	outputs = p;
	outputs[noutputs++] = c;
}

/* Refuse a second output of this run on standard output. */
static void
claim_stdout(const char *name)
{
	if (on_stdout != NULL)
		errx(MK_EXIT_USAGE, "%s and %s: two outputs of this run on "
		    "standard output would interleave (name a file for one)",
		    on_stdout, name);
	on_stdout = name;
}

/* The output o written in place through descriptor fd (ours now). */
static void
in_place(struct mk_out *o, int fd, const char *path)
{
	if ((o->fp = fdopen(fd, "w")) == NULL)
		err(MK_EXIT_DATA, "%s", path);
	setvbuf(o->fp, NULL, _IOFBF, 1 << 17);
	track(o);
}

/*
 * A temporary file beside path, renamed over it at the commit.  Its name
 * is path's with ".XXXXXX" after at most 248 bytes of the file name, so
 * that a name of up to 255 bytes can be written.
 */
static void
via_temp(struct mk_out *o, const char *path, enum mk_fmt fmt)
{
	const char *base = strrchr(path, '/');
	size_t keep = strlen(path);
	mode_t mask;
	int fd;

	base = base ? base + 1 : path;
	if (strlen(base) > 248)
		keep -= strlen(base) - 248;
	if ((o->path = strdup(path)) == NULL ||
	    asprintf(&o->tmp, "%.*s.XXXXXX", (int)keep, path) < 0)
		err(MK_EXIT_DATA, NULL);
	if ((fd = mkstemp(o->tmp)) < 0) {
		free(o->tmp);
		o->tmp = NULL;
		err(MK_EXIT_DATA, "%s", o->name);
	}
	track(o);
	tmps[npending - 1] = o->tmp;
	/* mkstemp makes the file 0600; give it the mode a plain create would. */
	mask = umask(0);
	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
	if ((o->fp = fdopen(fd, "w")) == NULL) {
		close(fd);
		err(MK_EXIT_DATA, "%s", o->name);
	}
	setvbuf(o->fp, NULL, _IOFBF, 1 << 17);
	o->prealloc = (fmt == MK_FMT_NPY || fmt == MK_FMT_NPZ) && on_ext4(fd);
}

/* Whether st is the file standard output writes to. */
static int
is_stdout_file(const struct stat *st)
{
	struct stat so;

	return fstat(STDOUT_FILENO, &so) == 0 && S_ISREG(so.st_mode) &&
	    so.st_dev == st->st_dev && so.st_ino == st->st_ino;
}

/* NPY and NPZ never go to a terminal. */
static void
no_terminal(int fd, enum mk_fmt fmt)
{
	if ((fmt == MK_FMT_NPY || fmt == MK_FMT_NPZ) && isatty(fd))
		errx(MK_EXIT_USAGE, "refusing to write %s to a terminal (use -f "
		    "csv, -o FILE or a pipe)", fmt == MK_FMT_NPZ ? "NPZ" :
		    "NPY");
}

/*
 * Where a named output goes, judged before anything is allocated (a
 * refusal leaks nothing): d filled; returns whether it is standard
 * output; or the run is refused.
 */
static int
judge(const char *path, enum mk_fmt fmt, struct mk_dest *d)
{
	int r, out;

	if ((r = mk_dest_resolve(path, d)) != 0) {
		errno = r;
		err(MK_EXIT_DATA, "%s", path);
	}
	if (d->kind == MK_DEST_DIR)
		errx(MK_EXIT_DATA, "%s: a directory%s (name a file)", path,
		    d->linked ? " at the end of its links" : "");
	if (d->kind == MK_DEST_FD && fcntl(d->fd, F_GETFD) < 0)
		errx(MK_EXIT_DATA, "%s: descriptor %d is not open", path,
		    d->fd);
	out = d->kind == MK_DEST_FD ? d->fd == STDOUT_FILENO :
	    d->kind == MK_DEST_PLAIN && is_stdout_file(&d->st);
	if (out)
		claim_stdout(path);
	if (out || d->kind == MK_DEST_FD)
		no_terminal(out ? STDOUT_FILENO : d->fd, fmt);
	if (d->kind == MK_DEST_PLAIN)
		guard(path, &d->st);
	if (d->kind == MK_DEST_NEW || d->kind == MK_DEST_PLAIN)
		guard_dir(path, d->path);
	return out;
}

/*
 * A device, FIFO or the like (/dev/null, a named pipe), written in place:
 * renaming over it would replace the device.  Opened once, never
 * truncated, and what was opened is what is judged: a regular file
 * swapped in meanwhile is refused.
 */
static void
open_other(struct mk_out *o, const char *path)
{
	struct stat st;
	int fd;

	if ((fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)) < 0)
		err(MK_EXIT_DATA, "%s", path);
	if (fstat(fd, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		errx(MK_EXIT_DATA, "%s: changed while it was being opened",
		    path);
	in_place(o, fd, path);
}

struct mk_out *
mk_out_open(const char *path, enum mk_fmt fmt)
{
	static int registered;
	struct mk_dest d = { .kind = MK_DEST_FD, .fd = STDOUT_FILENO };
	struct mk_out *o;
	int fd, out = 1;

	if (path == NULL || strcmp(path, "-") == 0) {
		no_terminal(STDOUT_FILENO, fmt);
		claim_stdout(path ? path : "stdout");
	} else {
		out = judge(path, fmt, &d);
	}
	if ((o = calloc(1, sizeof(*o))) == NULL)
		err(MK_EXIT_DATA, NULL);
	o->fmt = fmt;
	o->name = path;
	if (!registered) {
		atexit(mk_out_abandon);
		mk_out_catch_signals();
		registered = 1;
	}
	if (out) {
		open_stdout(o);
		track(o);
	} else if (d.kind == MK_DEST_FD) {
		if ((fd = fcntl(d.fd, F_DUPFD_CLOEXEC, 3)) < 0)
			err(MK_EXIT_DATA, "%s", path);
		in_place(o, fd, path);
	} else if (d.kind == MK_DEST_OTHER) {
		open_other(o, path);
	} else {
		once(path, d.path);
		via_temp(o, d.path, fmt);
	}
	mk_dest_free(&d);
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
		r = mk_csv_write_head(o->fp, name, dtype, ndim, shape, &e);
	} else if (o->fmt == MK_FMT_NPZ) {
		/* a member per tensor, named as CSV names it, once */
		const char *nm = name ? name : idx;

		hl = mk_npy_format_header(hdr, sizeof(hdr), dtype, ndim, shape);
		if (mk_npzw_has(&o->npz, nm))
			/* at exit, mk_out_abandon removes the temporaries */
			errx(MK_EXIT_DATA, "%s: a second tensor named '%s': an "
			    ".npz holds each name once (tensor-cat --names "
			    "renames)", o->name, nm);
		prealloc(o, mk_npzw_member_size(nm, hl + o->want *
		    mk_dtype_size(dtype)));
		if ((r = mk_npzw_begin(&o->npz, o->fp, nm, &e)) < 0 &&
		    errno == 0)
			/* a name no member may have, not a write error */
			errx(MK_EXIT_DATA, "%s: %s", o->name, e.msg);
		if (r == 0)
			r = mk_npzw_data(&o->npz, o->fp, hdr, hl, &e);
	} else {
		hl = mk_npy_format_header(hdr, sizeof(hdr), dtype, ndim, shape);
		prealloc(o, hl + o->want * mk_dtype_size(dtype));
		r = fwrite(hdr, 1, hl, o->fp) == hl ? 0 : -1;
	}
	if (r < 0 || ferror(o->fp))
		write_failed(o->name, errno ? errno : EIO);
}

/*
 * NPY data of PAR_MIN bytes or more bound for a file of ours (a temporary
 * file renamed at the commit, so a regular file) is written by several
 * threads, each putting PIECE bytes at a time at their offset with pwrite:
 * on the 16-core host that took about half one thread's time
 * (tests/bench/iofloor.c), and a2a-layout's stepped outputs are that
 * large.  On the 2-CPU virtual machine two threads were neither faster
 * nor slower.  The threads are those of a pass of nb / 1e6 ms (a
 * GB/s a thread).
 */
#define PIECE	((size_t)4 << 20)
#define PAR_MIN	(2 * PIECE)

int
mk_out_pwrite(int fd, const void *p, size_t n, off_t at)
{
	const unsigned char *data = p;
	ssize_t k;

	for (; n > 0; data += k, n -= (size_t)k, at += k)
		if ((k = pwrite(fd, data, n, at)) < 0 && errno != EINTR)
			return errno;
		else if (k < 0)
			k = 0;
		else if (k == 0)
			return EIO;
	return 0;
}

/* data[0..nb) at offset at of fd, in pieces.  Returns 0, or errno. */
static int
write_pieces(int fd, off_t at, const unsigned char *data, size_t nb)
{
	const long n = (long)((nb + PIECE - 1) / PIECE);
	int bad = 0;
	long i;

#pragma omp parallel for schedule(dynamic, 1) \
    num_threads(mk_threads_for((double)nb / 1e6))
	for (i = 0; i < n; i++) {
		size_t off = (size_t)i * PIECE;
		int r = mk_out_pwrite(fd, data + off, nb - off < PIECE ? nb -
		    off : PIECE, at + (off_t)off);

		if (r != 0)
			__atomic_store_n(&bad, r, __ATOMIC_RELAXED);
	}
	return bad;
}

int
mk_out_claimable(const struct mk_out *o)
{
	return o->fmt == MK_FMT_NPY && o->tmp != NULL;
}

void
mk_out_claim(struct mk_out *o, size_t nelem, int *fd, off_t *at)
{
	if (!mk_out_claimable(o) || o->done + nelem > o->want)
		errx(MK_EXIT_DATA, "internal error: %zu elements claimed of a "
		    "tensor of %zu, in %s", o->done + nelem, o->want, o->name);
	/* the stream moved past them: holes until written */
	errno = 0;
	if (fflush(o->fp) != 0 || (*at = ftello(o->fp)) < 0 ||
	    fseeko(o->fp, *at + (off_t)(nelem * mk_dtype_size(o->dtype)),
	    SEEK_SET) != 0)
		write_failed(o->name, errno ? errno : EIO);
	*fd = fileno(o->fp);
	o->done += nelem;
}

void
mk_out_failed(const struct mk_out *o, int errnum)
{
	write_failed(o->name, errnum);
}

void
mk_out_data(struct mk_out *o, const void *data, size_t nelem)
{
	struct mk_err e;
	size_t pos = o->done, nb = nelem * mk_dtype_size(o->dtype);
	off_t at;
	int r, fd;

	if (o->done + nelem > o->want)
		errx(MK_EXIT_DATA, "internal error: %zu elements written to a "
		    "tensor of %zu", o->done + nelem, o->want);
	if (nb >= PAR_MIN && mk_out_claimable(o)) {
		mk_out_claim(o, nelem, &fd, &at);
		if ((r = write_pieces(fd, at, data, nb)) != 0)
			write_failed(o->name, r);
		return;
	}
	errno = 0;
	if (o->fmt == MK_FMT_CSV)
		r = mk_csv_write_values(o->fp, o->dtype, data, nelem, o->cols,
		    &pos, &e);
	else if (o->fmt == MK_FMT_NPZ)
		r = mk_npzw_data(&o->npz, o->fp, data, nb, &e);
	else
		r = nb == 0 || fwrite(data, 1, nb, o->fp) == nb ? 0 : -1;
	if (r < 0 || ferror(o->fp))
		write_failed(o->name, errno ? errno : EIO);
	o->done += nelem;
}

void
mk_out_end(struct mk_out *o)
{
	struct mk_err e;

	if (o->done != o->want)
		errx(MK_EXIT_DATA, "internal error: %zu of %zu elements "
		    "written", o->done, o->want);
	errno = 0;
	if (o->fmt == MK_FMT_NPZ && (mk_npzw_end(&o->npz, o->fp, &e) < 0 ||
	    ferror(o->fp)))
		write_failed(o->name, errno ? errno : EIO);
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

/* Copy a held stdout out. */
static void
flush_held(struct mk_out *o)
{
	char buf[1 << 16];
	size_t n;

	rewind(o->fp);
	errno = 0;
	while ((n = fread(buf, 1, sizeof(buf), o->fp)) > 0)
		if (fwrite(buf, 1, n, stdout) != n)
			write_failed("stdout", errno ? errno : EIO);
	if (ferror(o->fp) || fflush(stdout) != 0 || ferror(stdout))
		write_failed("stdout", errno ? errno : EIO);
}

/*
 * Every output closed cleanly: put each one in place, stdout first (a
 * full disk or a closed pipe there still leaves no file behind).
 */
static void
commit(void)
{
	struct stat st;
	int i;

	/* a file that became a directory since its open fails the run
	 * before anything is put in place */
	for (i = 0; i < npending; i++)
		if (pending[i]->tmp != NULL && stat(pending[i]->path, &st) ==
		    0 && S_ISDIR(st.st_mode)) {
			const char *name = pending[i]->name;	/* argv's */

			mk_out_abandon();
			errx(MK_EXIT_DATA, "%s: a directory now (name a file)",
			    name);
		}
	for (i = 0; i < npending; i++)
		if (pending[i]->held)
			flush_held(pending[i]);
	for (i = 0; i < npending; i++) {
		struct mk_out *o = pending[i];

		if (o->tmp != NULL) {
			if (rename(o->tmp, o->path) != 0)
				err(MK_EXIT_DATA, "%s", o->path);
			untrack_tmp(o->tmp);
			free(o->tmp);
			o->tmp = NULL;
		}
	}
	for (i = 0; i < npending; i++)
		release(pending[i]);
	npending = 0;
}

void
mk_out_close(struct mk_out *o)
{
	int e = 0, i;

	struct mk_err me;

	errno = 0;
	/* the archive's directory, once every member is in */
	if (o->fmt == MK_FMT_NPZ) {
		prealloc(o, mk_npzw_finish_size(&o->npz));
		if (mk_npzw_finish(&o->npz, o->fp, &me) < 0)
			e = errno ? errno : EIO;
	}
	if (e == 0 && (fflush(o->fp) != 0 || ferror(o->fp)))
		e = errno ? errno : EIO;
	if (o->fp != stdout && !o->held) {
		if (fclose(o->fp) != 0 && e == 0)
			e = errno ? errno : EIO;
		o->fp = NULL;
	}
	if (e != 0)
		write_failed(o->name, e);
	o->closed = 1;
	for (i = 0; i < npending; i++)
		if (!pending[i]->closed)
			return;
	commit();
}
