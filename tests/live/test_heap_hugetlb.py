#!/usr/bin/env python3
# run alone: raises the machine's vm.nr_hugepages for a while
"""test_heap_hugetlb — glibc's thread arenas under
GLIBC_TUNABLES=glibc.malloc.hugetlb=2 (glibc 2.35 and later): each heap is
then four huge pages (heap_max_size(): 8 MiB with 2 MiB pages, aligned to
that), not HEAP_MAX_SIZE's 64 MiB, whether or not the kernel's pool has
huge pages (none is reserved here: glibc falls back to small pages and
keeps the size). tests/targets/heap_arenas.c with four threads, each with
its own arena:

  - the default sampler (nothing stopped, no walk): each arena's
    reservation, its read-write part and the PROT_NONE rest, typed Heap,
    and one glibc-arena heap each whose segment is that reservation
    (before: all of it Private Data, no heap listed);
  - -F (the walk): every mallinfo2 figure the target's own, and the same
    regions Heap;
  - a gcore core (no VmFlags: the heaps found by the walk alone): the
    reserved rest of each heap typed "arena heap, reserved" as live (the
    walk's heap size, not 64 MiB).
Then again with huge pages in the pool (vm.nr_hugepages raised by 40 for
the while, as root, put back as it was on failure too): malloc's memory
is then hugetlbfs mappings ("/anon_hugepage"), a region a huge page where
glibc made them read-write one at a time: without the walk each arena's
heap, all its regions, is Heap and a heap; with -F the walk is whole
(before: "heap_info ... does not belong", its span cut at the first
region's end), every mallinfo2 figure the target's own, and every
hugetlb region of the target Heap (the arenas' heaps, the main arena's
segments, the mmapped chunks: before, all of them Private Data).
Skipped where glibc leaves the heaps 64 MiB (an older glibc ignores the
tunable)."""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

ENV = dict(os.environ, GLIBC_TUNABLES="glibc.malloc.hugetlb=2")
FIELDS = ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
          "fsmblks", "uordblks", "fordblks", "keepcost")


def reservations(pid):
    """The target's thread-arena heaps by the kernel's maps: an anonymous
    read-write region followed by a PROT_NONE one, the two together a
    power of two below 64 MiB and aligned to it: [(start, rw end,
    end)]."""
    m = T.maps(pid)
    out = []
    for a, b in zip(m, m[1:]):
        size = b["end"] - a["start"]
        if (a["path"] is None and b["path"] is None and
                a["perms"] == "rw-p" and b["perms"] == "---p" and
                a["end"] == b["start"] and size < (64 << 20) and
                not size & (size - 1) and a["start"] % size == 0):
            out.append((a["start"], a["end"], b["end"]))
    return out


def typed(snap, res):
    """What the snapshot says of each reservation's two regions."""
    return [(T.region_of(snap, lo) or {}).get("type") == "heap" and
            (T.region_of(snap, rw) or {}).get("type") == "heap"
            for lo, rw, hi in res]


def arena_heaps(snap):
    return sorted((int(s["start"], 16), int(s["end"], 16))
                  for h in snap["heaps"] if h["kind"] == "glibc-arena"
                  for s in h["segments"])


NR = "/proc/sys/vm/nr_hugepages"
POOL = 40  # 2 MiB pages: the heaps' reservations, the main arena, chunks


def arena_reservations(pid):
    """The starts of the thread arenas' heaps of huge pages by the kernel's
    maps: a run of hugetlb regions of one file at following offsets,
    read-write then PROT_NONE, 8 MiB in all and aligned to it (a main
    arena's segment or a chunk may start 8 MiB-aligned too, by chance:
    it has no PROT_NONE rest)."""
    m = [r for r in T.maps(pid)
         if (r["path"] or "").startswith("/anon_hugepage")]
    out = []
    i = 0
    while i < len(m):
        j = i
        while j + 1 < len(m) and m[j + 1]["inode"] == m[i]["inode"] and \
                m[j + 1]["start"] == m[j]["end"]:
            j += 1
        run = m[i:j + 1]
        if run[-1]["perms"] == "---p" and \
                run[-1]["end"] - run[0]["start"] == 8 << 20 and \
                run[0]["start"] % (8 << 20) == 0:
            out.append(run[0]["start"])
        i = j + 1
    return out


def huge_regions(pid):
    return [(r["start"], r["end"]) for r in T.maps(pid)
            if (r["path"] or "").startswith("/anon_hugepage")]


