# moekit - Unix filters for Mixture-of-Experts serving.
#
#   make demo     build, then run a real pipeline over testdata/
#   make check    build, then run every test (include layers, unit, CLI,
#                 fuzz replay, hostile option values, numpy interop, man
#                 page examples, lint)
#   make check SANITIZE=address,undefined   the same, sanitized (build/san/)
#   make asan | ubsan                       shorthands for the above
#   make fuzz     libFuzzer targets (clang), FUZZ_SECONDS each, and
#                 20 x FUZZ_SECONDS hostile option values
#   make coverage what make check reaches (gcov), every kernel copy named
#   make lint     mandoc -Tlint on every man page
#   make valgrind one good and one bad run per tool under memcheck
#   make install PREFIX=/usr/local DESTDIR=
#   make uninstall PREFIX=/usr/local DESTDIR=   removes exactly what install put
#   make clean
#
# `demo` and `check` first run `deps`, which installs missing Debian packages
# with apt-get (as root, or through sudo) or prints the command to run.

VERSION  = 0.1.0
PREFIX  ?= /usr/local
DESTDIR ?=
PYTHON  ?= /usr/bin/python3
FUZZ_SECONDS ?= 60
# demo and check build with this many jobs (make -jN all for yourself)
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)

TOOLS = tensor-cat eplb-plan eplb-replay a2a-layout mdecode

# Debian 12 packages: building, testing, and (separately) fuzzing.
DEPS_BUILD = gcc make libcsv-dev libargtable2-dev libcunit1-dev libzip-dev
DEPS_CHECK = $(DEPS_BUILD) mandoc python3-numpy python3-yaml librsvg2-bin
DEPS_FUZZ  = clang libclang-rt-14-dev

ifneq ($(SANITIZE),)
BUILD   ?= build/san
SANFLAGS = -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
OPT     ?= -O1 -g
else
BUILD   ?= build
OPT     ?= -O2 -g
endif

WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
       -Wformat=2 -Wno-format-nonliteral -Wundef -Wvla
ifneq ($(WERROR),)
WARN += -Werror
endif

CPPFLAGS += -D_GNU_SOURCE -Ilib -DMK_VERSION=\"$(VERSION)\"
OMP ?= -fopenmp
MK_CFLAGS = -std=c11 $(OPT) $(WARN) $(OMP) $(SANFLAGS) $(CFLAGS)
# The SIMD kernel files' flags (the fuzz build leaves them uninstrumented:
# no parser reaches them, and clang takes minutes over their intrinsics
# under UBSan)
KERNEL_SANFLAGS ?= $(SANFLAGS)
KERNEL_CFLAGS = -std=c11 $(OPT) $(KERNEL_OPT) $(WARN) $(OMP) $(KERNEL_SANFLAGS) \
                $(CFLAGS)
MK_LDFLAGS = $(OMP) $(SANFLAGS) $(LDFLAGS)
# Debian ships static archives of these: linking them in saves three
# shared-library loads at every start (a third of eplb-plan's run time).
LIBS = -Wl,-Bstatic -lcsv -largtable2 -Wl,-Bdynamic -ldl -lm

# Per-ISA flags go on the kernel files only, never on everything.
ISA_AVX2   = -mavx2 -mfma -mf16c
ISA_AVX512 = -mavx512f -mavx512bw -mavx512dq -mavx512vl
ISA_AMX    = $(ISA_AVX512) -mavx512bf16 -mavx512vbmi -mamx-tile -mamx-bf16
# GCC's cost model option; clang vectorises by its own
GENERIC_VEC = -ftree-vectorize $(if $(findstring clang,$(CC)),,-fvect-cost-model=dynamic)

