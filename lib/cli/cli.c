/* cli.c - shared option handling and start-up; see cli.h. */
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/threads.h"
#include "cli/io.h"
#include "cli/cli.h"
#include "simd/cpu.h"
#include "simd/kern.h"

#ifndef MK_VERSION
#define MK_VERSION "0.0.0"
#endif

/*
 * OpenMP threads that wait for work by spinning take the CPU that the
 * next stage of a pipeline, `cat` or other users need: on the 2-CPU EPYC
 * VM beside two busy loops, `cat trace | a2a-layout --report -` took
 * several times longer with libgomp's default wait (300,000 spins) than
 * asleep (passive), and quiet, passive cost nothing there.  On the 16-CPU
 * Xeon host, quiet, passive made the same trace from a file much slower
 * (a team of 16 woken for every batch), where 100,000 spins kept it
 * within noise of the default.  So:
 * passive on hosts of fewer than 8 usable CPUs, 100,000 spins on
 * larger ones (tests/bench/RESULTS.md, "Shared machines").
 *
 * libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, in its
 * constructor, before main, and nothing changes them later.  An entry of
 * the executable's .preinit_array runs before that constructor, but
 * setenv() there is lost: libc's own initialiser, which runs after it,
 * points environ back at the environment array the kernel built.  So
 * one pointer of that array is lent to our setting for the
 * constructors' time and given back first thing in main (mk_init).  The
 * lent entry is "_" (the shell's last-command variable) where there is
 * one, else the last entry that no start-up code reads.  A user's own
 * OMP_WAIT_POLICY or GOMP_SPINCOUNT is kept, and an empty environment
 * is left alone.
 */
static char passive[] = "OMP_WAIT_POLICY=passive";
static char short_spin[] = "GOMP_SPINCOUNT=100000";
static char **lent_env;		/* the array the kernel built */
static char **lent_slot;	/* the entry lent, if any */
static char *lent_value;	/* what it held */

/* Whether environment entry s may be read before main. */
static int
read_at_start(const char *s)
{
	static const char *const prefix[] = { "OMP_", "GOMP_", "KMP_",
	    "LD_", "GLIBC_", "MALLOC_", "ASAN_", "UBSAN_", "LSAN_", "TSAN_",
	    "MSAN_", "LANG=", "LC_" };
	size_t i;

	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (strncmp(s, prefix[i], strlen(prefix[i])) == 0)
			return 1;
	return 0;
}

static void
quiet_wait(int argc, char **argv, char **envp)
{
	char **p, **slot = NULL;
	cpu_set_t set;

	(void)argc;
	(void)argv;
	if (envp == NULL)
		return;
	for (p = envp; *p != NULL; p++) {
		if (strncmp(*p, "OMP_WAIT_POLICY=", 16) == 0 ||
		    strncmp(*p, "GOMP_SPINCOUNT=", 15) == 0)
			return;
		if (strncmp(*p, "_=", 2) == 0)
			slot = p;
		else if (!read_at_start(*p) && (slot == NULL ||
		    strncmp(*slot, "_=", 2) != 0))
			slot = p;
	}
	if (slot == NULL)
		return;
	lent_env = envp;
	lent_slot = slot;
	lent_value = *slot;
	/* the affinity mask alone: no file is read before libc is ready */
	*slot = sched_getaffinity(0, sizeof(set), &set) == 0 &&
	    CPU_COUNT(&set) >= MK_THREADS_HOST_CPUS ? short_spin : passive;
}

__attribute__((section(".preinit_array"), used))
static void (*const preinit_wait)(int, char **, char **) = quiet_wait;

/* Give the lent environment entry back (see quiet_wait). */
static void
give_back_env(void)
{
	if (lent_slot == NULL)
		return;
	*lent_slot = lent_value;
	if (environ != lent_env) {
		/* the array was copied meanwhile: mend the copy */
		(void)unsetenv("OMP_WAIT_POLICY");
		(void)unsetenv("GOMP_SPINCOUNT");
		(void)putenv(lent_value);
	}
	lent_slot = NULL;
}

/*
 * End a run whose output was printed on stdout (--help, --version,
 * --isa-list): status 0, or 1 with the reason when stdout did not take
 * it (a closed descriptor, a full disk); quietly for a reader that
 * closed the pipe, as every output.
 */
