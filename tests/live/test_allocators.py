#!/usr/bin/env python3
"""Which allocator malloc is, and its heap (step "allocator"):
tests/targets/allocs.c, which allocates 16 MiB in 256-byte blocks, is
started with glibc's malloc and with jemalloc, gperftools' tcmalloc and
mimalloc preloaded (LD_PRELOAD: the library then defines the malloc the
process calls). vmscope must name each, from the preloaded library, and
report none for glibc's. Then each one's heap against the target's own
figures (its line: the sum of malloc_usable_size() over its blocks, and
tcmalloc's own MallocExtension properties):
- jemalloc: the blocks are in regions typed heap (at least the 16 MiB);
  its allocated, active, metadata, resident, mapped and retained equal
  the target's own mallctl("stats.*") after its last "epoch" refresh,
  frozen (-F) and through the fork clone, and its heap entry's in use
  and free are stats.allocated and stats.active less that, its chunks
  its allocations in use as it counts them (stats.arenas.4096's small and
  large nmalloc less ndalloc); its base
  blocks and extents by their own bounds: the bytes called its metadata
  are its base blocks' (stats.mapped less its extents' pages), its heap
  regions and parts its stats.mapped + stats.retained exactly, each part
  inside its region with its pagemap's Rss, the Heap row by parts;
  again with allocs linked with libjemalloc (built by the test), with
  large extents ("frag"), threads, and its own memory merged beside;
- mimalloc: its segments are heap (a thread's segment committed in
  part: its reserved tail too), one heaps[] entry "mimalloc" whose
  in_use (from the segments' page entries) is the target's own sum plus
  at most 16 KiB (stdio's buffer, the loader's), frozen (-F) and through
  the fork clone; its committed is the target's own mi_process_info
  current commit (its threads' own data included: three threads), its
  reserved its mi_stats_print_out's as it prints it; -s gives the same
  figures on its Allocator: line; with threads that free each other's
  blocks and two that exited (allocs "cross"), in use is the target's own
  sum over every thread's blocks, committed its own exactly;
- tcmalloc: the brk heap is its heap ("tcmalloc", not glibc's main
  arena), and allocator.system, tcmalloc's own count of bytes taken from
  the system, is at least what it reports as heap plus metadata and
  within 64 KiB of the brk heap (it does not count the alignment it adds);
  its spans, walked through its page map, add up to its own
  generic.heap_size, and its heap entries' in use to its
  generic.current_allocated_bytes (the bytes the application holds: the
  free objects in its central, transfer and thread caches are not in
  use). With TCMALLOC_SKIP_SBRK (its pages mapped),
  frozen and through the fork clone: the same sums, the mapped regions
  its spans cover are heap ("tcmalloc (page heap)"), every byte it took
  from the system is located (no partial). Both again with the target
  holding free memory between used (allocs "frag": blocks of 4 KiB to
  600 KiB, every other one freed), where tcmalloc's page map keeps
  entries that point to spans since reused: the same equalities, no
  partial; and with three more threads that hold blocks and have freed
  some (allocs "threads": several thread caches, transfer caches in
  use). Its own figures, in every case above: allocated, page_heap_free,
  unmapped, central_cache, transfer_cache, thread_cache and metadata
  equal what the target read at one instant through
  MallocExtension_GetNumericProperty (generic.current_allocated_bytes,
  tcmalloc.pageheap_free_bytes, pageheap_unmapped_bytes,
  central_cache_free_bytes, transfer_cache_free_bytes,
  thread_cache_free_bytes) and GetStats (malloc metadata).
A snapshot saved with -w and loaded with -l has the same allocator, heap
entry and region types (mimalloc and tcmalloc).
A library that is not installed is skipped (scripts/deps.sh installs
them)."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

LIBDIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
           "/usr/lib64", "/usr/lib")
JE_FIGURES = ("allocated", "active", "metadata", "resident", "mapped",
              "retained")
CASES = (("jemalloc", "libjemalloc.so.2"),
         ("tcmalloc", "libtcmalloc_minimal.so.4"),
         ("mimalloc", "libmimalloc.so.2"))


def lib_path(name):
    for d in LIBDIRS:
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    return None


def run(preload, *args, prog=None, **extra):
    env = dict(os.environ, **extra)
    if preload:
        env["LD_PRELOAD"] = preload
    p, line = T.start([prog or T.target("allocs"), *args], env=env)
    w = line.split()
    own = {"size": int(w[1]), "usable": int(w[3])}
    if len(w) >= 11 and w[4] == "tcmalloc":
        own.update(heap_size=int(w[5]), physical=int(w[6]),
                   unmapped=int(w[7]), free=int(w[8]), metadata=int(w[9]),
                   central=int(w[10]))
    if len(w) >= 15 and w[4] == "tcmalloc":
        own.update(allocated=int(w[11]), central_prop=int(w[12]),
                   transfer=int(w[13]), thread=int(w[14]))
    if len(w) >= 7 and w[4] == "mimalloc":
        own["mi_commit"] = int(w[5])
        own["mi_reserved"] = w[6]
    if len(w) >= 12 and w[4] == "jemalloc":
        own["jemalloc"] = dict(zip(JE_FIGURES, map(int, w[5:11])))
        own["je_base"] = int(w[11])
    if len(w) >= 13 and w[4] == "jemalloc":
        own["je_chunks"] = int(w[12])
    return p, own


def mi_amount(n):
    """n bytes as mimalloc's mi_stats_print_out prints an amount
    (mi_printf_amount, unit 1, spaces left out as the target does): under
    1 KiB the number and B, else to a tenth of KiB, MiB or GiB, truncated
    as its integer arithmetic does."""
    if n < 1024:
        return "%d%s" % (n, "B" if n else "")
    divider, mag = 1024, "K"
    for m in ("M", "G"):
        if n >= divider * 1024:
            divider, mag = divider * 1024, m
    tens = n // (divider // 10)
    return "%d.%d%siB" % (tens // 10, tens % 10, mag)


def heaps_of(snap, kind):
    return [h for h in snap["heaps"] if h["kind"] == kind]


def brk_region(snap):
    r = [r for r in snap["regions"] if r["path"] == "[heap]"]
    return r[0] if r else None


JE_META = "jemalloc metadata (base block)"


def jemalloc(snap, own, how, pid):
    heap = [t for t in snap["types"] if t["type"] == "heap"][0]
    T.ok(heap["committed"] >= own["size"] and heap["ws"] >= own["size"],
         "jemalloc (%s): Heap committed %d and WS %d hold the %d bytes "
         "written" % (how, heap["committed"], heap["ws"], own["size"]))
    a = snap["allocator"]
    mine = own.get("jemalloc")
    if not T.ok(mine, "jemalloc (%s): the target gave its mallctl "
                "stats.*" % how, own):
        return
    T.eq({k: a[k] for k in JE_FIGURES}, mine,
         "jemalloc (%s): allocated, active, metadata, resident, mapped and "
         "retained are its own mallctl stats.* at the same instant" % how)
    h = heaps_of(snap, "jemalloc")
    T.ok(len(h) == 1 and h[0]["in_use"] == mine["allocated"] and
         h[0]["free"] == mine["active"] - mine["allocated"],
         "jemalloc (%s): its heap's in use is stats.allocated, its free "
         "stats.active less that" % how, h)
    T.eq(h[0]["chunks"] if h else None, own.get("je_chunks"),
         "jemalloc (%s): its heap's chunks are its allocations in use as "
         "it counts them (merged arenas' small and large nmalloc less "
         "ndalloc)" % how)
    jemalloc_parts(snap, own, how, pid)


def jemalloc_parts(snap, own, how, pid):
    """Its base blocks and extents by their own bounds: a region wholly
    one or the other is heap whole, one the kernel merged from both (or
    with other memory) is split into typed parts (each part's Rss the
    target's pagemap's, inside its region, the Heap row counting by
    parts: vmstest.split_parts). The bytes called its metadata are its
    base blocks' mappings (stats.mapped less its extents' pactive, pdirty
    and pmuzzy pages, as the target read them) exactly, and its regions
    and parts add up to its stats.mapped + stats.retained (with
    opt.retain it never unmaps: what it mapped is one or the other)."""
    mine = own["jemalloc"]
    whole, parts, n = T.split_parts(snap, "jemalloc", pid,
                                    "jemalloc (%s)" % how, prefix=True)
    meta = sum(r["size"] for r in snap["regions"]
               if r["type"] == "heap" and r["detail"] == JE_META) + sum(
        c["size"] for r in snap["regions"] for c in r["children"]
        if c.get("type") and c["name"] == JE_META)
    rest = sum(r["size"] - sum(c["size"] for c in r["children"])
               for r in snap["regions"] if any(
                   c.get("type") and c["name"].startswith("jemalloc")
                   for c in r["children"]))
    print("# jemalloc (%s): %d bytes in heap regions, %d in %d parts; "
          "%d called metadata, its base blocks %d; %d bytes of other "
          "memory in its split regions" %
          (how, whole, parts, n, meta, own["je_base"], rest))
    T.eq(meta, own["je_base"], "jemalloc (%s): the bytes called its "
         "metadata (base blocks) are its base blocks' own (stats.mapped "
         "less its extents' pages)" % how)
    T.eq((whole + parts, snap["allocator"]["heap"]),
         (mine["mapped"] + mine["retained"],) * 2,
         "jemalloc (%s): its regions and parts are its stats.mapped + "
         "stats.retained, exactly" % how)


def jemalloc_linked(lib):
    """allocs linked with libjemalloc (the executable's NEEDED, not a
    preload), built here: the same figures and parts; "frag" adds large
    extents (their addresses moved into their first page by jemalloc's
    cache-oblivious placement) and "threads" thread caches; with
    ALLOCS_NEIGHBOUR the target's own 1 MiB beside its extents (where the
    kernel merged them, it is the rest of a split region, not heap: its
    heap stays mapped + retained exactly)."""
    cc = shutil.which("cc")
    if not cc:
        T.skip("allocs linked with jemalloc", "no C compiler")
        return
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "allocs-je")
        r = subprocess.run([cc, "-O2", "-o", exe,
                            os.path.join(T.ROOT, "tests", "targets",
                                         "allocs.c"), lib, "-lpthread"],
                           capture_output=True, text=True)
        if not T.ok(r.returncode == 0, "allocs links with %s" % lib,
                    r.stderr):
            return
        for more, env in (((), {}), (("16", "frag"), {}),
                          (("16", "frag", "threads"), {}),
                          (("16", "frag"), {"ALLOCS_NEIGHBOUR": "1"})):
            p, own = run(None, *more, prog=exe, **env)
            how = " ".join(("linked",) + more + (
                ("memory of its own beside",) if env else ()))
            try:
                snap = T.vmscope_json(p.pid, "-F")
                a = snap["allocator"]
                T.ok(a and a["name"] == "jemalloc" and
                     a["provides_malloc"] and
                     os.path.realpath(a["image"]) == os.path.realpath(lib),
                     "jemalloc (%s): reported as malloc's, from %s"
                     % (how, lib), a)
                jemalloc(snap, own, how + ", frozen", p.pid)
                jemalloc(T.vmscope_json(p.pid, "-b", "fork"), own,
                         how + ", fork", p.pid)
            finally:
                T.kill(p)


def mimalloc(snap, own, how):
    a = snap["allocator"]
    h = heaps_of(snap, "mimalloc")
    T.ok(len(h) == 1 and a["partial"] is None and a["heap"] >= own["size"]
         and a["metadata"] > 0,
         "mimalloc (%s): one heap of its segments, %d bytes in %d "
         "regions, headers %s" % (how, a["heap"], a["regions"],
                                  a["metadata"]), a)
    if not h:
        return
    h = h[0]
    T.ok(h["in_use"] >= own["usable"] and
         h["in_use"] - own["usable"] <= 16384,
         "mimalloc (%s): %d bytes in used blocks, the target's own "
         "malloc_usable_size() sum %d" % (how, h["in_use"], own["usable"]))
    T.eq(a["committed"], own.get("mi_commit"),
         "mimalloc (%s): committed, from its segments' commit masks, is its "
         "own (mi_process_info's current commit)" % how)
    T.eq(mi_amount(a["reserved"]), own.get("mi_reserved"),
         "mimalloc (%s): reserved (%d), its segments' sizes, is its own as "
         "mi_stats_print_out prints it" % (how, a["reserved"]))
    T.ok(h["chunks"] > own["size"] // 256 and h["free"] >= 0,
         "mimalloc (%s): %d blocks in use, %d bytes free in its segments"
         % (how, h["chunks"], h["free"]))
    if how == "frozen":
        r = T.run_vmscope("-F", "-s", "--bytes", str(snap["process"]["pid"]))
        line = [x for x in r.stdout.decode().splitlines()
                if x.startswith("Allocator:")]
        T.ok(line and "in use %d in %d blocks, free %d, metadata %d" % (
             h["in_use"], h["chunks"], h["free"], a["metadata"]) in line[0],
             "mimalloc: -s says the same in its Allocator: line", line)
    regs = [r for r in snap["regions"] if r["type"] == "heap"]
    T.ok(regs and all(r["detail"].startswith("mimalloc") for r in regs),
         "mimalloc (%s): every heap region is one of its segments" % how,
         [r["detail"] for r in regs])


def mimalloc_neighbour(path):
    """1 MiB of the target's own mapped beside a segment (the kernel may
    merge the two, or not): its segments are Heap regions, or Heap parts
    of the region they share, each part's Rss from the target's pagemap;
    together they are its reserved bytes, its own as it prints them."""
    p, own = run(path, "16", "frag", ALLOCS_NEIGHBOUR="1")
    try:
        for how, extra in (("frozen", ["-F"]), ("fork", ["-b", "fork"])):
            how = "mimalloc (memory of its own beside, %s)" % how
            snap = T.vmscope_json(p.pid, *extra)
            a = snap["allocator"]
            found = [T.split_parts(snap, name, p.pid, how)
                     for name in ("mimalloc segment",
                                  "mimalloc huge segment")]
            whole = sum(f[0] for f in found)
            parts = sum(f[1] for f in found)
            print("# %s: segments %d bytes in regions, %d in %d parts of "
                  "regions merged with other memory"
                  % (how, whole, parts, sum(f[2] for f in found)))
            T.ok(a["partial"] is None and whole + parts == a["reserved"] ==
                 a["heap"], "%s: the regions and parts of its segments are "
                 "its reserved bytes (%d)" % (how, a["reserved"]), a)
            T.eq(mi_amount(a["reserved"]), own.get("mi_reserved"),
                 "%s: reserved is its own as printed" % how)
    finally:
        T.kill(p)


def mimalloc_threads(path):
    """Three more threads, each with its own segment, committed only as
    its pages are used (the rest of the segment reserved, PROT_NONE)."""
    p, own = run(path, "16", "frag", "threads")
    try:
        snap = T.vmscope_json(p.pid, "-F")
        a = snap["allocator"]
        regs = [r for r in snap["regions"] if r["type"] == "heap"]
        T.ok(a["partial"] is None and a["heap"] == a["reserved"] and
             any(r["perms"].startswith("---") for r in regs),
             "mimalloc (threads): its threads' segments are heap, their "
             "reserved tails too (%d bytes in %d regions)"
             % (a["heap"], a["regions"]), a)
        T.eq(mi_amount(a["reserved"]), own.get("mi_reserved"),
             "mimalloc (threads): reserved (%d) is its own as printed"
             % a["reserved"])
        T.eq(a["committed"], own["mi_commit"],
             "mimalloc (threads): committed is its own current commit, its "
             "3 threads' own data (their heaps and statistics) too")
    finally:
        T.kill(p)


def mimalloc_cross(path):
    """Threads that free each other's blocks, two of them exited (allocs
    "cross"): their heaps abandoned, their segments holding blocks that
    other threads then freed, their own data in mimalloc's cache; the live
    ones' pages hold blocks the main thread freed, pending until their
    owner, blocked, collects them; and one live thread that freed all it
    allocated (no page names its heap: its TLS does). In use is the target's own
    malloc_usable_size() sum over every block every thread holds (plus at
    most 16 KiB: stdio's buffer, the loader's and the C library's for
    its threads), the blocks other threads freed not in it; committed its
    own mi_process_info current commit exactly; reserved its own as
    mi_stats_print_out prints it, and its heap; frozen and through the
    fork clone. Before, in use counted the 1.4 MB of freed blocks and
    committed lacked its 5 threads' own data (40 KiB)."""
    p, own = run(path, "16", "frag", "cross")
    try:
        for how, extra in (("frozen", ["-F"]), ("fork", ["-b", "fork"])):
            how = "mimalloc (threads freeing each other's blocks, %s)" % how
            snap = T.vmscope_json(p.pid, *extra)
            a = snap["allocator"]
            h = heaps_of(snap, "mimalloc")
            if not T.ok(len(h) == 1 and a["partial"] is None,
                        "%s: one heap" % how, a):
                continue
            h = h[0]
            print("# %s: in use %d, its own sum %d; committed %d, its own "
                  "%d" % (how, h["in_use"], own["usable"], a["committed"],
                          own["mi_commit"]))
            T.ok(0 <= h["in_use"] - own["usable"] <= 16384,
                 "%s: in use %d is the target's own malloc_usable_size() "
                 "sum %d over every thread's blocks (what other threads "
                 "freed is free)" % (how, h["in_use"], own["usable"]))
            T.eq(a["committed"], own["mi_commit"],
                 "%s: committed is its own current commit (its threads' "
                 "own data, live and cached, counted)" % how)
            T.eq(mi_amount(a["reserved"]), own.get("mi_reserved"),
                 "%s: reserved is its own as printed" % how)
            T.eq(a["heap"], a["reserved"], "%s: its heap is its reserved "
                 "bytes: segments and threads' own data located" % how)
    finally:
        T.kill(p)


