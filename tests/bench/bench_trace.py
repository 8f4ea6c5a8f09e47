#!/usr/bin/env python3
"""What allocation tracing costs a program, beside heaptrack in the same run.

tests/targets/allocloop.c runs PAIRS (default 5,000,000; BENCH_PAIRS)
malloc/free pairs and times its own loop. Interleaved, RUNS (default 5)
rounds of:
  allocloop                                  untraced
  vmscope --trace -s -o FILE -- allocloop    exact: every call, its stack
                                             through .eh_frame (libunwind)
  vmscope --trace --trace-sample=4096 ...    sampled: a block under 64 KiB
                                             one every 4096 bytes on average
                                             (heapprofd's default; the aim:
                                             at most 2x the untraced run)
  heaptrack -o FILE allocloop                (where installed)
It prints each loop's median ns a pair, what tracing adds to a pair, and
the ratio of vmscope's addition to heaptrack's (the aim, issue "Who
allocated it": at most a third), with the wall time of each whole run and
the size of what each wrote (vmscope: its report; heaptrack: its file).
Never fails on a figure: only on an error.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

PAIRS = int(os.environ.get("BENCH_PAIRS", "5000000"))
RUNS = int(os.environ.get("RUNS", "5"))


def once(argv, env=None):
    t0 = time.perf_counter()
    r = subprocess.run(argv, capture_output=True, env=env, timeout=600)
    wall = time.perf_counter() - t0
    out = r.stdout.decode(errors="replace") + r.stderr.decode(
        errors="replace")
    m = re.search(r"loop ([0-9.]+) ns/pair", out)
    if r.returncode != 0 or not m:
        raise RuntimeError("%s failed (%d): %s" % (argv[0], r.returncode,
                                                   out[-400:]))
    return float(m.group(1)), wall


def main():
    app = T.target("allocloop")
    lib = os.path.join(T.BUILD, "libvmstrace.so")
    env = dict(os.environ, VMSCOPE_TRACELIB=lib)
    tmp = tempfile.mkdtemp(prefix="vmscope-bench-trace-")
    report = os.path.join(tmp, "report.txt")
    cmds = {"untraced": ([app, str(PAIRS)], None),
            "vmscope --trace": ([T.VMSCOPE, "--trace", "-s", "-o", report,
                                 "--", app, str(PAIRS)], env),
            "sampled 4096": ([T.VMSCOPE, "--trace", "--trace-sample=4096",
                              "-s", "-o", report, "--", app, str(PAIRS)],
                             env)}
    ht = shutil.which("heaptrack")
    if ht:
        cmds["heaptrack"] = ([ht, "-o", os.path.join(tmp, "ht"), app,
                              str(PAIRS)], None)
    res = {k: [] for k in cmds}
    try:
        for _ in range(RUNS):
            for k, (argv, e) in cmds.items():
                res[k].append(once(argv, e))
        print("%d malloc/free pairs, %d interleaved runs (median, min-max)"
              % (PAIRS, RUNS))
        base = statistics.median(ns for ns, _ in res["untraced"])
        for k, v in res.items():
            ns = [x for x, _ in v]
            walls = [w for _, w in v]
            print("  %-16s loop %7.1f ns/pair (%.1f-%.1f), adds %7.1f; "
                  "whole run %.2f s" % (k, statistics.median(ns), min(ns),
                                        max(ns), statistics.median(ns) -
                                        base, statistics.median(walls)))
        sm = statistics.median(x for x, _ in res["sampled 4096"])
        print("  sampled: %.2fx the untraced loop (aim: at most 2)"
              % (sm / base))
        if ht:
            vm = statistics.median(x for x, _ in res["vmscope --trace"])
            hp = statistics.median(x for x, _ in res["heaptrack"])
            print("  vmscope adds %.2fx what heaptrack adds (aim: at most "
                  "0.33)" % ((vm - base) / max(hp - base, 1e-9)))
            files = [f for f in os.listdir(tmp) if f.startswith("ht")]
            size = sum(os.path.getsize(os.path.join(tmp, f))
                       for f in files)
            print("  written: vmscope's report %d bytes; heaptrack's file "
                  "%d bytes" % (os.path.getsize(report), size))
        else:
            print("  heaptrack: not installed (scripts/deps.sh installs "
                  "it)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
