/*
 * io.h - where results go (the CLI layer: this file talks to the user).
 *
 * An output is standard output or a file (-o, --report...), and goes
 * where its name points, links followed.  A name that reaches one of the
 * run's descriptors (/dev/stdout, /dev/fd/3) or a file that is not a
 * regular one (a device, a FIFO) is written in place; a regular file, or
 * none yet, is written to a temporary name in the folder where the links
 * end, renamed over it at the commit (never over a link); a directory is
 * refused.  Standard output carries one output of a run at most: a second
 * (--plot - beside a table on stdout, -o /dev/stdout beside a report
 * there, -o FILE while stdout is FILE) is refused, as two outputs of a
 * run into one file are.
 * The outputs of a run are committed together: only when the last one
 * has closed cleanly is each temporary file renamed into place, so a
 * failing command never leaves a partial or lone file.  Standard output
 * opened while another output is open is held in an unlinked file and
 * copied out at the commit too (a report on stdout beside a failing -o
 * prints nothing); so a command opens its files first.  NPY is never
 * written to a terminal.  Write errors end the program with status 1 and
 * one line, removing every temporary file; a reader that closed the pipe
 * ends it quietly.
 */
#ifndef MK_IO_H
#define MK_IO_H

#include <stdio.h>
#include <sys/types.h>

#include "tensor/npzw.h"
#include "tensor/stream.h"
#include "tensor/tensor.h"

struct mk_out {
	FILE		*fp;
	const char	*name;		/* "stdout" or the -o path */
	char		*path;		/* final path, or NULL for stdout */
	char		*tmp;		/* temporary file being written */
	int		 held;		/* stdout, held until the commit */
	int		 closed;	/* closed cleanly, awaiting the commit */
	enum mk_fmt	 fmt;		/* MK_FMT_NPY, MK_FMT_CSV or MK_FMT_NPZ */
	struct mk_npzw	 npz;		/* the archive being written (NPZ) */
	int		 count;		/* tensors written */
	int		 prealloc;	/* NPY blocks allocated ahead (ext4) */
	/* the tensor being streamed by mk_out_begin/data/end */
	enum mk_dtype	 dtype;
	size_t		 cols, want, done;
};

/*
 * Open the output (path NULL or "-": stdout) for tensors in format fmt.
 * Exits with status 2 when NPY would go to a terminal, 1 when the file
 * cannot be created.
 */
struct mk_out	*mk_out_open(const char *path, enum mk_fmt fmt);

/*
 * From the start of a run (mk_init): SIGINT, SIGTERM, SIGHUP and SIGPIPE
 * remove every temporary output file and end the run as the signal would;
 * SIGBUS on a mapped input that another program shortened removes them
 * and says "TOOL: FILE: the file shrank while it was being read", exit 1.
 */
void		 mk_out_catch_signals(void);

/*
 * A file this run reads: mk_out_open then refuses to write over it (with
 * -o, --plot or --report naming it too), a usage error; "-" and
 * non-regular files are ignored.  Two outputs of a run into one file
 * (by any spelling of its name) are refused alike.
 */
void	mk_out_input(const char *path);

/*
 * A folder this run reads files from: mk_out_open refuses to write a
 * file there whose name reads(name) says the run reads (there now or
 * not: the next run would read it), a usage error.
 */
void	mk_out_input_dir(const char *dir, int (*reads)(const char *name));

/*
 * Write one tensor (CSV: under its own name, else fallback, else its
 * index).  Exits with status 1 on a write error.
 */
void	mk_out_tensor(struct mk_out *o, const struct mk_tensor *t,
	    const char *fallback);

/*
 * Stream a tensor: its dtype and shape first, then its data in pieces
 * (whole rows of the last dimension for CSV), then mk_out_end(), which
 * checks that exactly the announced elements came.  For large outputs
 * built piece by piece.  Exits with status 1 on a write error.
 */
void	mk_out_begin(struct mk_out *o, const char *name, enum mk_dtype dtype,
	    int ndim, const int64_t *shape);
void	mk_out_data(struct mk_out *o, const void *data, size_t nelem);
void	mk_out_end(struct mk_out *o);

/*
 * Whether the data of o's tensors can be claimed (mk_out_claim): an NPY
 * output to a file of ours (a regular file, renamed at the commit).
 */
int	mk_out_claimable(const struct mk_out *o);

/*
 * The next nelem elements of the tensor being streamed, left to the caller
 * to write with mk_out_pwrite into fd at offset *at and on (from any
 * thread, before mk_out_close): counted as written, the stream moved past
 * them.  Only where mk_out_claimable; exits with status 1 on an error.
 */
void	mk_out_claim(struct mk_out *o, size_t nelem, int *fd, off_t *at);

/* Write all of p[0..n) at offset at of fd.  Returns 0, or errno. */
int	mk_out_pwrite(int fd, const void *p, size_t n, off_t at);

/*
 * A write into o that failed with errno errnum (claimed data): as any
 * write error, exit with status 1 and a message, removing every
 * temporary file.
 */
void	mk_out_failed(const struct mk_out *o, int errnum)
	    __attribute__((noreturn));

/*
 * Flush and close o; once every output of the run is closed, commit them
 * all.  Exits with status 1 and a message ("tool: stdout: No space left
 * on device"), removing every temporary file, if anything failed.
 */
void	mk_out_close(struct mk_out *o);

/*
 * Remove the temporary file of every output not yet committed (called at
 * exit; also safe to call by hand before an error exit).
 */
void	mk_out_abandon(void);

#endif
