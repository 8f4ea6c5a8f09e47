# vmscope — plain Makefile (nnn's is the model). GNU make.
#
#   make            build ./vmscope
#   make demo       install missing Debian packages, build, run on a demo
#   make check      install missing Debian packages, build, run every test,
#                   then again under AddressSanitizer + UBSan
#   make test       the tests on the normal build only (quicker)
#   make bench      benchmarks (print figures beside their references)
#   make fuzz       bounded libFuzzer run of the parsers and the heap walker
#   make install / uninstall   (PREFIX, DESTDIR; BINDIR, LIBDIR, DATADIR,
#                   MANDIR, UNITDIR each on its own)
#   make deb        the Debian package, build/deb/vmscope_VERSION_ARCH.deb
#   make debroot    the Debian 12 root test_deb installs it into (kept)
#   make check-unpriv  the hostile-target suite as an unprivileged user
#   make freshcheck demo and check in a fresh Debian 12 root (debootstrap;
#                   FRESHROOT=DIR, default build/freshroot; about 50 min)
#   make checkloop  make check N times in a row (N=10), a log a run

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
LIBDIR ?= $(PREFIX)/lib
MANDIR ?= $(DATADIR)/man
UNITDIR ?= $(PREFIX)/lib/systemd/system
PKG_CONFIG ?= pkg-config
CC ?= cc
# The version is the file VERSION's, and only there (the binary's
# --version, the package's, CHANGELOG.md's newest entry: test_version).
VERSION := $(shell cat VERSION)

# jansson: the JSON part of snapshot files; libzstd: their compression;
# libdw: the layout of a Go program's runtime from its DWARF (goheap.h).
# libbpf: the mmap family of a running process traced from the kernel
# (src/trace/bpfmaps.h).
PKGS := ncursesw libproc2 jansson libzstd libdw libbpf
DEP_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
DEP_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
# libelf: the unit tests link it as an independent check of the engine's
# own ELF reader (src/elf/elfimage.h says why the engine reads ELF
# itself); vmscope links it only as libdw's, from its static archive
# (below).
TEST_LIBS := $(shell $(PKG_CONFIG) --libs libelf 2>/dev/null)

WARN := -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
	-Wformat=2 -Wpointer-arith -Wundef -Wvla
ifeq ($(CI),true)
WARN += -Werror
endif
ifneq ($(WERROR),)
WARN += -Werror
endif

OPT ?= -O2 -g
CFLAGS ?= $(OPT)
# The engine's folders are its layers, lowest first (docs/internals.md);
# each uses only the folders before it (tests/code/test_layers.py).
# Headers are included by their path under src/ ("model/snapshot.h").
SRC_DIRS := src/base src/elf src/model src/linux src/capture/ptrace \
	src/capture/file src/capture src/trace src/analyze src/analyze/heaps \
	src/analyze/runtimes src/export src
INC := -Isrc

ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(INC) -DVMSCOPE_VERSION='"$(VERSION)"' \
	-DVMSCOPE_DATADIR='"$(DATADIR)/vmscope"' \
	-DVMSCOPE_LIBDIR='"$(LIBDIR)/vmscope"' \
	$(WARN) $(DEP_CFLAGS) $(CPPFLAGS) $(CFLAGS) -MMD -MP

B := build
ifeq ($(SAN),1)
B := build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
ALL_CFLAGS += $(SANFLAGS)
LDFLAGS += $(SANFLAGS)
# vmscope-san not position-independent, its sanitizer runtimes linked in:
# its 119,000 relative relocations (the sanitizers' tables) cost every
# start 30 ms of 210 (when it started twice, from copies of its libraries:
# src/linux/selfcopy.h), the copies of libasan and libubsan another 35,
# and make check's second pass starts it thousands of times. The targets
# stay as built.
PROG_LDFLAGS := -no-pie -static-libasan -static-libubsan
endif

