#!/usr/bin/env python3
"""The viewer's popup menus clear the box they draw (issue: the text
underneath showed beside and inside them), on the everykind target: at
160x50 and 60x19, F6's sort menu, y's copy menu and e's export menu
each have a blank column either side of their text (or blank to the
screen's edge where fewer than 3 columns would be left), on every line
they cover; e's menu shows each format's help whole, wrapped beside its
name (the formats and helps of --help), where at 60 columns it was cut.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

status = D.status


def helps():
    """{format: help} from --help's list of -e formats."""
    out = T.run_vmscope("--help").stdout
    out = out.decode() if isinstance(out, bytes) else out
    return dict(re.findall(r"^ {31}(text|csv|json|openmetrics) +(.+)$", out,
                           re.M))


def box(scr, title, foot):
    """The lines of the menu titled title, through its footer line."""
    lines = scr.splitlines()
    top = next((i for i, ln in enumerate(lines) if title in ln), None)
    if top is None:
        return []
    end = next((i for i in range(top, len(lines)) if foot in lines[i]),
               top)
    return lines[top:end + 1]


def cleared(lines, x, w, cols, what):
    """Columns x - 1 and x + w blank on each line (from 0, or to the
    edge, where they reach within 3 columns of it)."""
    lo = 0 if x - 1 < 3 else x - 1
    hi = cols if x + w + 1 > cols - 3 else x + w + 1
    bad = [ln for ln in lines
           if ln.ljust(cols)[lo:x].strip() or ln.ljust(cols)[x + w:hi].strip()]
    T.ok(lines and not bad, what + ": a blank column either side of the "
         "menu on each of its lines", "\n".join(bad or lines))


def one(p, w, h, want):
    what = "%dx%d" % (w, h)
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=w, height=h,
                env={"NO_COLOR": "1"})
    tm.wait_for(D.ready, timeout=120)
    tm.keys("Tab")
    scr = tm.expect(what + ": F6 opens the sort menu", "Sort by", "F6")
    cleared(box(scr, "Sort by", "Enter sorts, Esc closes"), 2, 24, w,
            what + ": F6")
    tm.keys("Escape")
    tm.wait_for(lambda s: "Sort by" not in s)
    scr = tm.expect(what + ": y opens the copy menu",
                    "Copy to the clipboard", "y")
    cleared(box(scr, "Copy to the clipboard", "Esc closes"), 2, 40, w,
            what + ": y")
    tm.keys("Escape")
    tm.wait_for(lambda s: "Copy to the clipboard" not in s)
    scr = tm.expect(what + ": e opens the export menu",
                    "Export the snapshot as", "e")
    lines = box(scr, "Export the snapshot as", "Enter chooses, Esc cancels")
    mw = min(w - 4, 72)
    cleared(lines, 2, mw, w, what + ": e")
    text = " ".join(" ".join(ln[2:2 + mw].split()) for ln in lines)
    for name, hl in sorted(want.items()):
        T.ok(re.search(r"\b%s %s" % (name, re.escape(hl)), text),
             "%s: e: %s and its help, whole" % (what, name),
             "\n".join(lines))
    tm.keys("Escape")
    tm.kill()


def run(tmp):
    want = helps()
    T.ok(len(want) >= 4, "--help lists the formats", want)
    p, _ = T.start([T.target("everykind"), os.path.join(tmp, "d")])
    one(p, 160, 50, want)
    one(p, 60, 19, want)
    T.kill(p)


def main():
    D.run_in_tmp("popup menus clear their box", run)


main()
