#!/usr/bin/env python3
"""The malloc family of a process already running: the tracer library
injected by vmscope's own ptrace (src/capture/ptrace/inject_call.h), its
GOT entries redirected (trace/attach.c), put back at the end.

  - tests/targets/heap_attach.c, started, has leaked 50 blocks before the
    attach; attached (vmscope --trace PID -e json), it is told to leak 300
    40-byte blocks in leak_block, to make and free 200 1000-byte blocks in
    churn_block and to free 20 of the blocks it leaked before; then the
    trace ends (SIGINT to vmscope). The report names leak_block with 300
    outstanding blocks of 12,000 bytes and churn_block with 200 transient
    of 200,000, both called from main, says the heap was traced by the
    injected library, nothing dropped, and counts the 20 frees as frees of
    memory allocated before the trace (unknown_frees), nothing else.
  - The blocks alive at the attach (the heap walk of a capture just
    before it: glibc's, the target's stdio buffers being its own) are the
    50 leaked before, 2,000 bytes, in the "before" bucket of the main
    arena; 20 of them freed in the trace with their 800 bytes (released),
    30 alive at its end (lasting); the window's Impacting Size is its
    call sites' less those 800 bytes.
  - Its GOT entries of the malloc and mmap families (the relocations in
    its ELF file, read from /proc/PID/mem) change while it is traced and
    are, after the detach, exactly what they were before the attach.
  - Its answers (which sum what it reads back from its blocks) and exit
    status equal those of an untraced run given the same commands; after
    the detach it is not traced and no thread of it is stopped.
  - Attached a second time after the first detach: the second trace has
    exactly its own blocks; the GOT entries are put back each time.
  - A target whose only thread spins in user code (never in a system
    call): the injection is refused after its bounded tries, the report
    (or, where the kernel's trace needs root, the error) says why; the
    target runs on unharmed.
  - vmscope SIGKILLed at a random moment of the attach, the trace or the
    detach (a third of the trials in each; --duration=0.3; a fresh target
    each). Their spans are measured on an attach not killed, watched as
    the trials are (Watch: the target's TracerPid and malloc GOT entry,
    looked at every half millisecond); half the attach trials are drawn
    from vmscope's start, half from the injection's start as the trial
    sees it; the trace trials from the trace's start; half the detach
    trials around the detach measured from the trace's start, half from
    the detach's start as the trial sees it (a detach lasts a few ms: a
    draw from vmscope's start mostly missed it). How many kills fell in
    each phase (the last look before the kill) is printed. 30 trials;
    VMSCOPE_ATTACH_TRIALS sets how many (`make attach-trials` runs 200,
    `make attach-trials N=40` 40); the seed is printed, VMSCOPE_SEED
    replays it. The target is left alive, untraced (TracerPid 0, once
    the processes the dead vmscope left, its fork keeper and injecting
    child, have finished their step and exited: reaped here, a
    subreaper), no thread stopped, and its answers to the same commands
    are those of an untraced run; attached again (a vmscope taking over
    the entries left redirected by the dead one, or a new attach), its
    trace is exact.
  - A process stopped by SIGSTOP, its main thread alive or exited (a
    zombie leader, live threads): refused before anything is done to it
    (no injection, no heap walk), left stopped with no library mapped.
  - Modules loaded and unloaded while traced, libunwind in the target,
    and its children: test_trace_attach_libs.py.
x86_64 only (the injection's); skipped elsewhere.
"""
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import forktest  # noqa: E402
import vmstest as T  # noqa: E402
from attachtest import (attach_round, cmd, functions,  # noqa: E402
                        got_slots, got_values, leaked, no_thread_stopped,
                        poll, site, untraced_now)

TRIALS = int(os.environ.get("VMSCOPE_ATTACH_TRIALS", "30"))
WORK = ["leak 300", "thread 40", "churn 200", "free 20"]
AFTER = ["leak 7", "churn 3", "free 2"]


def untraced():
    p, _ = T.start([T.target("heap_attach")])
    out = [cmd(p, c) for c in ["leak 50"] + WORK + AFTER]
    p.stdin.write(b"end\n")
    p.stdin.flush()
    rc = p.wait(timeout=60)
    T.kill(p)
    return out, rc


def trace_rss_kb(pid):
    """Rss of the target's mapping of vmscope's shared file (kB)."""
    cur, kb = False, 0
    for ln in open("/proc/%d/smaps" % pid):
        if not ln[0].isupper() or ln.startswith("VmFlags"):
            cur = "vmscope-trace" in ln and not ln.startswith("VmFlags")
        elif cur and ln.startswith("Rss:"):
            kb += int(ln.split()[1])
    return kb


