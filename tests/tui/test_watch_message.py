#!/usr/bin/env python3
"""Under --watch, what the status line says stays until the next key
(the man page: the timeline's w "says how many were saved"), at 80x24 on
the everykind target with --watch 0.3: the timeline's w saves every
snapshot into a directory and says so; the ticks after it (the timeline
grows by two rows) leave that message up; the next key takes it away, and
the key hints come back. The tick used to wipe it within a second.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

status = D.status
COUNT = re.compile(r"(\d+) snapshots")


def count(scr):
    m = COUNT.search(scr.splitlines()[0]) if scr else None
    return int(m.group(1)) if m else 0


def run(tmp):
    p, _ = T.start([T.target("everykind"), os.path.join(tmp, "d")])
    tm = D.Tmux([T.VMSCOPE, "--watch", "0.3", str(p.pid)], width=80,
                height=24, env={"NO_COLOR": "1"})
    tm.wait_for(D.ready, timeout=120)
    scr = tm.expect("T: the timeline", lambda s: count(s) >= 1, "T")
    tm.keys("w")
    tm.wait_for(lambda s: "Save every snapshot to" in status(s))
    d = os.path.join(tmp, "saved")
    tm.keys("C-u").text(d).keys("Enter")
    scr = tm.wait_for(lambda s: "saved " in s and d in s)
    T.ok(re.search(r"saved \d+ snapshots? \(.*\) to", D.bottom(scr, 3)),
         "w, Enter: the status line says how many were saved",
         D.bottom(scr, 3))
    n = count(scr)
    scr = tm.wait_for(lambda s: count(s) >= n + 2, timeout=60)
    T.ok(count(scr) >= n + 2, "two --watch ticks after it (%d snapshots, "
         "then %d)" % (n, count(scr)), scr.splitlines()[0])
    T.ok(re.search(r"saved \d+ snapshots? \(.*\) to", D.bottom(scr, 3)),
         "after them the message is still up", D.bottom(scr, 3))
    tm.keys("Down")
    scr = tm.wait_for(lambda s: "saved " not in D.bottom(s, 3))
    T.ok("saved " not in D.bottom(scr, 3) and "w save all" in status(scr),
         "the next key takes it away: the key hints again", status(scr))
    tm.kill()
    T.kill(p)


def main():
    D.run_in_tmp("a message under --watch stays until a key", run)


main()
