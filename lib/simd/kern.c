/* kern.c - the kernel level and the shared table; see kern.h. */
#if defined(__AVX2__) || defined(__AVX512F__)
#error "compile kern.c without -mavx*: only kern_avx2.c and kern_avx512.c get ISA flags"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simd/cpu.h"
#include "simd/kern.h"

#define ISA_NAME_(a, E, name)	[MK_ISA_##E] = #name,
static const char *const isa_names[MK_NISA] = {
	MK_ISA_LEVELS(ISA_NAME_, _)
};

static enum mk_isa level = MK_ISA_GENERIC;

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

/*
 * The test-only cap (MOEKIT_CPU_CAP, kern.h): the highest level the CPU
 * is taken to have.  An unknown name caps nothing here; mk_kern_init
 * refuses it.
 */
static int
cpu_cap(void)
{
	static int cap = -1;
	const char *env;

	if (cap < 0) {
		env = getenv("MOEKIT_CPU_CAP");
		cap = env != NULL && *env != '\0' ? mk_isa_parse(env) : -1;
		if (cap < 0)
			cap = MK_NISA - 1;
	}
	return cap;
}

int
mk_isa_supported(enum mk_isa isa)
{
	const struct mk_cpu *c = mk_cpu();

	if ((int)isa > cpu_cap())
		return 0;
	switch (isa) {	/* no default: a level without its test warns */
	case MK_ISA_GENERIC:	return 1;
	case MK_ISA_AVX2:	return c->has_avx2;
	case MK_ISA_AVX512:	return c->has_avx512;
	case MK_ISA_AVX512BF16:	return c->has_avx512bf16;
	case MK_ISA_AMX:	return mk_cpu_amx(NULL);
	case MK_NISA:		break;
	}
	return 0;
}

const char *
mk_isa_why_not(enum mk_isa isa)
{
	/* what each level adds to the one below it, as a CPU without it
	 * says (amx: as mk_cpu_amx says it of a CPU with AVX512-BF16) */
	static const char *const lacks[] = {
		[MK_ISA_GENERIC] = "",
		[MK_ISA_AVX2] = "the CPU has no AVX2, FMA, F16C and PCLMUL",
		[MK_ISA_AVX512] = "the CPU has no AVX-512 F/BW/VL/DQ",
		[MK_ISA_AVX512BF16] = "the CPU has no AVX512-BF16",
		[MK_ISA_AMX] = "the CPU has no AMX-BF16 tiles the OS enabled",
	};
	const char *why = "";
	int l = (int)isa;

	_Static_assert(sizeof(lacks) / sizeof(lacks[0]) == MK_NISA,
	    "a phrase for every level");
	if ((unsigned)isa >= MK_NISA || mk_isa_supported(isa))
		return "";
	/* the lowest level missing says why */
	while (l > 0 && !mk_isa_supported((enum mk_isa)(l - 1)))
		l--;
	if (l == MK_ISA_AMX && l <= cpu_cap())
		(void)mk_cpu_amx(&why);
	else
		why = lacks[l];
	return why;
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

/* The level an environment variable names: -1 unset, -2 unknown (e). */
static int
env_level(const char *var, struct mk_err *e)
{
	const char *env = getenv(var);
	int l;

	if (env == NULL || *env == '\0')
		return -1;
	if ((l = mk_isa_parse(env)) < 0) {
		mk_err_usage(e, "%s=%s: unknown kernel path (use generic, "
		    "avx2, avx512, avx512bf16 or amx)", var, env);
		return -2;
	}
	return l;
}

int
mk_kern_init(struct mk_err *e)
{
	int want;

	if (env_level("MOEKIT_CPU_CAP", e) == -2 ||
	    (want = env_level("MOEKIT_ISA", e)) == -2)
		return -1;
	level = mk_isa_best();
	if (want >= 0) {
		if (!mk_isa_supported((enum mk_isa)want))
			return mk_err_usage(e, "MOEKIT_ISA=%s: not supported "
			    "by this CPU (cpu: %s; %s)", isa_names[want],
			    isa_names[level], mk_isa_why_not((enum mk_isa)want));
		level = (enum mk_isa)want;
	}
	return 0;
}

enum mk_isa
mk_kern_isa(void)
{
	return level;
}

void
mk_kern_describe_add(char *buf, size_t size, const char *member, int isa)
{
	size_t off = strlen(buf);

	if (off < size)
		snprintf(buf + off, size - off, "%s%s=%s", off ? " " : "",
		    member, mk_isa_name((enum mk_isa)isa));
}

static const struct mk_kern mk_kern_avx512bf16 =
    MK_KERN_ROW_NONE("avx512bf16");
static const struct mk_kern mk_kern_amx = MK_KERN_ROW_NONE("amx");

MK_KERN_ROWS(mk_kern, struct mk_kern);

MK_KERN_TABLE(mk_kern, struct mk_kern, MK_KERNELS)
