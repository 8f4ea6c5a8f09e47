#!/usr/bin/env python3
"""The sorts offered are the columns on screen (the man page: s and F6
offer "Address, each column shown, Type"), at 60x19 on the everykind
target, where the details show Size, WS and Details: s steps through
Address, Size, Total WS, Details, Type and around, and each sort by a
column marks its heading; F6's menu lists those five. A sort by a column
the terminal then hides (Committed, chosen at 80 columns, after a resize
to 60) stays, the status line saying "(hidden)", and s goes on from it to
the next column on screen in the setup's order (Total WS); back at 80 it
is marked in its heading again. The viewer used to offer (and sort by)
Committed, Private WS and Prot at 60 columns with no heading marked.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

status = D.status
SORT = re.compile(r"sort (.+?) ([v^])( \(hidden\))? \| \d+/\d+$")
SHOWN = ["Address", "Size", "Total WS", "Details", "Type"]


def sort_of(scr):
    m = SORT.search(status(scr))
    return m.group(1) if m else None


def heading(scr):
    for ln in scr.splitlines():
        if re.match(r"^\s+Address", ln) and "Type" in ln:
            return ln
    return ""


def marked(head, name):
    """Whether the heading carries the sort's mark in name's field."""
    field = {"Total WS": "WS", "Committed": "Commit"}.get(name, name)
    return re.search(r"(?<!\S)[v^] %s\b|\b%s [v^](?!\S)"
                     % (re.escape(field), re.escape(field)), head)


def drawn(w):
    return lambda s: SORT.search(status(s)) and len(status(s)) == w - 1


def run(tmp):
    p, _ = T.start([T.target("everykind"), os.path.join(tmp, "d")])
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=60, height=19,
                env={"NO_COLOR": "1"})
    scr = tm.wait_for(lambda s: D.ready(s) and drawn(60)(s), timeout=120)
    tm.keys("Tab")
    seen = [sort_of(scr)]
    for _ in range(8):
        before = status(scr)
        tm.keys("s")
        scr = tm.wait_for(lambda s, b=before: status(s) != b and drawn(60)(s))
        name = sort_of(scr)
        if name != "Address":
            T.ok(marked(heading(scr), name),
                 "60x19: s, by %s: its heading marked" % name,
                 heading(scr))
        seen.append(name)
        if name == "Address":
            break
    T.eq(seen, SHOWN + ["Address"],
         "60x19: s steps through Address, the columns on screen, Type")
    tm.keys("F6")
    scr = tm.wait_for("Sort by")
    lines = scr.splitlines()
    top = next(i for i, ln in enumerate(lines) if "Sort by" in ln)
    items = [lines[top + 1 + k][4:30].strip().split("  ")[0]
             for k in range(len(SHOWN))]
    T.eq(items, SHOWN, "60x19: F6 lists Address, the columns on screen, "
         "Type")
    T.ok("Enter sorts" in lines[top + 1 + len(SHOWN)],
         "60x19: and nothing more", "\n".join(lines[top:top + 8]))
    tm.keys("Escape")
    tm.wait_for(lambda s: "Sort by" not in s)

    # Committed on screen at 80 columns, hidden at 60
    tm.resize(80, 24)
    tm.wait_for(drawn(80))
    D.sort_to(tm, "Committed")
    scr = tm.wait_for(lambda s: drawn(80)(s) and sort_of(s) == "Committed")
    T.ok("(hidden)" not in status(scr) and
         marked(heading(scr), "Committed"),
         "80x24: by Committed, its heading marked", heading(scr))
    tm.resize(60, 19)
    scr = tm.wait_for(drawn(60))
    T.ok("sort Committed v (hidden)" in status(scr),
         "60x19: the sort by Committed stays, said to be hidden",
         status(scr))
    tm.resize(80, 24)
    scr = tm.wait_for(drawn(80))
    T.ok("sort Committed v |" in status(scr) and
         marked(heading(scr), "Committed"),
         "80x24 again: by Committed, marked in its heading", status(scr))
    tm.resize(60, 19)
    scr = tm.wait_for(drawn(60))
    tm.keys("s")
    scr = tm.wait_for(lambda s: drawn(60)(s) and sort_of(s) != "Committed")
    T.eq(sort_of(scr), "Total WS",
         "60x19: s from the hidden Committed: the next column on screen")
    tm.kill()
    T.kill(p)


def main():
    D.run_in_tmp("the sorts offered are the columns on screen", run)


main()