static void __attribute__((noreturn))
exit_printed(void)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		exit(MK_EXIT_OK);
	if (errno == EPIPE)
		exit(MK_EXIT_DATA);
	err(MK_EXIT_DATA, "stdout");
}

const char *
mk_progname(void)
{
	return program_invocation_short_name;
}

void
mk_init(int argc, char **argv)
{
	struct mk_err e;
	int i;

	give_back_env();
	if (argc == 2 && strcmp(argv[1], "--isa-list") == 0) {
		for (i = 0; i < MK_NISA; i++)
			if (mk_isa_supported((enum mk_isa)i))
				printf("%s\n", mk_isa_name((enum mk_isa)i));
		exit_printed();
	}
	if (mk_kern_init(&e) < 0)
		errx(e.status, "%s", e.msg);
	mk_out_catch_signals();
}

void
mk_common_args(struct mk_common *c, int flags)
{
	memset(c, 0, sizeof(*c));
	if (flags & MK_OPT_FORMAT)
		c->format = arg_str0("f", "format", flags & MK_OPT_PLANS ?
		    "csv|npy|npz|sglang|vllm|trtllm" : "csv|npy|npz",
		    "output format (default: -o FILE's extension, else the input's)");
	c->flags = flags;
	if (flags & MK_OPT_EMIT)
		c->emit = arg_str0(NULL, "emit", "NAME[,NAME...]",
		    "outputs to write, in this order (default: all)");
	if (flags & MK_OPT_OUTPUT)
		c->output = arg_file0("o", "output", "FILE",
		    "write to FILE, atomically (default: stdout)");
	if (flags & MK_OPT_THREADS)
		c->threads = arg_str0(NULL, "threads", "N",
		    "threads to use (default: all usable CPUs)");
	c->verbose = arg_litn(flags & MK_OPT_NO_SHORT_V ? NULL : "v", "verbose",
	    0, 3,
	    "say on stderr which kernel path runs (-vv: each kernel)");
	c->quiet = arg_lit0(NULL, "quiet", "no progress line, notes or warnings on stderr");
	c->help = arg_lit0("h", "help", "print this help and exit");
	c->version = arg_lit0("V", "version", "print the version and exit");
}

void
mk_usage_error(const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;
	size_t i, n;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	/*
	 * A word (a run without blanks) of more than 200 bytes is a value
	 * echoed back: its first 60 bytes and its size, so that a 100 kB
	 * option value does not bury the line.
	 */
	fprintf(stderr, "%s: ", mk_progname());
	for (i = 0; msg != NULL && msg[i] != '\0'; i += n) {
		n = strcspn(msg + i, " \t");
		if (n > 200)
			fprintf(stderr, "%.60s... (%zu bytes)", msg + i, n);
		else
			fwrite(msg + i, 1, n, stderr);
		if (msg[i + n] != '\0')
			fputc(msg[i + n++], stderr);
	}
	fputc('\n', stderr);
	free(msg);
	exit(MK_EXIT_USAGE);
}

/* --quiet: notes and warnings are not printed. */
static int quiet;

static void
say(const char *kind, const char *fmt, va_list ap)
{
	if (quiet)
		return;
	fprintf(stderr, "%s: %s: ", mk_progname(), kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void
mk_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("note", fmt, ap);
	va_end(ap);
}

void
mk_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("warning", fmt, ap);
	va_end(ap);
}

int
mk_parse_int(const char *s, int64_t min, int64_t max, int64_t *out,
    const char *what, struct mk_err *e)
{
	const char *d = s + (*s == '-' || *s == '+');
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (*d < '0' || *d > '9' || *end != '\0')
		return mk_err_usage(e, "%s: '%s' is not an integer", what, s);
	if ((errno == ERANGE && v == LLONG_MIN) || v < min)
		return mk_err_usage(e, "%s: %s is too small (minimum %lld)",
		    what, s, (long long)min);
	if (errno == ERANGE || v > max)
		return mk_err_usage(e, "%s: %s is too large (maximum %lld)",
		    what, s, (long long)max);
	*out = v;
	return 0;
}

int64_t
mk_arg_int(const char *s, int64_t min, int64_t max, const char *what)
{
	struct mk_err e;
	int64_t v;

	if (mk_parse_int(s, min, max, &v, what, &e) < 0)
		mk_usage_error("%s", e.msg);
	return v;
}

