/*
 * dest_impl.h - where an output's name points (io.c's, private to cli/).
 */
#ifndef MK_DEST_IMPL_H
#define MK_DEST_IMPL_H

#include <sys/stat.h>

enum mk_dest_kind {
	MK_DEST_NEW,	/* nothing there yet: a file made at path */
	MK_DEST_PLAIN,	/* a regular file at path: replaced by renaming */
	MK_DEST_DIR,	/* a directory: no output can go there */
	MK_DEST_OTHER,	/* a device, FIFO or socket: written in place */
	MK_DEST_FD	/* one of this process's descriptors, fd */
};

struct mk_dest {
	enum mk_dest_kind kind;
	char		*path;	/* where the links end (not FD), malloc'd */
	int		 fd;	/* FD: the descriptor */
	int		 linked;	/* reached through a symbolic link */
	struct stat	 st;	/* PLAIN, DIR, OTHER: what is there */
};

/*
 * Follow name's symbolic links to where it points (d).  Returns 0, or an
 * errno (ELOOP past 40 links, ENOMEM, an lstat or readlink error).  The
 * caller frees d with mk_dest_free.
 */
int	mk_dest_resolve(const char *name, struct mk_dest *d);
void	mk_dest_free(struct mk_dest *d);

#endif
