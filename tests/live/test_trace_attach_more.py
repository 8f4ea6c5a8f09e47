#!/usr/bin/env python3
"""What issue 30 asks of `vmscope --trace PID` that the other attach tests
do not assert (tests/targets/heap_attach.c, the tracer library injected):

  - -n NAME: a copy of heap_attach under a name of this run's own, the
    only process of that name, attached by name: the report is of that
    process and has exactly the 30 blocks of 40 bytes it then leaks in
    leak_block (outstanding) and the 10 of 1,000 it makes and frees in
    churn_block (transient), nothing dropped. A name two processes
    have: refused (exit 1, "2 processes are named NAME: PID PID; give one
    PID"), neither touched (untraced, no thread stopped); a name no
    process has: exit 2, "no process named NAME"; a PID no process has,
    with -s: exit 2, the one line "no process PID" (not the injection's
    reason too).
  - Unprivileged: nobody (setpriv, no groups, no capabilities) attaches
    to its own heap_attach (both copied, with the tracer library, to a
    directory nobody may read; VMSCOPE_TRACELIB names the copy): the
    heap is traced exactly as root's is (the injection needs no
    privilege over a process of one's own); nothing is said missing,
    the injected attach using no eBPF. nobody on root's process: exit 2,
    one line (the injection's reason and the kernel view's are the
    same: said once) saying it is not permitted, the process
    untouched. Skipped when yama's ptrace_scope forbids tracing a
    process that is not one's child (1 or more).
  - A target already traced by another tracer (strace -p): the
    injection is refused with a message naming the tracer's pid; the
    viewer form (no -s/-e) exits 3 saying so; -e json falls back to the
    kernel's view (injected false, the reason naming the tracer), as
    documented (exit 0). Either way strace still traces the target
    afterwards (it records the answer the target writes after them),
    the target answers as untraced. Once strace detaches (SIGINT), the
    attach is injected and exact. Skipped without strace (scripts/deps.sh).
  - 300 threads (more than the TW_SLOTS rings, 256), each waiting since
    before the attach, then each making one malloc of 40 bytes while
    all of them live: vmscope ends with exit 0; the target answers and
    exits as an untraced run does; the 256 rings go to 256 of the
    threads (the main thread makes no traced call), whose blocks
    leak_block has, and the calls of the 44 without one are counted
    dropped, 40 bytes each; the text report says 44 were not recorded.
  - A tracer library of another vmscope version (the one the build
    makes with its file's version 2, named by VMSCOPE_TRACELIB; as an
    older library an earlier attach left in the process would be): the
    library refuses this vmscope's file; -e json falls back to the
    kernel's view, the reason saying the library is of another version;
    the target answers and exits as an untraced run does.
x86_64 only (the injection's); skipped elsewhere.
"""
import json
import os
import platform
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402
from attachtest import (no_thread_stopped, poll, site,  # noqa: E402
                        trace_file_ids, trace_files, untraced_now)

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
          "--inh-caps=-all", "--bounding-set=-all"]
TRACELIB = os.path.join(T.BUILD, "libvmstrace.so")


def cmd(p, line):
    p.stdin.write((line + "\n").encode())
    p.stdin.flush()
    return p.stdout.readline().decode()


def untraced(cmds, app=None):
    """The answers and exit status of heap_attach given cmds, untraced."""
    p, _ = T.start([app or T.target("heap_attach")])
    out = [cmd(p, c) for c in cmds]
    p.stdin.write(b"end\n")
    p.stdin.flush()
    rc = p.wait(timeout=120)
    T.kill(p)
    return out, rc