double
mk_arg_double(const char *s, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || !isfinite(v))
		mk_usage_error("%s: '%s' is not a finite number", what, s);
	return v;
}

double
mk_arg_bytes(const char *s, const char *what)
{
	static const char *const sfx[] = { "", "k", "M", "G", "T", "Ki", "Mi",
	    "Gi", "Ti" };
	static const double mul[] = { 1, 1e3, 1e6, 1e9, 1e12, 1024.0,
	    1048576.0, 1073741824.0, 1099511627776.0 };
	char *end;
	double v;
	size_t n;
	int i;

	v = strtod(s, &end);
	n = strlen(end);
	if (n > 0 && end[n - 1] == 'B')	/* "44MB", "44MiB": the B is optional */
		n--;
	for (i = 0; end != s && isfinite(v) && v >= 0 && i < 9; i++)
		if (strlen(sfx[i]) == n && strncmp(end, sfx[i], n) == 0) {
			/* exact as an integer in a double, and no inf */
			if (!(v * mul[i] <= 0x1p53))
				mk_usage_error("%s: '%s' is more than 2^53 "
				    "bytes", what, s);
			return v * mul[i];
		}
	mk_usage_error("%s: '%s' is not a size in bytes (a number, optionally "
	    "with k, M, G, T or Ki, Mi, Gi, Ti)", what, s);
	return 0;
}

/* "a, b or c" of names[0..n) into buf. */
static const char *
or_list(char *buf, size_t size, const char *const *names, int n)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%s%s",
		    i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
	return buf;
}

int
mk_arg_choice(const char *v, const char *const *names, int n,
    const char *opt)
{
	char list[512];
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0)
			return i;
	mk_usage_error("%s: '%s' is not %s", opt, v, or_list(list,
	    sizeof(list), names, n));
}

/*
 * Cut the comma-separated list s into at most max_n items, in buf (of
 * LIST_MAX bytes); exits with status 2 if it is too long (never cut),
 * has too many items, none, or an empty one ("1,,2": a value lost in an
 * edit).  Returns how many.
 */
#define LIST_MAX	4096

static int
split_list(const char *s, const char *what, char *buf, char **item,
    int max_n)
{
	char *p;
	int n = 0;

	if (strlen(s) >= LIST_MAX)
		mk_usage_error("%s: a list of %zu bytes; at most %d", what,
		    strlen(s), LIST_MAX - 1);
	strcpy(buf, s);
	for (p = buf;; p++) {
		if (n == max_n)
			mk_usage_error("%s: at most %d values", what, max_n);
		item[n++] = p;
		p += strcspn(p, ",");
		if (p == item[n - 1])
			mk_usage_error("%s: '%s' has an empty value", what, s);
		if (*p == '\0')
			break;
		*p = '\0';
	}
	return n;
}

/* Whether item i of a list of sizes looks like the digits after a
 * thousands separator: three digits after an item of digits alone. */
static int
thousands(char *const *item, int i)
{
	return i > 0 && strlen(item[i]) == 3 && strspn(item[i], "0123456789")
	    == 3 && item[i - 1][strspn(item[i - 1], "0123456789")] == '\0';
}

/*
 * Item i of list s of sizes: a size of 0, or three digits after an item
 * of digits alone, is a thousands separator misread ("44,000,000" would
 * be three settings), a usage error.
 */
static double
list_bytes(const char *s, char *const *item, int i, const char *what)
{
	double v;

	if (thousands(item, i))
		mk_usage_error("%s %s: ',%s' reads as a thousands separator, "
		    "which a list of sizes cannot have (write 44000000 or 44M)",
		    what, s, item[i]);
	if ((v = mk_arg_bytes(item[i], what)) == 0)
		mk_usage_error("%s %s: an item of 0 bytes (no thousands "
		    "separators: write 44000000 or 44M)", what, s);
	return v;
}

