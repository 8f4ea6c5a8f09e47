#!/usr/bin/env python3
"""A glibc arena locked at the snapshot: its figures are not known, and
the OpenMetrics export must not pass the other arenas' sum off as the
process's.

tests/targets/heap_busy.c "busy": a worker thread with an arena of its
own, and a thread blocked for good inside malloc_stats() holding the main
arena's lock (it writes to a stderr pipe that is full and never read). The
walker sees the main arena locked (busy): JSON's heap of it has in_use and
free null, malloc is partial and says so (-b fork, -b pss -F); -s says
its top (mallinfo2's keepcost) is not known, not "top 0". Then:
  - -e openmetrics (-b fork, -F) and --all -e openmetrics: no glibc
    vmscope_heap_in_use_bytes / _free_bytes sample for that process (the
    figure is not known: no sample, never a part of it; it was the worker
    arena's alone); for the same program with nothing locked ("free"),
    its own mallinfo2()'s uordblks and fordblks;
  - --all --top=1 with a larger third process of the same name: the
    busy and the free one summed into the pid="other" row
    (vmscope_summed_processes 2) have no glibc heap sample, as its types'
    figures are known only where every process's are (it was the free
    one's alone, for two processes).
Every target is left running and untraced, and killed by its pid."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

HEAP = ("vmscope_heap_in_use_bytes", "vmscope_heap_free_bytes")


samples = T.om_samples


def glibc_heap(ss, pid):
    return {n: v for n, lb, v in ss
            if n in HEAP and lb.get("allocator") == "glibc" and
            lb.get("pid") == str(pid)}


def settled(pid, how):
    T.ok(T.proc_state(pid) not in "tT" and T.tracer_pid(pid) == 0,
         "%s: target running and untraced afterwards" % how)


def main():
    busy, _ = T.start([T.target("heap_busy"), "busy"])
    free, line = T.start([T.target("heap_busy"), "free"])
    want = T.ready_fields(line)
    big, _ = T.start([T.target("heap_busy"), "free", "48"])
    try:
        for how, args in (("fork", ["-b", "fork"]),
                          ("pss -F", ["-b", "pss", "-F"])):
            r = T.run_vmscope("-e", "json", *args, busy.pid, timeout=300)
            s = json.loads(r.stdout)
            main_heap = [h for h in s["heaps"] if h["kind"] == "glibc-main"]
            T.ok(r.returncode == 0 and len(main_heap) == 1 and
                 main_heap[0]["busy"] and main_heap[0]["in_use"] is None and
                 main_heap[0]["free"] is None and s["malloc"] and
                 "locked" in (s["malloc"]["partial"] or ""),
                 "%s: the main arena is seen locked: its figures null, "
                 "malloc partial" % how, (main_heap, s["malloc"]))
            r = T.run_vmscope("-s", *args, busy.pid, timeout=300)
            line = [ln for ln in r.stdout.decode().split("\n")
                    if ln.startswith("Malloc:")]
            T.ok(r.returncode == 0 and len(line) == 1 and
                 "(top not known)" in line[0],
                 "%s -s: the main arena's top not known (not 'top 0')"
                 % how, line)
            r = T.run_vmscope("-e", "openmetrics", *args, busy.pid,
                              timeout=300)
            T.eq((r.returncode, glibc_heap(samples(r.stdout.decode()),
                                           busy.pid)), (0, {}),
                 "%s -e openmetrics: no glibc heap sample where an arena "
                 "was locked (not the other arenas' sum)" % how)
            r = T.run_vmscope("-e", "openmetrics", *args, free.pid,
                              timeout=300)
            T.eq(glibc_heap(samples(r.stdout.decode()), free.pid),
                 {HEAP[0]: float(want["uordblks"]),
                  HEAP[1]: float(want["fordblks"])},
                 "%s -e openmetrics: nothing locked, the target's own "
                 "mallinfo2 uordblks and fordblks" % how)
            settled(busy.pid, how)
        r = T.run_vmscope("--all", "-e", "openmetrics", busy.pid, free.pid,
                          timeout=300)
        ss = samples(r.stdout.decode())
        T.eq((r.returncode, glibc_heap(ss, busy.pid)), (0, {}),
             "--all: no glibc heap sample for the process whose arena was "
             "locked")
        T.eq(glibc_heap(ss, free.pid),
             {HEAP[0]: float(want["uordblks"]),
              HEAP[1]: float(want["fordblks"])},
             "--all: the other process's are its mallinfo2's")
        r = T.run_vmscope("--all", "-e", "openmetrics", "--top=1", big.pid,
                          busy.pid, free.pid, timeout=300)
        ss = samples(r.stdout.decode())
        summed = [v for n, lb, v in ss if n == "vmscope_summed_processes" and
                  lb.get("pid") == "other"]
        kept = {lb.get("pid") for n, lb, v in ss if n in HEAP}
        T.ok(r.returncode == 0 and summed == [2.0] and
             str(big.pid) in kept,
             "--top=1: the larger process kept, the two others summed",
             (summed, kept))
        T.eq(glibc_heap(ss, "other"), {},
             "--top=1: the summed row has no glibc heap sample when one "
             "of its processes' is not known (not the other's alone)")
        settled(busy.pid, "--all")
    finally:
        for p in (busy, free, big):
            T.kill(p)
    T.done()


if __name__ == "__main__":
    main()