LIB_SRC = $(wildcard lib/*/*.c)
LIB_OBJ = $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
LIB     = $(BUILD)/libmoekit.a
BINS    = $(TOOLS:%=$(BUILD)/bin/%)

UNIT_SRC = $(wildcard tests/unit/*.c)
UNIT_OBJ = $(UNIT_SRC:%.c=$(BUILD)/obj/%.o)
FUZZ_TARGETS = npy csv loads pt plan trace npz phy2log mdec trtllm

.PHONY: all deps deps-fuzz demo check check-unit check-cli check-replay \
	check-interop check-examples check-isa check-layers asan ubsan fuzz \
	valgrind coverage check-options \
	lint install uninstall clean

all: $(BINS) $(BUILD)/bin/test-unit $(BUILD)/bin/replay

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(MK_CFLAGS) -MMD -MP -c -o $@ $<

# Kernel files: lib/*/*_generic.c for the baseline target (vectorised by
# the compiler as far as it can, no contraction into FMA so the generic
# conversions stay exact), lib/*/*_avx2.c and lib/*/*_avx512.c with their
# ISA.  (The % of these rules spans the layer folder.)
$(BUILD)/obj/lib/%_generic.o: lib/%_generic.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(MK_CFLAGS) $(GENERIC_VEC) -ffp-contract=off -MMD -MP -c -o $@ $<

$(BUILD)/obj/lib/%_avx2.o: lib/%_avx2.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(KERNEL_CFLAGS) $(ISA_AVX2) -fno-lto -MMD -MP -c -o $@ $<

# mdecode's kernels (one file per dtype and ISA, and the file of their
# floor): line tables only, -g1 (full debug information of their inlined
# code was a third of their build); AVX-512 at -O3 (in cache 7 % faster on
# the Xeon) without GCC's sinking of statements, which moved the scores'
# multiply-adds after all their K loads and spilled those (G 2 D 128: 65
# multiply-adds from the stack; GCC 12); AVX2 at -O2 with GCC's first
# scheduling pass, which its register pressure needs (bf16 in cache 12 %
# slower without it, -O3 no faster), tests/bench/RESULTS.md.  Sanitized
# and clang builds keep OPT.
MDEC_KERN = $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard lib/mdec/mdec_*avx2.c \
	lib/mdec/mdec_*avx512.c lib/mdec/mdec_amx.c))
ifeq ($(SANITIZE)$(findstring clang,$(CC)),)
$(filter %avx512.o %amx.o,$(MDEC_KERN)): KERNEL_OPT = -O3 -g1 -fno-tree-sink
$(filter %avx2.o,$(MDEC_KERN)): KERNEL_OPT = -g1 -fsched-pressure -fschedule-insns
endif

$(BUILD)/obj/lib/%_avx512.o: lib/%_avx512.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(KERNEL_CFLAGS) $(ISA_AVX512) -fno-lto -MMD -MP -c -o $@ $<

$(BUILD)/obj/lib/%_amx.o: lib/%_amx.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(KERNEL_CFLAGS) $(ISA_AMX) -fno-lto -MMD -MP -c -o $@ $<

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/bin/%: $(BUILD)/obj/cmd/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(MK_LDFLAGS) -o $@ $< $(LIB) $(LIBS)

