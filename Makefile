# fabricx — build, run and test.
#
#   make            build ./fabricx
#   make run        install missing packages, build, explore CloudMatrix384
#   make check      install missing packages, build, run every test
#   make san-check  the unit and CLI tests again under ASan/UBSan (CI runs it)
#   make valgrind-check  the CLI and hardening tests with every run under valgrind (CI: -j2)
#   make peer-check  the peer tools against fabricx where installed: NetworkX, SimGrid
#                   (tests/peer/; CI runs it with PEER_REQUIRED=1)
#   make bench      the benchmarks in bench/
#   make bench-doc  rewrites docs/performance.md's measured tables
#   make gallery    docs/gallery.md: every shipped spec in every view, PNGs in out/gallery/
#   make fuzz       fuzz the spec loader with libFuzzer (FUZZ_TIME=seconds, default 600)
#   make fuzz-replay   the fuzz corpus and past findings under ASan/UBSan (in san-check)
#   make fuzz-dict  regenerate fuzz/spec.dict from the sources and fuzz/args.dict from
#                   every command's --help (fuzz/gen-spec-dict.sh, fuzz/gen-args-dict.sh)
#   make install    PREFIX=/usr/local DESTDIR=: binary, libraries (libfabricx.so.0), headers,
#                   fabricx.pc, man page, bash completion; make uninstall
#   make example    docs/example.c against the library (installed: EXAMPLE_PC)
#
# CFLAGS and LDFLAGS given to make are appended (make CFLAGS=-O0).  Warnings
# are errors only where WERROR=-Werror is set: make check, san-check,
# valgrind-check and CI, so a newer compiler cannot break a user's build.
#
# Objects go to $(BUILD)/ (build/ by default; build-san/ for sanitizers).

DEB_PKGS := libigraph-dev libglpk-dev libyaml-dev libgraphviz-dev graphviz check pkg-config jq gnuplot-nox \
	    libopenmpi-dev openmpi-bin
PKGS     := igraph yaml-0.1 libcgraph libgvc

BUILD    ?= build
CC       ?= cc
OPT      ?= -O2
SAN      ?=
WERROR   ?=
# -fPIC: the same objects go into libfabricx.a and libfabricx.so
CFLAGS_BASE = -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra $(WERROR) -g -fPIC $(OPT) $(SAN) $(CFLAGS)
PKG_CFLAGS   = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# Open MPI, for explore's spaces across machines (space/mpi.c); a
# build without it runs spaces on one machine and says so under mpirun.
MPI_CFLAGS   = $(shell pkg-config --cflags ompi-c 2>/dev/null)
MPI_LIBS     = $(shell pkg-config --libs ompi-c 2>/dev/null)
PKG_LIBS     = $(LDFLAGS) $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lglpk -lm
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null)

