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
    exactly its own blocks; the GOT entries are put back each time. A
    third time, the trace ended by SIGHUP (a terminal hung up): as by
    Ctrl-C (the report, every entry put back). After each attach the
    target maps one shared file (a new one, in the place of the last: not
    256 MiB of address space more an attach).
  - A target whose only thread spins in user code (never in a system
    call): the injection is refused after its bounded tries, the report
    (or, where the kernel's trace needs root, the error) says why; the
    target runs on unharmed.
  - A process stopped by SIGSTOP, its main thread alive or exited (a
    zombie leader, live threads): refused before anything is done to it
    (no injection, no heap walk), left stopped with no library mapped.
  - vmscope SIGKILLed at a random moment of the attach, the trace or
    the detach: test_trace_attach_kill.py.
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
import vmstest as T  # noqa: E402
from attachtest import (AFTER, WORK, attach_round, cmd,  # noqa: E402
                        functions, got_slots, got_values, leaked,
                        no_thread_stopped, poll, site, trace_file_ids,
                        trace_files, trace_rss_kb, untraced, untraced_now)


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
    first = trace_file_ids(p.pid)
    d2, o2, b2, a2, e2 = attach_round(p, app, AFTER)
    second = trace_file_ids(p.pid)
    d3, o3, b3, a3, e3 = attach_round(p, app, ["leak 2"], signal.SIGHUP)
    files, vm = trace_files(p.pid), T.status_kb(p.pid, "VmSize")
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
    T.ok(leaked(d3) == (True, [(2, 80)]) and a3 == b1,
         "a hangup (SIGHUP: the terminal gone) ends the trace as Ctrl-C "
         "does: the report (leak_block's 2 blocks), every GOT entry put "
         "back", (e3, leaked(d3)))
    T.ok(len(first) == 1 and len(second) == 1 and first != second and
         files == 1,
         "attached three times: one shared file mapped after each (each "
         "attach's in the place of the last one's, not 256 MiB more an "
         "attach)", (first, second, files, vm))
    T.eq((out + o1 + o2, rc), plain, "its answers are an untraced run's")


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
    T.done()


if __name__ == "__main__":
    try:
        main()
    finally:
        T.cleanup()