int
mk_arg_num_list(const char *s, enum mk_num kind, double *v, int max_n,
    const char *what)
{
	char buf[LIST_MAX], *item[LIST_MAX / 2];
	int i, n = split_list(s, what, buf, item, max_n < LIST_MAX / 2 ?
	    max_n : LIST_MAX / 2);

	for (i = 0; i < n; i++) {
		if (kind != MK_NUM_BYTES && strcmp(item[i], "none") == 0)
			v[i] = -1;
		else if (kind == MK_NUM_COUNT)
			v[i] = (double)mk_arg_int(item[i], 0, INT64_C(1) << 53,
			    what);
		else if (kind == MK_NUM_BYTES)
			v[i] = list_bytes(s, item, i, what);
		else if (!((v[i] = mk_arg_double(item[i], what)) >= 0 &&
		    v[i] < 1))
			mk_usage_error("%s %s: a fraction of the objective, in "
			    "[0, 1), or none", what, item[i]);
	}
	return n;
}

int
mk_arg_int_list(const char *s, int64_t min, int64_t max, int *v, int max_n,
    const char *what)
{
	char buf[LIST_MAX], *item[LIST_MAX / 2];
	int i, n = split_list(s, what, buf, item, max_n < LIST_MAX / 2 ?
	    max_n : LIST_MAX / 2);

	for (i = 0; i < n; i++)
		v[i] = (int)mk_arg_int(item[i], min, max, what);
	return n;
}

int
mk_arg_double_list(const char *s, double min, double max, double *v,
    int max_n, const char *what)
{
	char buf[LIST_MAX], *item[LIST_MAX / 2];
	int i, n = split_list(s, what, buf, item, max_n < LIST_MAX / 2 ?
	    max_n : LIST_MAX / 2);

	for (i = 0; i < n; i++) {
		v[i] = mk_arg_double(item[i], what);
		if (v[i] < min || v[i] > max)
			mk_usage_error("%s: %s is not in [%g, %g]", what,
			    item[i], min, max);
	}
	return n;
}

int
mk_arg_choice_list(const char *list, const char *const *names, int n,
    int *v, const char *what)
{
	char buf[LIST_MAX], *item[LIST_MAX / 2];
	int i, j, k, m = 0, ni = split_list(list, what, buf, item,
	    LIST_MAX / 2);

	for (j = 0; j < ni; j++) {
		k = mk_arg_choice(item[j], names, n, what);
		for (i = 0; i < m && v[i] != k; i++)
			;
		if (i == m)
			v[m++] = k;
	}
	return m;
}

int
mk_arg_isa_list(const char *list, int *isa, const char *what)
{
	const char *names[MK_NISA];
	int i, n = 0;

	for (i = 0; i < MK_NISA; i++)
		names[i] = mk_isa_name((enum mk_isa)i);
	if (list == NULL) {
		for (i = 0; i <= (int)mk_kern_isa(); i++)
			isa[n++] = i;
		return n;
	}
	n = mk_arg_choice_list(list, names, MK_NISA, isa, what);
	for (i = 0; i < n; i++)
		if (!mk_isa_supported((enum mk_isa)isa[i]))
			mk_usage_error("%s %s: not supported by this CPU "
			    "(cpu: %s; %s)", what, names[isa[i]],
			    mk_isa_name(mk_isa_best()),
			    mk_isa_why_not((enum mk_isa)isa[i]));
	return n;
}

/* Whether input i reads stdin ("-"; the operand also when absent). */
static int
reads_stdin(const char *const *paths, int i, int operand)
{
	return paths[i] != NULL ? strcmp(paths[i], "-") == 0 : i == operand;
}

void
mk_arg_one_stdin(int n, const char *const *paths, const char *const *names,
    int operand)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			if (!reads_stdin(paths, i, operand) ||
			    !reads_stdin(paths, j, operand))
				continue;
			if (paths[i] != NULL && paths[j] != NULL)
				mk_usage_error("%s - and %s -: only one input "
				    "can be stdin", names[i], names[j]);
			mk_usage_error("%s - and no %s: only one input can be "
			    "stdin (give %s)", names[i == operand ? j : i],
			    names[operand], names[operand]);
		}
}