def tcmalloc(snap, own):
    a = snap["allocator"]
    brk = brk_region(snap)
    want = own["physical"] + own["unmapped"]
    T.ok(brk and brk["type"] == "heap" and
         brk["detail"] == "tcmalloc (brk heap)" and
         len(heaps_of(snap, "tcmalloc")) == 1 and
         not heaps_of(snap, "glibc-main"),
         "tcmalloc: the brk heap is its heap, not glibc's main arena",
         brk and brk["detail"])
    T.ok(a["system"] is not None and a["system"] >= want and
         brk and abs(a["system"] - brk["size"]) <= 65536 and
         a["heap"] == brk["size"] and a["partial"] is None,
         "tcmalloc: it took %s bytes from the system (its own count), at "
         "least its heap and metadata (%d), the brk heap %s"
         % (a["system"], want, brk and brk["size"]), a)
    tc_spans(snap, own, "brk")


def tc_spans(snap, own, how):
    """Its spans' sums against its own MallocExtension figures."""
    hs = heaps_of(snap, "tcmalloc")
    if not T.ok(hs and all(h["in_use"] is not None for h in hs),
                "tcmalloc (%s): its page map walked, figures in its heap "
                "entries" % how, hs):
        return
    total = sum(h["in_use"] + h["free"] for h in hs)
    in_use = sum(h["in_use"] for h in hs)
    T.eq(total, own["heap_size"], "tcmalloc (%s): its spans add up to its "
         "generic.heap_size" % how)
    T.eq(in_use, own["allocated"], "tcmalloc (%s): its heaps' in use is "
         "its generic.current_allocated_bytes (the caches' free objects "
         "are free)" % how)
    a = snap["allocator"]
    T.eq((a["allocated"], a["page_heap_free"], a["unmapped"],
          a["central_cache"], a["transfer_cache"], a["thread_cache"],
          a["metadata"]),
         (own["allocated"], own["free"], own["unmapped"], own["central"],
          own["transfer"], own["thread"], own["metadata"]),
         "tcmalloc (%s): bytes in use by the application, page heap "
         "freelist, unmapped, central, transfer and thread cache "
         "freelists and malloc metadata are its own (GetNumericProperty, "
         "GetStats)" % how)
    T.eq(own["central"], own["central_prop"], "tcmalloc (%s): GetStats's "
         "central cache freelist is its tcmalloc.central_cache_free_bytes "
         "(the target read both at one instant)" % how)


