#!/usr/bin/env python3
"""Capture time of a 65,000-region process, beside its references.

Starts manyregions with 65,000 regions (BENCH_REGIONS to change it) and, in
the same run, measures the wall time of RUNS (default 11) rounds, each
running every command once in a shuffled order (interleaved: a change in
the machine's load hits them alike; the seed is printed, VMSCOPE_SEED
replays it):
  cat /proc/PID/smaps > /dev/null      the reference: the kernel's own cost
  cat /proc/PID/maps, smaps_rollup     for scale
  vmscope -e json PID > /dev/null      the whole capture + JSON export
  vmscope -e json -F PID > /dev/null   the same, frozen
  vmscope -s PID > /dev/null           capture + summary
  pmap -X PID > /dev/null              what people use today
and prints each as an absolute time and as ratios to cat smaps (median to
median, minimum to minimum, and the quartiles of the ratio within a
round: the steadier figure on a busy machine), its CPU time (user + system,
of all its threads, from wait4: the median and its ratio to cat's), with
the peak RSS of each command (/usr/bin/time). The aim (issue
26; DESIGN.md): the whole `vmscope -e json` at most 1.2x cat smaps by the
medians. On a machine shared with other work a capture's two threads
(reader and parser) and its rollup thread get less than the two cores
they are made for: BENCH_CHRT=1 runs every command at a real-time
priority (chrt -f 10, as root), which measures them as on an idle
machine. BENCH_CAPTURE_BEFORE=PATH adds another build of vmscope (an
earlier commit's) to every round, `-e json` only, so a before and after
come from the same rounds. Never fails on a figure: only on an error.
"""
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

REGIONS = int(os.environ.get("BENCH_REGIONS", "65000"))
RUNS = int(os.environ.get("RUNS", "11"))
AIM = 1.2
SEED = int(os.environ.get("VMSCOPE_SEED", str(int(time.time()))))
# a real-time priority for every command measured (root only)
PREFIX = (["chrt", "-f", "10"] if os.environ.get("BENCH_CHRT") == "1"
          else [])


def run_once(argv, stdout_path=os.devnull):
    """Wall time of one run, its peak RSS and its CPU time (user + system
    of all its threads); stdout to a file."""
    with open(stdout_path, "wb") as out:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE)
        _, status, ru = os.wait4(p.pid, 0)
        t = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        err = p.stderr.read()
        p.stderr.close()
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(argv), p.returncode,
                                                err.decode()[-300:]))
    return t, ru.ru_maxrss, ru.ru_utime + ru.ru_stime


def quartiles(xs):
    """First quartile, median, third quartile."""
    xs = sorted(xs)
    return xs[len(xs) // 4], statistics.median(xs), xs[(3 * len(xs)) // 4]


def measure_all(cases):
    """RUNS rounds, each running every case once in a shuffled order: the
    cases are measured interleaved, so a change in the machine's load hits
    them alike. Per case: median, minimum, peak RSS, the quartiles of
    its ratio to the first case (the reference) within each round, and
    the median CPU time."""
    rng = random.Random(SEED)
    times = {name: [] for name, _ in cases}
    cpu = {name: [] for name, _ in cases}
    for _ in range(RUNS):
        order = list(cases)
        rng.shuffle(order)
        for name, argv in order:
            t, _, c = run_once(PREFIX + argv)
            times[name].append(t)
            cpu[name].append(c)
    ref = times[cases[0][0]]
    return [(name, (statistics.median(times[name]), min(times[name]),
                    T.peak_rss_kb(argv),
                    quartiles([t / r for t, r in zip(times[name], ref)]),
                    statistics.median(cpu[name])))
            for name, argv in cases]


def main():
    p, line = T.start([T.target("manyregions"), str(REGIONS)], timeout=120)
    pid = p.pid
    try:
        nregions = len(T.maps(pid))
        with open("/proc/%d/smaps" % pid, "rb") as f:
            smaps_bytes = len(f.read())
        cases = [
            ("cat /proc/PID/smaps", ["cat", "/proc/%d/smaps" % pid]),
            ("cat /proc/PID/maps", ["cat", "/proc/%d/maps" % pid]),
            ("cat /proc/PID/smaps_rollup",
             ["cat", "/proc/%d/smaps_rollup" % pid]),
            ("vmscope -e json PID", [T.VMSCOPE, "-e", "json", str(pid)]),
            ("vmscope -F -e json PID", [T.VMSCOPE, "-F", "-e", "json",
                                        str(pid)]),
            ("vmscope -s PID", [T.VMSCOPE, "-s", str(pid)]),
        ]
        before = os.environ.get("BENCH_CAPTURE_BEFORE")
        if before:
            cases.append(("before: vmscope -e json",
                          [os.path.abspath(before), "-e", "json", str(pid)]))
        if shutil.which("pmap"):
            cases.append(("pmap -X PID", ["pmap", "-X", str(pid)]))
        # one warm-up each, so no case pays for a cold page cache alone
        for _, argv in cases:
            run_once(argv)
        load0 = os.getloadavg()[0]
        res = measure_all(cases)
        load1 = os.getloadavg()[0]
        json_size = len(subprocess.run([T.VMSCOPE, "-e", "json", str(pid)],
                                       capture_output=True).stdout)
    finally:
        T.kill(p)

    ref, ref_min, ref_cpu = res[0][1][0], res[0][1][1], res[0][1][4]
    print("capture of manyregions: %d regions, smaps %.1f MB, JSON %.1f MB; "
          "%d interleaved rounds (seed %d%s); load average %.2f -> %.2f on "
          "%d CPUs" % (nregions, smaps_bytes / 1e6, json_size / 1e6, RUNS,
                       SEED, ", chrt -f 10" if PREFIX else "", load0, load1,
                       os.cpu_count()))
    print("%-26s %10s %8s %9s %9s %13s %7s %7s %12s" % (
        "command", "median ms", "min ms", "x median", "x min",
        "x per round", "CPU ms", "x CPU", "peak RSS MB"))
    for name, (med, mn, rss, (q1, _, q3), cpu) in res:
        print("%-26s %10.1f %8.1f %8.2fx %8.2fx %6.2f-%.2fx %7.1f %6.2fx "
              "%12s" % (
                  name, med * 1e3, mn * 1e3, med / ref, mn / ref_min, q1,
                  q3, cpu * 1e3, cpu / ref_cpu if ref_cpu else 0,
                  "%.1f" % (rss / 1024) if rss is not None else "-"))
    vj = dict(res)["vmscope -e json PID"]
    print("aim: vmscope -e json at most %.1fx cat smaps: %.2fx by the "
          "medians (%s), %.2fx by the minimums; within a round %.2fx "
          "(median; quartiles %.2f-%.2fx, the steadier figure on a busy "
          "machine); CPU time %.2fx cat's (its reader, parser and rollup "
          "threads together)" % (
              AIM, vj[0] / ref, "met" if vj[0] / ref <= AIM else "not met",
              vj[1] / ref_min, vj[3][1], vj[3][0], vj[3][2],
              vj[4] / ref_cpu if ref_cpu else 0))
    if "before: vmscope -e json" in dict(res):
        vb = dict(res)["before: vmscope -e json"]
        print("before (BENCH_CAPTURE_BEFORE, the same rounds): %.2fx by the "
              "medians, %.2fx within a round, CPU time %.2fx" % (
                  vb[0] / ref, vb[3][1],
                  vb[4] / ref_cpu if ref_cpu else 0))
    print("ok - bench_capture")


if __name__ == "__main__":
    main()
