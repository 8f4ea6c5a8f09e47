#!/usr/bin/env python3
"""vmscope SIGKILLed while it attaches to a process, traces it or detaches
from it (src/capture/ptrace/inject_call.h, trace/attach.c): the target is
left as if it had never been traced.

At a random moment of the attach, the trace or the detach (a third of the trials in each; --duration=0.3; a fresh target
each). Their spans are measured on an attach not killed, watched as
the trials are (Watch: the target's TracerPid and malloc GOT entry,
looked at every half millisecond); half the attach trials are drawn
from vmscope's start, half from the injection's start as the trial
sees it; the trace trials from the trace's start; half the detach
trials around the detach measured from the trace's start, half from
the detach's start as the trial sees it (a detach lasts a few ms: a
draw from vmscope's start mostly missed it). How many kills fell in
each phase (the last look before the kill) is printed. 30 trials
(10 on the sanitizer build);
VMSCOPE_ATTACH_TRIALS sets how many (`make attach-trials` runs 200,
`make attach-trials N=40` 40); the seed is printed, VMSCOPE_SEED
replays it. The target is left alive, untraced (TracerPid 0, once
the processes the dead vmscope left, its fork keeper and injecting
child, have finished their step and exited: reaped here, a
subreaper), no thread stopped, and its answers to the same commands
are those of an untraced run; attached again (a vmscope taking over
the entries left redirected by the dead one, or a new attach), its
trace is exact.

Killed while it traces, the entries left redirected: once the target's
thread fills its ring, the library finds vmscope gone and gives the
rings' pages back (the shared file's Rss as a detach leaves it).

x86_64 only (the injection's); skipped elsewhere. The attach itself, its
trace and its detach: test_trace_attach_heap.py.
"""
import os
import platform
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import forktest  # noqa: E402
import vmstest as T  # noqa: E402
from attachtest import (AFTER, WORK, attach_round, cmd,  # noqa: E402
                        got_slots, got_values, leaked, no_thread_stopped,
                        poll, trace_file_ids, trace_rss_kb, untraced,
                        untraced_now)

# Fewer trials on the sanitizer build's pass (make check's time; a
# SIGKILLed vmscope reports nothing to the sanitizers, which watch the
# paths the plain pass's 30 trials and test_trace_attach_heap.py take)
TRIALS = int(os.environ.get("VMSCOPE_ATTACH_TRIALS",
                            "10" if T.sanitizer_build() else "30"))

DURATION = 0.3  # the killed trials' trace: short, each trial is cheap


# what the target showed at the last look before a kill (Watch.last)
PHASES = ("attach: the heap walk's freeze (vmscope's fork keeper)",
          "attach: not stopped (vmscope starting, the walk, its end)",
          "attach: injecting (vmscope's child; entries not yet seen "
          "redirected and untraced)",
          "trace (entries redirected, not stopped)",
          "detach: injecting (stopped again after the trace)",
          "detach: entries back, vmscope finishing",
          "vmscope had ended")


class Watch:
    """Looks at the target (its tracer, its malloc GOT entry) while a
    killed trial's vmscope runs, to tell in which phase it was killed:
    traced by the first tracer seen (the fork keeper of the heap walk's
    capture, fork_keeper.h), by a later one before the entries are seen
    redirected with nothing tracing it (vmscope's injecting child: the
    attach), redirected and untraced (the trace), traced again after that
    (the detach: the child calls vmstrace_detach), or the entries back
    after the trace. The look is a poll of /proc every half millisecond:
    the phase is that of the last look before the kill, not of the
    kill's instant (a phase shorter than a look may be missed)."""

    def __init__(self, p, v, app, mal):
        self.p, self.v, self.app, self.mal = p, v, app, mal
        self.was = got_values(p.pid, app, mal)
        self.redirected = self.traced_after = False
        self.tracers = []
        self.last = None

    def look(self):
        if self.v.poll() is not None:
            self.last = 6
            return
        tracer = T.tracer_pid(self.p.pid)
        try:
            moved = got_values(self.p.pid, self.app, self.mal) != self.was
        except OSError:
            moved = False
        if moved and tracer == 0:
            self.traced_after = True
        self.redirected = self.redirected or moved
        if tracer and tracer not in self.tracers:
            self.tracers.append(tracer)
        if tracer and tracer == self.tracers[0] and not self.redirected:
            self.last = 0
        elif tracer and self.traced_after:
            self.last = 4
        elif tracer:
            self.last = 2
        elif moved:
            self.last = 3
        elif self.redirected:
            self.last = 5
        else:
            self.last = 1

    def until_trace(self, t):
        """Looks until the trace is seen (or vmscope ended, or time t):
        when."""
        while not self.traced_after and self.last != 6 and time.time() < t:
            self.look()
            time.sleep(0.0005)
        return time.time()

    def until_inject(self, t):
        """Looks until the injection is seen (or what comes after it, or
        vmscope ended, or time t): when."""
        while (self.last is None or self.last < 2) and time.time() < t:
            self.look()
            time.sleep(0.0005)
        return time.time()

    def until_detach(self, t):
        """Looks until the detach is seen (or vmscope ended, or time t):
        when."""
        while self.last not in (4, 5, 6) and time.time() < t:
            self.look()
            time.sleep(0.0005)
        return time.time()

    def until(self, t):
        """Looks until time t (time.time()): the trial's random moment."""
        while True:
            self.look()
            left = t - time.time()
            if left <= 0:
                return self.last
            time.sleep(min(left, 0.0005))


