#!/usr/bin/env python3
"""Find everywhere (issue 12, item 4), at 80x24 with NO_COLOR and at 200x60
with a theme, on the everykind target: / finds a section in a collapsed
image (the image opens, the cursor is on the section), counts every match
(the count is the one the JSON export gives), n and N walk them and wrap,
a thread id finds its stack, and a miss says so.
"""
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

ROW = re.compile(r"^([+\- ]) +([0-9a-f]{16}) ")


status = D.status


def match_no(scr):
    m = re.search(r"match (\d+) of (\d+) for", status(scr))
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


ready = D.ready


def find(tm, text):
    tm.keys("/").text(text).keys("Enter")
    return tm.wait_for(lambda s: "Find:" not in status(s) and
                       ("match " in status(s) or "not found" in status(s)))


SEL = [r"\x1b\[[0-9;]*\b7[;m]"]  # the selection's escape: reverse (mono)


def selected(tm):
    """The cursor's row: the one drawn in the selection's colours."""
    scr = tm.screen(escapes=True)
    for l in scr.splitlines():
        if re.search(SEL[0], l):
            plain = re.sub(r"\x1b\[[0-9;]*m", "", l)
            if ROW.match(plain) or "section" in plain:
                return plain
    return ""


def one_size(p, ready_line, snap, w, h, env, args, what, sel):
    SEL[0] = sel
    tm = D.Tmux([T.VMSCOPE] + args + [str(p.pid)], width=w, height=h,
                env=env, colours=256, term="tmux-256color")
    tm.wait_for(ready)
    scr = find(tm, ".text")
    mine = [l for l in scr.splitlines() if ".text" in l]
    n, total = match_no(scr)
    T.ok(mine and "section" in selected(tm) and ".text" in selected(tm),
         "%s: /.text lands on a section of a collapsed image" % what,
         scr)
    T.ok(re.search(r"^- .*Image", scr, re.M),
         "%s: the image above it is opened ('-')" % what, scr)
    want = D.find_count(snap, ".text")
    T.ok(total == want and n == 1,
         "%s: the status line counts every match, collapsed ones too "
         "(1 of %d)" % (what, want), status(scr))
    seen = {selected(tm)}
    for k in range(2, total + 1):
        tm.keys("n")
        scr = tm.wait_for(lambda s, k=k: match_no(s)[0] == k)
        seen.add(selected(tm))
    T.ok(match_no(scr) == (total, total) and len(seen) == total,
         "%s: n visits each of the %d matches" % (what, total), seen)
    tm.keys("n")
    scr = tm.wait_for(lambda s: match_no(s)[0] == 1)
    T.ok(match_no(scr)[0] == 1, "%s: n wraps to the first" % what,
         status(scr))
    tm.keys("N")
    scr = tm.wait_for(lambda s: match_no(s)[0] == total)
    T.ok(match_no(scr)[0] == total, "%s: N goes back (to the last)" % what,
         status(scr))

    # sorted by Size (the rows in a figure's order, not the address's):
    # the same matches, each visited once, from the first row; then from
    # a row in the middle with matches above it, the next match after it
    D.sort_to(tm, "Size")  # the details have the focus (a find gives it)
    tm.keys("Home")
    tm.wait_for(lambda s: re.search(r"\| 1/\d+", status(s)))
    scr = find(tm, ".text")
    n, total_s = match_no(scr)
    seen = {selected(tm)}
    for k in range(2, total_s + 1):
        tm.keys("n")
        scr = tm.wait_for(lambda s, k=k: match_no(s)[0] == k)
        seen.add(selected(tm))
    T.ok(n == 1 and total_s == want and len(seen) == want,
         "%s: sorted by Size, from the first row: every match counted "
         "and n visits each once (%d)" % (what, want),
         (n, total_s, len(seen)))
    # from the mapped file's row (a row with no match, between libc's
    # image and ld.so's by size): the next match after it, and N the
    # one before (a walk that lost the cursor's row, when the row it is
    # in has no match, would say 1 and the last)
    tm.keys("Home")
    for _ in range(200):
        if "Mapped File" in selected(tm):
            break
        b = status(tm.screen())
        tm.keys("Down")
        tm.wait_for(lambda s, b=b: status(s) != b)
    at = selected(tm)
    scr = find(tm, ".text")
    k = match_no(scr)[0]
    T.ok("Mapped File" in at and k is not None and 1 < k <= want,
         "%s: sorted, from a row with no match, matches above it: the "
         "next one after it (%s of %d)" % (what, k, want),
         "%s\n%s" % (at, status(scr)))
    tm.keys("N")
    scr = tm.wait_for(lambda s, k=k: match_no(s)[0] == (k or 1) - 1)
    T.ok(match_no(scr)[0] == (k or 1) - 1,
         "%s: sorted: N, the one before it" % what, status(scr))
    # from the section above a match, under the image a find opened
    # (sorted: the regions were matched first in address order, and the
    # walk in the order shown meets only the sections that match, and
    # the cursor's): that match
    scr = find(tm, ".text")
    k = match_no(scr)[0]
    b = status(scr)
    tm.keys("Up")
    tm.wait_for(lambda s, b=b: status(s) != b)
    at = selected(tm)
    scr = find(tm, ".text")
    T.ok("section" in at and ".text" not in at and k is not None and
         match_no(scr)[0] == k,
         "%s: sorted, from the section above a match: that one (%s of "
         "%d, was %s)" % (what, match_no(scr)[0], want, k),
         "%s\n%s" % (at, status(scr)))
    D.sort_to(tm, "Address")

    # its digits may be in an address shown too (tid 30000 in an arena's
    # 0x7f9330000030, in a fresh root): its stack is one of the matches,
    # which n walks
    tid = ready_line.get("tid1")
    scr = find(tm, str(tid))
    k, total = match_no(scr)
    rows = [selected(tm)]
    for _ in range((total or 1) - 1):
        if "thread %d" % tid in rows[-1]:
            break
        tm.keys("n")
        scr = tm.wait_for(lambda s, k=k: match_no(s)[0] != k)
        k = match_no(scr)[0]
        rows.append(selected(tm))
    T.ok("thread %d" % tid in rows[-1],
         "%s: a thread id finds its stack (match %s of %s)"
         % (what, k, total), "\n".join(rows))
    scr = find(tm, "no-such-thing-here")
    T.ok("not found: no-such-thing-here" in status(scr),
         "%s: a miss says so" % what, status(scr))
    tm.kill()


def main():
    D.require_tmux("find in tmux")
    tmp = tempfile.mkdtemp(prefix="vmstui-")
    try:
        p, line = T.start([T.target("everykind"), os.path.join(tmp, "d")])
        snap = T.vmscope_json(p.pid)
        rl = T.ready_fields(line)
        one_size(p, rl, snap, 80, 24, {"NO_COLOR": "1"}, [],
                 "80x24 NO_COLOR", r"\x1b\[[0-9;]*\b7[;m]")
        one_size(p, rl, snap, 200, 60, {}, ["-t", "colorblind"],
                 "200x60 -t colorblind", r"\x1b\[[0-9;]*48;5;214m")
        T.kill(p)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


main()
