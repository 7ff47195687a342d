/*
 * cli.h - the options and start-up every tool shares.  Like
 * io.c, this part of lib/ talks to the user: it prints help and errors and
 * exits with the statuses of errmsg.h.
 *
 * A tool declares its options as one table (cli/opt.h); mk_opts_parse()
 * adds the common ones made by mk_common_args() and calls mk_cli_parse(),
 * which returns only if the command line is valid.
 *
 * Names: mk_opt_* read a tool's table (opt.h); mk_arg_* take an option's
 * text and exit with status 2 on a bad one; mk_parse_* return the error
 * instead.
 */
#ifndef MK_CLI_H
#define MK_CLI_H

#include <stdint.h>

#include <argtable2.h>

#include "base/errmsg.h"
#include "tensor/stream.h"

/* Which common options a tool offers. */
#define MK_OPT_FORMAT	0x01	/* -f, --format csv|npy */
#define MK_OPT_EMIT	0x02	/* --emit NAME[,NAME...] */
#define MK_OPT_OUTPUT	0x04	/* -o, --output FILE */
#define MK_OPT_THREADS	0x08	/* --threads N */
#define MK_OPT_NO_SHORT_V 0x10	/* --verbose only: the tool uses -v itself */

/* For a tool whose -v is its own (MK_OPT_NO_SHORT_V), where the user gave
 * -v: " (-v is --values here; --verbose shows the kernel path)", to end
 * a usage error -v may have caused; else "". */
const char	*mk_arg_v_hint(void);
#define MK_OPT_PLANS	0x20	/* -f also takes sglang, vllm, trtllm
				 * (eplb-plan's placement files) */

struct mk_common {
	struct arg_str	*format;
	struct arg_str	*emit;
	struct arg_file	*output;
	struct arg_str	*threads;
	struct arg_lit	*verbose;
	struct arg_lit	*quiet;
	struct arg_lit	*help;
	struct arg_lit	*version;
	int		 flags;		/* MK_OPT_* */
};

/* The common options, parsed and checked. */
struct mk_opts {
	enum mk_fmt	 format;	/* MK_FMT_AUTO unless -f was given */
	const char	*emit;		/* NULL: all outputs */
	const char	*output;	/* NULL: stdout */
	int		 threads;	/* --threads N, or 0 (base/threads.h) */
	int		 verbose;	/* number of -v */
	int		 quiet;		/* --quiet: no progress line */
	int		 format_given;	/* -f was given */
	int		 emit_given;	/* --emit was given */
};

/* How a tool describes itself in --help. */
struct mk_usage {
	const char	*synopsis;	/* after the name, as in the man page */
	const char	*purpose;	/* one sentence */
	const char	*epilogue;	/* extra lines after the options, or NULL */
};

/*
 * Start-up: remember the program name, answer the hidden --isa-list (print
 * the kernel paths this CPU can run, one per line, and exit 0), and select
 * the kernels, exiting with status 2 if MOEKIT_ISA is bad.
 */
void	mk_init(int argc, char **argv);

/* Create the common argtable entries selected by flags into c (for
 * mk_opts_parse, cli/opt.h, which tools call). */
#define MK_ARGS_MAX_FILES	256	/* operands, at most */
#define MK_ARGS_EXTRA	9	/* the 8 common options and the end */
void	mk_common_args(struct mk_common *c, int flags);

/*
 * Parse argv with argtable (whose last entry is the arg_end).  Prints help
 * (stdout, exit 0) or the version (exit 0), or the first error as one line
 * (exit 2).  Fills o from the common options, applies --threads
 * and prints the kernel path on stderr under -v.  Returns only on success.
 */
void	mk_cli_parse(int argc, char **argv, void **argtable,
	    const struct mk_common *c, const struct mk_usage *u,
	    struct mk_opts *o);

/* Exit with status 2 after one line, "tool: message", on stderr. */
void	mk_usage_error(const char *fmt, ...)
	    __attribute__((noreturn, format(printf, 1, 2)));

/*
 * One line on stderr on a run that succeeds (SPEC 3): "tool: note: ..." (a
 * default the user did not spell out that decides the answer) or "tool:
 * warning: ..." (input that is probably a mistake).  --quiet silences
 * both.
 */
void	mk_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	mk_warning(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2)));

