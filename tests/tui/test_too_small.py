#!/usr/bin/env python3
"""A terminal too small for the viewer (40x10: "Terminal too small") acts
on no key but quit: nothing it does could be seen. ? and F1 opened the
help behind the message, unseen, and Esc could not close it there; grown
back, the terminal showed the help. On a sleep: at 40x10 ? (then F1), each
followed by Ctrl-L (a redraw, logged in VMSCOPE_TIMING: the keys before it
were read), then back at 120x40 the viewer is shown as it was, not the
help; at 40x10 q quits (exit status 0).
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402


def redraws(path):
    try:
        with open(path) as f:
            return sum(1 for ln in f if ln.startswith("redraw "))
    except FileNotFoundError:
        return 0


def run(tmp):
    s, _ = T.start_asleep(["sleep", "600"])
    timing = os.path.join(tmp, "timing")
    tm = D.Tmux([T.VMSCOPE, str(s.pid)], env={"VMSCOPE_TIMING": timing},
                shell_tail='echo "EXIT=$rc"')
    tm.wait_for(D.ready)
    for key in ("?", "F1"):
        tm.resize(40, 10)
        tm.wait_for("Terminal too small")
        n = redraws(timing)
        tm.keys(key, "C-l")
        deadline = time.time() + 30
        while redraws(timing) == n and time.time() < deadline:
            time.sleep(0.01)  # a poll, bounded
        T.ok(redraws(timing) > n, "40x10: %s and Ctrl-L read" % key)
        tm.resize(120, 40)
        scr = tm.wait_for(D.ready)
        T.ok(D.ready(scr) and "vmscope help" not in scr,
             "%s while too small: grown back, the viewer as it was, not "
             "the help" % key, scr.splitlines()[:1])
    tm.resize(40, 10)
    tm.wait_for("Terminal too small")
    tm.keys("q")
    scr = tm.wait_for("EXIT=")
    T.ok("EXIT=0" in scr, "40x10: q quits", scr)
    tm.kill()
    T.kill(s)


def main():
    D.run_in_tmp("a terminal too small", run)


main()
