#!/usr/bin/env python3
"""Sorting as people expect (issue 31 item 5), in the region list (a) of
the everykind target, row by row against the JSON export: a click on a
heading sorts by its column (Size: largest first), a second click the
other way; the mark sits inside its heading (never in the blank between
two: "SizevCommitted"), a long heading shortened to make room; F6 opens a
menu of the sorts (Address, the columns shown in the setup's order,
Type; at 80 columns without Private WS and Prot, which do not fit)
with the current one marked, and Enter on one sorts by it; each
list keeps its own sort: the free list opens by size, largest first
(its gaps as the JSON's regions leave them), and the all view's sort is
there again after it. At 200x60 and 80x24.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

ROW = re.compile(r"^([+\- ])[ !]([0-9a-f]{16}) ")
# the sorts F6 offers: Address, the columns on screen, Type (at 80
# columns Private WS and Prot do not fit)
MENU = ["Address", "Size", "Committed", "Total WS", "Private WS", "Prot",
        "Details", "Type"]
MENU80 = ["Address", "Size", "Committed", "Total WS", "Details", "Type"]


status = D.status


def heading(scr):
    """(line number, text) of the details' heading."""
    for y, ln in enumerate(scr.splitlines()):
        if re.match(r"^\s+Address", ln) and "Type" in ln:
            return y, ln
    return None, ""


def addrs(scr):
    return [int(m.group(2), 16) for m in
            (ROW.match(ln) for ln in scr.splitlines()) if m]


def field_x(head, name):
    """A column inside the heading's field for name."""
    i = head.find(name)
    return i + len(name) - 1 if i >= 0 else None


def ordered(tm, snap, down, what):
    """The rows shown are the JSON's regions by size, ties by address."""
    said = r"sort Size %s" % ("v" if down else r"\^")
    tm.wait_for(lambda s: re.search(said, status(s)))
    tm.keys("Home")  # the cursor stays on its row: to the first
    scr = tm.wait_for(lambda s: re.search(r" 1/\d+\s*$", status(s)))
    T.ok(re.search(said, status(scr)), "%s: the status line says it" % what,
         status(scr))
    regs = sorted(snap["regions"], key=lambda r: int(r["start"], 16))
    regs = sorted(regs, key=lambda r: r["size"], reverse=down)
    shown = addrs(scr)
    want = [int(r["start"], 16) for r in regs][:len(shown)]
    T.ok(len(shown) >= 5 and shown == want,
         "%s: the rows are the JSON's regions by size" % what,
         "shown %s\nwant  %s" % ([hex(a) for a in shown],
                                  [hex(a) for a in want]))
    return scr


def gaps(snap):
    """The free gaps between the JSON's regions, largest first."""
    # the user address range only ([vsyscall] lies above it)
    regs = sorted((int(r["start"], 16), int(r["end"], 16))
                  for r in snap["regions"]
                  if int(r["start"], 16) < 1 << 47)
    out = []
    for (s0, e0), (s1, e1) in zip(regs, regs[1:]):
        if s1 > e0:
            out.append((e0, s1 - e0))
    return out


