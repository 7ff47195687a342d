/*
 * dest.c - where an output's name points; see dest_impl.h.
 *
 * A name is followed link by link, as open(2) would follow it, so that
 * the run writes where the name points: /dev/stdout is a link to
 * /proc/self/fd/1, whose own target is whatever the shell redirected
 * standard output to, and renaming a temporary file over either link
 * would replace the link (as root, the system's /dev/stdout) while the
 * output never reached the descriptor.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/dest_impl.h"

/* Links followed before giving up, as Linux's own limit (ELOOP). */
#define MAX_HOPS	40

/*
 * The descriptor a path names by its spelling (/dev/fd/N, /proc/self/fd/N,
 * /proc/thread-self/fd/N, /proc/<our pid>/fd/N), or -1.  The spelling
 * matters: the kernel resolves /proc/self/fd/N to the descriptor's file,
 * so following the link would lose which descriptor it was.
 */
static int
fd_named(const char *p)
{
	char pid[32], *end;
	const char *rest = NULL;
	long n;

	snprintf(pid, sizeof(pid), "/proc/%ld/fd/", (long)getpid());
	if (strncmp(p, "/dev/fd/", 8) == 0)
		rest = p + 8;
	else if (strncmp(p, "/proc/self/fd/", 14) == 0)
		rest = p + 14;
	else if (strncmp(p, "/proc/thread-self/fd/", 21) == 0)
		rest = p + 21;
	else if (strncmp(p, pid, strlen(pid)) == 0)
		rest = p + strlen(pid);
	if (rest == NULL || *rest < '0' || *rest > '9')
		return -1;
	errno = 0;
	n = strtol(rest, &end, 10);
	return *end == '\0' && errno == 0 && n <= INT_MAX ? (int)n : -1;
}

/* The target of link at (malloc'd), relative ones taken from at's folder. */
static char *
follow(const char *at, const char *target)
{
	const char *slash = strrchr(at, '/');
	char *out;

	if (target[0] == '/' || slash == NULL)
		return strdup(target);
	if (asprintf(&out, "%.*s/%s", (int)(slash - at), at, target) < 0)
		return NULL;
	return out;
}

int
mk_dest_resolve(const char *name, struct mk_dest *d)
{
	char *cur, *next, buf[PATH_MAX];
	struct stat st;
	ssize_t n;
	int hop;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	if ((cur = strdup(name)) == NULL)
		return ENOMEM;
	for (hop = 0; hop <= MAX_HOPS; hop++) {
		if ((d->fd = fd_named(cur)) >= 0) {
			d->kind = MK_DEST_FD;
			d->linked = hop > 0;
			free(cur);
			return 0;
		}
		if (lstat(cur, &st) != 0) {
			if (errno != ENOENT) {
				free(cur);
				return errno;
			}
			d->kind = MK_DEST_NEW;
			break;
		}
		if (!S_ISLNK(st.st_mode)) {
			d->kind = S_ISREG(st.st_mode) ? MK_DEST_PLAIN :
			    S_ISDIR(st.st_mode) ? MK_DEST_DIR : MK_DEST_OTHER;
			d->st = st;
			break;
		}
		if ((n = readlink(cur, buf, sizeof(buf) - 1)) < 0) {
			free(cur);
			return errno;
		}
		buf[n] = '\0';
		next = follow(cur, buf);
		free(cur);
		if ((cur = next) == NULL)
			return ENOMEM;
	}
	if (hop > MAX_HOPS) {
		free(cur);
		return ELOOP;
	}
	d->linked = hop > 0;
	d->path = cur;
	return 0;
}

void
mk_dest_free(struct mk_dest *d)
{
	free(d->path);
	d->path = NULL;
}
