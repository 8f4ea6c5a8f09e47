#!/usr/bin/env python3
"""Allocations as VMMap has them (issue 12, item 1), at 80x24 with NO_COLOR
and at 200x60 with a theme, on the everykind target: libc is one row whose
figures are the sums of its mappings (the JSON export's regions), /libc
then Right shows .text; each thread's stack is one row (guard and stack);
each glibc arena one row with its segments beneath; 'a' turns to the
region list and back; r keeps an opened image open; the exports keep one
entry per region.
"""
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T, size_text  # noqa: E402

ROW = re.compile(r"^([+\- ]) ([0-9a-f]{16}) (\S.{11}) +(\S+ [BKMGT])")
UNITS = {"B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


status = D.status


def tops(scr):
    """The top rows on screen: {address: (mark, type, size text, line)}."""
    out = {}
    for l in scr.splitlines():
        m = ROW.match(l)
        if m:
            out[int(m.group(2), 16)] = (m.group(1), m.group(3).strip(),
                                        m.group(4), l)
    return out


ready = D.ready


def find(tm, text):
    tm.keys("/").text(text).keys("Enter")
    return tm.wait_for(lambda s: "Find:" not in status(s) and
                       ("match " in status(s) or "not found" in status(s)))


def libc_regions(snap):
    path = next(r["path"] for r in snap["regions"]
                if r.get("path") and "/libc.so" in r["path"])
    first = next(i for i, r in enumerate(snap["regions"])
                 if r.get("path") == path)
    out = []
    for r in snap["regions"][first:]:
        if r.get("path") != path and r.get("detail") != path:
            break
        if out and int(out[-1]["end"], 16) != int(r["start"], 16):
            break
        out.append(r)
    return path, out


def one_size(p, rl, snap, w, h, env, args, what):
    path, libc = libc_regions(snap)
    start = int(libc[0]["start"], 16)
    tm = D.Tmux([T.VMSCOPE] + args + [str(p.pid)], width=w, height=h,
                env=env, colours=256, term="tmux-256color")
    tm.wait_for(ready)
    scr = find(tm, "libc")
    rows = tops(scr)
    libc_rows = [a for a, r in rows.items() if path in r[3] or
                 os.path.basename(path) in r[3]]
    size = sum(r["size"] for r in libc)
    T.ok(libc_rows == [start] and rows[start][0] == "+" and
         rows[start][2] == size_text(size),
         "%s: libc is one row (%d mappings, %s in all)"
         % (what, len(libc), size_text(size)), scr)
    if w >= 120:
        com = sum(r["committed"] for r in libc)
        ws = sum(r["rss"] for r in libc)
        line = rows[start][3]
        T.ok(re.search(r"\b%s +%s\b" % (re.escape(size_text(com)),
                                        re.escape(size_text(ws))), line),
             "%s: its Committed and WS are its mappings' sums" % what,
             line)
    tm.keys("Right")
    scr = tm.wait_for(".text")
    mine = [l for l in scr.splitlines() if re.search(r"\bsection\b", l)]
    T.ok(any(l.rstrip().endswith(".text") for l in mine),
         "%s: /libc then Right shows .text" % what, scr)
    # (at 80 columns Prot gives way to the figures: its mappings' rows)
    code = r"^[+\- ] [0-9a-f]{16}   Image .* r-xp " if w >= 120 else \
        r"^- [0-9a-f]{16}   Image "
    T.ok(re.search(r"^- %016x" % start, scr, re.M) and
         re.search(code, scr, re.M) and
         len(re.findall(r"^[+\- ] [0-9a-f]{16}   Image ", scr, re.M)) >= 2,
         "%s: the image opens into its mappings (r-xp among them)" % what,
         scr)

    tm.keys("r")
    scr = tm.wait_for("new snapshot")
    tm.keys("j", "k")
    scr = tm.wait_for(lambda s: "new snapshot" not in s and ".text" in s)
    T.ok(".text" in scr and
         re.search(code.replace("[+\\- ]", "-"), scr, re.M),
         "%s: r keeps the image open" % what, scr)
    tm.keys("Left")
    tm.keys("Home")

    # thread stacks: one row each, guard and stack
    for k in range(1, 5):
        tid = rl.get("tid%d" % k)
        if not tid:
            continue
        stack = next(r for r in snap["regions"]
                     if r.get("detail", "").startswith("thread %d " % tid))
        guard = next((r for r in snap["regions"]
                      if r.get("detail") == "guard of thread %d" % tid),
                     None)
        scr = find(tm, "thread %d " % tid)
        rows = tops(scr)
        want = stack["size"] + (guard["size"] if guard else 0)
        at = int((guard or stack)["start"], 16)
        T.ok(at in rows and rows[at][2] == size_text(want) and
             rows[at][1] == "Stack",
             "%s: thread %d's stack is one row of %s (guard and stack)"
             % (what, tid, size_text(want)), scr)
        break

    # arenas: one row, their segments beneath
    arena = next(r for r in snap["regions"]
                 if (r.get("detail") or "").startswith("arena 0x"))
    at = int(arena["start"], 16)
    segs = [r for r in snap["regions"] if r["type"] == "heap" and
            at <= int(r["start"], 16) < at + (64 << 20)]
    scr = find(tm, arena["detail"])
    rows = tops(scr)
    T.ok(at in rows and rows[at][1] == "Heap" and rows[at][0] == "+" and
         rows[at][2] == size_text(sum(r["size"] for r in segs)),
         "%s: a glibc arena is one row" % what, scr)
    tm.keys("Right")
    scr = tm.wait_for(lambda s: re.search(r"^- %016x" % at, s, re.M))
    inner = [l for l in scr.splitlines()
             if re.match(r"^[+\- ] [0-9a-f]{16}   Heap ", l)]
    T.ok(len(inner) == len(segs) >= 2,
         "%s: Right shows its %d segments" % (what, len(segs)), scr)

    # the region list, one keystroke away
    tm.keys("a")
    scr = tm.wait_for("regions: all")
    m = re.search(r"(\d+)/(\d+)\s*$", status(scr))
    T.ok(m and int(m.group(2)) >= len(snap["regions"]),
         "%s: a shows the region list (every region a row)" % what,
         status(scr))
    tm.keys("a")
    scr = tm.wait_for(lambda s: "regions:" not in status(s))
    m2 = re.search(r"(\d+)/(\d+)\s*$", status(scr))
    T.ok(m2 and int(m2.group(2)) < int(m.group(2)),
         "%s: a again: allocations (fewer rows)" % what, status(scr))

    # sorted: a and back gives the same rows (the other view's are kept
    # for it); after another sort, a sorts the other view by that one,
    # not by the sort it was kept with
    def figures(scr, k):
        """The k-th figure of each top row on screen, in bytes."""
        out = []
        for l in scr.splitlines():
            if ROW.match(l):
                f = re.findall(r"(\d+(?:\.\d+)?) ([BKMGT])\b", l[20:])
                out.append(float(f[k][0]) * UNITS[f[k][1]])
        return out

    D.sort_to(tm, "Size")
    tm.keys("Home")
    before = tm.wait_for(lambda s: re.search(r"\| 1/\d+", status(s)))
    tm.keys("a")
    scr = tm.wait_for("regions: all")
    sizes = figures(scr, 0)
    T.ok(len(sizes) > 3 and sizes == sorted(sizes, reverse=True),
         "%s: sorted by Size, a: the region list by Size" % what, scr)
    tm.keys("a")
    scr = tm.wait_for(lambda s: "regions:" not in status(s))
    T.ok(scr == before, "%s: sorted, a twice: the same rows" % what,
         "%s\n----\n%s" % (before, scr))
    D.sort_to(tm, "Committed")
    tm.keys("a")
    scr = tm.wait_for("regions: all")
    com = figures(scr, 1)
    T.ok("sort Committed" in status(scr) and len(com) > 3 and
         com == sorted(com, reverse=True) and figures(scr, 0) != sizes,
         "%s: then by Committed, a: the region list by Committed" % what,
         scr)
    tm.keys("a")
    tm.wait_for(lambda s: "regions:" not in status(s))
    D.sort_to(tm, "Address")
    tm.kill()


def main():
    D.require_tmux("allocations in tmux")
    tmp = tempfile.mkdtemp(prefix="vmstui-")
    try:
        p, line = T.start([T.target("everykind"), os.path.join(tmp, "d")])
        snap = T.vmscope_json(p.pid)
        rl = T.ready_fields(line)
        one_size(p, rl, snap, 80, 24, {"NO_COLOR": "1"}, [],
                 "80x24 NO_COLOR")
        one_size(p, rl, snap, 200, 60, {}, ["-t", "dark"], "200x60 -t dark")
        # the exports keep one entry per region
        with open("/proc/%d/maps" % p.pid) as f:
            nmaps = len(f.read().splitlines())
        snap = T.vmscope_json(p.pid)
        T.ok(len(snap["regions"]) == nmaps,
             "the JSON export keeps one entry per region (%d)" % nmaps)
        T.kill(p)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


main()