$(BUILD)/bin/test-unit: $(UNIT_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(MK_LDFLAGS) -o $@ $(UNIT_OBJ) $(LIB) -lcunit $(LIBS)

# The fuzz targets, driven by a plain main() that replays corpus files.
$(BUILD)/bin/replay: $(BUILD)/obj/tests/fuzz/replay.o \
		$(FUZZ_TARGETS:%=$(BUILD)/obj/tests/fuzz/fuzz_%.o) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(MK_LDFLAGS) -o $@ $(filter %.o,$^) $(LIB) $(LIBS)

$(BUILD)/obj/tests/fuzz/fuzz_%.o: tests/fuzz/fuzz_%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(MK_CFLAGS) -DFUZZ_PREFIX=fuzz_$*_ -MMD -MP -c -o $@ $<

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# Objects reached through pattern chains (cmd/*.o) are kept: make would
# otherwise delete them after linking, and the next make rebuild them.
.SECONDARY:

# ---------------------------------------------------------------- deps
# Install what is missing (as root or with password-less sudo); otherwise
# print the exact command and stop.
define install_pkgs
	@missing=; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | \
	    grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	[ -z "$$missing" ] && exit 0; \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo='sudo -n'; \
	else echo "moekit needs these Debian packages:$$missing"; \
	  echo "Run: sudo apt-get update && sudo apt-get install -y$$missing"; exit 1; fi; \
	if ! command -v apt-get >/dev/null 2>&1; then \
	  echo "moekit needs:$$missing (Debian 12 packages; apt-get not found)"; exit 1; fi; \
	echo "deps: installing$$missing"; \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing
endef

deps:
	$(call install_pkgs,$(DEPS_CHECK))

deps-fuzz:
	$(call install_pkgs,$(DEPS_BUILD) $(DEPS_FUZZ))

# ---------------------------------------------------------------- demo
demo: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@MOEKIT_BIN=$(BUILD)/bin DEMO_DIR=$(BUILD)/demo PYTHON=$(PYTHON) sh tests/demo.sh

# ---------------------------------------------------------------- check
check: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@$(MAKE) --no-print-directory check-layers check-unit check-cli \
		check-replay check-options check-interop check-examples lint
	@echo "make check: all tests passed ($(BUILD))"

# lib/'s folders include only the layers below them (README, "Layout").
check-layers:
	sh tests/layers/check.sh
	sh tests/layers/planted.sh
	CC="$(CC)" sh tests/layers/rows.sh

check-unit: all
	$(BUILD)/bin/test-unit

# The CLI tests, then again as if the CPU stopped at each lower level
# (MOEKIT_CPU_CAP, simd/kern.h): what an AVX2-only CPU prints is proved
# on any CPU above it.
check-cli: all
	MOEKIT_BIN=$(BUILD)/bin sh tests/cli/run.sh
	@for cap in $$(MOEKIT_CPU_CAP= $(BUILD)/bin/tensor-cat --isa-list | sed '$$d'); do \
	  echo "== the CLI tests as on a CPU that stops at $$cap (MOEKIT_CPU_CAP)"; \
	  MOEKIT_CPU_CAP=$$cap MOEKIT_BIN=$(BUILD)/bin sh tests/cli/run.sh || exit 1; \
	done

check-replay: all
	$(BUILD)/bin/replay testdata/corpus

# Hostile option values, whole processes (CLI_RUNS of them, CLI_SEED).
CLI_RUNS ?= 400
CLI_SEED ?= 1
check-options: all
	$(PYTHON) tests/fuzz/cli_options.py $(BUILD)/bin testdata $(CLI_RUNS) $(CLI_SEED)

check-interop: all
	MOEKIT_BIN=$(BUILD)/bin PYTHON=$(PYTHON) sh tests/interop/run.sh

check-examples: all
	MOEKIT_BIN=$(BUILD)/bin sh tests/cli/examples.sh man/*.1

# Re-run the unit and CLI tests at every kernel level this CPU has.
check-isa: all
	@for isa in $$($(BUILD)/bin/tensor-cat --isa-list); do \
	  echo "== MOEKIT_ISA=$$isa"; \
	  MOEKIT_ISA=$$isa $(BUILD)/bin/test-unit || exit 1; \
	  MOEKIT_ISA=$$isa MOEKIT_BIN=$(BUILD)/bin sh tests/cli/run.sh || exit 1; \
	done

# What make check reaches: a --coverage build in build/cov, its tests run,
# gcov's line counts by folder and every kernel copy called or not.
COV = BUILD=build/cov OPT="-O1 -g --coverage" LDFLAGS="$(LDFLAGS) --coverage"
coverage:
	$(MAKE) --no-print-directory $(COV) -j$(JOBS) all
	find build/cov -name '*.gcda' -delete
	$(MAKE) --no-print-directory $(COV) check-unit check-cli check-examples
	$(PYTHON) tests/coverage.py build/cov

asan:
	$(MAKE) check SANITIZE=address

ubsan:
	$(MAKE) check SANITIZE=undefined

lint:
	mandoc -Tlint -W warning man/*.1

valgrind: all
	$(call install_pkgs,valgrind)
	MOEKIT_BIN=$(BUILD)/bin sh tests/valgrind.sh

# ---------------------------------------------------------------- fuzz
# The library is rebuilt with clang under build/fuzz (same rules, per-ISA
# flags included); each target links it with libFuzzer.  Crashes land in
# build/fuzz/; keep each one in testdata/corpus/ once fixed.
FUZZ_BUILD = build/fuzz
# libFuzzer reads -max_total_time=0 as no limit: 0 runs the corpus once
FUZZ_RUN = $(if $(filter 0,$(FUZZ_SECONDS)),-runs=0,-max_total_time=$(FUZZ_SECONDS))
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

fuzz: deps-fuzz
	$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=clang OMP= OPT="-O1 -g" \
		SANFLAGS="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" KERNEL_SANFLAGS= \
		$(FUZZ_BUILD)/libmoekit.a
	for t in $(FUZZ_TARGETS); do \
	  clang -std=c11 -g -O1 $(CPPFLAGS) -DFUZZ_PREFIX= -fsanitize=fuzzer $(FUZZ_SAN) \
	    -o $(FUZZ_BUILD)/fuzz_$$t tests/fuzz/fuzz_$$t.c $(FUZZ_BUILD)/libmoekit.a $(LIBS) || exit 1; \
	done
	$(MAKE) --no-print-directory all
	$(PYTHON) tests/fuzz/cli_options.py $(BUILD)/bin testdata \
	    $$(($(FUZZ_SECONDS) * 20 + 1)) $$(date +%s)
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus-$$t; \
	  $(FUZZ_BUILD)/fuzz_$$t $(FUZZ_RUN) -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_BUILD)/ -dict=tests/fuzz/$$t.dict \
	    $(FUZZ_BUILD)/corpus-$$t testdata/corpus/$$t || exit 1; \
	done

# ---------------------------------------------------------------- install
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(TOOLS:%=man/%.1) $(DESTDIR)$(PREFIX)/share/man/man1/

# install's directories go too where nothing else is in them
uninstall:
	rm -f $(TOOLS:%=$(DESTDIR)$(PREFIX)/bin/%) \
	    $(TOOLS:%=$(DESTDIR)$(PREFIX)/share/man/man1/%.1)
	@for d in share/man/man1 share/man share bin; do \
	  rmdir $(DESTDIR)$(PREFIX)/$$d 2>/dev/null || true; done

clean:
	rm -rf build
