#!/usr/bin/env python3
"""One meaning per figure (issue 31 item 2), at 200x60 and 80x24, on the
pageout target (2 MiB each of anonymous and file memory: its figures under
10,000 K, shown to the K, so a page table of some K added or not shows).

At 200x60 the header has VMMap's three bars, Committed, Private and
Working set, each with the Total row's figure on the same screen
(Committed, Private, WS, and Private WS beside the working set), and a
legend naming the types in the bars and what the rest of a bar is. The
page table is counted the same way everywhere: the Page Table row is the
kernel's VmPTE (/proc/PID/status), and neither the header nor the Total
row adds it: their WS is the kernel's Rss (smaps_rollup), exactly (the
target touches nothing while it is read). At 80x24 the header is one line
(no bars); the Total row is the same as at 200x60 and its WS the kernel's
Rss; the Page Table row the kernel's VmPTE.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

SIZE = r"(?:\d+(?:\.\d)? [BKMGTPE]|-)"


status = D.status


ready = D.ready


def figures(line):
    return re.findall(SIZE + r"(?=\s|$)", line or "")


def summary_row(scr, label):
    for ln in scr.splitlines():
        if re.match(r"^[ >]%s\s" % re.escape(label), ln):
            return ln
    return None


def bar(scr, label):
    """The figures on the header's bar line labelled label."""
    for ln in scr.splitlines()[:8]:
        if ln.startswith(" " + label + " "):
            return figures(ln)
    return None


def one(p, w, h):
    what = "%dx%d" % (w, h)
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=w, height=h)
    scr = tm.wait_for(ready, timeout=120)
    rss = T.rollup(p.pid)["Rss"]
    pte = T.status_kb(p.pid, "VmPTE")
    total = figures(summary_row(scr, "Total"))
    pt = figures(summary_row(scr, "Page Table"))
    # Size, Committed, Private, WS, Private WS, ...
    T.ok(len(total) >= 5 and total[3] == D.size_text(rss),
         "%s: the Total row's WS is the kernel's Rss (%s): the page table "
         "is not added" % (what, D.size_text(rss)), summary_row(scr, "Total"))
    T.ok(pt and pt[0] == D.size_text(pte) and
         D.size_text(rss + pte) != D.size_text(rss),
         "%s: the Page Table row is the kernel's VmPTE (%s), a figure "
         "that would show if added" % (what, D.size_text(pte)),
         summary_row(scr, "Page Table"))
    if h >= 30:
        com, prv, ws = bar(scr, "Committed"), bar(scr, "Private"), \
            bar(scr, "Working set")
        T.ok(com and com[-1] == total[1],
             "%s: the header's Committed is the Total row's (%s)"
             % (what, total[1]), "\n".join(scr.splitlines()[:8]))
        T.ok(prv and prv[-1] == total[2],
             "%s: a Private bar, its figure the Total row's (%s)"
             % (what, total[2]), "\n".join(scr.splitlines()[:8]))
        T.ok(ws and ws[0] == total[3] and ws[-1] == total[4],
             "%s: the Working set bar's figures are the Total row's WS "
             "and Private WS (%s, %s)" % (what, total[3], total[4]),
             "\n".join(scr.splitlines()[:8]))
        legend = [ln for ln in scr.splitlines()[:8]
                  if "the rest of Committed" in ln]
        T.ok(legend and all(t in legend[0] for t in
                            ("image", "mapped file", "private data")),
             "%s: a legend: the types in the bars (image, mapped file, "
             "private data ...) and the rest of Committed" % what, legend)
    else:
        T.ok(bar(scr, "Committed") is None,
             "%s: the header is one line, no bars (the Total row has "
             "their figures)" % what, scr.splitlines()[0])
    tm.kill()
    return total


def run(tmp):
    p, _ = T.start([T.target("pageout"), tmp, "2"])
    big = one(p, 200, 60)
    small = one(p, 80, 24)
    T.ok(big[:5] == small[:5],
         "the Total row's Size, Committed, Private, WS and Private WS are "
         "the same at 80x24 and 200x60 (%s)" % ", ".join(big[:5]),
         "%s\n%s" % (big, small))
    T.kill(p)


def main():
    D.run_in_tmp("one meaning per figure in tmux", run)


main()
