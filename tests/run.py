#!/usr/bin/env python3
"""Runs every test and prints one closing line: "N passed, N failed, N skipped".

A test is an executable that prints TAP lines ("ok - what", "not ok - what",
"ok - what # SKIP why") and exits non-zero if anything failed:
  $BUILD/tests/test_*     unit tests (C, tests/unit/)
  tests/code/*.py         checks on the code itself (layering by nm)
  tests/live/*.py         live tests against real processes (python3)
  tests/tui/*.py          the viewer driven in tmux
Set TESTS to a pattern to run a subset: TESTS=live/ sh tests/run.sh; to
several, blank-separated: TESTS="live/test_snap code/test_format".
CODE_CHECKS=0 leaves out tests/code/ (make check's second pass: they read
the sources and symbols, the same on both builds). CHECK_PASS=2 is set
by make check's second pass (the sanitizer build) for a test that checks
nothing of the build it is given and so runs in the first pass only
(test_deb: the package is built from the tree by make deb; test_install:
make install installs the first pass's build).
A randomised test prints "# seed N"; VMSCOPE_SEED=N runs it again with it.

Tests run TEST_JOBS at a time (default: the CPUs this process may use, at
most 2), which is itself a check of the rule that a test may not depend
on what else the machine runs. A test that changes machine-wide state (a
sysctl, core_pattern) or needs every CPU says so in its first lines with
"# run alone: why"; those run one by one after the others. Each test's
output is printed whole when it ends, with its time; the slowest first
where an earlier run left its times in $BUILD/test-times (longest first
packs two queues best), else by the times in tests/times (a quiet make
check's, kept in the tree so that a clean clone packs as well: CI), but
for a test that says in its first lines "# takes about N s" (what it
takes in a clean clone: test_deb), taken as its time; else in the order
above. The closing lines name each failed test with its "not ok" lines
again (a log read by its tail: CI's). `python3 tests/run.py --times LOG` prints a new tests/times from
make check's output (the longer of a test's two passes).
"""
import concurrent.futures
import glob
import os
import re
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALONE = re.compile(r"^# run alone: (.+)$", re.M)
TAKES = re.compile(r"^# takes about (\d+) s", re.M)


def absolute(path):
    return os.path.join(os.getcwd(), path) if not os.path.isabs(path) \
        else path


def wanted(name):
    pats = os.environ.get("TESTS", "").split()
    return not pats or any(p in name for p in pats)


def collect(build, takes):
    """[(name, argv, alone reason or None)] in the documented order; the
    time a test says it takes into takes (name: seconds)."""
    tests = []
    for t in sorted(glob.glob(os.path.join(build, "tests", "test_*"))):
        if os.access(t, os.X_OK) and os.path.isfile(t):
            tests.append(("unit/" + os.path.basename(t), [t], None))
    code = os.environ.get("CODE_CHECKS", "1") != "0"
    for folder in ("code", "live", "tui"):
        if folder == "code" and not code:
            continue
        for t in sorted(glob.glob(os.path.join("tests", folder, "*.py"))):
            with open(t, errors="replace") as f:
                head = f.read(4096)
            m = TAKES.search(head)
            if m:
                takes[t] = float(m.group(1))
            m = ALONE.search(head)
            tests.append((t, [sys.executable, t],
                          m.group(1) if m else None))
    return [t for t in tests if wanted(t[0])]


def count(out):
    lines = out.splitlines()
    ok = [ln for ln in lines if ln.startswith("ok")]
    skipped = sum(1 for ln in ok if "# SKIP" in ln)
    failed = sum(1 for ln in lines if ln.startswith("not ok"))
    return len(ok) - skipped, failed, skipped


def failed_lines(out, rc, most=12):
    """A failed test's "not ok" lines, each with the detail it printed
    under it (at most most lines in all); with none, its exit status and
    its last lines (a traceback)."""
    lines, keep = [], False
    for ln in out.splitlines():
        if ln.startswith("not ok"):
            keep = True
        elif not ln.startswith("#   "):
            keep = False
        if keep:
            lines.append(ln[:300])
    return lines[:most] or (["exited with status %d, its last lines:" % rc]
                            + [ln[:300] for ln in out.splitlines()[-most:]])


def run_one(name, argv):
    t0 = time.monotonic()
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL)
    secs = time.monotonic() - t0
    return name, r.returncode, r.stdout.decode("utf-8", "replace"), secs