static void
print_version(void)
{
	int i, n;

	printf("%s (moekit) %s\n", mk_progname(), MK_VERSION);
	printf("kernel paths:");
	for (i = 0; i < MK_NISA; i++)
		printf(" %s", mk_isa_name((enum mk_isa)i));
	printf(" (this cpu:");
	for (i = 0; i < MK_NISA; i++)
		if (mk_isa_supported((enum mk_isa)i))
			printf(" %s", mk_isa_name((enum mk_isa)i));
	printf(")\n");
	/* the first level missing, and why (Linux may refuse the tiles) */
	for (n = 0; n < MK_NISA && mk_isa_supported((enum mk_isa)n); n++)
		;
	if (n < MK_NISA)
		printf("not %s: %s\n", mk_isa_name((enum mk_isa)n),
		    mk_isa_why_not((enum mk_isa)n));
	printf("selected: %s\n", mk_isa_name(mk_kern_isa()));
}

/* Option h's name as the user writes it ("--window", "-r") into name. */
static void
opt_name(const struct arg_hdr *h, char *name, size_t size)
{
	size_t n;

	if (h->longopts != NULL && *h->longopts != '\0') {
		n = strcspn(h->longopts, ",");
		snprintf(name, size, "--%.*s", (int)(n < 60 ? n : 60),
		    h->longopts);
	} else {
		snprintf(name, size, "-%c", *h->shortopts);
	}
}

/* Said beside a usage error of a tool whose -v is not --verbose, where
 * the user gave -v: it may be the misreading. */
static const char *v_hint = "";

const char *
mk_arg_v_hint(void)
{
	return v_hint;
}

/* A value argtable had no room for: of operand or option h. */
static void
excess(const struct arg_hdr *h, const char *val)
{
	char name[64];

	if ((h->shortopts == NULL || *h->shortopts == '\0') &&
	    (h->longopts == NULL || *h->longopts == '\0'))
		mk_usage_error("%s: a second input file; %s reads one (see %s "
		    "--help)%s", val, mk_progname(), mk_progname(),
		    mk_arg_v_hint());
	opt_name(h, name, sizeof(name));
	mk_usage_error("%s given twice (the second: %s); it takes one "
	    "value%s", name, val, mk_arg_v_hint());
}

static void
print_help(void **argtable, const struct mk_usage *u)
{
	int i;

	printf("Usage: %s %s\n", mk_progname(), u->synopsis);
	printf("%s\n\nOptions:\n", u->purpose);
	arg_print_glossary(stdout, argtable, "  %-28s %s\n");
	if (u->epilogue != NULL)
		printf("\n%s", u->epilogue);
	printf("\nEnvironment: MOEKIT_ISA=");
	for (i = 0; i < MK_NISA; i++)
		printf("%s%s", i ? "|" : "", mk_isa_name((enum mk_isa)i));
	printf(" forces a lower kernel path\n(--isa-list prints this CPU's, "
	    "-V why not the next).\nExit status: 0 success, 1 bad data or "
	    "I/O error, 2 usage error.\nSee %s(1).\n", mk_progname());
}

/* The parsed table, kept reachable and freed at exit (argtable allocates). */
static void **table;
static size_t table_len;

static void
free_table(void)
{
	if (table != NULL) {
		arg_freetable(table, table_len);
		free(table);
		table = NULL;
	}
}

static void
keep_table(void **argtable, size_t n)
{
	if ((table = malloc(sizeof(void *) * n)) == NULL)
		errx(MK_EXIT_DATA, "out of memory");
	memcpy(table, argtable, sizeof(void *) * n);
	table_len = n;
	atexit(free_table);
}

/* The formats -f names, in order, and the extension each file takes. */
static const struct {
	const char	*name, *ext, *ext2;
	enum mk_fmt	 fmt;
	int		 plan;	/* eplb-plan's placement files only */
} formats[] = {
	{ "csv", ".csv", NULL, MK_FMT_CSV, 0 },
	{ "npy", ".npy", NULL, MK_FMT_NPY, 0 },
	{ "npz", ".npz", NULL, MK_FMT_NPZ, 0 },
	{ "sglang", ".json", NULL, MK_FMT_SGLANG, 1 },
	{ "vllm", ".jsonl", NULL, MK_FMT_VLLM, 1 },
	{ "trtllm", ".yaml", ".yml", MK_FMT_TRTLLM, 1 },
};
#define NFORMATS	((int)(sizeof(formats) / sizeof(formats[0])))

static int
ends_with(const char *path, const char *ext)
{
	size_t n = strlen(path), l;

	return ext != NULL && n > (l = strlen(ext)) && strcasecmp(path + n - l,
	    ext) == 0;
}

