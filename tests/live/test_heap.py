#!/usr/bin/env python3
"""The glibc heap walker (step "malloc") against the target's own figures.

tests/targets/heap_arenas.c: four threads, each with its own arena, one
main heap, chunks in use, in tcaches, fastbins, bins and top, two mmapped
chunks; it computes mallinfo2() once all of that is in place and nothing
calls malloc after. Every mallinfo2 field the walker reports must equal the
target's own, with -b fork and with -b pss -F (frozen), with main_arena and
mp_ found from the debug file for libc's build id (where installed) and
from the libc file alone (VMSCOPE_DEBUGDIR pointed at nothing). Per arena,
the figures add up to the process's. Without a consistent source (-b pss,
not frozen) the walk is not done and a note says why.

The same target in "corrupt" mode overwrites a chunk's size field in the
main heap and makes a bin's list a loop in a thread arena after printing
its figures: the capture succeeds, in bounded time, with the result marked
partial where the damage is. The target is never left stopped or traced.

tests/targets/heap_forked.c: a child whose brk heap grew in its parent
before fork() and in itself after, so maps shows two adjacent [heap] lines
(as every postgres backend): the walk covers both, every chunk, and the
heap is one entry.

tests/targets/heap_foreign.c: a brk heap extended past the program's own
sbrks (twice), and with one more before malloc ever ran (mp_.sbrk_base
above the start of [heap]): the walk goes on above each, every chunk,
mallinfo2's figures, the program's bytes in the overhead.

tests/targets/heap_noncontig.c: a page mapped just above the break, so
sbrk fails and glibc's main arena goes on in mmapped segments (not
contiguous): every segment found (they hold the arena's system memory,
top's among them), every chunk walked, every mallinfo2 field the
target's own, the fenceposts ending each old segment the overhead, the
segments outside [heap] Heap parts.

The mmapped chunks: each is located, and is a Heap region, or a Heap part
of a region the kernel merged with other memory (heap_arenas maps some of
its own beside one), its Rss from the target's pagemap."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

FIELDS = ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
          "fsmblks", "uordblks", "fordblks", "keepcost")
NOSYMS = {"VMSCOPE_DEBUGDIR": "/nonexistent-debug-dir"}


def capture(pid, args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    r = T.run_vmscope("-e", "json", *args, pid, env=e, timeout=300)
    if r.returncode != 0:
        raise RuntimeError("vmscope %s failed (%d): %s" %
                           (args, r.returncode, r.stderr.decode()))
    import json
    return json.loads(r.stdout)


def notes(snap, step):
    return [n["why"] for n in snap["capture"].get("missing", [])
            if n["step"] == step]


def check_exact(snap, want, how, pid):
    m = snap["malloc"]
    if not T.ok(m is not None, "%s: glibc malloc walked" % how,
                notes(snap, "malloc")):
        return
    T.eq(m["version"], libc_version(), "%s: glibc version from the "
         "release string" % how)
    got = {k: m[k] for k in FIELDS}
    T.eq(got, {k: want[k] for k in FIELDS},
         "%s: every mallinfo2 field equals the target's own" % how)
    T.eq(m["partial"], None, "%s: nothing partial" % how)
    heaps = [h for h in snap["heaps"] if h.get("system") is not None]
    T.eq(len(heaps), 5, "%s: five arenas walked (main and four threads)"
         % how)
    sums = {"arena": sum(h["system"] for h in heaps),
            "ordblks": sum(h["ordblks"] for h in heaps),
            "smblks": sum(h["smblks"] for h in heaps),
            "fsmblks": sum(h["fsmblks"] for h in heaps),
            "uordblks": sum(h["in_use"] for h in heaps),
            "fordblks": sum(h["free"] for h in heaps)}
    T.eq(sums, {k: want[k] for k in sums}, "%s: the arenas' own figures "
         "add up to the process's mallinfo2" % how)
    main = [h for h in heaps if h["kind"] == "glibc-main"]
    T.ok(len(main) == 1 and main[0]["top"] == want["keepcost"] and
         main[0]["mmapped"] == want["hblkhd"],
         "%s: the main arena's top is keepcost, its mmapped hblkhd" % how,
         main)
    T.ok(all(h["free_chunks"] == h["ordblks"] + h["smblks"] and
             h["chunks"] > h["free_chunks"] and h["tcache_chunks"] > 0 and
             h["in_use"] + h["free"] == h["system"] and
             sum(b["count"] for b in h["histogram"]) ==
             h["free_chunks"] - 1 and
             largest_fits(h) for h in heaps),
         "%s: per arena, chunks, free chunks, tcache and histogram hold "
         "together" % how, heaps)
    threads = [h for h in heaps if h["kind"] == "glibc-arena"]
    T.ok(threads and all(h["overhead"] > 0 for h in threads) and
         main[0]["overhead"] == 0,
         "%s: thread arenas carry heap_info and malloc_state overhead, the "
         "brk heap none" % how, [h["overhead"] for h in heaps])
    mm = m["mmapped_chunks"]
    T.ok(len(mm) == want["hblks"] and
         sum(T.hexint(c["end"]) - T.hexint(c["start"]) for c in mm) ==
         want["hblkhd"] and m["mmapped_note"] is None,
         "%s: the mmapped chunks located among the anonymous regions" % how,
         mm)
    mmapped_regions(snap, mm, how, pid)


def mmapped_regions(snap, mm, how, pid):
    """A region that mmapped chunks cover whole (one, or adjacent ones the
    kernel merged) is Heap, "glibc malloc (mmapped chunk)"; no other is. A
    chunk in a region the kernel merged with other memory (the target maps
    some of its own below one) is a typed part of it: Heap, that name, the
    chunk's bounds, its Rss the pages of its range present in the target's
    pagemap (read by the test; the target allocates nothing after its
    line). Every chunk is one or the other, and the Heap row counts
    them."""
    ends = {T.hexint(c["start"]): T.hexint(c["end"]) for c in mm}
    whole, typed, parts = [], [], []
    for r in snap["regions"]:
        a, e = T.hexint(r["start"]), T.hexint(r["end"])
        while a in ends and a < e:
            a = ends[a]
        if a == e and T.hexint(r["start"]) in ends:
            whole.append(r["start"])
        if r.get("detail") == "glibc malloc (mmapped chunk)":
            typed.append(r["start"])
        parts += [(r, c) for c in r["children"]
                  if c.get("name") == "glibc malloc (mmapped chunk)"]
    print("# %s: %d regions are mmapped chunks whole, %d chunks are parts "
          "of regions" % (how, len(whole), len(parts)))
    T.ok(whole == typed and all(
        r["type"] == "heap" for r in snap["regions"] if r["start"] in typed),
         "%s: regions of mmapped chunks whole are Heap, glibc malloc "
         "(mmapped chunk)" % how, (whole, typed))
    bad = [c for _, c in parts
           if c["type"] != "heap" or
           ends.get(T.hexint(c["start"])) != T.hexint(c["end"]) or
           c["committed"] != c["size"]]
    T.ok(not bad, "%s: a chunk in a region merged with other memory is a "
         "Heap part with its bounds, committed whole" % how, bad)
    inside = sum(e - a for a, e in ends.items()
                 for r in snap["regions"] if r["start"] in whole and
                 T.hexint(r["start"]) <= a < T.hexint(r["end"]))
    T.eq(inside + sum(c["size"] for _, c in parts), sum(ends[a] - a
                                                         for a in ends),
         "%s: every mmapped chunk is a Heap region or part" % how)
    got = [(c["start"], c["rss"],
            T.present_bytes(pid, T.hexint(c["start"]), T.hexint(c["end"])))
           for _, c in parts]
    T.ok(all(g[1] == g[2] for g in got), "%s: each chunk part's Rss is its "
         "range's pages present in the target's pagemap" % how, got)
    types = {t["type"]: t for t in snap["types"]}
    T.eq(types["heap"]["size"],
         sum(r["size"] for r in snap["regions"] if r["type"] == "heap") +
         sum(c["size"] for r in snap["regions"] if r["type"] != "heap"
             for c in r["children"] if c.get("type") == "heap"),
         "%s: the Heap row is its regions and the heap parts of others"
         % how)


def largest_fits(h):
    """The largest free chunk lies in the highest bucket counted."""
    if not h["histogram"]:
        return h["largest_free"] == 0
    b = h["histogram"][-1]
    return b["min"] <= h["largest_free"] <= b.get("max", 1 << 62)


def libc_version():
    import ctypes
    libc = ctypes.CDLL("libc.so.6")
    libc.gnu_get_libc_version.restype = ctypes.c_char_p
    return libc.gnu_get_libc_version().decode()


def settled(p, how):
    st = T.proc_state(p.pid)
    T.ok(st not in "tT" and T.tracer_pid(p.pid) == 0,
         "%s: target running and untraced afterwards" % how, st)


def forked_child():
    p, line = T.start([T.target("heap_forked")])
    want = T.ready_fields(line)
    child = str(want["pid"])
    with open("/proc/%s/maps" % child) as f:
        heaps = [ln for ln in f if ln.rstrip().endswith("[heap]")]
    if len(heaps) < 2:
        T.skip("a forked child's two [heap] lines", "this kernel merged "
               "them: %d [heap] line" % len(heaps))
    for how, args in (("forked child, fork", ["-b", "fork"]),
                      ("forked child, pss -F", ["-b", "pss", "-F"])):
        snap = capture(child, args)
        m = snap["malloc"]
        if not T.ok(m is not None, "%s: glibc malloc walked" % how,
                    notes(snap, "malloc")):
            continue
        T.eq({k: m[k] for k in FIELDS}, {k: want[k] for k in FIELDS},
             "%s: every mallinfo2 field equals the child's own" % how)
        main = [h for h in snap["heaps"] if h["kind"] == "glibc-main"]
        T.eq(len(main), 1, "%s: the brk heap is one heap" % how)
        if not main:
            continue
        h = main[0]
        T.eq(h["partial"], None, "%s: its walk is whole" % how)
        T.ok(h["chunks"] and h["chunks"] >= 2100 and
             h["free_chunks"] == want["ordblks"] + want["smblks"] and
             h["in_use"] == want["uordblks"] and
             h["free"] == want["fordblks"],
             "%s: every chunk walked (2,100 allocated, the free ones "
             "mallinfo2's)" % how, h)
        first = min(T.hexint(s["start"]) for s in h["segments"])
        last = max(T.hexint(s["end"]) for s in h["segments"])
        lo = min(int(ln.split("-")[0], 16) for ln in heaps)
        hi = max(int(ln.split()[0].split("-")[1], 16) for ln in heaps)
        T.eq((first, last), (lo, hi), "%s: its segments cover every "
             "[heap] line" % how)
        settled_pid(int(child), how)
    T.kill(p)
    # the child dies with its parent (PR_SET_PDEATHSIG): wait for it
    T.ok(T.wait_gone(int(child), 10), "the forked child is gone with "
         "its parent")


def foreign_sbrk():
    """tests/targets/heap_foreign.c: the program moves the break itself
    twice between glibc's extensions; the main arena goes on above each of
    its parts (double fenceposts below them). The walk covers every chunk
    of the three parts, and the program's bytes count as glibc counts them
    (system memory, in use in mallinfo2), in the heap's overhead."""
    for first in (False, True):
        foreign_run(first)


