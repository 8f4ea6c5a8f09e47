#!/bin/sh
# Installs the Debian packages vmscope needs to build and test, when any is
# missing. Quiet and quick when everything is there. Needs root (or sudo)
# only when it has something to install.
#
# Every program a test runs is here with the test that runs it, so that
# `make check` passes in a fresh Debian 12 root (debootstrap, then this;
# `make freshcheck` tries it): grep tests/ for subprocess, shutil.which,
# popen and system when adding one. The rest they run (sh, sleep, true, cat, rm, timeout, env, grep,
# sed, mktemp) is in Debian's essential packages (dash, coreutils, grep,
# sed, util-linux, libc-bin), always there.
set -e

# package            why
PKGS="
gcc                  build
g++                  the tracer's C++ test targets (new and delete)
make                 build; test_fuzz_smoke builds the fuzzers with it
binutils             ar (the build); nm (test_layers), readelf (test_images,
                     test_elfimage_dyn), objdump (test_inject): gcc only
                     depends on it
pkg-config           build
libncurses-dev       the viewer
libproc2-dev         process list, names, rollup figures
libjansson-dev       snapshot files: their JSON part, read and written
libzstd-dev          snapshot files: their compression (smaps text to <1%)
zstd                 the zstd command: test_snap makes and reads snapshot
                     variants with it (tests/fixtures/mksnap.py)
libelf-dev           the unit tests check the ELF reader against it
libdw-dev            Go's runtime layout from DWARF; --trace's frame names
libbz2-dev           libbz2.a: libdw's static link needs it (the Makefile's
                     STATIC_PKGS: without it jansson, zstd, libdw and libbpf
                     are all linked shared, and every start copies them)
libunwind-dev        the tracer library: call stacks through .eh_frame
libbpf-dev           --trace PID: the eBPF program of the mmap family is
                     loaded with libbpf (src/trace/bpfmaps.c, its skeleton)
bpftool              the build: vmlinux.h from the kernel's BTF, and the
                     skeleton that embeds the eBPF program in vmscope
python3              the live, viewer and code tests are Python scripts
tmux                 the viewer's tests drive it in tmux
libcap2-bin          setcap: test_trace gives a program file capabilities
                     (refused: the loader would not preload into it)
procps               pgrep (test_permissions); pmap, the benchmark's reference
util-linux           setpriv, unshare, findmnt (test_cli, test_permissions,
                     test_images, test_picker, test_fork_pidns); essential
mount                mount -t tmpfs in a namespace (test_cli,
                     test_permissions); required, not in every root
libc-bin             ldd (test_observer); essential
gdb                  gcore: the cores test_core, test_go and test_contents
                     load; the fork benchmark's reference
clang                the build: the eBPF program (-target bpf); make fuzz
                     (libFuzzer)
libclang-rt-14-dev   libFuzzer's runtime (only recommended by clang): fuzz runs
clang-format         test_format: the code laid out as .clang-format says
time                 /usr/bin/time: peak memory (benchmarks, the core test)
heaptrack            make bench: the tracer's cost beside heaptrack's
valgrind             the leak check of the CLI paths
strace               test_pss_invasive counts vmscope's ptrace calls,
                     test_observer its library copies,
                     test_selfcopy_pages makes one fail; test_fork_refuse's
                     target traced by someone else, and
                     test_trace_attach_more's attach to one
openjdk-17-jre-headless  test_jvm: a JVM's heap against its hsperfdata
openjdk-17-jdk-headless  test_jvm: jcmd GC.heap_info, the JVM's own heap range
golang-go            test_go: a Go program's arenas against runtime.MemStats
nodejs               test_v8: a V8 heap whose pages are found (node)
node-acorn           test_v8: Debian's node 18 (scripts/nodes.sh) loads its
node-cjs-module-lexer  builtins acorn, cjs-module-lexer and undici from
node-undici          these three packages
redis-server         test_jemalloc: a jemalloc heap (Debian's links libjemalloc)
postgresql           test_postgres: a backend's glibc heap (two [heap] lines
                     after the postmaster's fork) against its own mallinfo2;
                     initdb, postgres and psql (postgresql-client)
libjemalloc2         test_allocators: jemalloc preloaded
libtcmalloc-minimal4 test_allocators: gperftools tcmalloc preloaded
libmimalloc2.0       test_allocators: mimalloc preloaded
dpkg-dev             make deb: dpkg-buildpackage (test_deb)
build-essential      make deb: dpkg-buildpackage checks it, every Debian
                     package's implicit build dependency (a fresh root
                     has gcc, g++ and make without it: test_deb failed)
debhelper            make deb: debian/rules is dh (compat 13)
lintian              make deb fails on a lintian error or unjustified warning
prometheus           promtool: test_all_openmetrics checks --all's exposition
prometheus-node-exporter  test_node_exporter: its textfile collector scrapes
                     what dist/vmscope-textfile.service writes
curl                 test_node_exporter scrapes node_exporter's /metrics
debootstrap          test_deb: the fresh Debian 12 root the package is
                     installed into (kept in build/debroot)
"

missing=""
# (a package is the first word of a line; a line that starts with a blank
# goes on with the reason above it)
for p in $(printf '%s\n' "$PKGS" | awk '/^[^ \t]/ {print $1}'); do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "vmscope: installing missing Debian packages:$missing"
if [ "$(id -u)" -eq 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
else
	echo "vmscope: run as root, or install:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
