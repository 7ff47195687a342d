/* npz.c - .npz archives as tensor streams; see npz.h. */
#include <stdlib.h>
#include <string.h>

#include "tensor/npy.h"
#include "tensor/npz.h"
#include "tensor/src_impl.h"
#include "tensor/zip.h"

/* A member's bytes are held whole while it is parsed: at most this many. */

struct npz {
	struct mk_zip	*z;
	int		 next;		/* the member to read next */
};

static void
npz_free(void *p)
{
	struct npz *st = p;

	mk_zip_close(st->z);
	free(st);
}

/* name is NAME.npy, NAME printable (it becomes a tensor's name)? */
static int
npy_member(const char *name)
{
	size_t n = strlen(name), i;

	for (i = 0; i < n; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			return 0;
	return n > 4 && strcmp(name + n - 4, ".npy") == 0;
}

/* The archive's state on s, opened (and its members checked) at first. */
static struct npz *
state(struct mk_src *s, struct mk_err *e)
{
	struct npz *st;
	char ex[300];
	int i;

	if (s->reader != NULL && s->reader_free == npz_free)
		return s->reader;
	if ((st = calloc(1, sizeof(*st))) == NULL)
		return mk_err_data(e, "%s: out of memory", s->name), NULL;
	if ((st->z = mk_zip_open(s, e)) == NULL) {
		free(st);
		return NULL;
	}
	src_set_reader(s, st, npz_free);
	for (i = 0; i < mk_zip_count(st->z); i++) {
		const char *mn = mk_zip_name(st->z, i);

		if (!mk_zip_name_exact(st->z, i))
			return mk_err_data(e, "%s: member %d's name holds a NUL "
			    "byte (read as '%s'): not an .npz member's name",
			    s->name, i, mk_excerpt(ex, sizeof(ex), mn,
			    strlen(mn), 80)), NULL;
		if (!npy_member(mn))
			return mk_err_data(e, "%s: a zip archive whose member "
			    "'%s' is not NAME.npy (a printable NAME): not an "
			    ".npz (%s)", s->name, mk_excerpt(ex, sizeof(ex),
			    mn, strlen(mn), 80), strstr(mn, "data.pkl") !=
			    NULL ? "a torch .pt file: only eplb-plan reads "
			    "those, SGLang's load dumps" : "np.savez writes "
			    "NAME.npy members"), NULL;
	}
	return st;
}

/* After the array: the member's end (its CRC checked), then its name. */
static int
one_array(struct mk_src *m, struct mk_tensor *t, const char *tname,
    const char *where, struct mk_err *e)
{
	int64_t more = src_fill(m, 1, e);

	if (more < 0)
		return -1;
	if (more > 0)
		return mk_err_data(e, "%s: bytes after the array, from byte "
		    "%llu (a member holds one array)", where,
		    (unsigned long long)src_offset(m));
	if (mk_tensor_set_name(t, tname) < 0)
		return mk_err_data(e, "%s: out of memory", where);
	return 1;
}

int
mk_npz_member(struct mk_zip *z, int i, struct mk_tensor *t, struct mk_err *e)
{
	const char *name = mk_zip_name(z, i), *file = mk_zip_file(z);
	struct mk_src *m = NULL;
	char *where = NULL, *tname = NULL, ex[300];
	int r = -1;

	mk_tensor_free(t);
	if (!npy_member(name))
		return mk_err_data(e, "%s: member '%s' is not NAME.npy", file,
		    mk_excerpt(ex, sizeof(ex), name, strlen(name), 80));
	/* messages name the member: "plan.npz:phy2log.npy: ..." */
	if ((where = malloc(strlen(file) + strlen(name) + 2)) == NULL ||
	    (tname = strdup(name)) == NULL) {
		mk_err_data(e, "%s: out of memory", file);
		goto out;
	}
	sprintf(where, "%s:%s", file, name);
	tname[strlen(tname) - 4] = '\0';
	/*
	 * Read as it inflates: the array's header says what follows, and a
	 * member is that array alone (bytes after it, a second array or a
	 * gigabyte of zeros, are refused once the array is read).
	 */
	if ((m = mk_zip_member(z, i, where, e)) == NULL)
		goto out;
	r = mk_npy_read(m, t, e);
	if (r == 0)
		r = mk_err_data(e, "%s: an empty member", where);
	if (r == 1)
		r = one_array(m, t, tname, where, e);
out:
	if (r != 1)
		mk_tensor_free(t);
	mk_src_close(m);
	free(where);
	free(tname);
	return r;
}

int
mk_npz_read(struct mk_src *s, struct mk_tensor *t, struct mk_err *e)
{
	struct npz *st;
	int r;

	mk_tensor_free(t);
	if ((st = state(s, e)) == NULL)
		return -1;
	if (st->next >= mk_zip_count(st->z))
		return 0;
	if ((r = mk_npz_member(st->z, st->next, t, e)) == 1) {
		st->next++;
		s->index++;
	}
	return r;
}
