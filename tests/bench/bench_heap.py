#!/usr/bin/env python3
"""The glibc heap walk's speed (issue 11: at least 1 GB/s of heap, and at
most 20% of a fork capture's time), beside a plain pread of the same bytes
in the same run.

Target: tests/targets/heap_arenas.c in "big" mode, BENCH_HEAP_MB (default
1024) megabytes of small chunks in its main heap (a third of them freed:
tcache and fastbins), two threads with arenas of their own. Measured, RUNS
(default 3) interleaved rounds, medians:
  pread   the [heap] region read from /proc/PID/mem in 1 MiB preads
          (the target is blocked in read(): its heap does not change)
  walk    malloc.walk_us of `vmscope -b fork -e json` (the walk alone,
          timed by vmscope), and the bytes it read (malloc.bytes_read)
  fork    the whole `vmscope -b fork -e json` capture, wall time
  floor   the same heap walked by the target itself, each chunk's size
          read at memory speed (heap_arenas "w"): the least any walk that
          visits every chunk costs (the per-arena chunk counts need one),
          even one run inside the clone, beside what the aim of 20%
          leaves it (a fifth of the capture without the walk)
Printed: each rate in GB/s, the walk's rate against pread's, and the walk's
share of the fork capture. Never fails on a figure, only on an error (or a
walk whose mallinfo2 differs from the target's own). The target is killed
by its pid.
"""
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

RUNS = int(os.environ.get("RUNS", "3"))
MB = int(os.environ.get("BENCH_HEAP_MB", "1024"))
FIELDS = ("arena", "ordblks", "smblks", "hblks", "hblkhd", "fsmblks",
          "uordblks", "fordblks", "keepcost")


def heap_range(pid):
    for r in T.maps(pid):
        if r["path"] == "[heap]":
            return r["start"], r["end"]
    raise RuntimeError("no [heap]")


def pread_heap(pid, start, end):
    fd = os.open("/proc/%d/mem" % pid, os.O_RDONLY)
    try:
        t0 = time.perf_counter()
        n = 0
        for a in range(start, end, 1 << 20):
            n += len(os.pread(fd, min(1 << 20, end - a), a))
        return time.perf_counter() - t0, n
    finally:
        os.close(fd)


def fork_capture(pid):
    t0 = time.perf_counter()
    r = subprocess.run([T.VMSCOPE, "-b", "fork", "-e", "json", str(pid)],
                       capture_output=True)
    t = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError("vmscope: %s" % r.stderr.decode()[-300:])
    return t, json.loads(r.stdout)


def gbs(n, t):
    return "%.2f GB/s" % (n / t / 1e9) if t else "?"


def main():
    p, line = T.start([T.target("heap_arenas"), "big", "2", str(MB)],
                      timeout=300)
    want = T.ready_fields(line)
    start, end = heap_range(p.pid)
    pr, walk, fork = [], [], []
    nread = nheap = 0
    for _ in range(RUNS):
        t, nheap = pread_heap(p.pid, start, end)
        pr.append(t)
        t, snap = fork_capture(p.pid)
        m = snap["malloc"]
        if not m or any(m[k] != want[k] for k in FIELDS):
            raise RuntimeError("walk differs from the target's mallinfo2: "
                               "%s vs %s" % (m, want))
        fork.append(t)
        walk.append(m["walk_us"] / 1e6)
        nread = m["bytes_read"]
    floor = []
    for _ in range(RUNS):
        p.stdin.write(b"w\n")
        p.stdin.flush()
        w = p.stdout.readline().decode().split()
        if len(w) != 4 or w[0] != "selfwalk" or w[1] == "-1" or w[3] != "1":
            raise RuntimeError("heap_arenas: its own walk failed or "
                               "stopped short of the heap's end: %s" % w)
        floor.append(int(w[1]) / 1e6)
    t_pr, t_walk, t_fork = (statistics.median(x) for x in (pr, walk, fork))
    t_floor = statistics.median(floor)
    print("heap: %d MiB in [heap], %d MiB read by the walk (%s chunks)" %
          (nheap >> 20, nread >> 20, want["ordblks"] + want["smblks"]))
    print("pread  %.3f s  %s  (reference)" % (t_pr, gbs(nheap, t_pr)))
    print("walk   %.3f s  %s of heap  (%.2fx pread's time; aim: >= 1 GB/s)"
          % (t_walk, gbs(nheap, t_walk), t_walk / t_pr if t_pr else 0))
    print("fork   %.3f s  the whole capture; the walk is %.0f%% of it "
          "(aim: the walk adds <= 20%%, i.e. <= %.0f%% of the total)" %
          (t_fork, 100 * t_walk / t_fork, 100 * 0.2 / 1.2))
    print("floor  %.3f s  the target walking its own heap by chunk sizes "
          "(%s); the aim leaves a walk %.3f s (a fifth of the %.3f s "
          "the capture takes besides it): %s" %
          (t_floor, gbs(nheap, t_floor), 0.2 * (t_fork - t_walk),
           t_fork - t_walk,
           "out of reach of any walk that visits every chunk (the chunk "
           "counts need one)" if t_floor > 0.2 * (t_fork - t_walk)
           else "within reach"))
    T.kill(p)


if __name__ == "__main__":
    main()
