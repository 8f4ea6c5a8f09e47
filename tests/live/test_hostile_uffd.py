"""Targets that watch their own userfaultfd (tests/targets/fork_uffd.c), as
CRIU lazy-pages and QEMU post-copy do. A fork injected into one whose
userfaultfd asked for fork events would wait in the kernel for the
monitor thread the freeze stopped: -b fork refuses before injecting, with
the reason and "-b pss", and -b pss -F captures it. The same for regions
registered with a userfaultfd another process holds. A userfaultfd
without fork events is captured. And where the preflight cannot see the
reason (a second userfaultfd, with fork events, held by a helper process
the test stops), the fork that never returns is never let go: vmscope
ends with a message at its bound, the other threads run, and once the
helper runs again the thread gets its registers back and the clone is
gone; nothing is killed. Each time the target is left alive, running,
untraced, with only its own children, and its monitor saw no fork unless
one was made.

The attach pass (issue 30, item 5): each of those targets is also traced
once while it runs (vmscope --trace --duration=0.3 -e json PID). Where a
fork is refused, the heap walk before the injection (a fork capture) is
refused with the same reason, which the report's trace.before.partial
gives, and no fork is made; the injection itself (a dlopen, no fork) goes
on, or is refused with its reason and the maps are traced from the
kernel. Then the same checks: alive, running, untraced, only its own
children, its heartbeat going on. Not twofd: there the fork the walk
would inject waits for the stopped helper until its 30 s bound, the
case twofd() covers for the fork sampler; an attach would only add that
wait before its injection."""
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import forktest  # noqa: E402
import vmstest  # noqa: E402
from vmstest import eq, ok  # noqa: E402

forktest.become_subreaper()


def status(p):
    return dict(kv.split("=")
                for kv in forktest.ask(p, "status").split()[1:])


def beats_go_on(p, what):
    b0 = int(status(p)["beats"])
    deadline = time.time() + 10
    while int(status(p)["beats"]) <= b0 and time.time() < deadline:
        time.sleep(0.01)
    ok(int(status(p)["beats"]) > b0, "%s: its heartbeat goes on" % what)


def switches(pid):
    """Context switches of every thread but the main one."""
    n = 0
    for t in vmstest.tids(pid):
        if t == pid:
            continue
        with open("/proc/%d/task/%d/status" % (pid, t)) as f:
            n += sum(int(x.split()[1]) for x in f
                     if x.startswith("voluntary_ctxt_switches"))
    return n


def settled(p, kids, what):
    deadline = time.time() + 20
    while True:
        wrong = []
        if vmstest.tracer_pid(p.pid):
            wrong.append("traced by %d" % vmstest.tracer_pid(p.pid))
        st = [vmstest.proc_state(p.pid, t) for t in vmstest.tids(p.pid)]
        if any(s in "tTZ" for s in st):
            wrong.append("thread states %r" % st)
        if sorted(forktest.children(p.pid)) != kids:
            wrong.append("children %r, had %r"
                         % (forktest.children(p.pid), kids))
        if not wrong or time.time() > deadline:
            break
        time.sleep(0.01)
    eq(wrong, [], "%s: alive, running, untraced, only its own children"
       % what)
    ok(p.poll() is None, "%s: alive" % what)


def start(mode):
    """The target in MODE, or None (the case skipped with the reason)
    where this user may not make such a userfaultfd (unprivileged: fork
    events need CAP_SYS_PTRACE, and vm.unprivileged_userfaultfd=0 leaves
    user-mode faults only), so the hazard cannot exist here."""
    p, line = vmstest.start([vmstest.target("fork_uffd"), mode])
    if line.startswith("ready unsupported"):
        vmstest.skip("%s: a userfaultfd target" % mode,
                     "this user may not make it (fork events need "
                     "CAP_SYS_PTRACE), so no target of it can hold a "
                     "capture: %s" % line.split(" ", 1)[1])
        p.wait()
        return None, 0, []
    helper = int(line.split("helper=")[1])
    return p, helper, sorted(forktest.children(p.pid))