# libproc2 from its static archive where its -dev package has one (Debian's
# does): the shared one maps libsystemd and four more libraries for a
# process's systemd fields, which vmscope never asks for, and each library
# mapped is copied at every start (src/linux/selfcopy.h): 23.7-27.8 ms a
# `vmscope -s` with them, 17.9-21.1 without (perf stat, 40 runs, when the
# copies were memfds and a second start). The
# systemd functions the archive refers to are link/nosystemd.c's.
# Only an archive that links as it is, with those functions (a test link
# of its process reader: another build of it, asking libsystemd for more
# or needing -ldl, is left for the shared library). PROC2_A= on the
# command line links the shared one.
PROC2_A ?= $(wildcard $(shell $(PKG_CONFIG) --variable=libdir libproc2 \
	2>/dev/null)/libproc2.a)
ifneq ($(PROC2_A),)
PROC2_A := $(shell printf 'int main(void){return 0;}\n' | $(CC) -x c - \
	-x none -Wl,-u,procps_pids_new link/nosystemd.c link/nonuma.c \
	$(PROC2_A) \
	-o /dev/null 2>/dev/null && echo $(PROC2_A))
endif
ifneq ($(PROC2_A),)
# and its NUMA hooks link/nonuma.c's (before the archive: its numa.o, which
# dlopens libnuma, is then never pulled).
NOSD_OBJ := $(B)/link/nosystemd.o $(B)/link/nonuma.o
DEP_LIBS := $(patsubst -lproc2,$(NOSD_OBJ) $(PROC2_A),$(DEP_LIBS))
endif

# jansson, libzstd, libdw (with what it needs: libelf, zlib, bzip2, xz)
# and libbpf from their static archives where the -dev packages have them
# (Debian's do): every page of each library vmscope maps is copied at every
# start (src/linux/selfcopy.h), about 0.7 ms a MB. Without these seven a
# capture of a small process took 23 ms instead of 29 (perf stat -r 30,
# chrt -f, when the copies were memfds and a second start). Only archives
# that link as they are (a test link asking for a function of each);
# STATIC_PKGS= on the command line links them shared.
STATIC_PKGS ?= jansson libzstd libdw libbpf
# ncursesw and tinfo the same way, on their own (a system without their
# archives keeps the others static): 0.4 MB less to copy, and vmscope
# maps libc and the loader alone. STATIC_UI= links them shared.
STATIC_UI ?= ncursesw

# $(call static_archives,PKGS,SYMBOLS): DEP_LIBS with PKGS taken from
# their static archives, when a test link asking for SYMBOLS links so;
# else DEP_LIBS as it is.
static_lflags = $(filter-out -pthread -lpthread -ldl -lm, \
	$(shell $(PKG_CONFIG) --static --libs $(1) 2>/dev/null))
static_links = $(shell printf 'int main(void){return 0;}\n' | $(CC) -x c - \
	-x none $(2:%=-Wl,-u,%) -Wl,-Bstatic $(1) -Wl,-Bdynamic -lpthread \
	-o /dev/null 2>/dev/null && echo yes)
comma := ,
static_archives = $(if $(1),$(if $(call static_links,$(call \
	static_lflags,$(1)),$(2)),$(filter-out $(shell $(PKG_CONFIG) --libs \
	$(1)),$(DEP_LIBS)) -Wl$(comma)-Bstatic $(call static_lflags,$(1)) \
	-Wl$(comma)-Bdynamic,$(DEP_LIBS)),$(DEP_LIBS))

DEP_LIBS := $(call static_archives,$(STATIC_PKGS),json_loads \
	ZSTD_decompress dwfl_begin bpf_object__open_skeleton)
DEP_LIBS := $(call static_archives,$(STATIC_UI),initscr setupterm)

