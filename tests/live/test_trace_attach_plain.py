#!/usr/bin/env python3
"""`vmscope --trace PID` on the plain programs a person tries it on first,
not the attach tests' own targets: the tracer library must be injected
(attach.injected true, the heap traced) where a thread of them waits in a
system call, as in each of these:

  - coreutils sleep, stopped and let go once before (SIGSTOP, SIGCONT, as
    a debugger or an earlier -F does; vmscope's own heap walk before the
    injection stops it too): the kernel goes on with its clock_nanosleep
    as restart_syscall, which vmscope did not take for a wait (every
    try refused: "no thread of it is waiting in a system call outside
    the allocator and the loader");
  - perl sleeping (the same, after the walk's stop);
  - a shell waiting for its child (bash, wait4), whose stack holds return
    addresses into free that its earlier calls left above the frames it
    runs in: only the frames it is in count;
and not injected where a thread is inside the program's own malloc, in a
signal handler without CFI that blocks in read()
(tests/targets/nocfi_handler.c): libdw's unwinder goes on by the frame
pointer there and skipped malloc's frame; frames not covered by CFI are
not told, and the stack's scan finds malloc.
Each program is killed by its pid after; it runs on untraced meanwhile
(its state S, no tracer)."""
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402


# x86-64's numbers of the waits these programs end in
NANOSLEEP, WAIT4, CLOCK_NANOSLEEP, RESTART = 35, 61, 230, 219


def waiting(pid, want, timeout=10):
    """The system call pid's main thread waits in, once it is one of
    want (before, it may still be in its execve, or starting)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with open("/proc/%d/syscall" % pid) as f:
                nr = f.read().split()[0]
            if nr not in ("running", "-1") and int(nr) in want:
                return int(nr)
        except (OSError, ValueError, IndexError):
            pass
        time.sleep(0.01)
    return None


def traced(pid):
    """vmscope --trace PID -e json for 0.3 s: its run and its report (None
    when it printed none)."""
    r = T.run_vmscope("--trace", "--duration=0.3", "-e", "json", pid,
                      timeout=120)
    try:
        return r, json.loads(r.stdout)
    except ValueError:
        return r, None


def attach(what, argv, want, prepare=None):
    # a session of its own: the shell's child is killed with it
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    T._procs.append(p)
    try:
        nr = waiting(p.pid, want)
        if prepare:
            nr = prepare(p.pid)
        r, d = traced(p.pid)
        T.ok(r.returncode == 0 and d is not None and
             d["attach"]["injected"] and d["trace"]["heap_traced"],
             "%s (waiting in system call %s): the tracer injected, its "
             "heap traced" % (what, nr),
             (r.returncode, r.stderr.decode()[-400:],
              d and d["attach"].get("why")))
        T.ok(T.proc_state(p.pid) in "SR" and T.tracer_pid(p.pid) == 0,
             "%s: runs on, untraced" % what)
    finally:
        for q in T.children(p.pid):
            try:
                os.kill(q, signal.SIGKILL)
            except OSError:
                pass
        T.kill(p)


def stop_and_go(pid):
    """SIGSTOP then SIGCONT: the sleep goes on as restart_syscall (219 on
    x86-64)."""
    T.sigstop(pid)  # SIGSTOP, and waits for the stop
    os.kill(pid, signal.SIGCONT)
    return waiting(pid, (RESTART,))


def main():
    if platform.machine() != "x86_64":
        T.skip("plain programs", "the system call numbers are x86-64's")
        T.done()
        return
    attach("sleep, stopped and let go once", ["sleep", "600"],
           (NANOSLEEP, CLOCK_NANOSLEEP), stop_and_go)
    if shutil.which("perl"):
        attach("perl, asleep", ["perl", "-e", "sleep 600"],
               (NANOSLEEP, CLOCK_NANOSLEEP))
    else:
        T.skip("perl, asleep", "no perl")
    if shutil.which("bash"):
        attach("bash waiting for its child",
               ["bash", "-c", "for i in 1 2 3; do true; done; sleep 600; "
                "true"], (WAIT4,))
    else:
        T.skip("bash waiting for its child", "no bash")
    refused()
    T.done()


def refused():
    """tests/targets/nocfi_handler.c: its thread inside its own malloc,
    in a signal handler without CFI blocked in read(); libdw's unwinder
    goes on by the frame pointer there and skips malloc's frame (its
    walk ended as if whole): that thread must not be borrowed."""
    p, line = T.start([T.target("nocfi_handler")])
    try:
        if line != "ready":
            T.skip("a handler without CFI inside malloc", line)
            return
        nr = waiting(p.pid, (0,))
        r, d = traced(p.pid)
        T.ok(r.returncode == 0 and d is not None and
             not d["attach"]["injected"] and
             "no thread" in (d["attach"].get("why") or ""),
             "a thread inside malloc, in a handler without CFI blocked in "
             "read (system call %s): not borrowed, the reason said" % nr,
             (r.returncode, d and d["attach"]))
        T.ok(T.proc_state(p.pid) in "SR" and T.tracer_pid(p.pid) == 0,
             "that process runs on, untraced")
    finally:
        T.kill(p)


if __name__ == "__main__":
    main()