def foreign_run(first):
    p, line = T.start([T.target("heap_foreign")] + (["first"] if first
                                                    else []))
    want = T.ready_fields(line)
    what = "foreign sbrk%s" % (", also before malloc's first"
                               if first else "")
    for how, args in (("%s, fork" % what, ["-b", "fork"]),
                      ("%s, pss -F" % what, ["-b", "pss", "-F"])):
        snap = capture(str(p.pid), args)
        m = snap["malloc"]
        if not T.ok(m is not None, "%s: glibc malloc walked" % how,
                    notes(snap, "malloc")):
            continue
        T.eq({k: m[k] for k in FIELDS}, {k: want[k] for k in FIELDS},
             "%s: every mallinfo2 field equals the target's own" % how)
        main = [h for h in snap["heaps"] if h["kind"] == "glibc-main"]
        if not T.eq(len(main), 1, "%s: one main heap" % how):
            continue
        h = main[0]
        T.eq(h["partial"], None, "%s: its walk is whole, past both of the "
             "program's parts" % how)
        T.ok(h["chunks"] >= 2200 and
             h["free_chunks"] == want["ordblks"] + want["smblks"] and
             h["in_use"] == want["uordblks"] and
             h["free"] == want["fordblks"],
             "%s: every chunk walked (2,200 allocated, the free ones "
             "mallinfo2's)" % how, h)
        T.ok(150008 <= h["overhead"] <= 150008 + 4 * 64,
             "%s: the program's 150,008 bytes between glibc's parts (and "
             "the fenceposts) are the heap's overhead, not chunks" % how,
             h["overhead"])
    settled(p, what)
    T.kill(p)


