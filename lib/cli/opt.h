/*
 * opt.h - a tool's options as one table.  Each entry names an option and
 * its help line; mk_opts_parse() makes the argtable of the table and of
 * the common options (cli.h), parses argv, and returns only if the command
 * line parsed.  Values are then read through the typed accessors below,
 * which check them and exit with status 2 and one line naming the option
 * ("--gpus: 0 is too small (minimum 1)") on a bad one.
 *
 *	static struct mk_opt opts[] = {
 *		[O_G] = { MK_OPT_VALUE, "G", "gpus,num-gpus", "G", "GPUs" },
 *		[O_FILE] = { MK_OPT_OPERAND, NULL, NULL, "FILE", "input" },
 *	};
 *	mk_opts_parse(argc, argv, opts, O_N, MK_OPT_OUTPUT, &usage, &c);
 *	G = (int)mk_opt_int_in(&opts[O_G], 1, 1 << 24, 1);
 */
#ifndef MK_OPT_H
#define MK_OPT_H

#include <stdint.h>

#include "cli/cli.h"

enum mk_opt_kind {
	MK_OPT_VALUE,		/* --name VALUE, at most once */
	MK_OPT_REQUIRED,	/* --name VALUE, exactly once */
	MK_OPT_FLAG,		/* --name */
	MK_OPT_PATH,		/* --name FILE */
	MK_OPT_OPERAND,		/* FILE: at most one; the table's last */
	MK_OPT_OPERANDS		/* FILE ...: up to MK_ARGS_MAX_FILES; last */
};

struct mk_opt {
	enum mk_opt_kind kind;
	const char	*shortopts;	/* "r", or NULL */
	const char	*longopts;	/* "gpus,num-gpus": aliases; NULL for
					 * operands */
	const char	*datatype;	/* "LIST", "FILE", ... (NULL: flags) */
	const char	*glossary;	/* the help line */
	void		*arg;		/* its argtable entry, once parsed */
};

/*
 * Parse argv against t[0..n) (an operand, if any, last) and the common
 * options of flags (MK_OPT_* of cli.h), into t's entries and *o.  Prints
 * help or the version and exits 0, or the first error as one line and
 * exits 2; returns only on success.
 */
void	mk_opts_parse(int argc, char **argv, struct mk_opt *t, int n,
	    int flags, const struct mk_usage *u, struct mk_opts *o);

/* The option's name in messages: "--gpus" (its first long name), "-x",
 * or its datatype for an operand ("FILE"). */
const char	*mk_opt_name(const struct mk_opt *t);

/* Whether it was given (a flag: how many times). */
int	mk_opt_given(const struct mk_opt *t);

/* Its value as given, or NULL. */
const char	*mk_opt_str(const struct mk_opt *t);

/* A file option's or operand's path, or NULL; all operands, *n of them. */
const char	*mk_opt_path(const struct mk_opt *t);
const char	**mk_opt_paths(const struct mk_opt *t, int *n);

/* An integer in [min, max], or def when not given. */
int64_t	mk_opt_int_in(const struct mk_opt *t, int64_t min, int64_t max,
	    int64_t def);

/* A finite number in [min, max], or def when not given. */
double	mk_opt_real_in(const struct mk_opt *t, double min, double max,
	    double def);

/* The index of its value among names[0..n), or def when not given. */
int	mk_opt_pick(const struct mk_opt *t, const char *const *names, int n,
	    int def);

/*
 * Lists, comma-separated, into v[0..max_n): integers in [min, max];
 * finite numbers in [min, max]; names among names[0..n) (each once, in
 * the order given); counts, fractions or sizes (mk_arg_num_list).  Not
 * given: v[0] = def and 1 (the names: 0, v untouched).  Return how many.
 */
int	mk_opt_ints(const struct mk_opt *t, int64_t min, int64_t max, int *v,
	    int max_n, int def);
int	mk_opt_reals(const struct mk_opt *t, double min, double max,
	    double *v, int max_n, double def);
int	mk_opt_picks(const struct mk_opt *t, const char *const *names, int n,
	    int *v);
int	mk_opt_nums(const struct mk_opt *t, enum mk_num kind, double *v,
	    int max_n, double def);

#endif