LIB_SRC  := $(wildcard core/*.c spec/*.c fabric/*.c routing/*.c power/*.c solver/*.c placement/*.c step/*.c space/*.c render/*.c access/*.c plot/*.c design/*.c interop/*.c calib/*.c plan/*.c bom/*.c report/*.c)
CLI_SRC  := $(wildcard cli/*.c)
TEST_SRC := $(wildcard tests/unit/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
# the CLI objects minus main(), so tests can drive commands in-process
CLI_LIB_OBJ := $(filter-out $(BUILD)/cli/main.o,$(CLI_OBJ))

BIN := $(if $(filter build,$(BUILD)),fabricx,$(BUILD)/fabricx)

# FORCE: see the version stamp
.PHONY: FORCE all deps run check unit cli-test peer-check san-check valgrind-check valgrind-build valgrind-cli valgrind-hardening bench bench-doc gallery clean fuzz fuzz-replay fuzz-deps fuzz-dict \
	install uninstall example

# The shared library's ABI version.  Its soname, libfabricx.so.$(SO_MAJOR),
# is the name a program linked against it loads: SO_MAJOR goes up with any
# change that breaks programs built against the older library (a public
# struct's layout, a function's arguments), SO_MINOR with compatible
# additions.  libfabricx.so, the name -lfabricx finds, links to the soname.
# Before the first release (no tag yet) public structs still change
# (fx_import_info gained lost, kind and recognition): 0 promises nothing.
SO_MAJOR := 0
SO_MINOR := 1
SO_NAME  := libfabricx.so.$(SO_MAJOR)
SO_FILE  := libfabricx.so.$(SO_MAJOR).$(SO_MINOR).0

all: $(BIN) $(BUILD)/libfabricx.so

$(BIN): $(CLI_OBJ) $(BUILD)/libfabricx.a
	$(CC) $(CFLAGS_BASE) -o $@ $^ $(PKG_LIBS) $(MPI_LIBS)

$(BUILD)/space/mpi.o: PKG_CFLAGS += $(MPI_CFLAGS) $(if $(MPI_LIBS),-DFX_MPI)

$(BUILD)/libfabricx.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

# The shared library carries its dependencies (igraph, libyaml, Graphviz,
# GLPK, and Open MPI when built with it: space/mpi.c), so programs link it
# with -lfabricx alone.
$(BUILD)/$(SO_FILE): $(LIB_OBJ)
	$(CC) $(CFLAGS_BASE) -shared -Wl,-soname,$(SO_NAME) -o $@ $^ $(PKG_LIBS) $(MPI_LIBS)
$(BUILD)/libfabricx.so: $(BUILD)/$(SO_FILE)
	ln -sf $(SO_FILE) $(BUILD)/$(SO_NAME)
	ln -sf $(SO_NAME) $@

$(BUILD)/check_fabricx: $(TEST_OBJ) $(CLI_LIB_OBJ) $(BUILD)/libfabricx.a
	$(CC) $(CFLAGS_BASE) -o $@ $^ $(PKG_LIBS) $(MPI_LIBS) $(CHECK_LIBS)

# Objects rebuild when the flags that shape them change (make CFLAGS=-O0,
# or a tree built before -fPIC); WERROR is left out, as it changes no code.
FLAGS_ID := $(CC) -fPIC $(OPT) $(SAN) $(CFLAGS)
$(BUILD)/flags.stamp: FORCE
	@mkdir -p $(BUILD)
	@echo '$(FLAGS_ID)' | cmp -s - $@ || echo '$(FLAGS_ID)' > $@

$(BUILD)/tests/%.o: tests/%.c $(BUILD)/flags.stamp
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(PKG_CFLAGS) $(CHECK_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/%.o: %.c $(BUILD)/flags.stamp
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $(PKG_CFLAGS) -MMD -MP -c -o $@ $<

# The release, MAJOR.MINOR.PATCH, read from core/version.h (set there
# only): fabricx.pc's Version.
FX_VER_PART = $(shell sed -n 's/^\#define FX_VERSION_$(1) \([0-9][0-9]*\)$$/\1/p' core/version.h)
RELEASE := $(call FX_VER_PART,MAJOR).$(call FX_VER_PART,MINOR).$(call FX_VER_PART,PATCH)

# The version reports carry: git describe at build time.  The stamp file
# changes only when the version does, so only core/version.o rebuilds.
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
$(BUILD)/version.stamp: FORCE
	@mkdir -p $(BUILD)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@
$(BUILD)/core/version.o: core/version.c $(BUILD)/version.stamp $(BUILD)/flags.stamp
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -DFX_BUILD_DESCRIBE='"$(VERSION)"' -MMD -MP -c -o $@ $<
FORCE:

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(wildcard $(BUILD)/fuzz/*.d)
.SECONDARY:

# Installs the Debian packages fabricx needs when any is missing.
deps:
	@missing=""; \
	for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	else \
	  echo "fabricx needs these Debian packages:$$missing" >&2; \
	  echo "install them with: sudo apt-get install$$missing" >&2; exit 1; \
	fi

# Recursive makes so pkg-config runs after deps has installed it.
run: deps
	@$(MAKE) --no-print-directory all
	./fabricx explore specs/cm384.yaml

check: deps
	@$(MAKE) --no-print-directory WERROR=-Werror all $(BUILD)/check_fabricx
	@$(MAKE) --no-print-directory WERROR=-Werror unit cli-test

unit: $(BUILD)/check_fabricx
	$(BUILD)/check_fabricx

cli-test: $(BIN)
	FABRICX=$(abspath $(BIN)) sh tests/cli/run.sh
	FABRICX=$(abspath $(BIN)) sh tests/cli/hardening.sh
	FABRICX=$(abspath $(BIN)) sh tests/hardening/tools.sh
	FABRICX=$(abspath $(BIN)) sh tests/hardening/attack.sh
	FABRICX=$(abspath $(BIN)) sh tests/cli/power.sh
	FABRICX=$(abspath $(BIN)) sh tests/cli/composite.sh
	$(if $(SAN),,MAKE="$(MAKE)" BUILD=$(BUILD) FABRICX=$(abspath $(BIN)) sh tests/cli/install.sh)
	FABRICX=$(abspath $(BIN)) sh tests/cli/output.sh
	FABRICX=$(abspath $(BIN)) sh tests/cli/render.sh
	FABRICX=$(abspath $(BIN)) sh tests/cli/pictures.sh
	FABRICX=$(abspath $(BIN)) sh tests/cli/bom.sh
	FABRICX=$(abspath $(BIN)) sh tests/cli/plots.sh
	FABRICX=$(abspath $(BIN)) sh tests/cli/space.sh
	FABRICX=$(abspath $(BIN)) sh tests/cli/fail.sh
	FABRICX=$(abspath $(BIN)) sh tests/cli/ocs.sh
	FABRICX=$(abspath $(BIN)) sh tests/cli/plan.sh
	FABRICX=$(abspath $(BIN)) sh tests/cli/interop.sh
	FABRICX=$(abspath $(BIN)) sh tests/cli/jobs.sh
	FABRICX=$(abspath $(BIN)) sh tests/cli/contracts.sh
	FABRICX=$(abspath $(BIN)) sh tests/cli/golden.sh

# The peers themselves (tests/peer/*.sh): each runs where its peer is
# installed and says "skipped" where it is not; PEER_REQUIRED=1 (CI) makes
# a missing peer a failure.
san-check: deps
	@$(MAKE) --no-print-directory BUILD=build-san OPT=-O1 WERROR=-Werror \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  all build-san/check_fabricx unit cli-test fuzz-replay

# The CLI tests and issue #25's contracts, hostile paths and missing tools
# once more with every fabricx run under valgrind (tests/tools/vg-fabricx):
# an invalid access or a leak fails the test.  Two halves that `make -j2`
# runs side by side (CI does); the build is theirs, made once.
VG_RUN = FABRICX=$(abspath tests/tools/vg-fabricx) FABRICX_REAL=$(abspath $(BIN))
valgrind-check: valgrind-cli valgrind-hardening
valgrind-build:
	@$(MAKE) --no-print-directory WERROR=-Werror all
valgrind-cli: valgrind-build
	$(VG_RUN) sh tests/cli/run.sh
valgrind-hardening: valgrind-build
	$(VG_RUN) sh tests/cli/contracts.sh
	$(VG_RUN) sh tests/hardening/tools.sh
	$(VG_RUN) sh tests/hardening/attack.sh

# ---- the SimGrid peer suite (tests/peer/README.md) ----
# Each case's schedule (tests/peer/schedule.c, against the library) runs
# on its SimGrid platform (tests/peer/twin.cpp) and under fabricx's timing
# modes.  Skipped, saying so, where SimGrid is not installed.
$(BUILD)/peer/schedule: $(BUILD)/tests/peer/schedule.o $(BUILD)/libfabricx.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -o $@ $^ $(PKG_LIBS)
$(BUILD)/peer/twin: tests/peer/twin.cpp
	@mkdir -p $(dir $@)
	$(CXX) -O2 -std=c++17 -Wall -Wextra $(WERROR) -o $@ $< $(shell pkg-config --libs simgrid 2>/dev/null)

# NetworkX reads every exported graph (tests/peer/networkx.sh); SimGrid runs
# the timing cases.  A peer that is not installed is skipped, saying so,
# unless PEER_REQUIRED=1 (CI), where it fails.
peer-check: deps
	@$(MAKE) --no-print-directory WERROR=-Werror $(BIN)
	FABRICX=$(abspath $(BIN)) sh tests/peer/networkx.sh
	@if ! pkg-config --exists simgrid; then \
	  if [ "$${PEER_REQUIRED:-0}" = 1 ]; then echo "peer-check: SimGrid is not installed" >&2; exit 1; fi; \
	  echo "peer-check: SimGrid not installed (apt-get install libsimgrid-dev simgrid): skipped"; exit 0; fi; \
	$(MAKE) --no-print-directory WERROR=-Werror $(BIN) $(BUILD)/peer/schedule $(BUILD)/peer/twin && \
	FABRICX=$(abspath $(BIN)) SCHEDULE=$(abspath $(BUILD)/peer/schedule) TWIN=$(abspath $(BUILD)/peer/twin) \
	  PEER_OUT=$(BUILD)/peer sh tests/peer/run.sh && \
	FABRICX=$(abspath $(BIN)) SCHEDULE=$(abspath $(BUILD)/peer/schedule) TWIN=$(abspath $(BUILD)/peer/twin) \
	  PEER_OUT=$(BUILD)/peer sh tests/peer/simgrid_export.sh && \
	FABRICX=$(abspath $(BIN)) PEER_OUT=$(BUILD)/peer sh tests/peer/smpi_export.sh

# ---- fuzzing (docs/reliability.md) ----
# Two targets: spec (fuzz/fuzz_spec.c: the loader, --set, every spec family)
# and args (fuzz/fuzz_args.c: the command line of metrics, collective and
# power), and import (fuzz/fuzz_import.c: the peers' files).  fuzz/corpus[-args]: seeds plus what the fuzzer kept;
# fuzz/regress[-args]: every input that once crashed or hung.
FUZZ_TIME   ?= 600
FUZZ_TARGET ?= spec
FUZZ_SUFFIX  = $(if $(filter spec,$(1)),,-$(1))
FUZZ_DIRS    = fuzz/corpus$(call FUZZ_SUFFIX,$(1)) fuzz/regress$(call FUZZ_SUFFIX,$(1))

# the spec target uses the library alone (fx_design_load), the args target
# drives the commands, so it links the CLI's objects too
FUZZ_CLI     = $(if $(filter spec import,$(1)),,$(CLI_LIB_OBJ:$(BUILD)/%=$(2)/%))

$(BUILD)/fuzz/replay-spec: $(BUILD)/fuzz/fuzz_spec.o $(BUILD)/fuzz/replay.o $(BUILD)/libfabricx.a
	$(CC) $(CFLAGS_BASE) -o $@ $^ $(PKG_LIBS)
$(BUILD)/fuzz/replay-import: $(BUILD)/fuzz/fuzz_import.o $(BUILD)/fuzz/replay.o $(BUILD)/libfabricx.a
	$(CC) $(CFLAGS_BASE) -o $@ $^ $(PKG_LIBS)
$(BUILD)/fuzz/replay-args: $(BUILD)/fuzz/fuzz_args.o $(BUILD)/fuzz/replay.o $(CLI_LIB_OBJ) $(BUILD)/libfabricx.a
	$(CC) $(CFLAGS_BASE) -o $@ $^ $(PKG_LIBS) $(MPI_LIBS)

# fuzz/spec.dict from the sources' keys, units and docs/output.md's fields
fuzz-dict: $(BIN)
	sh fuzz/gen-spec-dict.sh > fuzz/spec.dict.tmp && mv fuzz/spec.dict.tmp fuzz/spec.dict
	sh fuzz/gen-args-dict.sh ./$(BIN) > fuzz/args.dict.tmp && mv fuzz/args.dict.tmp fuzz/args.dict

fuzz-replay: $(BUILD)/fuzz/replay-spec $(BUILD)/fuzz/replay-args $(BUILD)/fuzz/replay-import
	$(BUILD)/fuzz/replay-spec $(call FUZZ_DIRS,spec)
	$(BUILD)/fuzz/replay-args $(call FUZZ_DIRS,args)
	$(BUILD)/fuzz/replay-import $(call FUZZ_DIRS,import)

# libFuzzer needs clang and its runtime (Debian: clang, libclang-rt-14-dev).
fuzz-deps:
	@$(MAKE) --no-print-directory deps DEB_PKGS="clang libclang-rt-14-dev"

build-fuzz/fuzz_%: fuzz-deps
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang OPT=-O1 \
	  SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  build-fuzz/libfabricx.a $(call FUZZ_CLI,$*,build-fuzz) build-fuzz/fuzz/fuzz_$*.o
	clang -g -fsanitize=fuzzer,address,undefined -o $@ build-fuzz/fuzz/fuzz_$*.o \
	  $(call FUZZ_CLI,$*,build-fuzz) build-fuzz/libfabricx.a $(PKG_LIBS) $(MPI_LIBS)

# Runs FUZZ_TARGET for FUZZ_TIME seconds; new inputs go to
# build-fuzz/corpus-TARGET (merge the interesting ones into fuzz/), crashes
# and hangs to build-fuzz/TARGET-crash-* and -timeout-*.
fuzz: build-fuzz/fuzz_$(FUZZ_TARGET)
	@mkdir -p build-fuzz/corpus-$(FUZZ_TARGET)
	build-fuzz/fuzz_$(FUZZ_TARGET) -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 \
	  -max_len=4096 -dict=fuzz/$(FUZZ_TARGET).dict -artifact_prefix=build-fuzz/$(FUZZ_TARGET)- \
	  $(if $(filter args,$(FUZZ_TARGET)),-close_fd_mask=2) \
	  build-fuzz/corpus-$(FUZZ_TARGET) $(call FUZZ_DIRS,$(FUZZ_TARGET))

# docs/gallery.md and its pictures in out/gallery/ (not in git; docs/gallery.sh)
gallery: all
	sh docs/gallery.sh

# rewrites docs/performance.md's marked tables (bench/doc.sh)
bench-doc: all
	sh bench/doc.sh

bench: all
	sh bench/run.sh
	sh bench/place.sh
	sh bench/step.sh

# ---- install (README: "Installing") ----
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR      = $(PREFIX)/bin
LIBDIR      = $(PREFIX)/lib
INCDIR      = $(PREFIX)/include
MANDIR      = $(PREFIX)/share/man/man1
BASHCOMPDIR = $(PREFIX)/share/bash-completion/completions
# The install paths reach the recipes' shell as data: exported, and read
# there as "$$PREFIX" (quoted), never pasted into the command text by make,
# so a space, a quote, ';' or '$(...)' in them is part of a file name.
export PREFIX DESTDIR BINDIR LIBDIR INCDIR MANDIR BASHCOMPDIR
# The public headers: fabricx.h and what it includes, no more (issue #26),
# with their folder layout kept so their relative includes hold, under
# include/fabricx/.  A module's other headers (routing/internal.h, the
# *_internal.h, the CLI's) are the library's own business; a header added
# to fabricx.h's includes is added here, and tests/cli/install.sh fails
# until it is (it compiles each installed header alone).
PUB_HDR := fabricx.h bom/bom.h core/diag.h core/json.h core/sink.h core/table.h core/units.h \
	core/version.h core/xalloc.h design/design.h fabric/fabric.h interop/interop.h \
	placement/model.h placement/placement.h plan/plan.h power/power.h report/report.h routing/routing.h \
	space/space.h spec/spec.h step/step.h
# what install writes under $$LIBDIR (the headers apart)
LIB_FILES := libfabricx.a libfabricx.so $(SO_NAME) $(SO_FILE) pkgconfig/fabricx.pc

# Refuses an install root that is no place to install: a PREFIX that is
# not absolute, a PREFIX or DESTDIR holding a newline, or one (or the two
# joined) that resolves to / (`uninstall` would empty /bin and /lib).
CHECK_ROOT = nl=$$(printf '\nx'); nl=$${nl%x}; \
	for v in PREFIX DESTDIR; do \
	  eval "val=\$$$$v"; \
	  case $$val in *"$$nl"*) echo "make: $$v holds a newline; refused" >&2; exit 2;; esac; \
	done; \
	case $$PREFIX in /*) ;; *) echo "make: PREFIX must be an absolute path, not '$$PREFIX'" >&2; exit 2;; esac; \
	for r in "$$PREFIX" "$${DESTDIR:-.}" "$$DESTDIR$$PREFIX"; do \
	  if [ "$$(realpath -m -- "$$r")" = / ]; then \
	    echo "make: refused to install into / (PREFIX='$$PREFIX' DESTDIR='$$DESTDIR')" >&2; exit 2; fi; \
	done

# fabricx.pc: PREFIX copied in as data (awk reads it from the environment),
# its spaces and backslashes escaped as pkg-config reads them ("\ ").
$(BUILD)/fabricx.pc: fabricx.pc.in core/version.h FORCE
	@mkdir -p $(BUILD)
	@FX_PC_VERSION='$(RELEASE)' FX_PC_MPI='$(if $(MPI_LIBS),ompi-c)' awk 'function subst(s, k, v,  o, i) { o = ""; \
	  while ((i = index(s, k)) > 0) { o = o substr(s, 1, i - 1) v; s = substr(s, i + length(k)) } return o s } \
	  BEGIN { p = ENVIRON["PREFIX"]; gsub(/[\\ ]/, "\\\\&", p) } \
	  { print subst(subst(subst($$0, "@PREFIX@", p), "@VERSION@", ENVIRON["FX_PC_VERSION"]), "@MPI@", ENVIRON["FX_PC_MPI"]) }' \
	  fabricx.pc.in > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

# The man page and completion come from the binary's own --help output,
# which the command table and each command's option table print: they
# cannot drift from it (docs/gen-man.sh, docs/gen-completion.sh).
$(BUILD)/fabricx.1: $(BIN) docs/gen-man.sh
	sh docs/gen-man.sh ./$(BIN) > $@.tmp && mv $@.tmp $@
$(BUILD)/fabricx.bash: $(BIN) docs/gen-completion.sh
	sh docs/gen-completion.sh ./$(BIN) > $@.tmp && mv $@.tmp $@

install: all $(BUILD)/fabricx.pc $(BUILD)/fabricx.1 $(BUILD)/fabricx.bash
	@$(CHECK_ROOT)
	install -d -- "$$DESTDIR$$BINDIR" "$$DESTDIR$$LIBDIR/pkgconfig" "$$DESTDIR$$MANDIR" \
	  "$$DESTDIR$$BASHCOMPDIR" "$$DESTDIR$$INCDIR/fabricx"
	install -m 755 -- $(BIN) "$$DESTDIR$$BINDIR/fabricx"
	install -m 644 -- $(BUILD)/libfabricx.a "$$DESTDIR$$LIBDIR/libfabricx.a"
	install -m 755 -- $(BUILD)/$(SO_FILE) "$$DESTDIR$$LIBDIR/$(SO_FILE)"
	ln -sf -- $(SO_FILE) "$$DESTDIR$$LIBDIR/$(SO_NAME)"
	ln -sf -- $(SO_NAME) "$$DESTDIR$$LIBDIR/libfabricx.so"
	install -m 644 -- $(BUILD)/fabricx.pc "$$DESTDIR$$LIBDIR/pkgconfig/fabricx.pc"
	install -m 644 -- $(BUILD)/fabricx.1 "$$DESTDIR$$MANDIR/fabricx.1"
	install -m 644 -- $(BUILD)/fabricx.bash "$$DESTDIR$$BASHCOMPDIR/fabricx"
	for h in $(PUB_HDR); do \
	  install -d -- "$$DESTDIR$$INCDIR/fabricx/$$(dirname $$h)" && \
	  install -m 644 -- $$h "$$DESTDIR$$INCDIR/fabricx/$$h" || exit 1; \
	done

# Removes exactly what install wrote, then the folders it made if empty.
uninstall:
	@$(CHECK_ROOT)
	rm -f -- "$$DESTDIR$$BINDIR/fabricx" "$$DESTDIR$$MANDIR/fabricx.1" "$$DESTDIR$$BASHCOMPDIR/fabricx"
	for f in $(LIB_FILES); do rm -f -- "$$DESTDIR$$LIBDIR/$$f"; done
	for h in $(PUB_HDR); do rm -f -- "$$DESTDIR$$INCDIR/fabricx/$$h"; done
	for d in $(filter-out .,$(sort $(patsubst %/,%,$(dir $(PUB_HDR))))); do \
	  rmdir -- "$$DESTDIR$$INCDIR/fabricx/$$d" 2>/dev/null || true; done
	for d in "$$INCDIR/fabricx" "$$INCDIR" "$$LIBDIR/pkgconfig" "$$LIBDIR" "$$BINDIR" \
	  "$$MANDIR" "$$PREFIX/share/man" "$$BASHCOMPDIR" "$$PREFIX/share/bash-completion" "$$PREFIX/share"; do \
	  rmdir -- "$$DESTDIR$$d" 2>/dev/null || true; done

# docs/example.c: against an installed fabricx when EXAMPLE_PC names the
# folder of its fabricx.pc, else against this tree's headers and library.
EXAMPLE_PC ?=
example: $(if $(EXAMPLE_PC),,$(BUILD)/libfabricx.a)
	$(if $(EXAMPLE_PC),PKG_CONFIG_PATH=$(EXAMPLE_PC) $(CC) $(CFLAGS_BASE) -o $(BUILD)/example docs/example.c \
	  $$(PKG_CONFIG_PATH=$(EXAMPLE_PC) pkg-config --cflags --libs fabricx) $(LDFLAGS),\
	  $(CC) $(CFLAGS_BASE) -I. $(PKG_CFLAGS) -o $(BUILD)/example docs/example.c $(BUILD)/libfabricx.a $(PKG_LIBS))

clean:
	rm -rf build build-san build-fuzz fabricx
