#!/usr/bin/env python3
"""Which allocator malloc is (step "allocator"): tests/targets/allocs.c,
which allocates 16 MiB in 256-byte blocks, is started with glibc's malloc
and with jemalloc, gperftools' tcmalloc and mimalloc preloaded
(LD_PRELOAD: the library then defines the malloc the process calls).
vmscope must name each, from the preloaded library, and report none for
glibc's; with jemalloc, the blocks must be in regions typed heap (at least
the 16 MiB written). A library that is not installed is skipped
(scripts/deps.sh installs them)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

LIBDIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
           "/usr/lib64", "/usr/lib")
CASES = (("jemalloc", "libjemalloc.so.2"),
         ("tcmalloc", "libtcmalloc_minimal.so.4"),
         ("mimalloc", "libmimalloc.so.2"))


def lib_path(name):
    for d in LIBDIRS:
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    return None


def run(preload):
    env = dict(os.environ)
    if preload:
        env["LD_PRELOAD"] = preload
    p, line = T.start([T.target("allocs")], env=env)
    return p, int(line.split()[1])


def main():
    p, size = run(None)
    snap = T.vmscope_json(p.pid, "-F")
    T.eq(snap["allocator"], None, "glibc's malloc: no allocator entry")
    T.kill(p)
    for name, lib in CASES:
        path = lib_path(lib)
        if not path:
            T.skip("%s preloaded" % name, "%s is not installed" % lib)
            continue
        p, size = run(path)
        snap = T.vmscope_json(p.pid, "-F")
        a = snap["allocator"]
        T.ok(a and a["name"] == name and a["provides_malloc"] and
             os.path.realpath(a["image"]) == os.path.realpath(path),
             "%s preloaded: reported as malloc's, from %s" % (name, lib), a)
        if name == "jemalloc":
            heap = [t for t in snap["types"] if t["type"] == "heap"][0]
            T.ok(heap["committed"] >= size and heap["ws"] >= size,
                 "jemalloc: Heap committed %d and WS %d hold the %d bytes "
                 "written" % (heap["committed"], heap["ws"], size))
        else:
            T.ok(a and a["partial"] is not None and a["heap"] == 0,
                 "%s: its regions are said not to be recognised" % name, a)
        T.kill(p)
    T.done()


main()