def tcmalloc_frag(path, *more):
    p, own = run(path, "16", "frag", *more)
    how = "brk, frag" + "".join(", " + m for m in more)
    try:
        snap = T.vmscope_json(p.pid, "-F")
        tc_spans(snap, own, how)
        T.eq(snap["allocator"]["partial"], None,
             "tcmalloc (%s): no partial" % how)
        if more:
            T.ok(own["thread"] > 0 and own["transfer"] > 0,
                 "tcmalloc (%s): its thread caches (%d) and transfer "
                 "caches (%d) hold objects: the case tests them"
                 % (how, own["thread"], own["transfer"]))
    finally:
        T.kill(p)


def tcmalloc_mapped(path, *args, neighbour=False):
    env = {"TCMALLOC_SKIP_SBRK": "true"}
    if neighbour:
        env["ALLOCS_NEIGHBOUR"] = "1"
    p, own = run(path, *args, **env)
    frag = "".join(" " + x for x in args[1:]) + \
        (", memory of its own beside" if neighbour else "")
    try:
        for how, extra in (("mapped%s, frozen" % frag, ["-F"]),
                           ("mapped%s, fork" % frag, ["-b", "fork"])):
            snap = T.vmscope_json(p.pid, *extra)
            a = snap["allocator"]
            tc_spans(snap, own, how)
            whole, parts, n = T.split_parts(snap, "tcmalloc (page heap)",
                                            p.pid, "tcmalloc (%s)" % how)
            brk = brk_region(snap)
            in_brk = sum(h["in_use"] + h["free"]
                         for h in heaps_of(snap, "tcmalloc")
                         if brk and all(s["start"] == brk["start"]
                                        for s in h["segments"]))
            print("# tcmalloc (%s): page heap %d bytes in regions, %d in %d "
                  "parts of regions merged with other memory, %d in the brk "
                  "heap" % (how, whole, parts, n, in_brk))
            T.eq(whole + parts, own["heap_size"] - in_brk,
                 "tcmalloc (%s): the regions and parts its spans cover are "
                 "its generic.heap_size less its spans in the brk heap, "
                 "exactly" % how)
            T.ok(a["system"] is not None and a["heap"] >= a["system"] and
                 a["partial"] is None, "tcmalloc (%s): every byte it took "
                 "from the system (%s) is located (%d), no partial"
                 % (how, a["system"], a["heap"]), a)
    finally:
        T.kill(p)


