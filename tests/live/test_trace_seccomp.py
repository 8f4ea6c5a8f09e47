#!/usr/bin/env python3
"""A traced program that sandboxes itself (tests/targets/trace_seccomp.c:
after its start it installs a seccomp filter that kills the process on any
open, applied to every thread with SECCOMP_FILTER_FLAG_TSYNC and inherited
by the threads it makes later; then five threads, one made before the
filter, allocate for the first time).

  - Launched (vmscope --trace -e json -- PROG, exact and sampled): it runs
    to its normal end, its output and exit status the untraced run's (the
    tracer once opened /proc/self/maps at a thread's first stack walk, and
    the filter killed the program: SIGSYS); the report holds the threads'
    allocations to the byte, each stack through worker() (the thread's
    own function), and the main thread's.
  - Attached (vmscope --trace PID) to it once filtered: the injection is
    refused, the report saying seccomp, before anything is done to it (the
    injection's dlopen opens the tracer's file, which the filter punishes
    with death; the filter cannot be read, so any is refused); the target
    is left running, not stopped, and ends normally when told to.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

LIB = os.path.join(T.BUILD, "libvmstrace.so")
ENV = dict(os.environ, VMSCOPE_TRACELIB=LIB)
PROG = T.target("trace_seccomp")
THREADS = 5


def functions(site):
    return [f["function"] or "" for f in site["frames"]]


def launched(plain, args, how):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        r = subprocess.run([T.VMSCOPE, "--trace", "-e", "json", "-o", f.name]
                           + args + ["--", PROG], capture_output=True,
                           timeout=120, env=ENV)
        T.ok(r.returncode == 0, "%s: vmscope exit 0" % how,
             r.stderr.decode(errors="replace"))
        try:
            d = json.load(open(f.name))
        except ValueError:
            T.ok(False, "%s: a JSON report" % how, r.stderr)
            return
    p = d["process"]
    T.eq((r.stdout, p["exit_status"], p["signal"]),
         (plain.stdout, plain.returncode, None),
         "%s: the sandboxed program's output and exit status are the "
         "untraced run's (not killed by its filter)" % how)
    tr = d["trace"]
    sites = [s for s in tr["sites"] if s["kind"] == "heap"]
    th = [s for s in sites if "sandboxed_leaks" in functions(s)]
    mn = [s for s in sites if "main_leaks" in functions(s)]
    T.ok(th and all("worker" in functions(s) for s in th),
         "%s: every stack of the threads' blocks reaches worker()" % how,
         [functions(s)[:4] for s in th])
    T.ok(mn and all("main" in functions(s) for s in mn),
         "%s: the main thread's blocks' stacks reach main()" % how,
         [functions(s)[:4] for s in mn])
    if args:  # sampled: estimates, not exact
        T.ok(tr["mode"] != "exact", "%s: the report says sampled" % how,
             tr["mode"])
        return
    leaked = sum(100 * (1000 + k * 8) for k in range(THREADS))
    freed = sum(50 * (1000 + k * 8) for k in range(THREADS))
    out = {"count": sum(s["outstanding"]["count"] for s in th),
           "bytes": sum(s["outstanding"]["bytes"] for s in th)}
    tra = {"count": sum(s["transient"]["count"] for s in th),
           "bytes": sum(s["transient"]["bytes"] for s in th)}
    T.eq((out, tra), ({"count": 100 * THREADS, "bytes": leaked},
                      {"count": 50 * THREADS, "bytes": freed}),
         "%s: the five threads' 500 blocks leaked and 250 freed, to the "
         "byte" % how)
    T.eq((sum(s["outstanding"]["count"] for s in mn),
          sum(s["outstanding"]["bytes"] for s in mn)), (10, 43210),
         "%s: the main thread's 10 blocks of 4321 bytes" % how)
    T.eq((tr["mode"], tr["dropped"], tr["ended"]), ("exact", 0, True),
         "%s: exact, nothing dropped, the program's end" % how)


def attached():
    p, _ = T.start([PROG, "wait"])
    # refused, vmscope follows the mmap family from the kernel instead
    # (cli/run_attach.c) until the duration ends: the bound of its run
    r = subprocess.run([T.VMSCOPE, "--trace", "--duration=2", "-e", "json",
                        str(p.pid)], capture_output=True, timeout=120,
                       env=ENV)
    try:
        a = json.loads(r.stdout)["attach"]
    except (ValueError, KeyError):
        a = {}
    T.ok(r.returncode == 0 and a.get("injected") is False and
         "seccomp filter" in (a.get("why") or ""),
         "attach to a process whose every thread has a seccomp filter: "
         "the tracer not injected, the report saying why", (a, r.stderr))
    st = T.proc_state(p.pid)
    T.ok(p.poll() is None and st not in ("T", "t", "Z"),
         "the filtered target is left running (state %s)" % st)
    out, _ = p.communicate(timeout=60)
    T.eq((p.returncode, out.decode().startswith("sandboxed: 5 threads")),
         (0, True), "the filtered target then ends normally, its work done")


def main():
    if not os.path.exists(LIB):
        T.ok(False, "the tracer library is built", LIB)
        return T.done()
    plain = subprocess.run([PROG], capture_output=True, timeout=60)
    T.eq((plain.returncode, plain.stdout.startswith(b"sandboxed: 5")),
         (0, True), "untraced, the sandboxed program runs to its end")
    launched(plain, [], "exact")
    launched(plain, ["--trace-sample=512"], "sampled")
    attached()
    T.done()


main()
