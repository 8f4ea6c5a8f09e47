"""No queued real-time signal is lost when a freeze is refused or succeeds.

A target (rt_counter target 4) counts SIGRTMIN+3 in a handler while a
sender queues them as fast as it can (sigqueue: every signal the kernel
accepts is queued, none merged). A holder PTRACE_SEIZEs one thread of the
target that blocks every signal, so each capture stops the other threads,
is refused at that one ("already traced by process <holder>") and lets
them go: RT_REFUSALS captures (default 20; the issue's measure is 200),
-b pss -F and -b fork in turn (RT_SAMPLERS=pss or fork: one alone). Then, the holder gone, RT_CAPTURES
successful captures (default 6) with both samplers. Each phase: the
target handled exactly the signals the sender queued, is alive, untraced
and running. Figures are printed as TAP comments.

The attach pass (issue 30, item 5): in each phase the target is also
traced once while the sender queues (vmscope --trace --duration=0.5 -s
PID), a phase of its own with the same checks. Held: the tracer is not
injected (its freeze is refused at the held thread, as the captures are),
the report says why, naming the holder, and the maps are traced from the
kernel (or, unprivileged, a message saying so); not held: a report (the
tracer injected, or the maps from the kernel with the reason) or a
message."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import forktest  # noqa: E402
import vmstest  # noqa: E402
from vmstest import eq, ok  # noqa: E402

# (half on the sanitizer build's pass: as test_hostile)
SAN = vmstest.sanitizer_build()
REFUSALS = int(os.environ.get("RT_REFUSALS", "10" if SAN else "20"))
CAPTURES = int(os.environ.get("RT_CAPTURES", "3" if SAN else "6"))
# RT_SAMPLERS=pss or fork: that sampler alone (default: both in turn)
SAMPLERS = {"pss": (("-b", "pss", "-F"),), "fork": (("-b", "fork"),)}.get(
    os.environ.get("RT_SAMPLERS"), (("-b", "pss", "-F"), ("-b", "fork")))
forktest.become_subreaper()
RTC = vmstest.target("rt_counter")


def count(p):
    return int(forktest.ask(p, "count").split()[1])


def handled_all(p, sent):
    """Waits until the target has handled sent signals (it may still be
    running handlers for the last ones); returns what it counted."""
    deadline = time.time() + 30
    n = count(p)
    while n < sent and time.time() < deadline:
        time.sleep(0.01)
        n = count(p)
    time.sleep(0.05)  # one more look: none counted twice either
    return count(p)


def healthy(p):
    return (p.poll() is None and vmstest.tracer_pid(p.pid) == 0 and
            all(vmstest.proc_state(p.pid, t) in "SR"
                for t in vmstest.tids(p.pid)))


def phase(p, n, holder, what):
    before = count(p)  # before the sender's first signal
    sender, _ = vmstest.start([RTC, "send", str(p.pid)])
    fails = []
    for i in range(n):
        b = SAMPLERS[i % len(SAMPLERS)]
        r = vmstest.run_vmscope(*b, "-s", p.pid, timeout=60)
        err = r.stderr.decode().strip()
        if holder:
            if r.returncode != 2 or ("already traced by process %d"
                                     % holder.pid) not in err:
                fails.append("%s: exit %d: %s" % (" ".join(b),
                                                  r.returncode, err))
        elif r.returncode != 0:
            fails.append("%s: exit %d: %s" % (" ".join(b), r.returncode,
                                              err))
    sent = int(forktest.ask(sender, "q").split()[1])
    vmstest.kill(sender)
    eq(fails, [], "%s: %d captures end as expected" % (what, n))
    return before, sent


def attach_phase(p, holder, what):
    """One attach while the sender queues: (count before, signals
    sent)."""
    before = count(p)
    sender, _ = vmstest.start([RTC, "send", str(p.pid)])
    r = vmstest.run_vmscope("--trace", "--duration=0.5", "-s", p.pid,
                            timeout=180)
    sent = int(forktest.ask(sender, "q").split()[1])
    vmstest.kill(sender)
    out = r.stdout.decode(errors="replace")
    err = r.stderr.decode(errors="replace")
    how = [ln for ln in out.splitlines()
           if ln.startswith(("Attached:", "Injected:"))]
    print("# %s: --trace PID exit %d; %s" % (what, r.returncode,
                                            " / ".join(how) or err[-300:]))
    if holder:
        held = "already traced by process %d" % holder.pid
        ok((r.returncode == 0 and any(held in ln for ln in how)) or
           (r.returncode != 0 and held in err),
           "%s: not injected, the reason said (%s)" % (what, held),
           out[-300:] + err[-300:])
    else:
        # injected; else the maps from the kernel, which an unprivileged
        # user may not load: then a message
        ok((r.returncode == 0 and how) or (r.returncode != 0 and err),
           "%s: a report, or a message" % what,
           "exit %d: %s" % (r.returncode, err[-300:]))
    return before, sent


def attach_checked(p, holder, what):
    before, sent = attach_phase(p, holder, what)
    got = handled_all(p, before + sent)
    print("# %s: %d signals queued, %d handled, %d lost"
          % (what, sent, got - before, before + sent - got))
    eq(got - before, sent, "%s: every queued real-time signal handled "
       "(%d), none lost" % (what, sent))
    ok(healthy(p) and not forktest.children(p.pid), "%s: the target is "
       "alive, untraced, running, without a child" % what)


p, line = vmstest.start([RTC, "target", "4"])
held = int(line.split()[1])

holder, _ = vmstest.start([RTC, "hold", str(held)])
deadline = time.time() + 10
while time.time() < deadline:
    with open("/proc/%d/task/%d/status" % (p.pid, held)) as f:
        if "TracerPid:\t%d\n" % holder.pid in f.read():
            break
    time.sleep(0.01)
else:
    ok(False, "the holder traces thread %d" % held)
before, sent = phase(p, REFUSALS, holder, "refused (one thread held by "
                     "another tracer)")
got = handled_all(p, before + sent)
print("# refused: %d captures, %d signals queued, %d handled, %d lost"
      % (REFUSALS, sent, got - before, before + sent - got))
eq(got - before, sent, "refused: every queued real-time signal handled "
   "(%d), none lost" % sent)
ok(healthy(p), "refused: the target is alive, untraced, running")
# the attach while the thread is held (its signals are the other
# threads' to handle, as in the captures' phase)
attach_checked(p, holder, "attach, one thread held by another tracer")
holder.stdin.write(b"q\n")
holder.stdin.flush()
holder.wait(timeout=20)
vmstest.kill(holder)

before, sent = phase(p, CAPTURES, None, "captured")
got = handled_all(p, before + sent)
print("# captured: %d captures, %d signals queued, %d handled, %d lost"
      % (CAPTURES, sent, got - before, before + sent - got))
eq(got - before, sent, "captured: every queued real-time signal handled "
   "(%d), none lost" % sent)
ok(healthy(p) and not forktest.children(p.pid), "captured: the target is "
   "alive, untraced, running, without a child")
attach_checked(p, None, "attach")
vmstest.kill(p)
vmstest.done()