def traced_run(plain):
    app = T.target("heap_attach")
    slots = got_slots(app)
    T.ok(any(n == "malloc" for _, n in slots) and
         any(n == "free" for _, n in slots),
         "the target's ELF has GOT entries for malloc and free", slots)
    p, _ = T.start([app])
    out = [cmd(p, "leak 50")]
    before = got_values(p.pid, app, slots)
    rep = tempfile.NamedTemporaryFile(suffix=".json", delete=False)
    rep.close()
    try:
        v = subprocess.Popen([T.VMSCOPE, "--trace", "-e", "json", "-o",
                              rep.name, str(p.pid)], stderr=subprocess.PIPE)
        mal = [k for k in slots if k[1] == "malloc"]
        redirected = poll(lambda: got_values(p.pid, app, mal) !=
                          {k: before[k] for k in mal} or
                          v.poll() is not None)
        T.ok(redirected and v.poll() is None,
             "the malloc GOT entry is redirected while vmscope traces")
        out += [cmd(p, c) for c in WORK]
        during = trace_rss_kb(p.pid)
        v.send_signal(signal.SIGINT)
        err = v.communicate(timeout=120)[1]
        T.ok(v.returncode == 0, "vmscope detaches on SIGINT, exit 0", err)
        after = got_values(p.pid, app, slots)
        T.eq(after, before, "every GOT entry of the family after the "
             "detach equals its value before the attach")
        T.ok(poll(lambda: untraced_now(p.pid)) and
             no_thread_stopped(p.pid),
             "after the detach: not traced, no thread stopped")
        left = trace_rss_kb(p.pid)
        T.ok(left < during, "the rings' memory is given back at the "
             "detach (the shared file's Rss in the target: %d kB while "
             "traced, %d after)" % (during, left))
        out += [cmd(p, c) for c in AFTER]
        p.stdin.write(b"end\n")
        p.stdin.flush()
        rc = p.wait(timeout=60)
        T.kill(p)
        T.eq((out, rc), plain, "the target's answers and exit status equal "
             "an untraced run's")
        try:
            d = json.load(open(rep.name))
        except ValueError:
            T.ok(False, "a JSON report", open(rep.name).read())
            return
    finally:
        os.unlink(rep.name)
    a, tr = d.get("attach", {}), d["trace"]
    T.ok(a.get("injected") is True and a.get("got_entries", 0) >= 2 and
         tr["heap_traced"] is True and tr["attached"] is True,
         "the report says the heap was traced by the injected library", a)
    T.ok(all(a.get(k, 0) > 0 for k in ("frozen_us", "held_us",
                                       "detach_frozen_us",
                                       "detach_held_us", "walk_frozen_us")),
         "the report says how long the process was stopped at the attach, "
         "at the detach and for the fork of the walk before (its malloc "
         "is glibc's)", a)
    T.eq((tr["mode"], tr["dropped"], tr["unknown_frees"]),
         ("exact", 0, 20), "exact, nothing dropped, the 20 blocks leaked "
         "before the attach freed as memory allocated before the trace")
    # the target's stdio buffers are its own: the 50 blocks it leaked are
    # all it holds of malloc's at the attach (40 bytes: a 48-byte chunk,
    # 40 usable)
    T.eq(tr["before"], {"partial": None, "heaps": [
        {"kind": "glibc-main", "id": tr["before"]["heaps"][0]["id"]
         if tr["before"] and tr["before"]["heaps"] else None,
         "at_start": {"count": 50, "bytes": 2000},
         "released": {"count": 20, "bytes": 800},
         "lasting": {"count": 30, "bytes": 1200},
         "impacting_bytes": -800}]},
         "allocated before the trace, from the attach's heap walk: the 50 "
         "blocks leaked before it, 20 of them freed in the trace with "
         "their 800 bytes, 30 alive at its end")
    T.eq(tr["window"]["impacting_bytes"],
         sum(x["impacting_bytes"] for x in tr["sites"]) - 800,
         "the window's Impacting Size: its call sites', less the 800 "
         "bytes freed of the blocks alive before")
    leak, churn = (site(tr["sites"], "leak_block"),
                   site(tr["sites"], "churn_block"))
    by_main = [x for x in leak if "main" in functions(x)]
    by_thread = [x for x in leak if "leak_thread" in functions(x)]
    T.ok(len(leak) == 2 and len(by_main) == 1 and len(by_thread) == 1 and
         by_main[0]["outstanding"] == {"count": 300, "bytes": 12000} and
         by_thread[0]["outstanding"] == {"count": 40, "bytes": 1600} and
         all(x["transient"]["count"] == 0 for x in leak),
         "leak_block: 300 outstanding 40-byte blocks called from main, 40 "
         "from leak_thread (a thread started while traced)", leak)
    T.ok(len(churn) == 1 and churn[0]["transient"] ==
         {"count": 200, "bytes": 200000} and
         churn[0]["outstanding"]["count"] == 0 and
         "main" in functions(churn[0]),
         "churn_block: 200 transient 1000-byte blocks, called from main",
         churn)


