"""make bench: the fork sampler's freeze as the target itself sees it (a
ticker thread inside the target), beside the target's own fork() time and
gcore's freeze, on the same target in one run.

BENCH_FORK_MB (default "1024 8192") megabytes of 4 KiB pages, each size
once with 4 KiB pages and once with transparent huge pages
(BENCH_FORK_THP=0 leaves those out); BENCH_FORK_REPS (default 5), runs of
the two modes interleaved. gcore only up to 1 GiB (it writes the whole
core). Goal (issue 13): freeze <= 1.2 x own fork() + 2 ms. The default
(fast) freeze reads Rss and Swap in the freeze through PAGEMAP_SCAN and
the rest of smaps just before it; --exact reads all of smaps in it, which
cannot overlap the fork (both need the target's mmap lock): the smaps
line shows that part.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import forktest  # noqa: E402
import vmstest  # noqa: E402

MBS = [int(x) for x in os.environ.get("BENCH_FORK_MB", "1024 8192").split()]
REPS = int(os.environ.get("BENCH_FORK_REPS", "5"))
forktest.become_subreaper()


def ms(us):
    return us / 1000.0


def gap_around(p, fn):
    forktest.ask(p, "reset")
    time.sleep(0.05)
    out = fn()
    time.sleep(0.05)
    return int(forktest.ask(p, "gap").split()[1]), out


def med(xs):
    return "%7.1f ms (%.1f-%.1f)" % (ms(statistics.median(xs)), ms(min(xs)),
                                     ms(max(xs)))


def bench(MB, kind):
    p, line = vmstest.start([vmstest.target("fork_ticker"), str(MB), kind],
                            timeout=600)
    rss = vmstest.status_kb(p.pid, "VmRSS")
    huge = vmstest.rollup(p.pid).get("AnonHugePages", 0)
    print("target: %d MiB touched, %s pages (Rss %d MiB, AnonHugePages %d "
          "MiB), %d reps" % (MB, kind, rss >> 20, huge >> 20, REPS))
    idle = [gap_around(p, lambda: None)[0] for _ in range(REPS)]
    w = forktest.ask(p, "write").split()
    w_before = (int(w[1]), int(w[2]))
    own, walk = [], []
    for _ in range(REPS):
        own.append(int(forktest.ask(p, "fork").split()[1]))
        t0 = time.time()
        with open("/proc/%d/smaps" % p.pid) as f:
            f.read()
        walk.append((time.time() - t0) * 1e6)
    modes = (("fast", ()), ("exact", ("--exact",)))
    seen = {m: [] for m, _ in modes}
    reported = {m: [] for m, _ in modes}
    total = {m: [] for m, _ in modes}
    how = {}
    for _ in range(REPS):
        for m, extra in modes:
            t0 = time.time()

            def cap():
                r = vmstest.run_vmscope("-b", "fork", *extra, "-e", "json",
                                        p.pid)
                if r.returncode:
                    raise RuntimeError(r.stderr.decode())
                return json.loads(r.stdout)
            g, snap = gap_around(p, cap)
            total[m].append((time.time() - t0 - 0.1) * 1e6)
            seen[m].append(g)
            reported[m].append(snap["capture"]["frozen_us"])
            how[m] = snap["capture"].get("freeze_counters")
    w = forktest.ask(p, "write").split()
    w_after = (int(w[1]), int(w[2]))
    gc = []
    gcore = shutil.which("gcore") if MB <= 1024 else None
    if gcore:
        d = tempfile.mkdtemp()
        for _ in range(min(REPS, 3)):
            g, _ = gap_around(p, lambda: subprocess.run(
                [gcore, "-o", os.path.join(d, "core"), str(p.pid)],
                capture_output=True, timeout=600))
            gc.append(g)
            for f in os.listdir(d):
                os.unlink(os.path.join(d, f))
        shutil.rmtree(d)
    print("  ticker's longest gap, idle      %s" % med(idle))
    print("  target's own fork()             %s" % med(own))
    print("  reading its smaps (running)     %s" % med(walk))
    for m, _ in modes:
        print("  vmscope -b fork%s (%s)" % (" --exact" if m == "exact" else "",
                                           how[m]))
        print("    seen by target                %s" % med(seen[m]))
        print("    frozen_us                     %s" % med(reported[m]))
        print("    whole command                 %s" % med(total[m]))
    if gc:
        print("  gcore, seen by target           %s" % med(gc))
    else:
        print("  gcore                           %s" %
              ("not installed" if not shutil.which("gcore") else
               "left out above 1 GiB (it writes the whole core)"))
    print("  cost left behind: writing every page took %.1f ms, %d minor "
          "faults before any capture; %.1f ms, %d minor faults right after "
          "one (clone gone)" % (ms(w_before[0]), w_before[1],
                                ms(w_after[0]), w_after[1]))
    goal = 1.2 * statistics.median(own) + 2000
    for m, _ in modes:
        f = statistics.median(seen[m])
        print("  goal 1.2 x own fork + 2 ms = %.1f ms: %s median freeze "
              "%.1f ms (%s)" % (ms(goal), m, ms(f),
                                "met" if f <= goal else "NOT met"))
    vmstest.kill(p)


for mb in MBS:
    bench(mb, "4k")
    if os.environ.get("BENCH_FORK_THP", "1") == "1":
        bench(mb, "thp")
vmstest.cleanup()
