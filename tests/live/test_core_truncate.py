#!/usr/bin/env python3
"""-l CORE when the core shrinks under the load: never a signal.

A gcore of grower (grown: 100 MiB written, 20,000 mallocs) is copied for
each of 8 trials; `vmscope -l COPY -s` is started, and once the copy is
mapped (it shows in /proc/PID/maps) it is truncated, again and again to
smaller sizes (the first one random: VMSCOPE_SEED), down to 0, until
vmscope exits. vmscope must exit by itself, never by a signal: 0 when the
load had read what it needed first, else 4 with "the core was truncated
while it was read". At least one trial must have met the truncation (exit 4
with that message: the test reached the case it is for). The original core
loads (exit 0) before and after. Skipped when gcore is not installed.
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

TRIALS = 8
MESSAGE = "the core was truncated while it was read"


def mapped(pid, path):
    try:
        with open("/proc/%d/maps" % pid) as f:
            return any(line.rstrip("\n").endswith(path) for line in f)
    except OSError:
        return False


def trial(core, copy, rng, n):
    shutil.copyfile(core, copy)
    size = os.path.getsize(copy)
    p = subprocess.Popen([T.VMSCOPE, "-l", copy, "-s"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 120
    cut = first = None
    while p.poll() is None and time.time() < deadline:
        if cut is None:
            if mapped(p.pid, copy):
                cut = first = rng.randrange(0, size)
                os.truncate(copy, cut)
            continue
        cut //= 2
        os.truncate(copy, cut)
    try:
        _, err = p.communicate(timeout=max(1, deadline - time.time()))
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    err = err.decode(errors="replace").strip()
    T.ok(p.returncode >= 0, "trial %d: vmscope exits by itself, not by a "
         "signal (first cut to %s bytes)" % (n, first), "exit %d: %s" %
         (p.returncode, err))
    T.ok(p.returncode == 0 or (p.returncode == 4 and MESSAGE in err),
         "trial %d: it succeeds (read first) or says the core was "
         "truncated (exit 4)" % n, "exit %d: %s" % (p.returncode, err))
    return p.returncode == 4 and MESSAGE in err


def main():
    if not shutil.which("gcore"):
        T.skip("a core truncated under -l", "gcore (gdb) is not installed")
        T.done()
    seed = int(os.environ.get("VMSCOPE_SEED", random.randrange(1 << 30)))
    print("# VMSCOPE_SEED=%d" % seed)
    rng = random.Random(seed)
    tmp = tempfile.mkdtemp(prefix="vmscope-coretrunc-")
    try:
        p, _ = T.start([T.target("grower")])
        p.stdin.write(b"grow\n")
        p.stdin.flush()
        line = p.stdout.readline().decode()
        T.ok(line.startswith("grown"), "grower grew", line)
        core = T.gcore(p.pid, tmp)
        T.kill(p)
        r = T.run_vmscope("-l", core, "-s")
        T.eq(r.returncode, 0, "the core loads whole")
        copy = os.path.join(tmp, "shrinking.core")
        met = sum(trial(core, copy, rng, n) for n in range(TRIALS))
        T.ok(met > 0, "the truncation was met in %d of %d trials" %
             (met, TRIALS))
        r = T.run_vmscope("-l", core, "-s")
        T.eq(r.returncode, 0, "the core still loads whole after")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
