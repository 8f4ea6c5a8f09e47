#!/usr/bin/env python3
"""A glibc arena whose memory the snapshot does not hold: its figures are
not known (null), never 0, and it is one heap.

Live: tests/targets/heap_busy "gone": a worker thread's arena, then the
first page of its heap (heap_info and malloc_state) dropped with
MADV_DONTNEED, so no reader of present pages has it. With -F and with
-b fork:
  - -e json: one heap of that arena (found by its shape, its header not
    read, and the walk's arena in it: not a second heap beside it), its
    partial saying the arena cannot be read, in_use, free, top and system
    null, busy false (in_use and free were 0, in a second heap);
  - -s: the Malloc line's top is the main arena's (known here);
  - -e openmetrics: no glibc heap sample (the whole is not known);
  - -w FILE, then -l FILE -e json: the arena kept unread.
A core: tests/targets/heap_arenas "normal 4" (four threads, an arena
each) dumped by gcore with the process's coredump_filter at 0x34 (file
private memory, ELF headers, huge pages: no anonymous private memory):
libc's data, where main_arena is, but no thread arena's pages. Loading it,
-e json has each such arena's figures null and -e openmetrics no glibc
heap sample.
Targets are killed by their pids; a coredump_filter is its process's."""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402


def unread(snap):
    return [h for h in snap["heaps"] if h["kind"] == "glibc-arena" and
            "cannot be read" in (h.get("partial") or "")]


def nulls(hs):
    return all(h[k] is None for h in hs
               for k in ("in_use", "free", "top", "system")) and \
        not any(h["busy"] for h in hs)


def glibc_samples(r):
    return [ln for ln in r.stdout.decode().split("\n")
            if ln.startswith("vmscope_heap_") and "glibc" in ln]


def live(tmp):
    p, _ = T.start([T.target("heap_busy"), "gone"])
    try:
        for how, args in (("-F", ["-F"]), ("fork", ["-b", "fork"])):
            r = T.run_vmscope("-e", "json", *args, p.pid, timeout=300)
            snap = json.loads(r.stdout) if r.returncode == 0 else {
                "heaps": []}
            hs = unread(snap)
            arenas = [h for h in snap["heaps"] if h["kind"] == "glibc-arena"]
            T.ok(len(hs) == 1 and len(arenas) == 1 and nulls(hs),
                 "%s -e json: the arena unread, one heap, its figures null"
                 % how, snap["heaps"])
            r = T.run_vmscope("-e", "openmetrics", *args, p.pid, timeout=300)
            T.ok(r.returncode == 0 and not glibc_samples(r),
                 "%s -e openmetrics: no glibc heap sample" % how,
                 glibc_samples(r))
        r = T.run_vmscope("-s", "-F", p.pid, timeout=300)
        line = [ln for ln in r.stdout.decode().split("\n")
                if ln.startswith("Malloc:")]
        T.ok(len(line) == 1 and "(top not known)" not in line[0] and
             "(top 0 K)" not in line[0],
             "-s: the main arena's top, known", line)
        path = os.path.join(tmp, "gone.vms")
        r = T.run_vmscope("-F", "-w", path, p.pid, timeout=300)
        r2 = T.run_vmscope("-l", path, "-e", "json", timeout=300)
        again = json.loads(r2.stdout) if r.returncode == 0 and \
            r2.returncode == 0 else {"heaps": []}
        T.ok(len(unread(again)) == 1 and nulls(unread(again)),
             "-w, then -l: the arena kept unread, its figures null",
             again["heaps"])
        T.ok(T.proc_state(p.pid) not in "tT" and T.tracer_pid(p.pid) == 0,
             "the target running and untraced afterwards")
    finally:
        T.kill(p)


def main():
    tmp = tempfile.mkdtemp(prefix="vmscope-unread-")
    try:
        live(tmp)
        core(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


def core(tmp):
    if not shutil.which("gcore"):
        T.skip("an unreadable arena in a core", "no gcore (gdb) here")
        return
    p, _ = T.start([T.target("heap_arenas"), "normal", "4"])
    try:
        with open("/proc/%d/coredump_filter" % p.pid, "w") as f:
            f.write("0x34")
        core = T.gcore(p.pid, tmp)
        r = T.run_vmscope("-l", core, "-e", "json", timeout=300)
        T.eq(r.returncode, 0, "-l CORE -e json")
        snap = json.loads(r.stdout) if r.returncode == 0 else {"heaps": []}
        hs = unread(snap)
        if not hs:
            T.skip("an unreadable arena in a core", "gcore wrote the "
                   "arenas' memory whatever the coredump_filter: %r" %
                   [(h["kind"], h.get("partial")) for h in snap["heaps"]])
            return
        T.ok(nulls(hs), "a core: %d unreadable arenas, their figures null "
             "(not 0), not busy" % len(hs), hs)
        r = T.run_vmscope("-l", core, "-e", "openmetrics", timeout=300)
        T.ok(r.returncode == 0 and not glibc_samples(r),
             "a core -e openmetrics: no glibc heap sample (the whole is "
             "not known)", glibc_samples(r))
    finally:
        T.kill(p)


if __name__ == "__main__":
    main()
