"""Interrupted system calls come back as the kernel would bring them back
(issue 27, item 5). The target (tests/targets/restart_calls.c) blocks its
main thread in one call in a loop (pause, sigsuspend, epoll_wait,
nanosleep, futex, read on a pipe, poll; nanosleep and poll go on as
restart_syscall once resumed), counting entries and returns (EINTR or
not), with a SIGUSR1 handler without SA_RESTART. Each round disturbs it
once, then sends SIGUSR1: a SIGSTOP/SIGCONT control run, then -b pss -F
(a freeze), then -b fork (which borrows the main thread for the fork).
After each SIGUSR1 the call returns exactly once, with EINTR, and the
signal mask is what it was (sigsuspend's, pselect's temporary mask
never left behind), as in the control run: a handler that ran makes the
call return EINTR, never a call restarted by hand that swallows the
wakeup. The same for a SIGUSR1 sent while the capture holds the target
(seen traced by a vmscope then stopped itself; the control: sent while
stopped). After the disturbance alone, a call the kernel restarts after
SIGSTOP/SIGCONT (all but epoll_wait here) never returns; epoll_wait
fails with EINTR after each stop, and a capture may freeze more than once
(the fork sampler freezes again to reap its clone): one EINTR at least,
each an EINTR. Each step waits for the main thread to be back in its call
(/proc/PID/syscall shows it, or restart_syscall), never a sleep."""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import forktest  # noqa: E402
import vmstest  # noqa: E402
from vmstest import eq, ok  # noqa: E402

CALLS = ("pause", "sigsuspend", "epoll", "nanosleep", "futex", "read", "poll")
# (two on the sanitizer build's pass: as test_hostile)
ROUNDS = int(os.environ.get("RESTART_ROUNDS",
                            "2" if vmstest.sanitizer_build() else "3"))
NR_RESTART_SYSCALL = 219  # x86_64
forktest.become_subreaper()


def status(p):
    return {k: int(v) for k, v in
            (kv.split("=") for kv in forktest.ask(p, "status").split()[1:])}


def in_call(pid, nr):
    """The main thread sleeps in its call (or its restart) right now."""
    try:
        with open("/proc/%d/task/%d/syscall" % (pid, pid)) as f:
            first = f.read().split()[0]
        return (first.isdigit() and int(first) in (nr, NR_RESTART_SYSCALL)
                and vmstest.proc_state(pid) == "S")
    except (OSError, IndexError):
        return False


def settle(p, nr, cond=lambda s: True, what=""):
    """Waits until the main thread is in its call, has returned from every
    earlier one and cond holds; the counters then."""
    deadline = time.time() + 20
    while True:
        if in_call(p.pid, nr):
            s = status(p)
            if s["entered"] == s["returned"] + 1 and cond(s) and \
                    in_call(p.pid, nr):
                return s
        if time.time() > deadline:
            raise RuntimeError("not back in its call: %s %r"
                               % (what, status(p)))
        time.sleep(0.002)


def disturb(p, how):
    if how == "SIGSTOP/SIGCONT":
        vmstest.sigstop(p.pid)
        vmstest.sigcont(p.pid)
        return None
    r = vmstest.run_vmscope(*how.split(), "-s", p.pid, timeout=120)
    return None if r.returncode == 0 else \
        "exit %d: %s" % (r.returncode, r.stderr.decode().strip())


def stopped_all(pid):
    """Whether every thread of pid is stopped; None once pid has exited (a
    thread that ends meanwhile is passed over: vmscope starts and ends
    threads during a capture)."""
    try:
        if vmstest.proc_state(pid) in "ZX":
            return None
        tids = vmstest.tids(pid)
    except (OSError, IndexError):
        return None
    for t in tids:
        try:
            if vmstest.proc_state(pid, t) not in "tT":
                return False
        except (OSError, IndexError):
            continue
    return True


def hold(pid):
    """Waits until every thread of pid, sent SIGSTOP, is stopped; False if
    it exited first."""
    deadline = time.time() + 20
    while time.time() < deadline:
        st = stopped_all(pid)
        if st is not False:
            return bool(st)
        time.sleep(0.001)
    raise RuntimeError("vmscope %d did not stop" % pid)


def during(p, nr, how):
    """SIGUSR1 sent while the capture holds the target (the control: while
    it is stopped); True if so, or what failed. Seen traced, vmscope itself
    is stopped and the target looked at again: only a target still traced
    by a stopped vmscope is held, since a target seen traced may be let go
    before the signal lands. A signal that lands after the last detach,
    while the kernel restarts the call (after its restart decision, before
    the call is entered again), runs the handler and the call goes on: the
    kernel's own race, after a SIGCONT as after a detach, and no test of
    the capture. A capture never seen held is run again (up to ten); if
    none is, the signal goes after the last, once the target is back in
    its call, and the test says how often."""
    if how == "SIGSTOP/SIGCONT":
        vmstest.sigstop(p.pid)
        os.kill(p.pid, signal.SIGUSR1)
        vmstest.sigcont(p.pid)
        return True
    for _ in range(10):
        sent, e = capture_holding(p, how)
        if sent:
            return e
        if e is not True:
            # failed before it was seen holding the target: the signal
            # after it, so that the round goes on and says what failed
            settle(p, nr, what="after a failed capture")
            os.kill(p.pid, signal.SIGUSR1)
            return e
        # A short capture on a busy machine: again (each one more stop,
        # which the counts allow: the same restart, or EINTR, each time).
        settle(p, nr, what="after a capture never seen held")
    UNSEEN[how] = UNSEEN.get(how, 0) + 1
    os.kill(p.pid, signal.SIGUSR1)
    return True


