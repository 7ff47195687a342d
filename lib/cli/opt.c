/* opt.c - a tool's options as one table; see opt.h. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <argtable2.h>

#include "cli/dest_impl.h"
#include "cli/opt.h"

/* The common options in the order they follow a tool's own. */
static int
common_entries(const struct mk_common *c, void **t)
{
	void *common[] = { c->format, c->emit, c->output, c->threads,
	    c->verbose, c->quiet, c->help, c->version };
	size_t k;
	int m = 0;

	for (k = 0; k < sizeof(common) / sizeof(common[0]); k++)
		if (common[k] != NULL)
			t[m++] = common[k];
	return m;
}

static void *
make_entry(const struct mk_opt *o)
{
	switch (o->kind) {
	case MK_OPT_VALUE:
		return arg_str0(o->shortopts, o->longopts, o->datatype,
		    o->glossary);
	case MK_OPT_REQUIRED:
		return arg_str1(o->shortopts, o->longopts, o->datatype,
		    o->glossary);
	case MK_OPT_FLAG:
		return arg_lit0(o->shortopts, o->longopts, o->glossary);
	case MK_OPT_PATH:
	case MK_OPT_OPERAND:
		return arg_file0(o->shortopts, o->longopts, o->datatype,
		    o->glossary);
	default:
		/* argtable makes room for the most at once */
		return arg_filen(o->shortopts, o->longopts, o->datatype, 0,
		    MK_ARGS_MAX_FILES, o->glossary);
	}
}

void
mk_opts_parse(int argc, char **argv, struct mk_opt *t, int n, int flags,
    const struct mk_usage *u, struct mk_opts *o)
{
	struct mk_common c;
	void **tab;
	int i, m = 0, operand;

	mk_common_args(&c, flags);
	operand = n > 0 && (t[n - 1].kind == MK_OPT_OPERAND ||
	    t[n - 1].kind == MK_OPT_OPERANDS);
	if ((tab = calloc((size_t)n + MK_ARGS_EXTRA, sizeof(*tab))) == NULL)
		errx(MK_EXIT_DATA, "out of memory");
	for (i = 0; i < n; i++)
		if ((t[i].arg = make_entry(&t[i])) == NULL)
			errx(MK_EXIT_DATA, "out of memory");
	for (i = 0; i < n - operand; i++)
		tab[m++] = t[i].arg;
	m += common_entries(&c, tab + m);
	if (operand)
		tab[m++] = t[n - 1].arg;
	tab[m] = arg_end(20);
	mk_cli_parse(argc, argv, tab, &c, u, o);
	free(tab);	/* mk_cli_parse keeps its own copy */
}

const char *
mk_opt_name(const struct mk_opt *t)
{
	static char name[8][64];
	static int next;
	char *s = name[next++ % 8];
	size_t n;

	if (t->longopts != NULL) {
		n = strcspn(t->longopts, ",");
		snprintf(s, sizeof(name[0]), "--%.*s", (int)n, t->longopts);
	} else if (t->shortopts != NULL) {
		snprintf(s, sizeof(name[0]), "-%c", t->shortopts[0]);
	} else {
		snprintf(s, sizeof(name[0]), "%s", t->datatype);
	}
	return s;
}

int
mk_opt_given(const struct mk_opt *t)
{
	/* every argtable entry's count follows its header */
	return ((const struct arg_lit *)t->arg)->count;
}

const char *
mk_opt_str(const struct mk_opt *t)
{
	const struct arg_str *a = t->arg;

	return a->count > 0 ? a->sval[0] : NULL;
}

/*
 * An option whose datatype names an extension ("FILE.svg") writes that
 * format: a file named otherwise would hold an SVG under another name
 * (--plot pic.png), so it is refused, but for standard output and files
 * names that reach a descriptor or a file that is not a regular one
 * (/dev/stdout, /dev/null, a pipe).
 */
static void
check_extension(const struct mk_opt *t, const char *path)
{
	const char *ext = strrchr(t->datatype ? t->datatype : "", '.');
	size_t n = strlen(path), l;
	struct mk_dest d;
	int file;

	if (ext == NULL || strcmp(path, "-") == 0)
		return;
	/* where the name points: /dev/stdout and a pipe go anywhere */
	file = mk_dest_resolve(path, &d) != 0 || d.kind == MK_DEST_NEW ||
	    d.kind == MK_DEST_PLAIN;
	mk_dest_free(&d);
	if (!file)
		return;
	l = strlen(ext);
	if (n <= l || strcasecmp(path + n - l, ext) != 0)
		mk_usage_error("%s %s: it writes %s: name the file %s (or - for "
		    "standard output)", mk_opt_name(t), path, ext + 1, ext);
}

const char *
mk_opt_path(const struct mk_opt *t)
{
	const struct arg_file *a = t->arg;

	if (a->count == 0)
		return NULL;
	check_extension(t, a->filename[0]);
	return a->filename[0];
}

const char **
mk_opt_paths(const struct mk_opt *t, int *n)
{
	const struct arg_file *a = t->arg;

	*n = a->count;
	return a->filename;
}

int64_t
mk_opt_int_in(const struct mk_opt *t, int64_t min, int64_t max, int64_t def)
{
	const char *s = mk_opt_str(t);

	return s != NULL ? mk_arg_int(s, min, max, mk_opt_name(t)) : def;
}

double
mk_opt_real_in(const struct mk_opt *t, double min, double max, double def)
{
	const char *s = mk_opt_str(t);
	double v;

	if (s == NULL)
		return def;
	v = mk_arg_double(s, mk_opt_name(t));
	if (v < min || v > max)
		mk_usage_error("%s: %s is not in [%g, %g]", mk_opt_name(t), s,
		    min, max);
	return v;
}

int
mk_opt_pick(const struct mk_opt *t, const char *const *names, int n, int def)
{
	const char *s = mk_opt_str(t);

	return s != NULL ? mk_arg_choice(s, names, n, mk_opt_name(t)) : def;
}

int
mk_opt_ints(const struct mk_opt *t, int64_t min, int64_t max, int *v,
    int max_n, int def)
{
	const char *s = mk_opt_str(t);

	if (s == NULL) {
		v[0] = def;
		return 1;
	}
	return mk_arg_int_list(s, min, max, v, max_n, mk_opt_name(t));
}

int
mk_opt_reals(const struct mk_opt *t, double min, double max, double *v,
    int max_n, double def)
{
	const char *s = mk_opt_str(t);

	if (s == NULL) {
		v[0] = def;
		return 1;
	}
	return mk_arg_double_list(s, min, max, v, max_n, mk_opt_name(t));
}

int
mk_opt_picks(const struct mk_opt *t, const char *const *names, int n, int *v)
{
	const char *s = mk_opt_str(t);

	return s != NULL ? mk_arg_choice_list(s, names, n, v,
	    mk_opt_name(t)) : 0;
}

int
mk_opt_nums(const struct mk_opt *t, enum mk_num kind, double *v, int max_n,
    double def)
{
	const char *s = mk_opt_str(t);

	if (s == NULL) {
		v[0] = def;
		return 1;
	}
	return mk_arg_num_list(s, kind, v, max_n, mk_opt_name(t));
}