ENGINE_SRC := $(wildcard $(SRC_DIRS:%=%/*.c))
# The UI's folders are its layers too, lowest first: core (the loop's
# types, drawing, themes, the shared list), the viewer's panes, the
# screens, then ui/ itself (ui.c: the loop and the table of screens).
# Headers are included by their path under ui/ ("core/draw.h").
UI_DIRS := ui/core ui/panes ui/screens ui
UI_SRC := $(wildcard $(UI_DIRS:%=%/*.c))
ENGINE_OBJ := $(ENGINE_SRC:%.c=$(B)/%.o)
UI_OBJ := $(UI_SRC:%.c=$(B)/%.o)
# the command line (cli/): the one place that knows the engine and the UI
MAIN_SRC := $(wildcard cli/*.c)
MAIN_OBJ := $(MAIN_SRC:%.c=$(B)/%.o)
LIBVMS := $(B)/libvms.a

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
TARGET_SRC := $(wildcard tests/targets/*.c)
TARGET_BIN := $(TARGET_SRC:tests/targets/%.c=$(B)/targets/%)
TARGET_CXX := $(wildcard tests/targets/*.cc)
TARGET_BIN += $(TARGET_CXX:tests/targets/%.cc=$(B)/targets/%)

# The binary is always ./vmscope; a sanitizer build is ./vmscope-san so the
# two never overwrite each other.
ifeq ($(SAN),1)
PROG := vmscope-san
else
PROG := vmscope
endif

# The tracer (trace/vmstrace.c): preloaded into a command vmscope traces,
# so built as the programs it enters are, never with the sanitizers; it
# unwinds by the .eh_frame every Debian library has, with its own walk
# (trace/unwind.c) and libunwind where that declines.
TRACE_LIB := $(B)/libvmstrace.so

.PHONY: all check test demo bench fuzz install uninstall install-list clean \
	deps nodes tests format deb debroot check-unpriv freshcheck checkloop \
	attach-trials tsan FORCE

all: $(PROG) $(TRACE_LIB)

# $(B)/static names the packages asked to link static, for
# tests/code/test_static_link.py: a missing archive links them shared,
# silently (a fresh Debian root without libbz2-dev did).
$(PROG): $(MAIN_OBJ) $(UI_OBJ) $(LIBVMS) $(NOSD_OBJ)
	$(CC) $(LDFLAGS) $(PROG_LDFLAGS) -o $@ $(MAIN_OBJ) $(UI_OBJ) $(LIBVMS) $(DEP_LIBS) -lpthread
	@printf 'STATIC_PKGS=%s\nSTATIC_UI=%s\n' '$(STATIC_PKGS)' '$(STATIC_UI)' \
		>$(B)/static

$(LIBVMS): $(ENGINE_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(UI_OBJ): ALL_CFLAGS += -Iui

# The eBPF half of src/trace/bpfmaps.c (trace/bpf/bpfmaps.bpf.c): compiled
# by clang for the running kernel's types (vmlinux.h from its BTF: CO-RE,
# relocated by libbpf where it loads), embedded as a skeleton header
# ("trace/bpf/bpfmaps.skel.h" under $(B)/gen).
BPF_DIR := $(B)/gen/trace/bpf
$(BPF_DIR)/vmlinux.h:
	@mkdir -p $(dir $@)
	bpftool btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp
	mv $@.tmp $@
$(BPF_DIR)/bpfmaps.bpf.o: src/trace/bpf/bpfmaps.bpf.c \
	src/trace/bpf/bpfmaps_event.h $(BPF_DIR)/vmlinux.h
	clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$(BPF_DIR) -c -o $@ $<
$(BPF_DIR)/bpfmaps.skel.h: $(BPF_DIR)/bpfmaps.bpf.o
	bpftool gen skeleton $< name bpfmaps_bpf > $@.tmp
	mv $@.tmp $@
$(B)/src/trace/bpfmaps.o: $(BPF_DIR)/bpfmaps.skel.h
$(B)/src/trace/bpfmaps.o: ALL_CFLAGS += -I$(B)/gen

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The sources that use the version or the install paths are compiled again
# when one of them changes (make PREFIX=/usr after make): $(B)/defines
# holds them, rewritten only when they differ.
DEFINES := $(VERSION) $(DATADIR) $(LIBDIR)
DEF_USERS := $(shell grep -lE 'VMSCOPE_(VERSION|DATADIR|LIBDIR)' \
	$(ENGINE_SRC) $(UI_SRC) $(MAIN_SRC) 2>/dev/null)
$(DEF_USERS:%.c=$(B)/%.o): $(B)/defines
$(B)/defines: FORCE
	@mkdir -p $(B)
	@printf '%s\n' '$(DEFINES)' | cmp -s - $@ || \
		printf '%s\n' '$(DEFINES)' >$@
FORCE:

$(B)/tests/%: tests/unit/%.c $(LIBVMS) $(NOSD_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIBVMS) $(LDFLAGS) $(DEP_LIBS) \
		$(TEST_LIBS) -lpthread -lm

# Test targets are plain programs: no sanitizer, so they behave like the
# processes users point vmscope at.
$(B)/targets/%: tests/targets/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -Wall -o $@ $< -lpthread

# CFLAGS too (a sanitizer's left out), after -O2 -g: the package's build
# gives Debian's (dpkg-buildflags: the stack protector, the build path
# mapped out of the debug information) to the library as to the binary.
TRACE_LIB_CMD = $(CC) -std=gnu11 -O2 -g $(filter-out -fsanitize=%,$(CFLAGS)) \
	-fPIC -shared -fvisibility=hidden \
	-fexceptions -ftls-model=initial-exec -Isrc $(WARN) $(CPPFLAGS) \
	$(filter-out $(SANFLAGS),$(LDFLAGS)) -o $@ $(wildcard trace/*.c) \
	$(shell $(PKG_CONFIG) --libs libunwind 2>/dev/null || \
		echo -lunwind) -ldl -lpthread -lm

$(TRACE_LIB): $(wildcard trace/*.c trace/*.h) src/base/tracewire.h
	@mkdir -p $(dir $@)
	$(TRACE_LIB_CMD)

# The library as another vmscope version built it (its file's version 2):
# test_trace_attach_more's attach through it is refused, saying so.
TRACE_LIB_OTHER := $(B)/tests/libvmstrace_v2.so
$(TRACE_LIB_OTHER): $(wildcard trace/*.c trace/*.h) src/base/tracewire.h
	@mkdir -p $(dir $@)
	$(TRACE_LIB_CMD) -DTW_VERSION=2u

# The tracer's own stack walk against libunwind's, in one process
# (tests/live/test_unwind.py): built as Debian builds, no frame pointers.
$(B)/targets/unwind_compare: tests/targets/unwind_compare.c trace/unwind.c \
	trace/unwind_eh.c trace/unwind.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -fomit-frame-pointer -Wall -Itrace -o $@ \
		tests/targets/unwind_compare.c trace/unwind.c \
		trace/unwind_eh.c $(shell $(PKG_CONFIG) --libs libunwind 2>/dev/null || \
			echo -lunwind) -ldl -lpthread

# C++ targets (the tracer's): as Debian builds, without frame pointers.
$(B)/targets/%: tests/targets/%.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -fomit-frame-pointer -Wall -o $@ $<

tests: $(PROG) $(TRACE_LIB) $(TRACE_LIB_OTHER) $(UNIT_BIN) $(TARGET_BIN)

deps:
	@sh scripts/deps.sh

# The nodes test_v8 runs against beside the installed one (scripts/nodes.sh:
# Debian's 18, and 20 and 22 from npm's registry without npm; the
# network to Debian's archive and npm's registry the first time, then
# kept under build/nodes; without it test_v8 runs against what there is
# and says what it did not).
nodes:
	-@BUILD=$(B) sh scripts/nodes.sh

# check: every test on the normal build, then again on the ASan+UBSan
# build (what CI runs). test: the normal build only, for quick turns.
# The code checks (tests/code: layering, format) read the sources and the
# objects' symbols, the same on both builds: they run on the first pass.
NPROC := $(shell nproc 2>/dev/null || echo 2)
# (nodes, mostly a download, beside the build, in a job of its own)
check: deps
	$(MAKE) -j$$(($(NPROC) + 1)) tests nodes
	VMSCOPE=./$(PROG) BUILD=$(B) sh tests/run.sh
ifneq ($(SAN),1)
	$(MAKE) -j$(NPROC) SAN=1 tests
	VMSCOPE=./vmscope-san BUILD=build-san CODE_CHECKS=0 CHECK_PASS=2 sh tests/run.sh
endif

test: deps
	$(MAKE) tests
	VMSCOPE=./$(PROG) BUILD=$(B) sh tests/run.sh

# tsan: --all's two threads (cli/run_all.c, the reader ahead) and the
# capture that takes its reader, and -F's readers made before the freeze
# and held until it (sampler_prep_smaps), under ThreadSanitizer (a race reported
# exits 66: the test fails). By hand, not in check: a third build of
# everything. selfcopy cannot run under TSan: VMSCOPE_SHARED_LIBS=1.
tsan: deps
	$(MAKE) -j$(NPROC) SAN=1 B=build-tsan PROG=vmscope-tsan \
		SANFLAGS="-fsanitize=thread -fno-omit-frame-pointer" tests
	VMSCOPE_SHARED_LIBS=1 VMSCOPE=./vmscope-tsan BUILD=build-tsan \
		CODE_CHECKS=0 TESTS="live/test_all_openmetrics \
		live/test_all_elfcache unit/test_seen live/test_rollup \
		unit/test_readahead unit/test_prep" sh tests/run.sh

demo: deps
	$(MAKE) $(PROG) $(B)/targets/demo
	./$(PROG) -s -- $(B)/targets/demo
	@test -t 1 && ./$(PROG) -- $(B)/targets/demo || true

bench: deps
	$(MAKE) tests
	VMSCOPE=./$(PROG) BUILD=$(B) sh tests/bench/run.sh

FUZZ_SECONDS ?= 60
# what a harness finds (crash-, leak-, slow-unit- files) goes to build-fuzz/,
# not the top of the tree
FUZZ_ART := -artifact_prefix=build-fuzz/
FUZZ_CC := clang -std=c11 -D_GNU_SOURCE -g -O1 \
	-fsanitize=fuzzer,address,undefined $(INC)
FUZZERS := build-fuzz/fuzz_smaps build-fuzz/fuzz_elf build-fuzz/fuzz_text \
	build-fuzz/fuzz_heap build-fuzz/fuzz_snapfile build-fuzz/fuzz_core \
	build-fuzz/fuzz_hsperf build-fuzz/fuzz_rtheap build-fuzz/fuzz_scan \
	build-fuzz/fuzz_pmscan build-fuzz/fuzz_alloc
fuzz: deps
	$(MAKE) $(FUZZERS) build-fuzz/seed.elf build-fuzz/seed.so
	@mkdir -p build-fuzz/corpus build-fuzz/corpus-elf build-fuzz/corpus-snap
	cp tests/fixtures/*.smaps tests/fixtures/*.maps build-fuzz/corpus/
	cp build-fuzz/seed.elf build-fuzz/seed.so build-fuzz/corpus-elf/
	cp tests/fixtures/*.vms build-fuzz/corpus-snap/
	@mkdir -p build-fuzz/corpus-core
	cp tests/fixtures/*.core build-fuzz/corpus-core/
	build-fuzz/fuzz_smaps -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ART) -rss_limit_mb=2048 \
		-timeout=20 -print_final_stats=1 build-fuzz/corpus
	build-fuzz/fuzz_elf -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ART) -rss_limit_mb=2048 \
		-timeout=20 -max_len=65536 -print_final_stats=1 \
		build-fuzz/corpus-elf
	# 256 MB is what a loader may hold of a 64 KiB file; ASan's
	# quarantine of freed memory (256 MB by default) is kept out of it,
	# or a run of minutes ends "out of memory" at 258 MB of freed blocks
	ASAN_OPTIONS=quarantine_size_mb=32 \
	build-fuzz/fuzz_snapfile -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ART) \
		-rss_limit_mb=256 -malloc_limit_mb=128 -timeout=20 \
		-max_len=65536 \
		-print_final_stats=1 build-fuzz/corpus-snap
	@mkdir -p build-fuzz/corpus-text
	build-fuzz/fuzz_text -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ART) -rss_limit_mb=2048 \
		-timeout=20 -max_len=8192 -print_final_stats=1 \
		build-fuzz/corpus-text tests/fixtures/text
	@mkdir -p build-fuzz/corpus-heap
	build-fuzz/fuzz_heap -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ART) -rss_limit_mb=2048 \
		-timeout=20 -max_len=4096 -print_final_stats=1 \
		build-fuzz/corpus-heap tests/fixtures/fuzz-heap
	build-fuzz/fuzz_core -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ART) -rss_limit_mb=2048 \
		-timeout=20 -max_len=65536 -print_final_stats=1 \
		build-fuzz/corpus-core
	@mkdir -p build-fuzz/corpus-hsperf
	cp tests/fixtures/*.hsperf build-fuzz/corpus-hsperf/
	build-fuzz/fuzz_hsperf -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ART) \
		-rss_limit_mb=2048 -timeout=20 -max_len=65536 \
		-print_final_stats=1 build-fuzz/corpus-hsperf
	@mkdir -p build-fuzz/corpus-rtheap
	build-fuzz/fuzz_rtheap -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ART) -rss_limit_mb=2048 \
		-timeout=20 -max_len=4096 -print_final_stats=1 \
		build-fuzz/corpus-rtheap
	@mkdir -p build-fuzz/corpus-scan
	build-fuzz/fuzz_scan -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ART) -rss_limit_mb=2048 \
		-timeout=20 -max_len=65536 -print_final_stats=1 \
		build-fuzz/corpus-scan
	@mkdir -p build-fuzz/corpus-pmscan
	cp tests/fixtures/*.maps build-fuzz/corpus-pmscan/
	build-fuzz/fuzz_pmscan -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ART) \
		-rss_limit_mb=2048 -timeout=20 -max_len=65536 \
		-print_final_stats=1 build-fuzz/corpus-pmscan
	@mkdir -p build-fuzz/corpus-alloc
# its inputs damage nothing under 13 bytes, and it runs some a
# second: long inputs from the first run (-len_control=0)
	build-fuzz/fuzz_alloc -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ART) -rss_limit_mb=2048 \
		-timeout=20 -max_len=4096 -len_control=0 -print_final_stats=1 \
		build-fuzz/corpus-alloc

# The harnesses link an engine built once for them (not libvms.a: its
# objects are not instrumented for the fuzzer): each engine source compiled
# with coverage and the sanitizers into build-fuzz/obj/, archived.
FUZZ_OBJ_CC := clang -std=c11 -D_GNU_SOURCE -g -O1 \
	-fsanitize=fuzzer-no-link,address,undefined $(INC)
FUZZ_OBJ := $(ENGINE_SRC:%.c=build-fuzz/obj/%.o)
FUZZ_LIB := build-fuzz/libvms-fuzz.a

build-fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_OBJ_CC) $(DEP_CFLAGS) -MMD -MP -c -o $@ $<

build-fuzz/obj/src/trace/bpfmaps.o: $(BPF_DIR)/bpfmaps.skel.h
build-fuzz/obj/src/trace/bpfmaps.o: DEP_CFLAGS += -I$(B)/gen

$(FUZZ_LIB): $(FUZZ_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

-include $(FUZZ_OBJ:.o=.d)

build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB) $(NOSD_OBJ)
	@mkdir -p build-fuzz
	$(FUZZ_CC) $(DEP_CFLAGS) -o $@ $< $(FUZZ_LIB) $(DEP_LIBS) -lpthread

# fuzz_text also parses theme files: the viewer's theme.c, with curses.
build-fuzz/fuzz_text: tests/fuzz/fuzz_text.c ui/core/theme.c ui/core/theme.h $(FUZZ_LIB) \
	$(NOSD_OBJ)
	@mkdir -p build-fuzz
	$(FUZZ_CC) -Iui $(DEP_CFLAGS) -DVMSCOPE_DATADIR='"/nonexistent"' -o $@ $< \
		ui/core/theme.c $(FUZZ_LIB) $(DEP_LIBS) -lpthread

# fuzz_elf's seed: a small position-independent ELF executable with
# relative relocations packed as RELR (RELA where the linker cannot).
build-fuzz/seed.elf:
	@mkdir -p build-fuzz
	printf 'int x, y; int *p = &x, *q = &y;\nint main(void) { return *p + *q; }\n' | \
		clang -x c -Os -fPIE -pie -Wl,-z,pack-relative-relocs -o $@ - || \
		printf 'int main(void) { return 0; }\n' | clang -x c -Os -o $@ -

# and a small shared object with a GNU hash table (DT_GNU_HASH) of a few
# defined names, some the harness asks for, and an undefined one.
build-fuzz/seed.so:
	@mkdir -p build-fuzz
	printf 'extern int ext(void); int main_arena[4]; int syscall(void) { return ext(); }\nint mi_malloc(void) { return 2; } int f1(void) { return 3; } int f2; int f3;\n' | \
		clang -x c -Os -fPIC -shared -nostdlib -Wl,--hash-style=gnu -Wl,-s -o $@ -

# install: what the Debian package installs (debian/rules is this with
# PREFIX=/usr), each file named once in INSTALLED (test_install checks the
# installed tree against it, then that uninstall leaves nothing).
THEMES := $(notdir $(wildcard themes/*))
DOCDIR ?= $(DATADIR)/doc/vmscope
INSTALLED := $(BINDIR)/vmscope $(LIBDIR)/vmscope/libvmstrace.so \
	$(MANDIR)/man1/vmscope.1 $(THEMES:%=$(DATADIR)/vmscope/themes/%) \
	$(DOCDIR)/README.md $(DOCDIR)/CHANGELOG.md \
	$(UNITDIR)/vmscope-textfile.service $(UNITDIR)/vmscope-textfile.timer
install: vmscope $(TRACE_LIB)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(DATADIR)/vmscope/themes $(DESTDIR)$(LIBDIR)/vmscope \
		$(DESTDIR)$(DOCDIR) $(DESTDIR)$(UNITDIR)
	install -m 755 vmscope $(DESTDIR)$(BINDIR)/vmscope
	install -m 644 $(TRACE_LIB) $(DESTDIR)$(LIBDIR)/vmscope/libvmstrace.so
	install -m 644 vmscope.1 $(DESTDIR)$(MANDIR)/man1/vmscope.1
	install -m 644 $(THEMES:%=themes/%) $(DESTDIR)$(DATADIR)/vmscope/themes/
	install -m 644 README.md CHANGELOG.md $(DESTDIR)$(DOCDIR)/
	sed 's|@BINDIR@|$(BINDIR)|g' dist/vmscope-textfile.service.in \
		>$(DESTDIR)$(UNITDIR)/vmscope-textfile.service
	chmod 644 $(DESTDIR)$(UNITDIR)/vmscope-textfile.service
	install -m 644 dist/vmscope-textfile.timer $(DESTDIR)$(UNITDIR)/

# uninstall: every file install puts, then the directories that are
# vmscope's own (the rest, bin/ and man/man1/, may hold others' files).
uninstall:
	rm -f $(INSTALLED:%=$(DESTDIR)%)
	-rmdir $(DESTDIR)$(DATADIR)/vmscope/themes $(DESTDIR)$(DATADIR)/vmscope \
		$(DESTDIR)$(LIBDIR)/vmscope $(DESTDIR)$(DOCDIR) 2>/dev/null

# The installed files' paths, one a line (test_install reads them).
install-list:
	@printf '%s\n' $(INSTALLED)

# checkloop: make check N times in a row, stopping at a failure
# (scripts/checkloop.sh: build/checkloop/run-I.log, a line a run).
N ?= 10
checkloop:
	sh scripts/checkloop.sh $(N)

# attach-trials: test_trace_attach_kill.py with N random SIGKILLs of
# vmscope during an attach, its trace and its detach (200 by default;
# make check runs 30), printing how many kills fell in each phase.
attach-trials: N = 200
attach-trials: tests
	VMSCOPE_ATTACH_TRIALS=$(N) VMSCOPE=./$(PROG) BUILD=$(B) \
		python3 tests/live/test_trace_attach_kill.py

# check-unpriv: the hostile-target suite as a user with no privilege
# (scripts/unpriv-check.sh).
check-unpriv: tests
	VMSCOPE=$(CURDIR)/$(PROG) BUILD=$(CURDIR)/$(B) sh scripts/unpriv-check.sh

# debroot: the Debian 12 root test_deb installs the package into, made
# when none is kept in build/debroot or the one kept is no longer valid
# (debootstrap, about 4.5 min; its .debs kept in build/debroot/cache);
# test_deb runs it itself.
debroot:
	sh scripts/debroot.sh

# freshcheck: the README's `make demo` and `make check` in a Debian 12 root
# made afresh with debootstrap, from a clean clone of HEAD, each pass
# timed (scripts/freshcheck.sh says what it installs and mounts); root
# only, about 50 min.
FRESHROOT ?= build/freshroot
freshcheck:
	sh scripts/freshcheck.sh $(FRESHROOT)

# deb: the Debian package from debian/ (debhelper), built in a copy of the
# tree (build/deb/vmscope-VERSION: the package's PREFIX=/usr build never
# mixes with this tree's), its debian/changelog written from VERSION (the
# version's one place) and the newest commit's date; then lintian, which
# fails it on any error, warning or info tag (--display-info: lintian's
# --info prints the tags' explanations, not its I: tags) debian/ does not
# override with a reason.
# Needs debhelper, dpkg-dev and lintian, and debian/control's
# Build-Depends (`apt-get build-dep ./`); scripts/deps.sh has them all.
DEB_ARCH = $(shell dpkg --print-architecture)
DEB_STAGE := build/deb/vmscope-$(VERSION)
DEB_MAINT = $(shell sed -n 's/^Maintainer: //p' debian/control)
DEB_DATE = $(shell git log -1 --format=%aD 2>/dev/null || date -R)
deb:
	@for t in dpkg-buildpackage dh lintian; do command -v $$t >/dev/null || \
		{ echo "make deb needs $$t: apt-get install dpkg-dev" \
		"debhelper lintian; apt-get build-dep ./"; exit 1; }; done
	rm -rf build/deb
	mkdir -p $(DEB_STAGE)
	if git rev-parse --git-dir >/dev/null 2>&1; then \
		git ls-files -co --exclude-standard | tar -cf - -T - ; \
	else \
		tar -cf - --exclude=./build --exclude=./build-san \
		--exclude=./build-fuzz --exclude=./vmscope \
		--exclude=./vmscope-san . ; \
	fi | tar -xf - -C $(DEB_STAGE)
	printf '%s\n' 'vmscope ($(VERSION)) bookworm; urgency=medium' '' \
		'  * Release $(VERSION): what changed is in CHANGELOG.md' \
		'    (/usr/share/doc/vmscope/CHANGELOG.md.gz).' '' \
		' -- $(DEB_MAINT)  $(DEB_DATE)' >$(DEB_STAGE)/debian/changelog
	cd $(DEB_STAGE) && dpkg-buildpackage -us -uc -j$(NPROC)
	@# (lintian's temporary files, which it leaves in TMPDIR, under build/deb)
	mkdir -p build/deb/tmp
	TMPDIR=$(CURDIR)/build/deb/tmp lintian --fail-on error,warning,info \
		--display-info \
		build/deb/vmscope_$(VERSION)_$(DEB_ARCH).changes
	@echo "the package: build/deb/vmscope_$(VERSION)_$(DEB_ARCH).deb"

format:
	@# .clang-format: the kernel style the code is written in
	clang-format -i $(wildcard $(SRC_DIRS:%=%/*.[ch])) \
		$(wildcard $(UI_DIRS:%=%/*.[ch])) cli/*.c cli/*.h link/*.c trace/*.c trace/*.h

clean:
	@# (not through a mount a root under build/ may have left: /dev, /sys)
	rm -rf --one-file-system build build-san build-fuzz build-tsan \
		vmscope vmscope-san vmscope-tsan

# (not the package's staged tree, the Debian root test_deb keeps there nor
# the fresh root of make freshcheck)
-include $(shell find $(B) -path $(B)/deb -prune -o -path $(B)/debroot \
	-prune -o -path build/freshroot -prune -o -name '*.d' -type f -print \
	2>/dev/null)
