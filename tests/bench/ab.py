#!/usr/bin/env python3
"""Two or more builds of vmscope (or any commands) run in turn with the
same arguments, N rounds (default 120), interleaved so that what else the
machine does falls on each alike: the median and minimum wall time and
the median CPU time (user + system, of the child) of each. Not run by
make bench (it compares builds, not vmscope with its reference):

    N=150 python3 tests/bench/ab.py OLD/vmscope,./vmscope \\
        --all -e openmetrics -o /dev/null PID...

A build may be given an environment of its own, NAME=VALUE@PATH (the
same binary twice: ./vmscope,VMSCOPE_SHARED_LIBS=1@./vmscope).
"""
import os
import resource
import statistics
import subprocess
import sys
import time


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: ab.py BIN1,BIN2[,...] ARGS...")
    bins, args = sys.argv[1].split(","), sys.argv[2:]
    rounds = int(os.environ.get("N", "120"))
    wall = {b: [] for b in bins}
    used = {b: [] for b in bins}
    for _ in range(rounds):
        for b in bins:
            c0, t0 = cpu(), time.perf_counter()
            env, path = None, b
            if "@" in b and "=" in b.split("@", 1)[0]:
                var, path = b.split("@", 1)
                env = dict(os.environ)
                env[var.split("=", 1)[0]] = var.split("=", 1)[1]
            subprocess.run([path] + args, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=env)
            wall[b].append(time.perf_counter() - t0)
            used[b].append(cpu() - c0)
    for b in bins:
        print("%-28s wall median %.2f ms, min %.2f; CPU median %.2f ms" % (
            b, statistics.median(wall[b]) * 1e3, min(wall[b]) * 1e3,
            statistics.median(used[b]) * 1e3))


main()
