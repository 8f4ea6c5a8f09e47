#!/usr/bin/env python3
"""The map's Enter on a free cell (the man page: Enter "shows the region
under the cursor in the details"), at 120x40 on the heap_arenas target:
on a folded stretch of free lines (a gap between two regions), Enter
shows that gap in the viewer's Free list (the all view lists no gaps
until f), the cursor on it, and the status line says so (Esc goes back to the all view, sorted as it
was); a free cell left of the first region's is in the gap below it, shown
so too. The cell the map opens on (where the first region
starts, inside it) shows that region's letter, and the bottom line names
the region, not "Free". Enter on a free cell used to do nothing and say
nothing.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

status = D.status
INFO = re.compile(r"^ ([0-9a-f]{16})  (\S.*)$")
FOLD = re.compile(r"^([0-9a-f]{16}) ~+ .* free ~+")


def info(scr):
    """(address, what) of the map's bottom line."""
    lines = scr.splitlines()
    m = INFO.match(lines[-2]) if len(lines) > 1 else None
    return (int(m.group(1), 16), m.group(2)) if m else (None, "")


def viewer(scr):
    return re.search(r"\d+/\d+\s*$", status(scr)) and "Address" in scr


CELL = re.compile(r"cell (\d+) K")


def started():
    """The target and the viewer on its map: (p, tm, first, scr), its
    first region starting inside a cell, so that the map has a free cell
    left of it. ASLR puts the executable on any page: on a cell's start
    one time in eight at 32 K cells (the map's first line then begins with
    it, nothing free left of it): the target started again then, at most
    eight times (a test that waited on Left for a cell that is not there
    spun 120 keys of 5 s each)."""
    for _ in range(8):
        p, _ = T.start([T.target("heap_arenas"), "normal", "4"])
        tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=120, height=40,
                    env={"NO_COLOR": "1"})
        tm.wait_for(D.ready, timeout=120)
        first = T.maps(p.pid)[0]
        scr = tm.expect("m: the map", lambda s: info(s)[0] is not None,
                        "m")
        cell = CELL.search(scr)
        if cell and first["start"] % (int(cell.group(1)) << 10):
            return p, tm, first, scr
        tm.kill()
        T.kill(p)
    return p, tm, first, scr


def run(tmp):
    p, tm, first, scr = started()
    T.ok(info(scr)[1].startswith("Image %016x-" % first["start"]),
         "the cell it opens on names the first region, not Free",
         info(scr))
    folds = [int(m.group(1), 16) for m in
             (FOLD.match(ln) for ln in scr.splitlines()) if m]
    T.ok(folds, "the map folds a free stretch", scr)
    for _ in range(60):
        if not folds or info(scr)[0] == folds[0]:
            break
        before = info(scr)
        tm.keys("Down")
        scr = tm.wait_for(lambda s, b=before: info(s) != b, timeout=5)
    T.ok(folds and info(scr) == (folds[0], "Free"),
         "Down to the folded free stretch", info(scr))
    tm.keys("Enter")
    scr = tm.wait_for(lambda s: "a free gap" in D.bottom(s, 3))
    T.ok("a free gap: shown in the Free list" in D.bottom(scr, 3),
         "Enter on it: the status line says the gap is in the Free list",
         D.bottom(scr, 3))
    rows = [ln for ln in scr.splitlines()
            if re.match(r"^. [0-9a-f]{16} +Free ", ln)]
    T.ok(len(rows) >= 2, "the Free list shows the gaps", scr)
    tm.keys("Escape")  # the message goes with the key; Esc: the filter
    scr = tm.wait_for(lambda s: viewer(s) and "all |" in status(s))
    T.ok("all | sort Address ^" in status(scr),
         "Esc: the all view again, its sort as it was", status(scr))

    # a free cell left of the first region's: the gap below it (the map
    # keeps its cursor: on the folded line, below the first)
    scr = tm.expect("m: the map again", lambda s: info(s)[0] is not None
                    and not viewer(s), "m")
    tm.keys("Up")
    for _ in range(120):
        a = info(scr)[0]
        if a is not None and a < first["start"] and info(scr)[1] == "Free":
            break
        tm.keys("Left")
        was = info(scr)
        scr = tm.wait_for(lambda s, b=was: info(s) != b, timeout=5)
        if info(scr) == was:
            break  # the map's first cell: Left moves no further
    a = info(scr)[0]
    T.ok(info(scr)[1] == "Free" and a < first["start"],
         "Left: a free cell below the first region",
         "%x %x\n%s" % (a, first["start"], scr))
    tm.keys("Enter")
    scr = tm.wait_for(lambda s: "free gap" in D.bottom(s, 3))
    T.ok("a free gap: shown in the Free list" in D.bottom(scr, 3),
         "Enter there: the gap below the first region, in the Free list",
         D.bottom(scr, 3))
    tm.keys("Down", "Up")
    scr = tm.wait_for(lambda s: viewer(s) and "Free |" in status(s))
    T.ok("Free | sort Size v" in status(scr),
         "the Free list keeps its own sort, by size", status(scr))
    tm.kill()
    T.kill(p)


def main():
    D.run_in_tmp("the map's Enter on a free cell", run)


main()
