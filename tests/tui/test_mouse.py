#!/usr/bin/env python3
"""Mouse: a click on a summary row selects and filters that type; a click on
a details row puts the cursor there; the wheel moves it; a click in the map
moves its cursor; a click in the picker selects a process. Clicks are
written into the pane as an xterm sends them.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402



def row_of(scr, label):
    """The screen line of the summary row labelled label (the header is
    four lines, five with the capture's notes: found, not assumed)."""
    for y, ln in enumerate(scr.splitlines()):
        if ln[1:1 + len(label)] == label and ln[1 + len(label)] in " !":
            return y
    return None


def details_y(scr):
    """The first row of the details: the line after their heading."""
    for y, ln in enumerate(scr.splitlines()):
        if ln.lstrip().startswith("Address"):
            return y + 1
    return None


def counter(scr):
    m = re.search(r"\| (\d+)/(\d+)\s*$", scr.splitlines()[-1])
    return (int(m.group(1)), int(m.group(2))) if m else None


def main():
    D.require_tmux("mouse in tmux")
    p, _ = T.start([T.target("manyregions"), "300"])
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], term="tmux-256color")
    scr = tm.wait_for(lambda s: "Sampler pss" in s and "| 1/" in s)
    T.ok("Sampler pss" in scr, "viewer up", scr)

    tm.click(3, row_of(scr, "Private Data"))
    scr = tm.wait_for("Private Data |")
    T.ok("Private Data |" in scr, "click on a summary row filters to it",
         scr.splitlines()[-1])
    tm.click(3, row_of(scr, "Total"))
    scr = tm.wait_for("all |")
    T.ok("all |" in scr, "click on Total shows everything",
         scr.splitlines()[-1])
    DET_Y = details_y(scr)

    tm.click(20, DET_Y + 4)
    scr = tm.wait_for(lambda s: counter(s) and counter(s)[0] == 5)
    T.ok(counter(scr) and counter(scr)[0] == 5,
         "click on the fifth details row puts the cursor there",
         scr.splitlines()[-1])
    tm.click(20, DET_Y + 4, button=65)  # wheel down
    scr = tm.wait_for(lambda s: counter(s) and counter(s)[0] == 8)
    T.ok(counter(scr) and counter(scr)[0] == 8,
         "the wheel moves the cursor three rows down",
         scr.splitlines()[-1])
    tm.click(20, DET_Y + 4, button=64)  # wheel up
    scr = tm.wait_for(lambda s: counter(s) and counter(s)[0] == 5)
    T.ok(counter(scr) and counter(scr)[0] == 5, "and up",
         scr.splitlines()[-1])

    tm.keys("m")
    scr = tm.wait_for(lambda s: "Address space of" in s and
                      "zoom" in s.splitlines()[-1])
    info = scr.splitlines()[-2]
    tm.click(17 + 40, 2)
    scr = tm.wait_for(lambda s: s.splitlines()[-2] != info)
    if scr.splitlines()[-2] == info:
        # the cell clicked may be the one the cursor was on (where the
        # program's first page falls in a line is ASLR's): the next cell
        # is another
        tm.click(17 + 41, 2)
        scr = tm.wait_for(lambda s: s.splitlines()[-2] != info)
    T.ok(scr.splitlines()[-2] != info, "click in the map moves its cursor",
         "%s -> %s" % (info, scr.splitlines()[-2]))
    tm.keys("q")
    tm.kill()

    tm = D.Tmux([T.VMSCOPE], term="tmux-256color")
    scr = tm.wait_for("pick a process")
    tm.text(str(p.pid))
    scr = tm.wait_for(lambda s: "Filter: %d_" % p.pid in s)
    # its row, not the first: another's pid may hold its digits too
    rows = scr.splitlines()
    y = next((i for i, l in enumerate(rows) if i >= 3 and
              re.match(r"^\s*%d\s" % p.pid, l)), None)
    T.ok(y is not None, "picker filtered to the target", scr)
    tm.click(10, y if y is not None else 3)
    tm.keys("Enter")
    scr = tm.wait_for(lambda s: "Sampler pss" in s)
    T.ok(("pid %d" % p.pid) in scr.splitlines()[0],
         "click then Enter opens the clicked process", scr.splitlines()[0])
    tm.keys("q")
    tm.kill()
    T.kill(p)
    T.done()


main()