def capture_holding(p, how):
    """One capture; SIGUSR1 sent while it holds the target. (sent, True if
    the capture succeeded or what failed)."""
    v = subprocess.Popen([vmstest.VMSCOPE] + how.split() + ["-s", str(p.pid)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    sent = False
    try:
        deadline = time.time() + 60
        while not sent and v.poll() is None and time.time() < deadline:
            try:
                if vmstest.tracer_pid(p.pid) == 0:
                    continue
            except OSError:
                break
            try:
                os.kill(v.pid, signal.SIGSTOP)
                if hold(v.pid) and vmstest.tracer_pid(p.pid) != 0:
                    os.kill(p.pid, signal.SIGUSR1)
                    sent = True
            finally:
                try:
                    os.kill(v.pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass
        err = v.communicate(timeout=120)[1]
    finally:
        if v.poll() is None:  # never left stopped or tracing
            v.kill()
            v.wait()
    return sent, v.returncode == 0 or err.decode()


UNSEEN = {}  # rounds whose capture was never seen holding the target


def delta(a, b):
    return {k: b[k] - a[k] for k in a}


def run(call, how):
    """Per round: what the disturbance alone made the call do, and what
    the SIGUSR1 after it did (both summed over the rounds)."""
    p, line = vmstest.start([vmstest.target("restart_calls"), call])
    nr = int(line.split("nr=")[1])
    s = settle(p, nr, what="start")
    fails = []
    stop = dict.fromkeys(s, 0)
    sig = dict.fromkeys(s, 0)
    dur = dict.fromkeys(s, 0)
    for i in range(ROUNDS):
        e = disturb(p, how)
        if e:
            fails.append(e)
        s1 = settle(p, nr, what="after %s" % how)
        if call in ("nanosleep", "poll") and i == 0:
            with open("/proc/%d/syscall" % p.pid) as f:
                now = f.read().split()[0]
            eq(now, str(NR_RESTART_SYSCALL), "%s under %s: resumed as "
               "restart_syscall" % (call, how))
        stop = {k: stop[k] + v for k, v in delta(s, s1).items()}
        os.kill(p.pid, signal.SIGUSR1)
        s = settle(p, nr, lambda x: x["handled"] > s1["handled"],
                   what="after SIGUSR1")
        sig = {k: sig[k] + v for k, v in delta(s1, s).items()}
        e = during(p, nr, how)
        if e is not True:
            fails.append(e)
        s2 = settle(p, nr, lambda x: x["handled"] > s["handled"],
                    what="after SIGUSR1 during the capture")
        dur = {k: dur[k] + v for k, v in delta(s, s2).items()}
        s = s2
    eq(fails, [], "%s under %s: every capture succeeds" % (call, how))
    ok(forktest.settled(p.pid) == [], "%s under %s: untraced, running, no "
       "child" % (call, how))
    vmstest.kill(p)
    return stop, sig, dur


for call in CALLS:
    cstop, csig, cdur = run(call, "SIGSTOP/SIGCONT")
    eq(csig, dict(entered=ROUNDS, returned=ROUNDS, eintr=ROUNDS, other=0,
                  handled=ROUNDS, badmask=0, elsewhere=0),
       "%s control: each handler run, one EINTR return" % call)
    for how in ("-b pss -F", "-b fork"):
        stop, sig, dur = run(call, how)
        eq(sig, csig, "%s under %s: after a handler, returns, EINTRs and "
           "the mask as after SIGSTOP/SIGCONT" % (call, how))
        if cstop["returned"] == 0:
            eq(stop, cstop, "%s under %s: restarted as after "
               "SIGSTOP/SIGCONT, never returned" % (call, how))
            eq(dur, cdur, "%s under %s: a signal during the capture: one "
               "EINTR return a handler run, as during a stop" % (call, how))
        else:
            ok(dur["handled"] == cdur["handled"] and
               dur["returned"] >= cdur["returned"] and
               dur["eintr"] == dur["returned"] and dur["badmask"] == 0,
               "%s under %s: a signal during the capture: each handler "
               "run, EINTR after each stop (%r, control %r)"
               % (call, how, dur, cdur))
            ok(stop["returned"] >= cstop["returned"] and
               stop["eintr"] == stop["returned"] and stop["badmask"] == 0,
               "%s under %s: fails with EINTR after each stop, as after "
               "SIGSTOP/SIGCONT (%r, control %r)" % (call, how, stop, cstop))
print("rounds with no capture seen holding the target in ten (SIGUSR1 "
      "sent after): %r" % UNSEEN)
vmstest.done()