def noncontig():
    """The main arena not contiguous: its segments found where they lie
    (nothing points to them but top to the last)."""
    p, line = T.start([T.target("heap_noncontig")])
    want = T.ready_fields(line)
    try:
        for how, args in (("not contiguous, fork", ["-b", "fork"]),
                          ("not contiguous, pss -F", ["-b", "pss", "-F"])):
            snap = capture(str(p.pid), args)
            m = snap["malloc"]
            if not T.ok(m is not None, "%s: glibc malloc walked" % how,
                        notes(snap, "malloc")):
                continue
            T.eq({k: m[k] for k in FIELDS}, {k: want[k] for k in FIELDS},
                 "%s: every mallinfo2 field equals the target's own" % how)
            main = [h for h in snap["heaps"] if h["kind"] == "glibc-main"]
            if not T.eq(len(main), 1, "%s: one main heap" % how):
                continue
            h = main[0]
            T.eq(h["partial"], None, "%s: its walk is whole" % how)
            segs = [(T.hexint(x["start"]), T.hexint(x["end"]))
                    for x in h["segments"]]
            heap = [(T.hexint(r["start"]), T.hexint(r["end"]))
                    for r in snap["regions"] if r["path"] == "[heap]"]
            mapped = [x for x in segs
                      if not any(a <= x[0] < b for a, b in heap)]
            print("# %s: %d segments, %d mapped by glibc, overhead %d" %
                  (how, len(segs), len(mapped), h["overhead"]))
            T.ok(len(mapped) >= 2, "%s: segments in mmapped memory beside "
                 "the brk heap" % how, segs)
            T.ok(h["chunks"] >= 4000 and
                 h["free_chunks"] == want["ordblks"] + want["smblks"] and
                 h["in_use"] == want["uordblks"] and
                 h["free"] == want["fordblks"],
                 "%s: every chunk walked (4,000 allocated, the free ones "
                 "mallinfo2's)" % how, h)
            # each old segment ends in a double fencepost (32 bytes, no
            # chunk); the brk segment's share of [heap] is sbrk_base on
            T.eq(h["overhead"], 32 * (len(mapped)),
                 "%s: the overhead is the fenceposts ending each segment "
                 "but top's" % how)
            parts = [(T.hexint(c["start"]), T.hexint(c["end"]))
                     for r in snap["regions"] for c in r["children"]
                     if c.get("type") == "heap" and
                     c["name"] == "glibc malloc (main arena, mmapped)"]
            whole = [(T.hexint(r["start"]), T.hexint(r["end"]))
                     for r in snap["regions"] if r["type"] == "heap" and
                     r["path"] != "[heap]"]
            T.ok(all(x in parts or any(a <= x[0] and x[1] <= b
                                       for a, b in whole) for x in mapped),
                 "%s: each mapped segment is Heap (a part, or its region)"
                 % how, (mapped, parts, whole))
            settled(p, how)
    finally:
        T.kill(p)