def previous_times(path):
    times = {}
    try:
        with open(path) as f:
            for ln in f:
                if ln.startswith("#"):
                    continue
                secs, _, name = ln.strip().partition(" ")
                times[name] = float(secs)
    except (OSError, ValueError):
        pass
    return times


def times_from_log(path):
    """tests/times from make check's output: each test's longer pass."""
    took = re.compile(r"^# (\S+) took (\d+) s$")
    most = {}
    with open(path, errors="replace") as f:
        for ln in f:
            m = took.match(ln.strip())
            if m:
                most[m.group(1)] = max(most.get(m.group(1), 0),
                                       int(m.group(2)))
    print("# seconds test: what each test took in a quiet make check (the "
          "longer\n# of its passes), the order of a clean clone's run "
          "(tests/run.py --times LOG)")
    for name, secs in sorted(most.items(), key=lambda kv: (-kv[1], kv[0])):
        print("%d %s" % (secs, name))
    return 0


def jobs():
    try:
        n = int(os.environ.get("TEST_JOBS", "0"))
    except ValueError:
        n = 0
    if n <= 0:
        n = min(2, len(os.sched_getaffinity(0)))
    return max(1, n)


def main():
    vmscope = absolute(os.environ.get("VMSCOPE", "./vmscope"))
    build = absolute(os.environ.get("BUILD", "build"))
    os.environ["VMSCOPE"] = vmscope
    os.environ["BUILD"] = build
    os.chdir(TOP)
    takes = {}
    tests = collect(build, takes)
    times_path = os.path.join(build, "test-times")
    before = previous_times(times_path)
    if not before:
        # (but for a test that says what it takes in a clean clone)
        before = {k: v for k, v in previous_times(
            os.path.join(TOP, "tests", "times")).items() if k not in takes}
    shared = [t for t in tests if t[2] is None]
    shared.sort(key=lambda t: -before.get(t[0], takes.get(t[0], 0.0)))
    alone = [t for t in tests if t[2] is not None]

    totals = [0, 0, 0]
    failed_tests = []
    failures = []
    took = {}

    def report(name, rc, out, secs):
        p, f, s = count(out)
        print("== %s" % name)
        sys.stdout.write(out if out.endswith("\n") or not out else out + "\n")
        print("# %s took %d s" % (name, secs))
        if rc != 0 and f == 0:
            print("not ok - %s exited with status %d" % (name, rc))
            f = 1
        totals[0] += p
        totals[1] += f
        totals[2] += s
        if f:
            failed_tests.append(name)
            failures.extend("%s: %s" % (name, ln)
                            for ln in failed_lines(out, rc))
        took[name] = secs
        sys.stdout.flush()

    n = jobs()
    started = time.monotonic()
    print("# %d tests, %d at a time, then %d alone" % (len(shared), n,
                                                       len(alone)))
    sys.stdout.flush()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=n)
    try:
        futures = [pool.submit(run_one, name, argv)
                   for name, argv, _ in shared]
        for fut in concurrent.futures.as_completed(futures):
            report(*fut.result())
    except KeyboardInterrupt:  # the tests running get it too (the tty's)
        pool.shutdown(wait=False, cancel_futures=True)
        print("interrupted")
        return 130
    pool.shutdown()
    for name, argv, why in alone:
        print("# alone: %s (%s)" % (name, why))
        report(*run_one(name, argv))

    if took:
        try:
            before.update(took)
            with open(times_path, "w") as f:
                for name, secs in before.items():
                    f.write("%.1f %s\n" % (secs, name))
        except OSError:
            pass
        print()
        print("# the slowest tests:")
        for name, secs in sorted(took.items(), key=lambda kv: -kv[1])[:8]:
            print("# %6d s  %s" % (secs, name))
    print("# the tests took %d s, %d at a time" %
          (time.monotonic() - started, n))
    if failed_tests:
        # again at the end: a log shown by its tail (CI's) names them
        print("# what failed, again:")
        for ln in failures:
            print("#   " + ln)
        print("failed: " + " ".join(failed_tests))
    print("%d passed, %d failed, %d skipped" % tuple(totals))
    return 0 if totals[1] == 0 and totals[0] > 0 else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--times":
        sys.exit(times_from_log(sys.argv[2]))
    sys.exit(main())
