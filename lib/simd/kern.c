/* kern.c - the kernel level and the shared table; see kern.h. */
#if defined(__AVX2__) || defined(__AVX512F__)
#error "compile kern.c without -mavx*: only kern_avx2.c and kern_avx512.c get ISA flags"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simd/cpu.h"
#include "simd/kern.h"

static const char *const isa_names[MK_NISA] = { "generic", "avx2", "avx512",
	"avx512bf16", "amx" };

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

int
mk_isa_supported(enum mk_isa isa)
{
	const struct mk_cpu *c = mk_cpu();

	switch (isa) {
	case MK_ISA_GENERIC:	return 1;
	case MK_ISA_AVX2:	return c->has_avx2;
	case MK_ISA_AVX512:	return c->has_avx512;
	case MK_ISA_AVX512BF16:	return c->has_avx512bf16;
	case MK_ISA_AMX:	return mk_cpu_amx(NULL);
	default:		return 0;
	}
}

const char *
mk_isa_why_not(enum mk_isa isa)
{
	/* what each level adds to the one below it */
	static const char *const lacks[MK_NISA] = { "", "the CPU has no "
	    "AVX2, FMA, F16C and PCLMUL", "the CPU has no AVX-512 F/BW/VL/DQ",
	    "the CPU has no AVX512-BF16", "" };
	const char *why = "";
	int l = (int)isa;

	if ((unsigned)isa >= MK_NISA || mk_isa_supported(isa))
		return "";
	/* the lowest level missing says why */
	while (l > 0 && !mk_isa_supported((enum mk_isa)(l - 1)))
		l--;
	if (l == MK_ISA_AMX)
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

int
mk_kern_init(struct mk_err *e)
{
	const char *env = getenv("MOEKIT_ISA");
	int want;

	level = mk_isa_best();
	if (env != NULL && *env != '\0') {
		if ((want = mk_isa_parse(env)) < 0)
			return mk_err_usage(e, "MOEKIT_ISA=%s: unknown kernel "
			    "path (use generic, avx2, avx512, avx512bf16 or "
			    "amx)", env);
		if (!mk_isa_supported((enum mk_isa)want))
			return mk_err_usage(e, "MOEKIT_ISA=%s: not supported "
			    "by this CPU (cpu: %s; %s)", env, isa_names[level],
			    mk_isa_why_not((enum mk_isa)want));
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

static const struct mk_kern *const mk_kern_rows[MK_NISA] = {
	&mk_kern_generic, &mk_kern_avx2, &mk_kern_avx512, &mk_kern_avx512bf16,
	&mk_kern_amx
};

MK_KERN_TABLE(mk_kern, struct mk_kern, MK_KERNELS)