def attach(p, kids, mode, want):
    """An attached trace of p; want: the reason its walk's fork is
    refused, or None (the walk may fork)."""
    forks = status(p)["forks"]
    r = vmstest.run_vmscope("--trace", "--duration=0.3", "-e", "json",
                            p.pid, timeout=180)
    err = r.stderr.decode(errors="replace")
    try:
        d = json.loads(r.stdout)
    except ValueError:
        d = None
    # a report; or, not injected and the kernel's trace not permitted
    # (an unprivileged user), a message
    ok((r.returncode == 0 and d) or (r.returncode != 0 and err),
       "%s, --trace PID: a report, or a message" % mode,
       "exit %d: %s" % (r.returncode, err[-300:]))
    if not d:
        d = {"attach": {"why": err}, "trace": {"before": None}}
    a, before = d["attach"], d["trace"]["before"]
    print("# %s, --trace PID: injected %s; %s; before %s"
          % (mode, a.get("injected"), a.get("why"), before))
    if want and a.get("injected"):
        ok(before and not before["heaps"] and want in
           (before["partial"] or ""),
           "%s, --trace PID: the walk before the injection refused, its "
           "reason said (%s)" % (mode, want), before)
    elif want:
        ok(a.get("why"), "%s, --trace PID: not injected, the reason said"
           % mode, a)
    if want:
        eq(status(p)["forks"], forks, "%s, --trace PID: no fork was made"
           % mode)
    settled(p, kids, mode + " after --trace PID")
    beats_go_on(p, mode + " after --trace PID")


def refused(mode, want):
    p, helper, kids = start(mode)
    if not p:
        return
    r = vmstest.run_vmscope("-b", "fork", "-s", p.pid, timeout=120)
    err = r.stderr.decode()
    eq(r.returncode, 3, "%s: -b fork refuses (exit 3)" % mode)
    ok(want in err and "-b pss" in err and "-F" in err,
       "%s: the message names the reason and says -b pss / -F" % mode, err)
    eq(r.stdout, b"", "%s: nothing printed as if captured" % mode)
    settled(p, kids, mode)
    eq(status(p)["forks"], "0", "%s: no fork was made" % mode)
    beats_go_on(p, mode)
    r = vmstest.run_vmscope("-b", "pss", "-F", "-s", p.pid, timeout=120)
    eq(r.returncode, 0, "%s: -b pss -F captures it" % mode)
    settled(p, kids, mode + " after -F")
    beats_go_on(p, mode + " after -F")
    attach(p, kids, mode, want)
    vmstest.kill(p)
    if helper:
        forktest.reap(helper)


def nofork():
    p, helper, kids = start("nofork")
    if not p:
        return
    r = vmstest.run_vmscope("-b", "fork", "-s", p.pid, timeout=120)
    eq(r.returncode, 0, "nofork: -b fork captures a userfaultfd target "
       "without fork events")
    settled(p, kids, "nofork")
    beats_go_on(p, "nofork")
    attach(p, kids, "nofork", None)
    vmstest.kill(p)


def twofd():
    """The bound: a fork waiting for a stopped monitor in another
    process."""
    p, helper, kids = start("twofd")
    if not p:
        return
    os.kill(helper, signal.SIGSTOP)
    r = vmstest.run_vmscope("-b", "fork", "-s", p.pid, timeout=120)
    err = r.stderr.decode()
    eq(r.returncode, 3, "twofd: the fork that does not return ends vmscope "
       "(exit 3)")
    ok("did not return" in err and "nothing was killed" in err and
       "registers" in err, "twofd: the message says the thread is held and "
       "put back, nothing killed", err)
    ok(p.poll() is None, "twofd: the target is alive while the call waits")
    # its main thread is the one held (it would answer status): the
    # heartbeat thread is watched through /proc
    n0 = switches(p.pid)
    deadline = time.time() + 10
    while switches(p.pid) <= n0 + 10 and time.time() < deadline:
        time.sleep(0.01)
    ok(switches(p.pid) > n0 + 10, "twofd: its other threads run while the "
       "call waits")
    os.kill(helper, signal.SIGCONT)
    settled(p, kids, "twofd, once the helper runs")
    ok("status" in forktest.ask(p, "status"), "twofd: the borrowed thread "
       "answers again")
    beats_go_on(p, "twofd after")
    forktest.reap_orphans({p.pid, helper})
    vmstest.kill(p)
    forktest.reap(helper)


refused("fork", "for fork events")
refused("elsewhere", "another process holds")
nofork()
twofd()
vmstest.done()
