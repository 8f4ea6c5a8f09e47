#!/usr/bin/env python3
"""What running from private copies of its libraries costs vmscope
(src/linux/selfcopy.h), beside the same vmscope on the system's libraries
(VMSCOPE_SHARED_LIBS=1), in the same run: the median and minimum wall time
of `vmscope -s PID` on a small target over RUNS (default 30) interleaved
rounds, the peak RSS of each, and the memory the copies take while vmscope
runs (the sizes of the libraries it maps). Never fails on a figure."""
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

RUNS = int(os.environ.get("RUNS", "30"))


def once(env, pid):
    t0 = time.perf_counter()
    p = subprocess.Popen([T.VMSCOPE, "-s", str(pid)], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    t = time.perf_counter() - t0
    err = p.stderr.read()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("vmscope -s failed: %s" % err.decode()[-300:])
    return t, ru.ru_maxrss


def main():
    p, _ = T.start([T.target("everykind")])
    try:
        cases = [("private copies (default)", dict(os.environ)),
                 ("system libraries (reference)",
                  dict(os.environ, VMSCOPE_SHARED_LIBS="1"))]
        times = {n: [] for n, _ in cases}
        rss = {n: 0 for n, _ in cases}
        for _ in range(RUNS):
            for n, env in cases:
                t, r = once(env, p.pid)
                times[n].append(t)
                rss[n] = max(rss[n], r)
        ref = statistics.median(times[cases[1][0]])
        print("vmscope -s on a small target, %d rounds" % RUNS)
        for n, _ in cases:
            med = statistics.median(times[n])
            print("  %-30s median %6.1f ms  min %6.1f ms  (%.2fx)  "
                  "peak RSS %6d K" % (n, med * 1e3, min(times[n]) * 1e3,
                                      med / ref, rss[n]))
        out = subprocess.run(["ldd", T.VMSCOPE], capture_output=True,
                             text=True).stdout
        libs = set(re.findall(r"=> (/\S+)", out))
        libs |= set(re.findall(r"^\s*(/\S*ld-linux\S*)", out, re.M))
        size = sum(os.path.getsize(lib) for lib in libs)
        print("  the copies: %d libraries, %.1f MB of memory while vmscope "
              "runs" % (len(libs), size / 1048576))
    finally:
        T.kill(p)


if __name__ == "__main__":
    main()
