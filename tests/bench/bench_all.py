#!/usr/bin/env python3
"""What `vmscope --all -e openmetrics` costs beside its reference (issue 32:
at most 1.3x), in the same run: reading every listed process's smaps text
with one `cat /proc/P1/smaps /proc/P2/smaps ...`, on
  - this machine's own process set (every process but kernel threads, as
    --all takes them), and
  - 500 started processes (sleep), named to vmscope as PIDs;
the median and minimum wall time over RUNS (default 15) interleaved
rounds. BENCH_ALL_BEFORE=PATH adds another vmscope binary (a build of an
earlier commit) to each round, for a before and after in the same run.
Never fails on a figure."""
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

RUNS = int(os.environ.get("RUNS", "15"))
STARTED = int(os.environ.get("BENCH_ALL_PROCS", "500"))
BEFORE = os.environ.get("BENCH_ALL_BEFORE")


def user_pids():
    """Every process but kernel threads (PF_KTHREAD) and this one."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            stat = open("/proc/%s/stat" % d).read()
        except OSError:
            continue
        flags = int(stat[stat.rindex(")") + 2:].split()[6])
        if not flags & 0x00200000:
            out.append(int(d))
    return out


def timed(argv):
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def compare(what, vms_argv, pids):
    cat = ["cat"] + ["/proc/%d/smaps" % p for p in pids]
    t_v, t_c, t_b = [], [], []
    for _ in range(RUNS):
        t_c.append(timed(cat))
        t_v.append(timed(vms_argv))
        if BEFORE:
            t_b.append(timed([BEFORE] + vms_argv[1:]))
    mv, mc = statistics.median(t_v), statistics.median(t_c)
    print("%s, %d processes, %d rounds" % (what, len(pids), RUNS))
    print("  %-36s median %7.1f ms  min %7.1f ms  (%.2fx)"
          % ("vmscope --all -e openmetrics", mv * 1e3, min(t_v) * 1e3,
             mv / mc))
    if BEFORE:
        mb = statistics.median(t_b)
        print("  %-36s median %7.1f ms  min %7.1f ms  (%.2fx)"
              % ("the same, BENCH_ALL_BEFORE", mb * 1e3, min(t_b) * 1e3,
                 mb / mc))
    print("  %-36s median %7.1f ms  min %7.1f ms  (reference)"
          % ("cat of every smaps", mc * 1e3, min(t_c) * 1e3))


def main():
    compare("this machine's processes",
            [T.VMSCOPE, "--all", "-e", "openmetrics"], user_pids())
    procs = [T.start(["sleep", "3600"], ready=False)[0]
             for _ in range(STARTED)]
    pids = [p.pid for p in procs]
    compare("started processes (sleep)",
            [T.VMSCOPE, "--all", "-e", "openmetrics"] + [str(p) for p in pids],
            pids)
    T.cleanup()


if __name__ == "__main__":
    main()