def phases():
    """The spans of an unkilled attach (--duration=DURATION), watched as
    the killed trials are (Watch), in s: from its start to the trace
    (the entries seen redirected, nothing tracing the target), and from
    the trace's start to its detach's start (traced again) and end (the
    entries back). The trials' kills are drawn in them (measured, not
    assumed: the attach's capture and injection take what this
    machine's load makes them)."""
    app = T.target("heap_attach")
    p, _ = T.start([app])
    cmd(p, "leak 50")
    mal = [k for k in got_slots(app) if k[1] == "malloc"]
    t0 = time.time()
    v = subprocess.Popen([T.VMSCOPE, "--trace", "--duration=%s" % DURATION,
                          "-e", "json", "-o", "/dev/null", str(p.pid)],
                         stderr=subprocess.DEVNULL)
    w = Watch(p, v, app, mal)
    first = {}
    deadline = time.time() + 120
    while v.poll() is None and time.time() < deadline:
        w.look()
        first.setdefault(w.last, time.time())
        time.sleep(0.0005)
    v.wait(timeout=120)
    end = time.time()
    T.kill(p)
    trace = first.get(3, end)
    inject = trace - first.get(2, trace)
    detach = first.get(4, first.get(5, end)) - trace
    back = first.get(5, end) - trace
    print("# an attach of %.0f ms (its injection the last %.0f), its "
          "trace, its detach from %.0f to %.0f ms after the trace's "
          "start: %.0f ms in all"
          % ((trace - t0) * 1000, inject * 1000, detach * 1000,
             back * 1000, (end - t0) * 1000))
    return trace - t0, inject, detach, back


def states(pid):
    """Each thread's state and tracer, for a failure's detail."""
    def tracer(t):
        for ln in open("/proc/%d/task/%d/status" % (pid, t)):
            if ln.startswith("TracerPid:"):
                return int(ln.split()[1])

    try:
        return [(t, T.proc_state(pid, t), tracer(t)) for t in T.tids(pid)]
    except OSError as e:
        return str(e)


