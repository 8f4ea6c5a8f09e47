#!/usr/bin/env python3
"""Bounded work for hostile targets (issue 9 item 4), beside references
measured in the same run.

Each hostile target (tests/targets/elf_hostile.c) is captured with
`vmscope -e json PID > /dev/null`, and so is an ordinary target with as many
regions (elf_hostile plain N, one page a region):
  bomb      4,000 mappings of two ELF files with 65,000 allocated sections
            each (BENCH_BOMB to change the count)
  sparse    one page of an 8 GB sparse ELF file whose PT_NOTE spans it
  arenas    20,000 regions shaped as glibc arena heaps of one arena
            (BENCH_ARENAS)
Printed: the median wall time of RUNS (default 3) interleaved runs and the
peak RSS (/usr/bin/time), each with its ratio to the reference. The aim:
each within 2x of its reference. Never fails on a figure: only on an
error. The generated files live in a temporary directory, deleted at the
end; every target is killed by its pid.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

RUNS = int(os.environ.get("RUNS", "3"))
BOMB = int(os.environ.get("BENCH_BOMB", "4000"))
ARENAS = int(os.environ.get("BENCH_ARENAS", "20000"))
AIM = 2.0


def run_once(argv):
    with open(os.devnull, "wb") as out:
        t0 = time.perf_counter()
        r = subprocess.run(argv, stdout=out, stderr=subprocess.PIPE)
        t = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(argv), r.returncode,
                                                r.stderr.decode()[-300:]))
    return t


def regions(pid):
    with open("/proc/%d/maps" % pid) as f:
        return sum(1 for _ in f)


def measure(pairs):
    """pairs: (label, pid, ref_pid). Interleaved rounds: a change in the
    machine's load hits every case alike."""
    times = {}
    for _ in range(RUNS):
        for label, pid, ref in pairs:
            for key, p in ((label, pid), (label + "/ref", ref)):
                times.setdefault(key, []).append(
                    run_once([T.VMSCOPE, "-e", "json", str(p)]))
    rows = []
    for label, pid, ref in pairs:
        t = statistics.median(times[label])
        tr = statistics.median(times[label + "/ref"])
        m = T.peak_rss_kb([T.VMSCOPE, "-e", "json", str(pid)])
        mr = T.peak_rss_kb([T.VMSCOPE, "-e", "json", str(ref)])
        rows.append((label, regions(pid), regions(ref), t, tr, m, mr))
    return rows


def ratio(a, b):
    return "%.2fx" % (a / b) if a is not None and b else "?"


def main():
    tmp = tempfile.mkdtemp(prefix="vms-bench-elf-")
    procs = []

    def start(*args):
        p, _ = T.start([T.target("elf_hostile")] + [str(a) for a in args],
                       timeout=300)
        procs.append(p)
        return p.pid

    try:
        pairs = [("bomb %d" % BOMB, start("bomb", tmp, BOMB),
                  start("plain", BOMB)),
                 ("sparse 8 GB note", start("sparse", tmp), start("plain", 1)),
                 ("arenas %d" % ARENAS, start("arenas", ARENAS),
                  start("plain", ARENAS))]
        rows = measure(pairs)
        print("vmscope -e json, median of %d; reference: an ordinary target "
              "with as many regions (aim: within %.1fx)" % (RUNS, AIM))
        print("%-18s %8s %8s %9s %9s %7s %9s %9s %7s" %
              ("case", "regions", "ref", "time", "ref", "ratio", "peakRSS",
               "ref", "ratio"))
        for label, n, nr, t, tr, m, mr in rows:
            print("%-18s %8d %8d %8.3fs %8.3fs %7s %8sK %8sK %7s" %
                  (label, n, nr, t, tr, ratio(t, tr), m, mr, ratio(m, mr)))
    finally:
        for p in procs:
            T.kill(p)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
