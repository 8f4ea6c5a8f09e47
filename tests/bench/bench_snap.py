#!/usr/bin/env python3
"""Snapshot files of a 65,000-region process, beside their references.

Starts manyregions with 65,000 regions (BENCH_REGIONS to change it), saves
it once with `vmscope -w FILE PID`, and measures in the same run the
median and minimum wall time of RUNS (default 5) interleaved rounds of:
  vmscope -s PID            the live capture: the reference
  vmscope -l FILE -s        the saved snapshot loaded and summarised
  vmscope -w FILE2 PID      a capture saved
with the peak RSS of each (/usr/bin/time), the file's size beside the
smaps text's, and the ratios. The aims (issue 10): -l FILE -s at most
0.3x the live -s; the file at most 0.1x the smaps text; loading in no more
memory than the live capture took. Never fails on a figure: only on an
error.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

REGIONS = int(os.environ.get("BENCH_REGIONS", "65000"))
RUNS = int(os.environ.get("RUNS", "5"))


def run_once(argv, cpu=None):
    """Wall seconds of one run; its CPU seconds (user + system, from
    wait4: what a loaded machine's other work does not add) appended to
    cpu when given."""
    with open(os.devnull, "wb") as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        t = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            err.seek(0)
            raise RuntimeError("%s: exit %d: %s" % (
                " ".join(argv), p.returncode, err.read().decode()[-300:]))
    if cpu is not None:
        cpu.append(ru.ru_utime + ru.ru_stime)
    return t


def main():
    tmp = tempfile.mkdtemp(prefix="vms-bench-snap-")
    f1 = os.path.join(tmp, "a.vms")
    f2 = os.path.join(tmp, "b.vms")
    p, _ = T.start([T.target("manyregions"), str(REGIONS)], timeout=120)
    pid = p.pid
    try:
        nregions = len(T.maps(pid))
        with open("/proc/%d/smaps" % pid, "rb") as f:
            smaps_bytes = len(f.read())
        run_once([T.VMSCOPE, "-w", f1, str(pid)])
        cases = [
            ("vmscope -s PID", [T.VMSCOPE, "-s", str(pid)]),
            ("vmscope -l FILE -s", [T.VMSCOPE, "-l", f1, "-s"]),
            ("vmscope -w FILE PID", [T.VMSCOPE, "-w", f2, str(pid)]),
        ]
        for _, argv in cases:
            run_once(argv)
        times = {name: [] for name, _ in cases}
        cpu = {name: [] for name, _ in cases}
        for _ in range(RUNS):
            for name, argv in cases:
                times[name].append(run_once(argv, cpu[name]))
        res = [(name, statistics.median(times[name]), min(times[name]),
                T.peak_rss_kb(argv), statistics.median(cpu[name]))
               for name, argv in cases]
        file_bytes = os.path.getsize(f1)
    finally:
        T.kill(p)
        for f in (f1, f2):
            if os.path.exists(f):
                os.unlink(f)
        os.rmdir(tmp)

    ref_med, ref_min, ref_rss, ref_cpu = res[0][1:5]
    print("snapshot files of manyregions: %d regions, smaps %.1f MB; median "
          "of %d interleaved runs on %d CPUs" % (nregions, smaps_bytes / 1e6,
                                                 RUNS, os.cpu_count()))
    print("%-22s %10s %8s %9s %9s %12s %8s %7s" % (
        "command", "median ms", "min ms", "x median", "x min", "peak RSS MB",
        "CPU ms", "x CPU"))
    for name, med, mn, rss, c in res:
        print("%-22s %10.1f %8.1f %8.2fx %8.2fx %12s %8.1f %6.2fx" % (
            name, med * 1e3, mn * 1e3, med / ref_med, mn / ref_min,
            "%.1f" % (rss / 1024) if rss is not None else "-", c * 1e3,
            c / ref_cpu))
    load = res[1]
    print("aim: -l FILE -s at most 0.3x the live -s: %.2fx by the medians, "
          "%.2fx by the minimums, %.2fx by CPU time (%s by the minimums)" % (
              load[1] / ref_med, load[2] / ref_min, load[4] / ref_cpu,
              "met" if load[2] / ref_min <= 0.3 else "not met"))
    print("aim: the file at most 0.1x the smaps text: %d bytes, %.4fx of "
          "%d (%s)" % (file_bytes, file_bytes / smaps_bytes, smaps_bytes,
                       "met" if file_bytes <= 0.1 * smaps_bytes
                       else "not met"))
    if load[3] is not None and ref_rss is not None:
        print("aim: loading in no more memory than the live capture: peak "
              "RSS %.1f MB loaded, %.1f MB live (%s)" % (
                  load[3] / 1024, ref_rss / 1024,
                  "met" if load[3] <= ref_rss else "not met"))
    print("ok - bench_snap")


if __name__ == "__main__":
    main()