/*
 * Parse a decimal integer in [min, max].  Returns 0, or -1 with a message
 * naming the limit in e (usage error) for text that is not one.
 */
int	mk_parse_int(const char *s, int64_t min, int64_t max, int64_t *out,
	    const char *what, struct mk_err *e);

/* mk_parse_int that exits with status 2 on failure. */
int64_t	mk_arg_int(const char *s, int64_t min, int64_t max, const char *what);

/*
 * The index of v among names[0..n); otherwise exits with status 2:
 * "OPT: 'v' is not a, b or c".
 */
int	mk_arg_choice(const char *v, const char *const *names, int n,
	    const char *opt);

/* The same for finite numbers in [min, max]. */
int	mk_arg_double_list(const char *s, double min, double max, double *v,
	    int max_n, const char *what);

/*
 * A comma-separated list of counts (integers in [0, 2^53]) or "none",
 * fractions in [0, 1) or "none" (none is -1), or sizes in bytes
 * (mk_arg_bytes) into v[0..max_n).  Returns how many (at least one);
 * exits with status 2 naming what on anything else.
 */
enum mk_num { MK_NUM_COUNT, MK_NUM_FRACTION, MK_NUM_BYTES };
int	mk_arg_num_list(const char *s, enum mk_num kind, double *v, int max_n,
	    const char *what);

/*
 * A comma-separated list of integers in [min, max] into v[0..max_n).
 * Returns how many (at least one); exits with status 2 naming what on
 * anything else.
 */
int	mk_arg_int_list(const char *s, int64_t min, int64_t max, int *v,
	    int max_n, const char *what);

/*
 * Inputs paths[0..n), named names[] in messages ("-q", "--prev", "FILE"):
 * exits with status 2 if more than one reads stdin.  An input reads stdin
 * when it is "-"; input `operand` (the FILE operand, or -1 for none) also
 * when it is NULL.
 */
void	mk_arg_one_stdin(int n, const char *const *paths,
	    const char *const *names, int operand);

/*
 * A comma-separated list of kernel paths ("generic,avx512") into isa[]
 * (MK_NISA at most, each once).  A path this CPU lacks is a usage error.
 * list NULL: every path up to the selected one (MOEKIT_ISA).  Returns how
 * many.
 */
int	mk_arg_isa_list(const char *list, int *isa, const char *what);

/*
 * The choices among names[0..n) of a comma-separated list, each once, in
 * the order given, into v (room for n); their count.  Exits with status 2
 * on an unknown name or an empty list.
 */
int	mk_arg_choice_list(const char *list, const char *const *names, int n,
	    int *v, const char *what);

/* Parse a finite decimal number; exits with status 2 on failure. */
double	mk_arg_double(const char *s, const char *what);
/* A size in bytes, >= 0: a number, optionally with a decimal (k, M, G,
 * T) or binary (Ki, Mi, Gi, Ti) suffix and a B; exits with status 2 on
 * anything else. */
double	mk_arg_bytes(const char *s, const char *what);

/*
 * Resolve a comma-separated selection against n outputs.  Each item is a
 * name in names[] (entries may be NULL) or a 0-based index.  Fills
 * order[] (at most max entries) and returns how many, or -1 with a usage
 * error in e naming the unknown item and the choices.
 */
int	mk_select(const char *list, const char *const *names, int n,
	    int *order, int max, struct mk_err *e);

/*
 * --emit LIST (NULL: every output, in order) resolved by mk_select into
 * order[] (room for max); returns how many.  Exits with status 2 on a
 * bad list.
 */
int	mk_arg_emit(const char *list, const char *const *names, int n,
	    int *order, int max);

/*
 * Report e ("tool: message") and exit with its status, closing s first so
 * that nothing is left allocated (s may be NULL).
 */
void	mk_fail(struct mk_src *s, const struct mk_err *e)
	    __attribute__((noreturn));


/* The program's short name, for messages. */
const char	*mk_progname(void);

#endif