def again(plain):
    """A second attach after the first's detach: traced again, exactly."""
    app = T.target("heap_attach")
    p, _ = T.start([app])
    out = [cmd(p, "leak 50")]
    d1, o1, b1, a1, e1 = attach_round(p, app, WORK)
    d2, o2, b2, a2, e2 = attach_round(p, app, AFTER)
    p.stdin.write(b"end\n")
    p.stdin.flush()
    rc = p.wait(timeout=60)
    T.kill(p)
    T.eq((leaked(d1), leaked(d2)),
         ((True, [(40, 1600), (300, 12000)]), (True, [(7, 280)])),
         "attached twice: each trace has its own leak_block blocks, exactly")
    T.ok(a1 == b1 and a2 == b2 and b2 == b1,
         "the GOT entries after each detach equal those before",
         (e1, e2))
    T.eq((out + o1 + o2, rc), plain, "its answers are an untraced run's")


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


def all_stopped(pid):
    return all(T.proc_state(pid, t) in "tTZ" for t in T.tids(pid)) and \
        any(T.proc_state(pid, t) in "tT" for t in T.tids(pid))


def mapped_tracer(pid):
    """Whether any live thread's maps show the tracer library."""
    for t in T.tids(pid):
        try:
            with open("/proc/%d/task/%d/maps" % (pid, t)) as f:
                if "libvmstrace" in f.read():
                    return True
        except OSError:
            pass
    return False


def stopped():
    """A process stopped (SIGSTOP) is refused before anything is done to
    it, its main thread alive or exited (hostile_target "threads": the
    leader a zombie, 80 threads running): not injected, the reason said,
    no heap walk (no capture, no clone), still stopped, no library mapped;
    it runs on after SIGCONT."""
    for what, argv, main_exited in (
            ("stopped", [T.target("heap_attach")], False),
            ("stopped, its main thread exited",
             [T.target("hostile_target"), "threads"], True)):
        p, _ = T.start(argv)
        if main_exited and not poll(lambda: T.proc_state(p.pid) == "Z"):
            T.ok(False, "%s: the main thread exits" % what)
            T.kill(p)
            continue
        os.kill(p.pid, signal.SIGSTOP)
        poll(lambda: all_stopped(p.pid))
        r = subprocess.run([T.VMSCOPE, "--trace", "--duration=1", "-e",
                            "json", str(p.pid)], capture_output=True,
                           timeout=300)
        why = "it is stopped"
        if r.returncode == 0:
            d = json.loads(r.stdout)
            a = d.get("attach", {})
            T.ok(a.get("injected") is False and why in a.get("why", "") and
                 d["trace"].get("before") is None,
                 "%s: not injected, the reason said, no heap walk" % what,
                 a)
        else:  # the kernel's trace refused too (no root)
            T.ok(why.encode() in r.stderr, "%s: not injected, the reason "
                 "said" % what, r.stderr)
        T.ok(all_stopped(p.pid) and not mapped_tracer(p.pid) and
             untraced_now(p.pid), "%s: left as it was: stopped, untraced, "
             "no library mapped" % what)
        os.kill(p.pid, signal.SIGCONT)
        T.ok(poll(lambda: no_thread_stopped(p.pid)), "%s: it runs on after "
             "SIGCONT" % what)
        T.kill(p)


def busy(plain):
    """No thread in a system call (it spins in user code): refused after
    the bounded tries, the reason said, the maps traced from the kernel
    (or, without root, refused with both reasons); the target unharmed."""
    p, _ = T.start([T.target("heap_attach")])
    out = [cmd(p, "leak 50")]
    p.stdin.write(b"spin\n")
    p.stdin.flush()
    T.eq(p.stdout.readline().decode(), "spinning\n", "the target spins")
    r = subprocess.run([T.VMSCOPE, "--trace", "--duration=1", "-e", "json",
                        str(p.pid)], capture_output=True, timeout=300)
    why = "no thread of it is waiting in a system call"
    if r.returncode == 0:
        d = json.loads(r.stdout)
        a = d.get("attach", {})
        T.ok(a.get("injected") is False and why in a.get("why", "") and
             d["trace"]["heap_traced"] is False,
             "a target that never waits in a system call: not injected, "
             "the reason said, the maps traced from the kernel", a)
    else:
        T.ok(r.returncode == 2 and why.encode() in r.stderr,
             "a target that never waits in a system call: not injected, "
             "the reason said (then the kernel's trace refused)", r.stderr)
    os.kill(p.pid, signal.SIGUSR1)
    spun = p.stdout.readline().decode()
    T.ok(spun.startswith("ok spin") and poll(lambda: untraced_now(p.pid)) and
         no_thread_stopped(p.pid), "it runs on, untraced, none stopped",
         spun)
    out += [cmd(p, c) for c in WORK + AFTER]
    p.stdin.write(b"end\n")
    p.stdin.flush()
    rc = p.wait(timeout=60)
    T.kill(p)
    T.eq((out, rc), plain, "its answers are an untraced run's")


def main():
    if platform.machine() != "x86_64":
        T.skip("the injected attach", "x86_64 only")
        return T.done()
    plain = untraced()
    traced_run(plain)
    again(plain)
    busy(plain)
    stopped()
    killed(plain, T.rng())
    T.done()


if __name__ == "__main__":
    try:
        main()
    finally:
        T.cleanup()
