#!/usr/bin/env python3
"""vmscope classifies the everykind target right, region by region, and
agrees with the target's own view of itself.

everykind prints the address of each thing it made (see
tests/targets/everykind.c); each must lie in a region of the right type:
  - the executable's and libc's regions are image; .text is a child of the
    r-xp region; the .bss buffer is image too;
  - the mapped data file is mapped_file (committed = size);
  - shared anonymous memory and the memfd are shareable;
  - [heap] is heap and holds a small malloc of the main thread;
  - each thread's malloc'd chunk lies in a heap region (its arena) and
    JSON "heaps" has one glibc-arena per arena glibc made besides the main
    one (malloc_info in the target), each chunk in a different one;
  - each thread's stack (the address of a local) lies in a stack region
    with a PROT_NONE guard below it typed stack with state guard; the
    main thread's is [stack];
  - the 256 MiB PROT_NONE reservation is private_data, reserved,
    committed 0;
  - the 64 MiB buffer is committed == size: a chunk glibc's malloc mapped
    for it, private_data where the heap walk is not done (not frozen),
    heap "glibc malloc (mmapped chunk)" where it is (-F), when the kernel
    gave it a region of its own (it may merge with a neighbour);
  - named regions (when the kernel has CONFIG_ANON_VMA_NAME): "Go: heap"
    is managed_heap and listed in "managed";
  - every thread of /proc/PID/task is in "threads", with stack_start..
    stack_end a stack region.
Checked three ways: running, stopped with SIGSTOP, and stopped with -F.
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402


def region_at(snap, addr):
    return T.region_of(snap, addr)


def check(label, pid, snap, f, datafile):
    regs = snap["regions"]
    exe = os.path.realpath("/proc/%d/exe" % pid)

    def typed(addr, want, what):
        r = region_at(snap, addr)
        T.ok(r is not None and r["type"] == want,
             "%s: %s (0x%x) is %s" % (label, what, addr, want),
             "region: %r" % (r and {k: r[k] for k in ("start", "end",
                                                       "perms", "path",
                                                       "type", "detail",
                                                       "state")}))
        return r

    # images
    exe_regs = [r for r in regs if r["path"] == exe]
    T.ok(exe_regs and all(r["type"] == "image" for r in exe_regs),
         "%s: every region of the executable is image" % label,
         [(r["start"], r["perms"], r["type"]) for r in exe_regs])
    r = typed(f["text"], "image", "main()")
    T.ok(r and r["perms"] == "r-xp" and
         any(c["name"] == ".text" for c in r["children"]),
         "%s: .text is a child of the executable's r-xp region" % label,
         r and r["children"])
    libc = region_at(snap, f["libc"])
    lib_regs = [x for x in regs if libc and x["path"] == libc["path"]]
    T.ok(libc and "libc" in (libc["path"] or "") and lib_regs and
         all(x["type"] == "image" for x in lib_regs),
         "%s: every region of libc is image" % label,
         [(x["start"], x["perms"], x["type"]) for x in lib_regs])
    T.ok(libc and libc["perms"] == "r-xp" and
         any(c["name"] == ".text" for c in libc["children"]),
         "%s: .text is a child of libc's r-xp region" % label,
         libc and libc["children"])
    r = typed(f["bss"], "image", "the .bss buffer")
    T.ok(r and any(c["name"] == ".bss" for c in r["children"]),
         "%s: .bss is a child of the region holding the .bss buffer" % label)

    # files and shared memory
    r = typed(f["datafile"], "mapped_file", "the mapped data file")
    T.ok(r and r["path"] == datafile and r["committed"] == r["size"] ==
         f["datafile_size"],
         "%s: the data file's region is the file, all committed" % label,
         r and (r["path"], r["size"], r["committed"]))
    typed(f["shanon"], "shareable", "shared anonymous memory")
    r = typed(f["memfd"], "shareable", "the memfd")
    T.ok(r and r["path"].startswith("/memfd:everykind"),
         "%s: the memfd region has its name" % label, r and r["path"])

    # heaps
    r = typed(f["mainheap"], "heap", "a small malloc of the main thread")
    T.ok(r and r["path"] == "[heap]", "%s: ... in [heap]" % label,
         r and r["path"])
    heaps = snap["heaps"]
    arenas = [h for h in heaps if h["kind"] == "glibc-arena"]
    T.eq(len([h for h in heaps if h["kind"] == "glibc-main"]), 1,
         "%s: one glibc-main heap" % label)
    T.eq(len(arenas), f["arenas"] - 1,
         "%s: one glibc-arena heap per non-main arena glibc made (%d)"
         % (label, f["arenas"] - 1))

    def heap_of(addr):
        for h in arenas:
            for sg in h["segments"]:
                if T.hexint(sg["start"]) <= addr < T.hexint(sg["end"]):
                    return h["id"]
        return None

    owners = []
    for i in range(1, f["threads"] + 1):
        typed(f["arena%d" % i], "heap", "thread %d's malloc chunk" % i)
        owners.append(heap_of(f["arena%d" % i]))
    T.ok(None not in owners and len(set(owners)) == f["arenas"] - 1,
         "%s: each thread's chunk is in a glibc-arena heap, %d distinct"
         % (label, f["arenas"] - 1), owners)

    # stacks
    r = typed(f["stack0"], "stack", "the main thread's stack")
    T.ok(r and r["path"] == "[stack]", "%s: ... is [stack]" % label,
         r and r["path"])
    for i in range(1, f["threads"] + 1):
        r = typed(f["stack%d" % i], "stack", "thread %d's stack" % i)
        if not r:
            continue
        T.ok(str(f["tid%d" % i]) in (r["detail"] or ""),
             "%s: its detail names tid %d" % (label, f["tid%d" % i]),
             r["detail"])
        below = region_at(snap, T.hexint(r["start"]) - 1)
        T.ok(below is not None and below["end"] == r["start"] and
             below["perms"] == "---p" and below["type"] == "stack" and
             "guard" in below["state"],
             "%s: thread %d's guard page below is stack, state guard"
             % (label, i), below)

    # private data (everykind keeps the reservation between read-only pages
    # of its own: no neighbour merges with it, so its size is exact)
    r = typed(f["reserve"], "private_data", "the PROT_NONE reservation")
    T.ok(r and r["size"] == f["reserve_size"] and r["committed"] == 0 and
         "reserved" in r["state"] and r["perms"] == "---p",
         "%s: the reservation is 256 MiB, reserved, committed 0" % label,
         r and (r["size"], r["committed"], r["state"]))
    walked = snap.get("malloc") is not None
    r = region_at(snap, f["bigbuf"])
    whole = r is not None and T.hexint(r["start"]) == f["bigbuf"] - 16
    want = ("heap", "glibc malloc (mmapped chunk)") if walked and whole \
        else ("private_data", None)
    T.ok(r is not None and (r["type"], r["detail"] if walked and whole
                            else None) == want,
         "%s: the 64 MiB buffer (0x%x) is %s" % (label, f["bigbuf"],
                                                  " ".join(w for w in want
                                                           if w)),
         r and {k: r[k] for k in ("start", "end", "type", "detail")})
    T.ok(r and r["size"] >= f["bigbuf_size"] and
         r["committed"] == r["size"] and r["rss"] >= f["bigbuf_size"] and
         "reserved" not in r["state"],
         "%s: the big buffer is committed == size and resident" % label,
         r and (r["size"], r["committed"], r["rss"]))

    # named regions
    if "named" in f:
        r = typed(f["named"], "private_data", "a region named with prctl")
        T.eq(r and r["detail"], "everykind named",
             "%s: its detail is its name" % label)
    else:
        T.skip("%s: a region named with prctl" % label,
               "the kernel has no CONFIG_ANON_VMA_NAME")
    if "managed" in f:
        typed(f["managed"], "managed_heap", "a region named 'Go: heap'")
        T.ok(any(m["runtime"] == "go" and
                 T.hexint(m["start"]) <= f["managed"] < T.hexint(m["end"])
                 for m in snap["managed"]),
             "%s: 'managed' lists it as go" % label, snap["managed"])
    else:
        T.skip("%s: a managed heap named 'Go: heap'" % label,
               "the kernel has no CONFIG_ANON_VMA_NAME")

    # threads
    tids = T.tids(pid)
    th = {t["tid"]: t for t in snap["threads"]}
    T.eq(sorted(th), tids, "%s: threads == /proc/PID/task" % label)
    T.eq(sorted([f["tid%d" % i] for i in range(1, f["threads"] + 1)] +
                [pid]), sorted(tids),
         "%s: the target's own thread ids are /proc/PID/task" % label)
    bad = [t for t in th.values()
           if not (region_at(snap, T.hexint(t["stack_start"])) or {}).get(
               "type") == "stack"
           or T.hexint(t["stack_end"]) <= T.hexint(t["stack_start"])]
    T.ok(not bad, "%s: every thread's stack_start..stack_end is a stack "
         "region" % label, bad)
    # each worker's own stack address lies in the stack JSON gives it
    for i in range(1, f["threads"] + 1):
        t = th.get(f["tid%d" % i])
        T.ok(t and T.hexint(t["stack_start"]) <= f["stack%d" % i] <
             T.hexint(t["stack_end"]),
             "%s: thread %d's own stack address is in its JSON stack"
             % (label, i), t)


def main():
    tmp = tempfile.mkdtemp(prefix="vmscope-classify-")
    datafile = os.path.join(tmp, "everykind.dat")
    try:
        p, line = T.start([T.target("everykind"), datafile])
        f = T.ready_fields(line)
        T.eq(f["arenas"], f["threads"] + 1,
             "everykind: glibc made one arena per thread (malloc_info)")
        check("running", p.pid, T.vmscope_json(p.pid), f, datafile)
        T.sigstop(p.pid)
        check("stopped", p.pid, T.vmscope_json(p.pid), f, datafile)
        check("stopped -F", p.pid, T.vmscope_json(p.pid, "-F"), f, datafile)
        T.sigcont(p.pid)
        T.kill(p)
    finally:
        T.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