/*
 * -o FILE: the index of the format its extension names (.csv .npy .npz;
 * with flags' MK_OPT_PLANS also .json, .jsonl, .yaml), or -1.
 */
static int
format_of_name(const char *path, int flags)
{
	int i;

	for (i = 0; i < NFORMATS; i++)
		if ((ends_with(path, formats[i].ext) ||
		    ends_with(path, formats[i].ext2)) && (!formats[i].plan ||
		    (flags & MK_OPT_PLANS)))
			return i;
	return -1;
}

/* The extension of path's last component (".txt"), or NULL. */
static const char *
extension(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;

	base = base != NULL ? base + 1 : path;
	dot = strrchr(base, '.');
	return dot != NULL && dot != base && dot[1] != '\0' ? dot : NULL;
}

void
mk_cli_parse(int argc, char **argv, void **argtable,
    const struct mk_common *c, const struct mk_usage *u, struct mk_opts *o)
{
	static const char *const names[NFORMATS] = { "csv", "npy", "npz",
	    "sglang", "vllm", "trtllm" };
	struct arg_end *end;
	int f, x;
	char desc[512];
	int n, i;

	for (i = 0; argtable[i] != NULL; i++)
		if ((((struct arg_hdr *)argtable[i])->flag & ARG_TERMINATOR))
			break;
	end = argtable[i];
	keep_table(argtable, (size_t)i + 1);
	for (i = 1; i < argc && (c->flags & MK_OPT_NO_SHORT_V); i++)
		if (strncmp(argv[i], "-v", 2) == 0 && argv[i][2 +
		    strspn(argv[i] + 2, "v")] == '\0')
			v_hint = " (-v is --values here; --verbose shows the "
			    "kernel path)";
	if (arg_nullcheck(argtable) != 0)
		errx(MK_EXIT_DATA, "out of memory");
	n = arg_parse(argc, argv, argtable);
	if (c->help->count > 0) {
		print_help(argtable, u);
		exit_printed();
	}
	if (c->version->count > 0) {
		print_version();
		exit_printed();
	}
	if (n > 0) {
		/* One line: the first error argtable found, with a hint. */
		struct arg_hdr *h = end->parent[0];
		char *msg = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&msg, &len);
		/* an empty value (--x ''): getopt refuses it as missing, and
		 * argtable names the value, not the option */
		if (end->error[0] == ARG_EMISSARG && end->argval[0] != NULL &&
		    end->argval[0][0] == '\0')
			for (i = 1; i + 1 < argc; i++)
				if (argv[i][0] == '-' && argv[i + 1][0] == '\0')
					mk_usage_error("%.60s: an empty value (see "
					    "%s --help)", argv[i], mk_progname());
		if (fp != NULL && h != NULL && h->errorfn != NULL) {
			h->errorfn(h, fp, end->error[0], end->argval[0], "");
			fclose(fp);
			while (len > 0 && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
				msg[--len] = '\0';
			/*
			 * argtable's "excess option": a second operand, or an
			 * option given twice; said plainly
			 */
			if (strncmp(msg + strspn(msg, ": "), "excess option",
			    13) == 0 && end->argval[0] != NULL)
				excess(h, end->argval[0]);
			mk_usage_error("%s (see %s --help)%s", msg +
			    strspn(msg, ": "), mk_progname(), mk_arg_v_hint());
		}
		arg_print_errors(stderr, end, mk_progname());
		exit(MK_EXIT_USAGE);
	}
	memset(o, 0, sizeof(*o));
	o->format = MK_FMT_AUTO;
	f = -1;
	if (c->format != NULL && c->format->count > 0) {
		f = mk_arg_choice(c->format->sval[0], names, c->flags &
		    MK_OPT_PLANS ? NFORMATS : 3, "--format");
		o->format = formats[f].fmt;
	}
	o->format_given = f >= 0;
	if (c->emit != NULL && c->emit->count > 0)
		o->emit = c->emit->sval[0];
	o->emit_given = o->emit != NULL;
	if (c->output != NULL && c->output->count > 0)
		o->output = c->output->filename[0];
	x = o->output != NULL ? format_of_name(o->output, c->flags) : -1;
	/* a file named for one format written in another: refused */
	if (f >= 0 && x >= 0 && x != f)
		mk_usage_error("-f %s -o %s: the file's name says %s; name it "
		    "%s or give -f %s", names[f], o->output, names[x],
		    formats[f].ext, names[x]);
	if (f < 0 && x >= 0)
		o->format = formats[x].fmt;
	if (f < 0 && x < 0 && o->output != NULL && c->format != NULL &&
	    extension(o->output) != NULL)
		mk_usage_error("-o %s: no format is named %s: give -f %s, or "
		    "name the file .csv, .npy or .npz%s", o->output,
		    extension(o->output), c->flags & MK_OPT_PLANS ?
		    "csv|npy|npz|sglang|vllm|trtllm" : "csv|npy|npz", c->flags &
		    MK_OPT_PLANS ? " (.json, .jsonl, .yaml: SGLang's, vLLM's, "
		    "TensorRT-LLM's)" : "");
	if (c->threads != NULL && c->threads->count > 0)
		o->threads = (int)mk_arg_int(c->threads->sval[0], 1, 1024,
		    "--threads");
	mk_threads_set(o->threads);
	o->verbose = c->verbose->count;
	o->quiet = c->quiet != NULL && c->quiet->count > 0;
	quiet = o->quiet;
	if (o->verbose > 0) {
		enum mk_isa best = mk_isa_best();

		/* the level above the CPU's best, and why not (Linux may
		 * refuse the tiles: the row below then runs) */
		fprintf(stderr, "%s: isa %s (cpu: %s", mk_progname(),
		    mk_isa_name(mk_kern_isa()), mk_isa_name(best));
		if (best + 1 < MK_NISA)
			fprintf(stderr, "; not %s: %s", mk_isa_name(best + 1),
			    mk_isa_why_not(best + 1));
		fprintf(stderr, ")\n");
	}
	if (o->verbose > 1)
		fprintf(stderr, "%s: kernels %s\n", mk_progname(),
		    mk_kern_describe(desc, sizeof(desc)));
}

