#!/usr/bin/env python3
"""Back in the viewer from another screen, its list as it was (the man
page: each list keeps its own sort), on the heap_arenas target captured
with -F (its heaps walked, its memory read) at 120x40: the details sorted
by Committed, largest first; x then Esc, m then Enter on a cell and H then
Enter on an arena's segment each come back to the all view still sorted
by Committed (the cursor on the region shown: x and back, on the row it
was on); with Stack chosen in the summary and sorted by Committed, x then
Esc comes back to the Stack list, sorted so. Enter on a segment of a heap
from the Stack list (not a stack: not in that list) shows it in the all
view, in the all view's own sort. The viewer used to set every
list back to the all view by address.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

status = D.status
COUNT = re.compile(r"\| (\d+)/(\d+)\s*$")


def ready(scr):
    return "pss, frozen" in scr and COUNT.search(status(scr))


def viewer(scr):
    return COUNT.search(status(scr)) and "Address" in scr


def row(scr):
    """The cursor's row number in the status line (N of N/M)."""
    m = COUNT.search(status(scr))
    return int(m.group(1)) if m else None


def back(tm, what, want, keys, screen, leave, at=None):
    """keys open another screen (screen: a text it shows), leave (a key
    list) comes back; the status line then says want."""
    tm.keys(*keys)
    scr = tm.wait_for(lambda s: screen(s) and not viewer(s))
    T.ok(screen(scr), "%s: the screen opens" % what, scr)
    tm.keys(*leave)
    scr = tm.wait_for(viewer)
    T.ok(("%s | " % want) in status(scr),
         "%s: back in the viewer, %s" % (what, want), status(scr))
    if at is not None:
        T.eq(row(scr), at, "%s: the cursor on the row it was on" % what)
    return scr


def main_segment(tm):
    """H, the main arena opened: its segment is the row below the
    cursor."""
    tm.keys("H")
    tm.wait_for("glibc malloc")
    tm.keys("Home", "Down")
    tm.wait_for(lambda s: "(glibc-main)" in s or "main arena" in s)
    tm.keys("Right")
    scr = tm.wait_for(lambda s: re.search(r"^\s+0x[0-9a-f]+-0x", s, re.M))
    T.ok(re.search(r"^\s+0x[0-9a-f]+-0x", scr, re.M),
         "H: the main arena opens into its segment", scr)


def run(tmp):
    p, _ = T.start([T.target("heap_arenas"), "normal", "4"])
    tm = D.Tmux([T.VMSCOPE, "-F", str(p.pid)], width=120, height=40,
                env={"NO_COLOR": "1"})
    scr = tm.wait_for(ready, timeout=120)
    T.ok(ready(scr), "the viewer is up", scr)
    tm.keys("Tab")
    scr = D.sort_to(tm, "Committed")
    T.ok("all | sort Committed v" in status(scr),
         "the all view sorted by Committed, largest first", status(scr))
    tm.keys("Home", "Down", "Down")
    at = row(tm.wait_for(lambda s: row(s) == 3))
    want = "all | sort Committed v"
    back(tm, "x, Esc", want, ["x"], lambda s: "Esc back" in status(s),
         ["Escape"], at)
    back(tm, "x, x", want, ["x"], lambda s: "Esc back" in status(s),
         ["x"], at)
    back(tm, "m, Enter", want, ["m"],
         lambda s: "Enter" in status(s) and "zoom" in s, ["Enter"])
    main_segment(tm)
    back(tm, "H, Enter on a segment", want, ["Down"],
         lambda s: "glibc malloc" in s, ["Enter"])

    # a type's list: Stack, sorted by Committed
    tm.keys("Tab", "Home", "Down", "Down", "Down", "Down", "Down", "Enter")
    scr = tm.wait_for(lambda s: "Stack | " in status(s))
    T.ok("Stack | " in status(scr), "Enter on Stack: the Stack list",
         status(scr))
    tm.keys("Tab")
    scr = D.sort_to(tm, "Committed")
    T.ok("Stack | sort Committed v" in status(scr),
         "the Stack list sorted by Committed", status(scr))
    tm.keys("Home", "Down")
    at = row(tm.wait_for(lambda s: row(s) == 2))
    back(tm, "Stack: x, Esc", "Stack | sort Committed v", ["x"],
         lambda s: "Esc back" in status(s), ["Escape"], at)
    # H, Enter on the main arena's segment (a heap, not a stack): the all
    # view, in its own sort
    heap = next(m["start"] for m in T.maps(p.pid) if m["path"] == "[heap]")
    main_segment(tm)
    tm.keys("Down", "Enter")
    scr = tm.wait_for(viewer)
    T.ok("all | sort Committed v | " in status(scr),
         "H, Enter on the heap's segment from the Stack list: the all "
         "view, in its own sort", status(scr))
    T.ok(re.search(r"^. %016x +Heap " % heap, scr, re.M),
         "the heap is on screen", scr)
    tm.kill()
    T.kill(p)


def main():
    D.run_in_tmp("back in the viewer, its sort and filter kept", run)


main()