def settled_pid(pid, how):
    st = T.proc_state(pid)
    T.ok(st not in "tT" and T.tracer_pid(pid) == 0,
         "%s: target running and untraced afterwards" % how, st)


def many_chunks():
    """102 mmapped chunks, memory of the target's own below the lowest
    (the kernel may merge them: then more parts in one region than a
    managed heap has): every chunk a Heap region or part, with -F, and
    from a snapshot file, which loads with the same parts."""
    p, line = T.start([T.target("heap_arenas"), "many", "1"])
    want = T.ready_fields(line)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            live, loaded = T.saved_and_loaded(p.pid, ["-F"], tmp)
        for how, snap in (("many", live), ("many, loaded", loaded)):
            mm = snap["malloc"]["mmapped_chunks"]
            T.eq((len(mm), snap["malloc"]["mmapped_note"]),
                 (want["hblks"], None), "%s: the %d mmapped chunks located"
                 % (how, want["hblks"]))
            mmapped_regions(snap, mm, how, p.pid)

        def parts(snap):
            return [(r["start"], c["start"], c["end"], c["type"])
                    for r in snap["regions"] for c in r["children"]
                    if "type" in c]
        most = max([sum(1 for c in r["children"] if "type" in c)
                    for r in live["regions"]])
        print("# many: at most %d parts in a region" % most)
        T.ok(parts(loaded) == parts(live), "many: the file loads with the "
             "live capture's parts (%d in one region at most)" % most)
    finally:
        T.kill(p)


