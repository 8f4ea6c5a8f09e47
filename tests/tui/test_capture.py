#!/usr/bin/env python3
"""A long capture (65,000 regions): the first frame is the layout from
/proc/PID/maps with the progress of the counters in the status line; Esc
cancels the capture and keeps the layout; r then reads the counters. A
cancel on the first capture with no frame yet (the picker's box) is not
tested: it lasts too short a time to hit reliably.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402


def main():
    D.require_tmux("capture progress in tmux")
    p, _ = T.start([T.target("manyregions"), "65000"])
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], shell_tail='echo "EXIT=$rc"')
    scr = tm.wait_for(lambda s: "Reading the counters" in s or
                      "Sampler pss" in s, timeout=60)
    if "Reading the counters" not in scr:
        T.skip("progress and cancel", "the capture ended before a frame "
               "could be seen")
    else:
        T.ok(re.search(r"Reading the counters of pid %d: \d+ of ~\d+ "
                       r"regions\s+Esc cancels" % p.pid, scr) is not None,
             "progress of the counters in the status line", scr)
        T.ok("Sampler maps" in scr and "layout from /proc/PID/maps" in scr
             and D.row_of(scr, " Private Data ") is not None,
             "the first frame is the layout from maps, marked partial", scr)
        tm.keys("Escape")
        scr = tm.wait_for(lambda s: "cancelled" in s or "Sampler pss" in s,
                          timeout=60)
        if "cancelled" in scr:
            T.ok("Sampler maps" in scr and "EXIT=" not in scr,
                 "Esc cancels the capture and keeps the layout", scr)
        else:
            T.skip("Esc cancels the capture", "it ended before Esc "
                   "arrived")
    # the new snapshot in: the screen before it already said pss when
    # the first capture ended before a frame (a q during the refresh
    # cancels the refresh, and the next q quits)
    tm.expect("r reads the counters", lambda s: "Sampler pss" in s and
              re.search(r"Regions 650\d\d", s) and
              "in the timeline" in D.status(s), "r")
    tm.expect("q quits", "EXIT=0", "q")
    tm.kill()
    T.kill(p)
    T.done()


main()