def killed(plain, rng):
    """vmscope SIGKILLed at a random moment: the target as if untraced."""
    app = T.target("heap_attach")
    forktest.become_subreaper()
    attached, inject, detach, back = phases()
    # the attach (capture, injection) from vmscope's start, every other
    # attach trial from the injection's start as its watch sees it
    # (a second tracer: vmscope's injecting child), within its span; the
    # trace
    # and the detach from the trace's start as this trial's watch sees
    # it (the attach's span varies from one trial to the next, more than
    # the detach lasts): the detach's, widened by 5 ms before and 3 ms
    # after; every other detach trial from the detach's start as its
    # watch sees it (traced again after the trace: the injecting child
    # has seized the target), within the detach's span
    windows = ((0, attached), (0, DURATION),
               (max(0, detach - 0.005), max(back, detach) + 0.003),
               (0, max(back - detach, 0.002)),
               (0, max(inject, 0.002)))
    bad = []
    hits = [0] * len(PHASES)
    mal = [k for k in got_slots(app) if k[1] == "malloc"]
    t0 = time.time()
    for i in range(TRIALS):
        p, _ = T.start([app])
        out = [cmd(p, "leak 50")]
        orig = got_values(p.pid, app, got_slots(app))
        start = time.time()
        v = subprocess.Popen([T.VMSCOPE, "--trace",
                              "--duration=%s" % DURATION, "-e", "json",
                              "-o", "/dev/null", str(p.pid)],
                             stderr=subprocess.DEVNULL)
        # a random moment of the attach, the trace or the detach: a
        # randomised kill, not a synchronisation (the checks below poll);
        # the target looked at meanwhile, for the phase it was in
        which = i % 3 + (i % 3 == 2 and i // 3 % 2) + 4 * (
            i % 3 == 0 and i // 3 % 2)
        delay = rng.uniform(*windows[which])
        w = Watch(p, v, app, mal)
        if which == 4:  # from the injection's start
            start = w.until_inject(start + 120)
        elif which:  # from the trace's start
            start = w.until_trace(start + 120)
        if which == 3:  # from the detach's start
            start = w.until_detach(start + 120)
        phase = w.until(start + delay)
        hits[phase] += 1
        try:
            os.kill(v.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        v.wait(timeout=60)
        # what vmscope left running (its fork keeper, its injecting
        # child: each finishes its step, then exits) is reparented to
        # this process, a subreaper: reaped before the target is looked
        # at, else a child that seizes it just after the kill would find
        # it attached again (refused: traced) or be taken for a harm
        mine = {q.pid for q in T._procs}
        left = [c for c in forktest.children(os.getpid()) if c not in mine]
        gone = all(forktest.reap(c, timeout=60) for c in left)
        # untraced and no thread stopped, polled together
        first = states(p.pid)
        ok = (gone and p.poll() is None and
              poll(lambda: untraced_now(p.pid) and
                   no_thread_stopped(p.pid)))
        if not ok:
            first = (left, gone, first, states(p.pid))
        out += [cmd(p, c) for c in WORK]
        # attached again: a new trace (or one taking over from the dead
        # vmscope), exact, its entries put back
        d, o, _, after, e = attach_round(p, app, AFTER)
        out += o
        ok = ok and leaked(d) == (True, [(7, 280)])
        # every entry back as it was before any attach (a take-over
        # puts back what the dead vmscope's attach redirected)
        ok = ok and after == orig
        p.stdin.write(b"end\n")
        p.stdin.flush()
        rc = p.wait(timeout=60)
        T.kill(p)
        if not ok or (out, rc) != plain:
            bad.append((i, round(delay, 3), PHASES[phase], ok, first,
                        leaked(d), out, rc, e[-300:]))
    print("# %d trials in %.1f s" % (TRIALS, time.time() - t0))
    print("# the phase at the last look before each kill:")
    for n, what in zip(hits, PHASES):
        print("#   %4d  %s" % (n, what))
    T.ok(not bad, "vmscope SIGKILLed during attach, trace or detach "
         "(%d trials, a third in each): the target alive, untraced, no "
         "thread stopped, its answers an untraced run's, and attached "
         "again exactly" % TRIALS, bad)

def rings_back():
    """vmscope SIGKILLed while it traces, the entries left redirected:
    once the target's thread fills its ring ("churn 40000": 80,000
    calls, some 2 MiB of records into a ring of 1 MiB), the library
    finds vmscope gone and gives the rings' pages back. The shared
    file's Rss in the target falls to what a detach leaves (its header),
    not a full ring's 1 MiB for the target's life."""
    app = T.target("heap_attach")
    forktest.become_subreaper()
    p, _ = T.start([app])
    files = trace_file_ids(p.pid)
    v = subprocess.Popen([T.VMSCOPE, "--trace", "-e", "json", "-o",
                          "/dev/null", str(p.pid)],
                         stderr=subprocess.DEVNULL)
    poll(lambda: trace_file_ids(p.pid) - files or v.poll() is not None)
    # answered once the injection (in the target's only thread) is done
    cmd(p, "leak 10")
    traced = trace_rss_kb(p.pid)
    v.kill()
    v.wait(timeout=60)
    mine = {q.pid for q in T._procs}
    for c in forktest.children(os.getpid()):
        if c not in mine:
            forktest.reap(c, timeout=60)
    full = cmd(p, "churn 40000")
    left = trace_rss_kb(p.pid)
    T.ok(full.startswith("ok churn") and p.poll() is None and
         left < 64,
         "vmscope SIGKILLed while tracing: the rings' pages given back "
         "once the target's ring is full (the shared file's Rss: %d kB "
         "while traced, %d after, under 64; a full ring is 1024)"
         % (traced, left), full)
    p.stdin.write(b"end\n")
    p.stdin.flush()
    T.eq(p.wait(timeout=60), 0, "the target ends as it would (exit 0)")
    T.kill(p)


def main():
    if platform.machine() != "x86_64":
        T.skip("vmscope killed during an attach", "x86_64 only")
        return T.done()
    killed(untraced(), T.rng())
    rings_back()
    T.done()


if __name__ == "__main__":
    try:
        main()
    finally:
        T.cleanup()
