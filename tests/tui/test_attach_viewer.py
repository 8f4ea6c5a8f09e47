#!/usr/bin/env python3
"""The viewer on a process already running, traced (vmscope --trace PID,
without -s or -e), at 120x40: tests/targets/heap_attach.c, started, has
leaked 50 blocks before the attach.

  - the viewer opens on the process, its header naming it;
  - the process leaks 300 40-byte blocks in leak_block and makes and frees
    200 1000-byte blocks in churn_block while the viewer is on it: C lists
    leak_block's site with its 300 outstanding blocks (11 K) and
    churn_block's 200 transient ones, both under main;
  - q ends vmscope with status 0; the process runs on: not traced, no
    thread stopped, its GOT entries of the malloc and mmap families
    exactly what they were before the attach, and its answers to the same
    commands those of an untraced run;
  - with the injection refused (a process that spins in user code and
    never enters a system call), the viewer is refused with the reason
    and exit 3, and the process runs on.
x86_64 only (the injection's); skipped elsewhere.
"""
import os
import platform
import re
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402
import attachtest as H  # noqa: E402

TAIL = 'echo "EXIT=$rc"; echo STTY-END'
ANSWERS = ["leak 300", "churn 200", "leak 7"]


def site_row(scr, fn):
    return next((ln for ln in scr.splitlines()
                 if re.match(r"^ [+-] heap ", ln) and fn in ln), None)


def viewer_case():
    p, _ = T.start([T.target("heap_attach")])
    H.cmd(p, "leak 50")
    exe = os.path.realpath("/proc/%d/exe" % p.pid)
    slots = H.got_slots(exe)
    before = H.got_values(p.pid, exe, slots)
    tm = D.Tmux([T.VMSCOPE, "--trace", str(p.pid)], shell_tail=TAIL)
    scr = tm.wait_for(lambda s: "heap_attach" in s and "Address" in s and
                      "Details" in s, timeout=120)
    T.ok("pid %d" % p.pid in scr.splitlines()[0],
         "--trace PID: the viewer opens on the process", scr)
    T.ok(H.poll(lambda: H.got_values(p.pid, exe, slots) != before),
         "--trace PID: its GOT entries are redirected while it is viewed")
    answers = [H.cmd(p, c) for c in ANSWERS[:2]]
    tm.keys("C")
    scr = tm.wait_for(lambda s: "call sites" in s and
                      site_row(s, "leak_block") and
                      site_row(s, "churn_block"), timeout=60)
    leak, churn = site_row(scr, "leak_block"), site_row(scr, "churn_block")
    T.ok(re.search(r"\b11(\.7)? K\s+11(\.7)? K\s+300\s", leak or ""),
         "C: leak_block's 300 outstanding blocks, 12,000 bytes (11 K)",
         scr)
    T.ok(re.search(r"\s0 K\s+0\s+195(\.\d)? K\s+200\s", churn or ""),
         "C: churn_block's 200 transient blocks of 1000 bytes, none "
         "outstanding", scr)
    tm.keys("q")
    scr = tm.wait_for("STTY-END", timeout=60)
    T.ok("EXIT=0" in scr, "q: vmscope ends with status 0", scr)
    T.ok(H.poll(lambda: H.untraced_now(p.pid) and
                H.no_thread_stopped(p.pid)),
         "after q: the process is not traced and no thread is stopped")
    T.eq(H.got_values(p.pid, exe, slots), before,
         "after q: its GOT entries are those before the attach")
    answers.append(H.cmd(p, ANSWERS[2]))
    plain = T.start([T.target("heap_attach")])[0]
    want = [H.cmd(plain, c) for c in ["leak 50"] + ANSWERS][1:]
    T.eq(answers, want, "its answers are an untraced run's")
    T.ok(p.poll() is None, "it runs on")
    tm.kill()
    T.kill(plain)
    T.kill(p)


def refused_case():
    p, _ = T.start([T.target("heap_attach")])
    p.stdin.write(b"spin\n")
    p.stdin.flush()
    T.eq(p.stdout.readline().decode(), "spinning\n", "the target spins")
    tm = D.Tmux([T.VMSCOPE, "--trace", str(p.pid)], shell_tail=TAIL)
    scr = tm.wait_for("STTY-END", timeout=180)
    T.ok("EXIT=3" in scr and "needs the tracer injected" in scr and
         "-s" in scr, "injection refused: the viewer is refused with the "
         "reason, exit 3", scr)
    T.ok(p.poll() is None and H.untraced_now(p.pid) and
         H.no_thread_stopped(p.pid),
         "injection refused: the process runs on, untraced")
    os.kill(p.pid, signal.SIGUSR1)
    T.ok(p.stdout.readline().decode().startswith("ok spin"),
         "injection refused: it answers again")
    tm.kill()
    T.kill(p)


def main():
    D.require_tmux("the viewer on an attached process")
    if platform.machine() != "x86_64":
        T.skip("the viewer on an attached process", "the injection is "
               "x86_64 only")
        T.done()
        return
    viewer_case()
    refused_case()
    T.done()


main()
