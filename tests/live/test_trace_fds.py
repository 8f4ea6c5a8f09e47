#!/usr/bin/env python3
"""A traced program's descriptors are its own (vmscope(1), TRACING): the
tracer library takes no low descriptor of the program's.

libunwind (which the tracer library calls where its own stack walk
declines) makes a pipe at its first use to check addresses with, and
makes it again whenever a read of it fails. Made among the program's
descriptors it took the two lowest free ones: a launched command's first
open() returned 5, not 3, and an attach left the pair in the program
after the detach (a program that closed and reused those numbers would
then have libunwind read from and write into its own files). The
library puts that pipe at the top of the range (below the soft
RLIMIT_NOFILE, 1024 at most), where a program that takes the lowest free
descriptor comes last.

  - tests/targets/trace_fds.c "launch", untraced and under
    vmscope --trace -s --: the same descriptors below the top, the same
    number for its first open(); any other descriptor at the top.
  - "wait", attached (vmscope --trace --duration=0.5 -s PID, the tracer
    library injected): after the detach, the same descriptors below the
    top and the same next open() as before; any new one at the top.
"""
import os
import resource
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

LIB = os.path.join(T.BUILD, "libvmstrace.so")
ENV = dict(os.environ, VMSCOPE_TRACELIB=LIB)
# where the library puts libunwind's pipe: the two below this
TOP = min(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 1024) - 2


def parse(text):
    """(descriptors, next open()) from the target's two lines."""
    fds, nxt = None, None
    for ln in text.splitlines():
        if ln.startswith("fds "):
            fds = [int(x) for x in ln[4:].split(",")]
        elif ln.startswith("next "):
            nxt = int(ln[5:])
    return fds, nxt


def low(fds):
    return [f for f in fds or [] if f < TOP]


def launch():
    tgt = [T.target("trace_fds"), "launch"]
    r = subprocess.run(tgt, capture_output=True, text=True, timeout=60)
    want, want_next = parse(r.stdout)
    # the report on standard output: the command's goes to stderr
    r = subprocess.run([T.VMSCOPE, "--trace", "-s", "--"] + tgt, env=ENV,
                       capture_output=True, text=True, timeout=120)
    T.eq(r.returncode, 0, "launch: vmscope --trace -s -- trace_fds exits 0")
    got, got_next = parse(r.stderr)
    T.ok(want is not None and got is not None,
         "launch: the target said its descriptors", r.stderr[-2000:])
    T.eq(low(got), low(want), "launch: its descriptors below %d are an "
         "untraced run's" % TOP)
    T.eq(got_next, want_next, "launch: its first open() gives %s, as "
         "untraced" % want_next)
    T.eq([f for f in got or [] if f not in (want or [])],
         [f for f in got or [] if f not in (want or []) and f >= TOP],
         "launch: any descriptor more is at the top (>= %d)" % TOP)


def fds_now(p):
    p.stdin.write(b"fds\n")
    p.stdin.flush()
    lines = [p.stdout.readline().decode(), p.stdout.readline().decode()]
    return parse("".join(lines))


def attach():
    p, _ = T.start([T.target("trace_fds"), "wait"])
    try:
        before, before_next = fds_now(p)
        r = subprocess.run([T.VMSCOPE, "--trace", "--duration=0.5", "-s",
                            str(p.pid)], env=ENV, capture_output=True,
                           text=True, timeout=120)
        maps = open("/proc/%d/maps" % p.pid).read()
        if "libvmstrace" not in maps:
            T.skip("attach: descriptors after a detach",
                   "the library was not injected: %s" % r.stderr.strip())
            return
        T.eq(r.returncode, 0, "attach: vmscope --trace PID exits 0")
        after, after_next = fds_now(p)
        T.eq(low(after), low(before), "attach: after the detach, its "
             "descriptors below %d are those it had" % TOP)
        T.eq(after_next, before_next, "attach: its next open() gives %s, "
             "as before" % before_next)
        T.eq([f for f in after if f not in before],
             [f for f in after if f not in before and f >= TOP],
             "attach: any descriptor more is at the top (>= %d)" % TOP)
    finally:
        T.kill(p)


def main():
    launch()
    attach()
    T.done()


if __name__ == "__main__":
    main()
