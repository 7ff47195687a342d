/*
 * fuzz.h - shared by the fuzz targets: name the entry point so that both
 * targets can live in one replay binary (FUZZ_PREFIX=fuzz_npy_ ...) and be
 * plain LLVMFuzzerTestOneInput under libFuzzer (FUZZ_PREFIX empty).
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CAT2(a, b)	a##b
#define FUZZ_CAT(a, b)	FUZZ_CAT2(a, b)
#define FUZZ_ENTRY	FUZZ_CAT(FUZZ_PREFIX, LLVMFuzzerTestOneInput)

int	FUZZ_ENTRY(const uint8_t *data, size_t size);

/* An invariant broke: report and crash so the fuzzer keeps the input. */
#define FUZZ_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: invariant failed: %s\n",	\
		    __FILE__, __LINE__, #cond);				\
		abort();						\
	}								\
} while (0)

#endif