int
mk_arg_emit(const char *list, const char *const *names, int n, int *order,
    int max)
{
	struct mk_err e;
	int i;

	for (i = 0; i < n && i < max; i++)
		order[i] = i;
	if (list == NULL)
		return i;
	if ((i = mk_select(list, names, n, order, max, &e)) < 0)
		mk_usage_error("%s", e.msg);
	return i;
}

int
mk_select(const char *list, const char *const *names, int n, int *order,
    int max, struct mk_err *e)
{
	char buf[1024], choices[512], *tok, *save, *end;
	size_t off = 0;
	long idx;
	int count = 0, i, found;

	/* "names: a, b, c; indices 0 to 2" or "no names; indices 0 to 14" */
	choices[0] = '\0';
	for (i = 0; i < n && off < sizeof(choices); i++)
		if (names[i] != NULL)
			off += (size_t)snprintf(choices + off,
			    sizeof(choices) - off, "%s%s", off ? ", " :
			    "names: ", names[i]);
	if (off < sizeof(choices))
		snprintf(choices + off, sizeof(choices) - off,
		    "%sindices 0 to %d", off ? "; " : "no names; ", n - 1);
	if (strlen(list) >= sizeof(buf))
		return mk_err_usage(e, "--emit: list too long");
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		found = -1;
		for (i = 0; i < n; i++)
			if (names[i] != NULL && strcmp(names[i], tok) == 0) {
				found = i;
				break;
			}
		if (found < 0 && *tok >= '0' && *tok <= '9') {
			errno = 0;
			idx = strtol(tok, &end, 10);
			if (*end == '\0' && errno == 0 && idx < n)
				found = (int)idx;
			else if (*end == '\0')
				return mk_err_usage(e, "--emit: index %s is out "
				    "of range (%d outputs: 0 to %d)", tok, n,
				    n - 1);
		}
		if (found < 0)
			return mk_err_usage(e, "--emit: unknown output '%s' "
			    "(%s)", tok, choices);
		if (count == max)
			return mk_err_usage(e, "--emit: more than %d items",
			    max);
		order[count++] = found;
	}
	if (count == 0)
		return mk_err_usage(e, "--emit: empty list");
	return count;
}

void
mk_fail(struct mk_src *s, const struct mk_err *e)
{
	mk_src_close(s);
	errx(e->status, "%s", e->msg);
}