def main():
    forked_child()
    foreign_sbrk()
    noncontig()
    p, line = T.start([T.target("heap_arenas"), "normal", "4"])
    want = T.ready_fields(line)
    have_dbg = False
    for how, args, env in (("fork", ["-b", "fork"], None),
                           ("fork, no symbols", ["-b", "fork"], NOSYMS),
                           ("pss -F", ["-b", "pss", "-F"], None),
                           ("pss -F, no symbols", ["-b", "pss", "-F"],
                            NOSYMS)):
        snap = capture(p.pid, args, env)
        check_exact(snap, want, how, p.pid)
        if snap["malloc"]:
            fb = snap["malloc"]["found_by"]
            if env:
                T.eq(fb, "relocation", "%s: found from the libc file "
                     "alone" % how)
            else:
                have_dbg = have_dbg or fb == "debug symbols"
        settled(p, how)
    if not have_dbg:
        T.skip("found from the debug file", "no libc6-dbg for this libc")
    else:
        T.ok(True, "found from the debug file for libc's build id")
    r = T.run_vmscope("-b", "fork", "-s", "--bytes", p.pid)
    line = [ln for ln in r.stdout.decode().splitlines()
            if ln.startswith("Malloc:")]
    T.ok(r.returncode == 0 and len(line) == 1 and
         ("glibc %s" % libc_version()) in line[0] and
         "5 arenas" in line[0] and
         ("in use %d" % want["uordblks"]) in line[0] and
         ("free %d" % want["fordblks"]) in line[0],
         "summary: a Malloc line with mallinfo2's figures", line)
    with tempfile.TemporaryDirectory() as tmp:
        live, loaded = T.saved_and_loaded(p.pid, ["-b", "fork"], tmp)
        T.ok([(r["start"], r["type"], r.get("detail"))
              for r in loaded["regions"]] ==
             [(r["start"], r["type"], r.get("detail"))
              for r in live["regions"]] and loaded["malloc"] is not None,
             "a snapshot file loads with the mmapped chunks' regions typed")
        mmapped_regions(loaded, loaded["malloc"]["mmapped_chunks"],
                        "loaded", p.pid)
    snap = capture(p.pid, ["-b", "pss"])
    T.ok(snap["malloc"] is None and
         any("not done" in n and "one instant" in n
             for n in notes(snap, "malloc")),
         "pss, not frozen: the walk is not done, and the note says why",
         notes(snap, "malloc"))
    T.kill(p)

    many_chunks()
    p, line = T.start([T.target("heap_arenas"), "corrupt", "4"])
    for how, args in (("corrupt, fork", ["-b", "fork"]),
                      ("corrupt, pss -F", ["-b", "pss", "-F"])):
        snap = capture(p.pid, args, NOSYMS)
        m = snap["malloc"]
        heaps = {h["kind"]: h for h in snap["heaps"]}
        T.ok(m is not None and m["partial"] and notes(snap, "malloc"),
             "%s: the result is marked partial, with a note" % how,
             (m, notes(snap, "malloc")))
        main_heap = heaps.get("glibc-main", {})
        T.ok("corrupt chunk header" in (main_heap.get("partial") or ""),
             "%s: the main arena says where its chunk walk stopped" % how,
             main_heap)
        T.ok(any("loops" in (h.get("partial") or "")
                 for h in snap["heaps"] if h["kind"] == "glibc-arena"),
             "%s: a thread arena says its bin loops" % how,
             [h.get("partial") for h in snap["heaps"]])
        # no memory of its own beside the chunks in this mode
        mmapped_regions(snap, m["mmapped_chunks"], how, p.pid)
        settled(p, how)
    T.kill(p)
    T.done()


if __name__ == "__main__":
    main()