def main():
    p, own = run(None)
    snap = T.vmscope_json(p.pid, "-F")
    T.eq(snap["allocator"], None, "glibc's malloc: no allocator entry")
    T.kill(p)
    for name, lib in CASES:
        path = lib_path(lib)
        if not path:
            T.skip("%s preloaded" % name, "%s is not installed" % lib)
            continue
        p, own = run(path)
        snap = T.vmscope_json(p.pid, "-F")
        a = snap["allocator"]
        T.ok(a and a["name"] == name and a["provides_malloc"] and
             os.path.realpath(a["image"]) == os.path.realpath(path),
             "%s preloaded: reported as malloc's, from %s" % (name, lib), a)
        if name == "jemalloc":
            jemalloc(snap, own, "frozen", p.pid)
            jemalloc(T.vmscope_json(p.pid, "-b", "fork"), own, "fork",
                     p.pid)
        elif name == "mimalloc":
            mimalloc(snap, own, "frozen")
            mimalloc(T.vmscope_json(p.pid, "-b", "fork"), own, "fork")
        else:
            tcmalloc(snap, own)
        if name != "jemalloc":
            with tempfile.TemporaryDirectory() as tmp:
                live, loaded = T.saved_and_loaded(p.pid, ["-F"], tmp)
            T.kept_in_file(live, loaded, name)
            T.eq(heaps_of(loaded, name), heaps_of(live, name),
                 "%s: its heap entry comes back from the file" % name)
        T.kill(p)
        if name == "jemalloc":
            jemalloc_linked(path)
        if name == "mimalloc":
            p, own = run(path, "16", "frag")
            try:
                a = T.vmscope_json(p.pid, "-F")["allocator"]
                T.eq(a["committed"], own.get("mi_commit"),
                     "mimalloc (frag, huge segments too): committed is its "
                     "own current commit")
                T.eq(mi_amount(a["reserved"]), own.get("mi_reserved"),
                     "mimalloc (frag): reserved is its own as printed")
            finally:
                T.kill(p)
            mimalloc_threads(path)
            mimalloc_cross(path)
            mimalloc_neighbour(path)
        if name == "tcmalloc":
            tcmalloc_mapped(path)
            tcmalloc_frag(path)
            tcmalloc_frag(path, "threads")
            tcmalloc_mapped(path, "16", "frag")
            tcmalloc_mapped(path, "16", "frag", "threads")
            tcmalloc_mapped(path, "16", "frag", neighbour=True)
    T.done()


main()