def one(p, snap, w, h):
    what = "%dx%d" % (w, h)
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=w, height=h)
    tm.wait_for(lambda s: "pss, not frozen" in s and
                re.search(r"\d+/\d+\s*$", status(s)), timeout=120)
    tm.keys("a", "Tab")
    scr = tm.wait_for(lambda s: "regions: all" in status(s))
    y, head = heading(scr)
    x = field_x(head, "Size")
    T.ok(y is not None and x is not None,
         "%s: the details' heading is on screen" % what, scr)
    tm.click(x, y)
    scr = ordered(tm, snap, True, "%s: a click on Size" % what)
    _, head = heading(scr)
    T.ok(re.search(r" v Size ", head) and
         not re.search(r"[A-Za-z][v^][A-Z]", head),
         "%s: the mark is inside Size's heading" % what, head)
    tm.click(x, y)
    ordered(tm, snap, False, "%s: a second click on Size" % what)

    # Committed fills its field: shortened for the mark, never glued
    _, head = heading(tm.screen())
    cx = field_x(head, "Committed")
    tm.click(cx, y)
    scr = tm.wait_for(lambda s: "sort Committed" in status(s))
    _, head = heading(scr)
    T.ok("sort Committed v" in status(scr) and
         re.search(r" v Commit ", head) and
         not re.search(r"[A-Za-z][v^][A-Z]", head),
         "%s: a click on Committed; its mark inside its heading" % what,
         head)
    # a press and its release in one write: read together, ncurses gives
    # them as one click, which sorts as the press would
    tm.click(cx, y, together=True)
    scr = tm.wait_for(lambda s: "sort Committed ^" in status(s))
    T.ok("sort Committed ^" in status(scr), "%s: a click whose press and "
         "release come together reverses the sort too" % what, status(scr))
    tm.click(cx, y, together=True)
    scr = tm.wait_for(lambda s: "sort Committed v" in status(s))
    T.ok("sort Committed v" in status(scr), "%s: and again" % what,
         status(scr))

    # the menu
    menu = MENU if w >= 96 else MENU80
    tm.keys("F6")
    scr = tm.wait_for("Sort by")
    lines = scr.splitlines()
    top = next(i for i, ln in enumerate(lines) if "Sort by" in ln)
    items = [lines[top + 1 + k][4:30].strip().split("  ")[0]
             for k in range(len(menu))]
    marks = [lines[top + 1 + k][3] for k in range(len(menu))]
    T.ok(items == menu,
         "%s: F6: a menu of the sorts, the columns on screen in the "
         "setup's order" % what, "\n".join(lines[top:top + len(menu) + 2]))
    T.ok(marks[menu.index("Committed")] == "v" and
         marks.count(" ") == len(menu) - 1,
         "%s: the menu marks the sort now" % what, marks)
    # from Committed, down to Prot (at 80 columns, to Details)
    pick = "Prot" if "Prot" in menu else "Details"
    said = "sort %s ^" % pick
    tm.keys(*["Down"] * (menu.index(pick) - menu.index("Committed")))
    tm.keys("Enter")
    scr = tm.wait_for(lambda s: "sort %s" % pick in status(s) and
                      "Sort by" not in s)
    T.ok(said in status(scr) and "Sort by" not in scr,
         "%s: Enter in the menu sorts by the item" % what, status(scr))
    tm.keys("o")
    tm.wait_for("Sort by")
    tm.keys("Escape")
    scr = tm.wait_for(lambda s: "Sort by" not in s)
    T.ok(said in status(scr),
         "%s: o opens the menu too; Esc closes it, the sort kept" % what,
         status(scr))

    # each list its own sort: Free by size, largest first
    tm.keys("Tab", "End", "Enter")
    scr = tm.wait_for(lambda s: "Free |" in status(s))
    # the gaps between regions in the JSON's order by size (the first
    # and the last, up to the ends of the address space, aside)
    want = [a for a, _ in sorted(gaps(snap), key=lambda g: (-g[1], g[0]))]
    shown = [a for a in addrs(scr) if a in want]
    T.ok("sort Size v" in status(scr) and len(shown) >= 2 and
         shown == want[:len(shown)],
         "%s: the free list opens by size, largest first" % what,
         "%s\nshown %s\nwant  %s" % (status(scr), [hex(a) for a in shown],
                                      [hex(a) for a in want]))
    tm.keys("Escape")
    scr = tm.wait_for(lambda s: "regions: all |" in status(s))
    T.ok(said in status(scr),
         "%s: the all view's sort is kept beside the free list's" % what,
         status(scr))
    tm.kill()


def kept(p, tmp, w, h):
    """The setup keeps the sort: a change of columns leaves it, and the
    settings file it writes has it, so the next start opens in it."""
    what = "%dx%d: " % (w, h)
    xdg = os.path.join(tmp, "xdg-%dx%d" % (w, h))
    env = {"XDG_CONFIG_HOME": xdg}
    conf = os.path.join(xdg, "vmscope", "config")
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=w, height=h, env=env)
    scr = tm.wait_for(lambda s: "pss, not frozen" in s and
                      re.search(r"\d+/\d+\s*$", status(s)), timeout=120)
    y, head = heading(scr)
    cx = field_x(head, "Committed")
    tm.click(cx, y)
    tm.wait_for(lambda s: "sort Committed v" in status(s))
    tm.click(cx, y)
    tm.wait_for(lambda s: "sort Committed ^" in status(s))
    tm.keys("F2")
    tm.wait_for("the columns of the details")
    tm.keys("Down", "Down", "Down", "Space")  # hide Total WS (it shows)
    tm.wait_for("columns saved")
    tm.keys("Escape")
    scr = tm.wait_for(lambda s: "Address" in s and "sort " in status(s))
    T.ok("sort Committed ^" in status(scr) and
         not re.search(r"  WS\b", heading(scr)[1]),
         what + "a column hidden in the setup: the sort stays",
         status(scr))
    text = open(conf).read() if os.path.exists(conf) else ""
    T.ok(re.search(r"^sort all committed reversed$", text, re.M) and
         re.search(r"^column ws off$", text, re.M),
         what + "the settings file keeps the columns and the sort", text)
    tm.keys("q")
    tm.kill()
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=w, height=h, env=env)
    scr = tm.wait_for(lambda s: "pss, not frozen" in s and
                      re.search(r"\d+/\d+\s*$", status(s)), timeout=120)
    T.ok("sort Committed ^" in status(scr),
         what + "the next start opens in the sort the file keeps",
         status(scr))
    tm.kill()


def run(tmp):
    p, _ = T.start([T.target("everykind"), os.path.join(tmp, "d")])
    snap = T.vmscope_json(p.pid)
    one(p, snap, 200, 60)
    one(p, snap, 80, 24)
    for w, h in ((80, 24), (200, 60)):
        kept(p, tmp, w, h)
    T.kill(p)


def main():
    D.run_in_tmp("sorting by click, menu and list in tmux", run)


main()
