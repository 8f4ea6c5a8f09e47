"""forktest — what the fork sampler's live tests share, on top of vmstest.

The test process makes itself a child subreaper, so that a keeper orphaned
by a SIGKILLed vmscope is reparented to it and can be reaped here (this
machine's init may not reap), and checks what a fork capture must leave
behind: the target running, untraced, with its threads and no child.
"""
import ctypes
import os
import time

import vmstest

PR_SET_CHILD_SUBREAPER = 36


def become_subreaper():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def children(pid):
    """Children of every thread of pid (a live clone or a zombie)."""
    out = []
    try:
        for t in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, t)) as f:
                out += [int(x) for x in f.read().split()]
    except FileNotFoundError:
        pass
    return out


def children_pids(pid):
    return children(pid)


def reap(pid, timeout=20):
    """Waits for an orphan reparented to us (or our child) to exit and
    reaps it; returns True if it was gone in time."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            w, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return not os.path.exists("/proc/%d" % pid)
        if w == pid:
            return True
        time.sleep(0.005)
    return False


def settled(pid, timeout=20):
    """Waits until pid is untraced and has no child; returns a list of
    what is still wrong (empty when all is well)."""
    deadline = time.time() + timeout
    while True:
        wrong = []
        if vmstest.tracer_pid(pid):
            wrong.append("traced by %d" % vmstest.tracer_pid(pid))
        if children(pid):
            wrong.append("children %r" % children(pid))
        states = [vmstest.proc_state(pid, t) for t in vmstest.tids(pid)]
        if any(s in "tTZ" for s in states):
            wrong.append("thread states %r" % states)
        if not wrong or time.time() > deadline:
            return wrong
        time.sleep(0.005)


def ask(p, line):
    """Sends one line to a target's stdin and returns its answer."""
    p.stdin.write((line + "\n").encode())
    p.stdin.flush()
    return p.stdout.readline().decode().strip()


def status(p):
    """The fork_threads target's self-check figures as a dict."""
    ans = ask(p, "status")
    return dict(kv.split("=") for kv in ans.split()[1:])


def reap_orphans(keep, timeout=20):
    """Reaps every child of ours not in keep (keepers orphaned by a killed
    vmscope), waiting for each to exit. Returns (how many were reaped, the
    pids that would not exit)."""
    me = os.getpid()
    stuck = []
    reaped = 0
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) in keep:
            continue
        try:
            # bytes: another process's name may be any bytes, and this
            # reads every process's
            with open("/proc/%s/stat" % d, "rb") as f:
                s = f.read()
        except OSError:
            continue
        if int(s[s.rindex(b")") + 2:].split()[1]) != me:
            continue
        if reap(int(d), timeout):
            reaped += 1
        else:
            stuck.append(int(d))
    return reaped, stuck
