#!/usr/bin/env python3
"""C, B and L in the viewer of a snapshot without a trace (a sleep, no
--trace): each says there is no trace and what makes one, and the viewer
stays on screen. C opened the call sites screen all the same, empty and
titled "saved trace" (there was none), behind its message: a screen whose
enter has nothing to show is not entered.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

SAID = "no trace: vmscope --trace -- CMD traces a command's allocations"


def run(tmp):
    s, _ = T.start_asleep(["sleep", "600"])
    tm = D.Tmux([T.VMSCOPE, str(s.pid)], width=160)
    tm.wait_for(D.ready)
    title = tm.screen().splitlines()[0]
    for key in ("C", "B", "L"):
        tm.keys(key)
        scr = tm.wait_for(lambda s: SAID in s)
        T.ok(SAID in D.bottom(scr) and scr.splitlines()[0] == title and
             "call sites" not in scr.splitlines()[0],
             "%s without a trace: said, the viewer stays" % key,
             scr.splitlines()[0])
        tm.keys("Tab")  # a key: the message goes, the viewer answers
        tm.wait_for(lambda s: SAID not in s)
    tm.kill()
    T.kill(s)


def main():
    D.run_in_tmp("C, B and L without a trace", run)


main()
