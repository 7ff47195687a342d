/* kern.c - selecting the kernel table; see kern.h. */
#if defined(__AVX2__) || defined(__AVX512F__)
#error "compile kern.c without -mavx*: only kern_avx2.c and kern_avx512.c get ISA flags"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simd/cpu.h"
#include "simd/kern.h"

static const char *const isa_names[MK_NISA] = { "generic", "avx2", "avx512" };

static const struct mk_kern *const rows[MK_NISA] = {
	&mk_kern_generic, &mk_kern_avx2, &mk_kern_avx512
};

static struct mk_kern selected;
static const char *origin[MK_NKERN];	/* the row each member came from */
static enum mk_isa level = MK_ISA_GENERIC;
static int ready;

const char *
mk_isa_name(enum mk_isa isa)
{
	return (unsigned)isa < MK_NISA ? isa_names[isa] : "?";
}

int
mk_isa_parse(const char *name)
{
	int i;

	for (i = 0; i < MK_NISA; i++)
		if (strcmp(name, isa_names[i]) == 0)
			return i;
	return -1;
}

int
mk_isa_supported(enum mk_isa isa)
{
	const struct mk_cpu *c = mk_cpu();

	switch (isa) {
	case MK_ISA_GENERIC:	return 1;
	case MK_ISA_AVX2:	return c->has_avx2;
	case MK_ISA_AVX512:	return c->has_avx512;
	default:		return 0;
	}
}

enum mk_isa
mk_isa_best(void)
{
	int i;

	for (i = MK_NISA - 1; i > 0; i--)
		if (mk_isa_supported((enum mk_isa)i))
			return (enum mk_isa)i;
	return MK_ISA_GENERIC;
}

/* Take each member from row r where r implements it. */
#define OVERLAY(m, ret, args)	do {				\
	if (r->m != NULL) {					\
		out->m = r->m;					\
		if (org != NULL)				\
			org[MK_KERN_##m] = r->name;		\
	}							\
} while (0);
#define NAME(m, ret, args)	#m,

static void
overlay(struct mk_kern *out, const struct mk_kern *r, const char **org)
{
	MK_KERNELS(OVERLAY)
}

/* Member names by index, for mk_kern_describe. */
static const char *const members[MK_NKERN] = { MK_KERNELS(NAME) };

static const struct mk_kern *
build(enum mk_isa isa, struct mk_kern *out, const char **org)
{
	int i;

	*out = mk_kern_generic;
	for (i = 0; i < MK_NKERN && org != NULL; i++)
		org[i] = "generic";
	for (i = 1; i <= (int)isa; i++)
		overlay(out, rows[i], org);
	out->name = isa_names[isa];
	/* the CPU's choice, or the process's once mk_kern_init has run */
	out->paged_l2 = ready ? selected.paged_l2 : mk_cpu()->amd;
	return out;
}

const struct mk_kern *
mk_kern_build(enum mk_isa isa, struct mk_kern *out)
{
	return build(isa, out, NULL);
}

int
mk_kern_init(struct mk_err *e)
{
	static const char *const off_on[] = { "0", "1", NULL };
	const char *env = getenv("MOEKIT_ISA");
	int want;

	level = mk_isa_best();
	if (env != NULL && *env != '\0') {
		if ((want = mk_isa_parse(env)) < 0)
			return mk_err_usage(e, "MOEKIT_ISA=%s: unknown kernel "
			    "path (use generic, avx2 or avx512)", env);
		if (!mk_isa_supported((enum mk_isa)want))
			return mk_err_usage(e, "MOEKIT_ISA=%s: not supported "
			    "by this CPU (cpu: %s)", env, isa_names[level]);
		level = (enum mk_isa)want;
	}
	build(level, &selected, origin);
	if ((want = mk_env_word("MOEKIT_PAGED_L2", off_on, e)) < 0)
		return -1;
	if (want > 0)
		selected.paged_l2 = want - 1;
	ready = 1;
	return 0;
}

const struct mk_kern *
mk_kern(void)
{
	return ready ? &selected : &mk_kern_generic;
}

enum mk_isa
mk_kern_isa(void)
{
	return ready ? level : MK_ISA_GENERIC;
}

char *
mk_kern_describe(char *buf, size_t size)
{
	size_t off = 0, i;
	int n;

	buf[0] = '\0';
	for (i = 0; i < MK_NKERN && off < size; i++) {
		n = snprintf(buf + off, size - off, "%s%s=%s", i ? " " : "",
		    members[i], ready ? origin[i] : "generic");
		if (n < 0)
			break;
		off += (size_t)n;
	}
	return buf;
}