def traced(p, target, cmds, args=("-e", "json"), prefix=(), env=None):
    """vmscope --trace ARGS TARGET (a pid, or ["-n", NAME]) on p, run by
    prefix; once the library has mapped this vmscope's file (or vmscope
    ended), cmds are sent to p; the trace ended by SIGINT. (vmscope's
    exit status, stdout, stderr, the answers)."""
    files = trace_file_ids(p.pid)
    v = subprocess.Popen(list(prefix) + [T.VMSCOPE, "--trace"] + list(args) +
                         list(target), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    poll(lambda: trace_file_ids(p.pid) - files or v.poll() is not None,
         timeout=120)
    out = [cmd(p, c) for c in cmds]
    if v.poll() is None:
        v.send_signal(signal.SIGINT)
    o, e = v.communicate(timeout=120)
    return v.returncode, o.decode(), e.decode(), out


def report(o):
    try:
        return json.loads(o)
    except ValueError:
        return None


def counts(d, fn, kind):
    """(count, bytes) of kind (outstanding, transient) summed over the
    heap sites whose innermost frame is fn."""
    ss = site(d["trace"]["sites"], fn)
    return (sum(s[kind]["count"] for s in ss),
            sum(s[kind]["bytes"] for s in ss))


def unharmed(p):
    return (p.poll() is None and poll(lambda: untraced_now(p.pid)) and
            no_thread_stopped(p.pid))


def end(p):
    p.stdin.write(b"end\n")
    p.stdin.flush()
    rc = p.wait(timeout=120)
    T.kill(p)
    return rc


WORK = ["leak 30", "churn 10"]


def by_name():
    tmp = tempfile.mkdtemp(prefix="vmscope-attachn-")
    try:
        name = "vmsatt%d" % (os.getpid() % 1000000)
        exe = os.path.join(tmp, name)
        shutil.copy(T.target("heap_attach"), exe)
        plain = untraced(WORK + ["leak 3"], exe)
        p, _ = T.start([exe])
        rc, o, e, out = traced(p, ["-n", name], WORK)
        d = report(o)
        T.ok(rc == 0 and d is not None and d["process"]["pid"] == p.pid and
             d["attach"]["injected"],
             "--trace -n NAME: that process attached (injected), exit 0",
             (rc, e, o[:300]))
        if d:
            T.eq((counts(d, "leak_block", "outstanding"),
                  counts(d, "churn_block", "transient"),
                  d["trace"]["dropped"]),
                 ((30, 1200), (10, 10000), 0),
                 "-n NAME: leak_block's 30 blocks of 40 bytes outstanding, "
                 "churn_block's 10 of 1,000 transient, nothing dropped")
        T.ok(unharmed(p), "-n NAME: the target untraced after, no thread "
             "stopped")
        # a second process of that name: which one is not guessed
        q, _ = T.start([exe])
        had = trace_file_ids(p.pid)
        r = subprocess.run([T.VMSCOPE, "--trace", "-e", "json", "-n", name],
                           capture_output=True, text=True, timeout=120)
        lo, hi = sorted((p.pid, q.pid))
        T.ok(r.returncode == 1 and r.stdout == "" and
             r.stderr == "vmscope: 2 processes are named %s: %d %d; give "
             "one PID\n" % (name, lo, hi),
             "-n NAME of two processes: exit 1, both pids named, a PID "
             "asked for", (r.returncode, r.stderr))
        T.ok(unharmed(p) and unharmed(q) and
             trace_file_ids(p.pid) == had and len(had) == 1 and
             trace_files(q.pid) == 0,
             "neither of the two touched (untraced, nothing stopped, no "
             "new trace file mapped)")
        out += [cmd(p, "leak 3")]
        T.eq((out, end(p)), plain, "the target attached by name "
             "answered as an untraced run")
        T.eq(end(q), 0, "the other ran on and exits 0")
        r = subprocess.run([T.VMSCOPE, "--trace", "-e", "json", "-n", name],
                           capture_output=True, text=True, timeout=120)
        T.ok(r.returncode == 2 and r.stdout == "" and
             r.stderr == "vmscope: no process named %s\n" % name,
             "-n NAME of no process: exit 2, \"no process named NAME\"",
             (r.returncode, r.stderr))
        gone = end_pid()
        r = subprocess.run([T.VMSCOPE, "--trace", "-s", str(gone)],
                           capture_output=True, text=True, timeout=120)
        T.ok(r.returncode == 2 and r.stdout == "" and
             r.stderr == "vmscope: no process %d\n" % gone,
             "--trace -s PID of no process: exit 2, one line \"no process "
             "PID\"", (r.returncode, r.stderr))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def end_pid():
    """The pid of a process that was and has ended (reaped): none has it
    now, unless the kernel gave it again meanwhile."""
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def ptrace_scope():
    try:
        return int(open("/proc/sys/kernel/yama/ptrace_scope").read())
    except OSError:
        return 0  # no yama: the classic rule (same user, dumpable)


def unprivileged():
    what = "nobody attaches to its own process: its heap traced exactly"
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        T.skip(what, "needs root (to become nobody) and setpriv")
        return
    scope = ptrace_scope()
    if scope >= 1:
        T.skip(what, "yama ptrace_scope is %d: only a parent (or "
               "CAP_SYS_PTRACE) may trace a process; left as it is" % scope)
        return
    tmp = tempfile.mkdtemp(prefix="vmscope-attachu-")
    try:
        os.chmod(tmp, 0o755)
        exe = os.path.join(tmp, "heap_attach")
        lib = os.path.join(tmp, "libvmstrace.so")
        shutil.copy(T.target("heap_attach"), exe)
        shutil.copy(TRACELIB, lib)
        os.chmod(exe, 0o755)
        os.chmod(lib, 0o755)
        plain = untraced(WORK, exe)
        p, _ = T.start(NOBODY + [exe])
        env = dict(os.environ, VMSCOPE_TRACELIB=lib)
        rc, o, e, out = traced(p, [str(p.pid)], WORK, prefix=NOBODY,
                               env=env)
        d = report(o)
        T.ok(rc == 0 and d is not None and d["attach"]["injected"] and
             d["trace"]["heap_traced"],
             "nobody, no capabilities: --trace PID of its own process, "
             "injected, its heap traced, exit 0", (rc, e, o[:300]))
        if d:
            T.eq((counts(d, "leak_block", "outstanding"),
                  counts(d, "churn_block", "transient"),
                  d["trace"]["dropped"], d["trace"]["unknown_frees"]),
                 ((30, 1200), (10, 10000), 0, 0),
                 "unprivileged: leak_block's 30 and churn_block's 10 "
                 "exactly, nothing dropped")
        T.eq(e, "", "unprivileged: nothing said on stderr (the injected "
             "attach needs no CAP_BPF: it uses no eBPF)")
        T.ok(unharmed(p), "unprivileged: the target untraced after, no "
             "thread stopped")
        T.eq((out, end(p)), plain, "unprivileged: its answers and exit "
             "status an untraced run's")
        # root's process: neither the injection nor the kernel's view
        q, _ = T.start([exe])
        r = subprocess.run(NOBODY + [T.VMSCOPE, "--trace", "-e", "json",
                                     str(q.pid)], env=env,
                           capture_output=True, text=True, timeout=120)
        T.ok(r.returncode == 2 and r.stdout == "" and
             len(r.stderr.splitlines()) == 1 and
             "not permitted" in r.stderr and "uid 0" in r.stderr,
             "nobody on root's process: exit 2, one line saying it is not "
             "permitted and whose it is", (r.returncode, r.stderr))
        T.ok(unharmed(q) and trace_files(q.pid) == 0,
             "root's process untouched (untraced, nothing stopped or "
             "mapped)")
        T.eq(end(q), 0, "root's process runs on and exits 0")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def tracer_of(pid):
    return T.tracer_pid(pid)


def on_pty(argv):
    """Runs argv with a pty as its stdin and stdout (the viewer's check
    passes), stderr read apart: (exit status, stderr). The pty's output
    is read as it comes (a full pty would block it); a vmscope still
    running after a bound (a viewer started: not refused) is killed."""
    master, slave = os.openpty()
    try:
        v = subprocess.Popen(argv, stdin=slave, stdout=slave,
                             stderr=subprocess.PIPE,
                             env=dict(os.environ, TERM="xterm"))
        os.close(slave)
        slave = None
        deadline = time.time() + 120
        while v.poll() is None and time.time() < deadline:
            if select.select([master], [], [], 0.1)[0]:
                try:
                    os.read(master, 4096)
                except OSError:  # EIO: every writer closed the pty
                    pass
        if v.poll() is None:  # a viewer started: not refused
            v.kill()
        return v.wait(timeout=120), v.stderr.read().decode()
    finally:
        if slave is not None:
            os.close(slave)
        os.close(master)


def already_traced():
    what = "a target traced by strace"
    strace = shutil.which("strace")
    if not strace:
        T.skip(what, "strace not installed (scripts/deps.sh)")
        return
    cmds = ["leak 5", "leak 20", "churn 4"]
    plain = untraced(cmds)
    p, _ = T.start([T.target("heap_attach")])
    log = tempfile.NamedTemporaryFile(suffix=".strace", delete=False)
    log.close()
    s = subprocess.Popen([strace, "-q", "-e", "trace=write", "-o",
                          log.name, "-p", str(p.pid)],
                         stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        T.ok(poll(lambda: tracer_of(p.pid) == s.pid, timeout=60),
             "strace -p traces the target")
        # the viewer form, on a terminal (a pty): refused before the
        # viewer starts
        rc, err = on_pty([T.VMSCOPE, "--trace", str(p.pid)])
        T.ok(rc == 3 and "traced by process %d" % s.pid in err and
             len(err.splitlines()) == 1,
             "--trace PID (the viewer) of a process strace traces: exit 3, "
             "one line naming strace's pid", (rc, err))
        T.ok(tracer_of(p.pid) == s.pid and s.poll() is None,
             "strace still traces it after the refusal")
        # -e json: the injection refused, the kernel's view instead
        rc, o, e, out = traced(p, [str(p.pid)], cmds[:1],
                               args=("-e", "json", "--duration=1"))
        d = report(o)
        why = d["attach"].get("why", "") if d else ""
        T.ok(rc == 0 and d is not None and not d["attach"]["injected"] and
             "traced by process %d" % s.pid in why and
             not d["trace"]["heap_traced"],
             "-e json: not injected, the reason naming strace's pid, the "
             "kernel's view of the mmap family instead", (rc, e, why))
        # the target stops for strace at each system call ("t", a
        # moment): it runs when it is back waiting in read()
        T.ok(tracer_of(p.pid) == s.pid and s.poll() is None and
             poll(lambda: T.proc_state(p.pid) in "SR", timeout=60),
             "strace still traces it, the target runs (not stopped)",
             T.proc_state(p.pid))
    finally:
        if s.poll() is None:
            s.send_signal(signal.SIGINT)  # strace detaches
        s.wait(timeout=60)
    T.ok(poll(lambda: untraced_now(p.pid), timeout=60),
         "strace detached: the target untraced")
    seen = open(log.name).read()
    os.unlink(log.name)
    T.ok('write(1, "ok leak 5 ' in seen, "strace saw the answer the target "
         "wrote after vmscope's attempts (it traced on)", seen[-500:])
    rc, o, e, out2 = traced(p, [str(p.pid)], cmds[1:])
    d = report(o)
    T.ok(rc == 0 and d is not None and d["attach"]["injected"] and
         counts(d, "leak_block", "outstanding") == (20, 800) and
         counts(d, "churn_block", "transient") == (4, 4000),
         "after strace let go, the attach is injected and exact",
         (rc, e, d and d["trace"]["sites"]))
    T.ok(unharmed(p), "the target untraced after, no thread stopped")
    T.eq((out + out2, end(p)), plain, "its answers and exit status an "
         "untraced run's")


def other_version():
    what = "a tracer library of another version"
    lib = os.path.join(T.BUILD, "tests", "libvmstrace_v2.so")
    if not os.path.exists(lib):
        T.skip(what, "%s not built (make tests)" % lib)
        return
    cmds = ["leak 5"]
    plain = untraced(cmds)
    p, _ = T.start([T.target("heap_attach")])
    rc, o, e, out = traced(p, [str(p.pid)], cmds,
                           args=("-e", "json", "--duration=1"),
                           env=dict(os.environ, VMSCOPE_TRACELIB=lib))
    d = report(o)
    why = d["attach"].get("why", "") if d else ""
    T.ok(rc == 0 and d is not None and not d["attach"]["injected"] and
         "another vmscope version" in why and
         not d["trace"]["heap_traced"],
         "%s: not injected, the reason saying so, the kernel's view "
         "instead" % what, (rc, e, why))
    T.ok(unharmed(p), "%s: the target untraced after, no thread stopped"
         % what)
    T.eq((out, end(p)), plain, "%s: its answers and exit status an "
         "untraced run's" % what)


THREADS = 300
SLOTS = 256  # TW_SLOTS, src/base/tracewire.h


def many_threads(args):
    """Waiters started before the attach, woken while traced: (vmscope's
    status, stdout, stderr, the target's answers and exit status)."""
    p, _ = T.start([T.target("heap_attach")])
    out = [cmd(p, "waiters %d" % THREADS)]
    rc, o, e, out2 = traced(p, [str(p.pid)], ["wake"], args=args)
    ok = unharmed(p)
    out += out2 + [cmd(p, "leak 2")]
    return rc, o, e, ok, (out, end(p))


def threads():
    cmds = ["waiters %d" % THREADS, "wake", "leak 2"]
    plain = untraced(cmds)
    rc, o, e, ok, got = many_threads(("-e", "json"))
    d = report(o)
    T.ok(rc == 0 and d is not None and d["attach"]["injected"],
         "%d threads: vmscope attached (injected) and ended, exit 0"
         % THREADS, (rc, e))
    T.ok(ok, "%d threads: the target untraced after, no thread stopped"
         % THREADS)
    T.eq(got, plain, "%d threads: its answers and exit status an untraced "
         "run's" % THREADS)
    if d:
        tr = d["trace"]
        n, b = counts(d, "leak_block", "outstanding")
        # the main thread makes no traced call: the waiters take every
        # ring, one each, all alive at once
        T.eq((tr["dropped"], tr["dropped_bytes"], n, b),
             (THREADS - SLOTS, 40 * (THREADS - SLOTS), SLOTS, 40 * SLOTS),
             "threads beyond the %d rings: the calls of the %d without one "
             "dropped (40 bytes each), the %d others' blocks recorded"
             % (SLOTS, THREADS - SLOTS, SLOTS))
    rc, o, e, ok, got = many_threads(("-s",))
    dropped = [ln for ln in o.splitlines() if ln.startswith("Trace:")]
    T.ok(rc == 0 and ok and got == plain and len(dropped) == 1 and
         ", %d not recorded (%d bytes; %d of them by threads past the %d "
         "that held a ring at once: too many threads allocating at once)"
         % (THREADS - SLOTS, 40 * (THREADS - SLOTS), THREADS - SLOTS, SLOTS)
         in dropped[0],
         "-s: the text report says how many calls were not recorded, and "
         "why (too many threads allocating at once)",
         (rc, e, o[:600]))


def main():
    if platform.machine() != "x86_64":
        T.skip("the injected attach", "x86_64 only")
        return T.done()
    by_name()
    unprivileged()
    already_traced()
    other_version()
    threads()
    T.done()


if __name__ == "__main__":
    try:
        main()
    finally:
        T.cleanup()