def pool():
    """heap_arenas with its malloc in huge pages of the pool."""
    if os.geteuid() != 0 or not os.path.exists(NR):
        T.skip("heaps in the pool's huge pages", "needs root and hugetlb")
        return
    with open(NR) as f:
        old = f.read().strip()
    try:
        with open(NR, "w") as f:
            f.write(str(int(old) + POOL))
        with open(NR) as f:
            if int(f.read()) < int(old) + POOL:
                T.skip("heaps in the pool's huge pages", "the kernel could "
                       "not reserve %d more huge pages" % POOL)
                return
        p, line = T.start([T.target("heap_arenas"), "normal", "4"], env=ENV)
        try:
            want = T.ready_fields(line)
            huge = huge_regions(p.pid)
            heaps = arena_reservations(p.pid)
            if not huge:
                T.skip("heaps in the pool's huge pages", "glibc took "
                       "none of the pool's pages")
                return
            snap = T.vmscope_json(p.pid)
            T.ok(len(arena_heaps(snap)) == 4 and len(heaps) == 4 and
                 all(any(a <= lo and hi <= b for a, b in arena_heaps(snap))
                     and (T.region_of(snap, lo) or {}).get("type") == "heap"
                     for lo, hi in huge if any(lo >= h and hi <= h + (8 << 20)
                                               for h in heaps)),
                 "pool, default sampler: four arena heaps, every region of "
                 "their huge pages Heap", (arena_heaps(snap), heaps))
            for how in (["-F"], ["-b", "fork"]):
                frozen = T.vmscope_json(p.pid, *how)
                mi = frozen.get("malloc") or {}
                T.eq({k: mi.get(k) for k in FIELDS},
                     {k: want[k] for k in FIELDS},
                     "pool, %s: every mallinfo2 field of the walk equals "
                     "the target's own" % " ".join(how))
                T.eq(mi.get("partial"), None,
                     "pool, %s: nothing partial" % " ".join(how))
                bad = [(hex(lo), (T.region_of(frozen, lo) or {}).get("type"))
                       for lo, hi in huge
                       if (T.region_of(frozen, lo) or {}).get("type") !=
                       "heap"]
                T.eq(bad, [], "pool, %s: each of the %d hugetlb regions "
                     "(heaps, the main arena's segments, mmapped chunks) "
                     "typed Heap" % (" ".join(how), len(huge)))
        finally:
            T.kill(p)
    finally:
        with open(NR, "w") as f:
            f.write(old)


def main():
    p, line = T.start([T.target("heap_arenas"), "normal", "4"], env=ENV)
    try:
        want = T.ready_fields(line)
        res = reservations(p.pid)
        if len(res) != 4:
            T.skip("heaps of four huge pages", "glibc made %d such heaps "
                   "(it ignores glibc.malloc.hugetlb=2 before 2.35)"
                   % len(res))
            T.done()
            return
        size = res[0][2] - res[0][0]
        snap = T.vmscope_json(p.pid)
        T.ok(all(typed(snap, res)),
             "default sampler: the four %d KiB heaps, read-write and "
             "reserved, typed Heap" % (size >> 10),
             [(hex(lo), ok) for (lo, _, _), ok in zip(res, typed(snap, res))])
        T.eq(arena_heaps(snap), [(lo, hi) for lo, _, hi in res],
             "default sampler: one glibc-arena heap each, its segment the "
             "whole reservation")
        frozen = T.vmscope_json(p.pid, "-F")
        mi = frozen.get("malloc") or {}
        T.eq({k: mi.get(k) for k in FIELDS}, {k: want[k] for k in FIELDS},
             "-F: every mallinfo2 field of the walk equals the target's "
             "own")
        T.eq(mi.get("partial"), None, "-F: nothing partial")
        T.ok(all(typed(frozen, res)),
             "-F: the same regions typed Heap")
        if not shutil.which("gcore"):
            T.skip("a core of it", "no gcore (gdb) here")
        else:
            tmp = tempfile.mkdtemp(prefix="vmscope-hugeheap-")
            try:
                core = T.gcore(p.pid, tmp)
                r = T.run_vmscope("-l", core, "-e", "json", timeout=300)
                T.eq(r.returncode, 0, "-l CORE -e json")
                cs = json.loads(r.stdout) if r.returncode == 0 else \
                    {"regions": []}
                rest = [(T.region_of(cs, rw) or {}) for _, rw, _ in res]
                T.ok(all(g.get("type") == "heap" and
                         g.get("detail") == "arena heap, reserved"
                         for g in rest),
                     "the core: each heap's reserved rest typed Heap, "
                     "\"arena heap, reserved\"",
                     [(g.get("start"), g.get("end"), g.get("type"),
                       g.get("detail")) for g in rest])
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    finally:
        T.kill(p)
    pool()
    T.done()


if __name__ == "__main__":
    main()
