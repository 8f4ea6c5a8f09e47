#!/usr/bin/env python3
"""The changes in the main view (issue 31 item 3, VMMap's Show Changes),
at 200x60 and 80x24 (the Private Data rows, a click on the summary's
row), on the changer target: between two snapshots it grows one
region in place (8 to 16 MiB), shrinks another (16 to 4 MiB), unmaps a
third, makes a fourth read-only, drops half the pages of a fifth (its
size and committed bytes the same: not a change of the region) and maps
a new one (12 MiB); a thread's malloc arena grows its heap by 1 MiB in
place (an allocation of two regions, the heap and what it keeps
reserved: the same size, more committed).

After r, each row of the details that changed says how before its
Details, by the kernel's sizes (/proc/PID/maps, before and after): the
grown one "[grown +N]", the shrunk one "[shrunk -N]", the new one
"[added]", the read-only one "[changed]"; the fifth has no
mark; the unmapped one is still listed, where it was, "[removed]" with
the size it had; the status line counts them (in 80 columns).
A first snapshot has nothing to compare with: no mark. The summary's
Private Data row is marked beside its label, the Total row + or - as the
kernel's maps grew or shrank. D shows how much each figure moved: the
grown region's Size its growth, the new one's all of it, the removed
one's all of it gone, the one with half its pages dropped (the same
size and committed bytes: no change) its WS only, the Total row's Size
the kernel's (the sizes of its maps, before and after); D again, the
figures. The Heap rows (a click on its summary row): the arena's
allocation row says "[grown +N]", N its committed bytes' growth as the
JSON export has them before and after (glibc's account of the heap).

Against a snapshot marked A in the timeline (at 80x24 and 200x60): the
target changes, r, r again (nothing changed since the one before: no
mark); T, A on the first snapshot, Esc: at once the rows say what
changed since that one (the grown, shrunk, added and removed regions as
the kernel's maps moved between them), and D's heading says since its
time; r: still against A; A taken off: against the one before again (no
mark).
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402


status = D.status


ready = D.ready


row_at = D.row_at


size_of = D.maps_size


rss_of = D.smaps_rss


delta_text = D.delta_text


summary_row = D.summary_row


def arena_committed(pid, arena):
    """The committed bytes of the regions of the arena whose heap is
    arena (a maps entry), as the JSON export has them: the heap and what
    it keeps reserved, 64 MiB from its start."""
    if not arena:
        return 0
    lo, hi = arena["start"], arena["start"] + (64 << 20)
    return sum(r["committed"] for r in T.vmscope_json(pid)["regions"]
               if lo <= int(r["start"], 16) < hi)


def mark_of(d):
    return "+" if d > 0 else "-" if d < 0 else "~"


def one(w, h):
    what = "%dx%d" % (w, h)
    p, line = T.start([T.target("changer")])
    f = T.ready_fields(line)
    before = {k: size_of(p.pid, f[k])
              for k in ("grow", "shrink", "keep", "gone")}
    total_before = sum(m["end"] - m["start"] for m in T.maps(p.pid))
    ws_before = {"keep": rss_of(p.pid, f["keep"])}
    arena = next((m for m in T.maps(p.pid)
                  if m["start"] <= f["tarena"] < m["end"]), None)
    arena0 = arena_committed(p.pid, arena)
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=w, height=h)
    scr = tm.wait_for(ready, timeout=120)
    # the Private Data rows only (a click on the summary's row): they fit
    # a short terminal
    y = next(i for i, ln in enumerate(scr.splitlines())
             if ln.startswith(" Private Data "))
    tm.click(3, y)
    scr = tm.wait_for(lambda s: "Private Data |" in status(s))
    T.ok(row_at(scr, f["grow"]) and "[" not in row_at(scr, f["grow"]),
         "%s: the first snapshot: nothing to compare with, no mark" % what,
         row_at(scr, f["grow"]))

    p.stdin.write(b"\n")
    p.stdin.flush()
    done = T._line_by(p, time.time() + 60)
    T.ok(done and done.startswith("changed"),
         "%s: the target changed" % what, done)
    added = T.ready_fields(done or "x added=0")["added"]
    after = {k: size_of(p.pid, f[k]) for k in ("grow", "shrink", "keep")}
    ws_after = {"keep": rss_of(p.pid, f["keep"])}

    scr = tm.expect("%s: r: the status line counts the changes" % what,
                    lambda s: re.search(r"new snapshot: \d+ regions; \d+ ",
                                      status(s)), "r")
    counts = {k: int(n) for n, k in re.findall(
        r"(\d+) (added|grown|shrunk|changed|removed)", status(scr))}
    T.ok(all(counts.get(k, 0) >= 1
             for k in ("added", "grown", "shrunk", "removed")),
         "%s: the counts have the added, grown, shrunk and removed "
         "regions" % what,
         status(scr))
    grow = row_at(scr, f["grow"])
    want = "[grown %s]" % delta_text(after["grow"] - before["grow"])
    T.ok(grow and want in grow,
         "%s: the grown region's row says %s (maps: %d -> %d)"
         % (what, want, before["grow"], after["grow"]), grow)
    shrink = row_at(scr, f["shrink"])
    want = "[shrunk %s]" % delta_text(after["shrink"] - before["shrink"])
    T.ok(shrink and want in shrink,
         "%s: the shrunk region's row says %s (maps: %d -> %d)"
         % (what, want, before["shrink"], after["shrink"]), shrink)
    new = row_at(scr, added)
    T.ok(new and "[added]" in new,
         "%s: the new region's row says [added]" % what, new)
    prot = row_at(scr, f["prot"])
    # (at 80 columns Prot gives way to the figures)
    T.ok(prot and "[changed]" in prot and (" r--p " in prot or w < 120),
         "%s: the region made read-only (the same size) says [changed]"
         % what, prot)
    keep = row_at(scr, f["keep"])
    T.ok(keep and "[" not in keep and after["keep"] == before["keep"],
         "%s: the region not changed has no mark" % what, keep)
    gone = row_at(scr, f["gone"])
    want = D.size_text(before["gone"])
    T.ok(gone and "[removed]" in gone and
         re.search(r"Private Data\s+%s\s" % re.escape(want), gone) and
         size_of(p.pid, f["gone"]) is None,
         "%s: the unmapped region (gone from maps) is a row marked "
         "[removed], with the size it had, %s" % (what, want), gone)
    # where it was: the rows (by address) ascend across it
    shown = [int(ln[2:18], 16) for ln in scr.splitlines()
             if re.match(r"^[ +\-] [0-9a-f]{16} ", ln)]
    T.ok(f["gone"] in shown and shown == sorted(shown),
         "%s: the removed row sits among the others by its address" % what,
         " ".join("%x" % a for a in shown))

    # the summary's type rows a change touched are marked (+ grown, -
    # shrunk, ~ neither), beside the label; D shows every figure's move
    total_delta = sum(m["end"] - m["start"] for m in T.maps(p.pid)) - \
        total_before
    pd = summary_row(scr, "Private Data")
    tot = summary_row(scr, "Total")
    T.ok(pd and pd[13] in "+-~" and tot and tot[13] == mark_of(total_delta),
         "%s: the Private Data row is marked as changed, the Total row "
         "as the kernel's sizes moved (%d)" % (what, total_delta),
         "%s\n%s" % (pd, tot))
    scr = tm.expect("%s: D: the figures are how much they moved since "
                    "(the summary's heading says since when)"
                    % what, lambda s: "changes since" in s, "D")
    grow = row_at(scr, f["grow"])
    want = delta_text(after["grow"] - before["grow"])
    T.ok(grow and re.search(r"Private Data\s+%s\s" % re.escape(want), grow),
         "%s: D: the grown region's Size is its move, %s" % (what, want),
         grow)
    new = row_at(scr, added)
    want = delta_text(size_of(p.pid, added))
    T.ok(new and re.search(r"Private Data\s+%s\s" % re.escape(want), new),
         "%s: D: the new region's Size is all of it, %s" % (what, want), new)
    keep = row_at(scr, f["keep"])
    want = delta_text(ws_after["keep"] - ws_before["keep"])
    T.ok(keep and re.search(r"Private Data\s+%s(\s|$)" % re.escape(want),
                            keep),
         "%s: D: the region not changed (its size and committed bytes "
         "the same) moved by its resident pages only: Size and Committed "
         "blank, WS %s (the kernel's Rss)" % (what, want), keep)
    gone = row_at(scr, f["gone"])
    want = delta_text(-before["gone"])
    T.ok(gone and re.search(r"Private Data\s+%s\s" % re.escape(want), gone),
         "%s: D: the removed region's Size is all of it gone, %s"
         % (what, want), gone)
    tot = summary_row(scr, "Total")
    m = tot and re.match(r".{14}\s*(\S+ \S)", tot)
    T.ok(m and m.group(1) == delta_text(total_delta),
         "%s: D: the Total row's Size is how much the kernel's maps grew, "
         "%s" % (what, delta_text(total_delta)), tot)
    scr = tm.expect("%s: D again: the figures" % what,
                    lambda s: "changes since" not in s, "D")
    grow = row_at(scr, f["grow"])
    T.ok(grow and re.search(r"Private Data\s+%s\s"
                            % re.escape(D.size_text(after["grow"])), grow),
         "%s: D again: the grown region's Size, %s" %
         (what, D.size_text(after["grow"])), grow)
    # an allocation of two regions: the thread's arena, its heap grown in
    # place into what it keeps reserved (the same size in all; its
    # committed bytes glibc's own account of the heap, heap_info's size,
    # as the export has them)
    grown = arena_committed(p.pid, arena) - arena0 if arena else 0
    y = next(i for i, ln in enumerate(scr.splitlines())
             if ln.startswith(" Heap "))
    tm.click(3, y)
    scr = tm.wait_for(lambda s: "Heap |" in status(s))
    row = row_at(scr, arena["start"]) if arena else None
    want = "[grown %s]" % delta_text(grown)
    T.ok(grown > 0 and row and row.startswith("+ ") and " Heap " in row and
         want in row,
         "%s: the thread's arena, an allocation of two regions (its heap "
         "and what it keeps reserved), says %s (the export's committed "
         "bytes of its regions: %d more)" % (what, want, grown), row)
    tm.kill()
    T.kill(p)


def marks_of(scr, f, added):
    """The change marks of the grown, shrunk, added, removed and kept
    regions' rows ("" where a row has none or is not shown)."""
    out = {}
    for k, a in (("grow", f["grow"]), ("shrink", f["shrink"]),
                 ("added", added), ("gone", f["gone"]),
                 ("keep", f["keep"])):
        m = re.search(r"\[(added|removed|changed|grown \S+ \S|shrunk \S+ \S)\]",
                      row_at(scr, a) or "")
        out[k] = m.group(1) if m else ""
    return out


def timeline_mark(tm, what):
    """T, Home, a (A on the first snapshot, or off it), Esc."""
    tm.keys("T")
    tm.wait_for(lambda s: "mark A" in status(s))
    tm.keys("Home", "a")
    tm.keys("Escape")
    return tm.wait_for(lambda s: "Private Data |" in status(s))


def marked(w, h, sort=None):
    """sort: a column the details are sorted by first (the rows a sort
    starts from, kept in address order, made again as A moves)."""
    what = "%dx%d marked A%s" % (w, h, ", by " + sort if sort else "")
    p, line = T.start([T.target("changer")])
    f = T.ready_fields(line)
    before = {k: size_of(p.pid, f[k]) for k in ("grow", "shrink", "gone")}
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=w, height=h)
    scr = tm.wait_for(ready, timeout=120)
    y = next(i for i, ln in enumerate(scr.splitlines())
             if ln.startswith(" Private Data "))
    tm.click(3, y)
    scr = tm.wait_for(lambda s: "Private Data |" in status(s))
    if sort:
        scr = D.sort_to(tm, sort)
        T.ok("sort %s" % sort in status(scr), "%s: sorted" % what,
             status(scr))
    p.stdin.write(b"\n")
    p.stdin.flush()
    done = T._line_by(p, time.time() + 60)
    T.ok(done and done.startswith("changed"), "%s: the target changed"
         % what, done)
    added = T.ready_fields(done or "x added=0")["added"]
    after = {k: size_of(p.pid, f[k]) for k in ("grow", "shrink")}
    want = {"grow": "grown %s" % delta_text(after["grow"] - before["grow"]),
            "shrink": "shrunk %s" % delta_text(after["shrink"] -
                                               before["shrink"]),
            "added": "added", "gone": "removed", "keep": ""}
    none = dict((k, "") for k in want)
    tm.keys("r")
    tm.wait_for(lambda s: re.search(r"new snapshot: \d+ regions; ",
                                    status(s)), timeout=120)
    tm.keys("r")
    scr = tm.wait_for(lambda s: "3 in the timeline" in status(s),
                      timeout=120)
    T.ok(marks_of(scr, f, added) == none,
         "%s: r again: nothing changed since the one before, no mark"
         % what, marks_of(scr, f, added))

    scr = timeline_mark(tm, what)
    T.ok(marks_of(scr, f, added) == want,
         "%s: A on the first snapshot, Esc: at once the rows say what "
         "changed since it (%s)" % (what, want), marks_of(scr, f, added))
    tm.keys("D")
    scr = tm.wait_for("changes since")
    # the summary's heading, the line above its " Type"
    lines = scr.splitlines()
    head = next((lines[i - 1] for i, ln in enumerate(lines)
                 if ln.startswith(" Type ") and i), "")
    m = re.search(r"^ changes since (\d\d:\d\d:\d\d) ", head)
    tm.keys("T")
    tl = tm.wait_for(lambda s: "mark A" in status(s))
    first = re.search(r"^ A +1  .*?(\d\d:\d\d:\d\d)", tl, re.M)
    T.ok(m and first and m.group(1) == first.group(1),
         "%s: D: the summary's heading says since the first snapshot's "
         "time (%s)" % (what, first.group(1) if first else "?"),
         "%s\n%s" % (head, first and first.group(0)))
    tm.keys("Escape")
    scr = tm.wait_for(lambda s: "Private Data |" in status(s))
    T.ok("Private Data | sort" in status(scr),
         "%s: D: the status line keeps the filter and sort (the summary's "
         "heading says since when)" % what, status(scr))
    tm.keys("D")
    tm.wait_for(lambda s: "changes since" not in s)
    tm.keys("r")
    scr = tm.wait_for(lambda s: "new snapshot: " in status(s), timeout=120)
    T.ok(marks_of(scr, f, added) == want,
         "%s: r: still against A" % what, marks_of(scr, f, added))
    scr = timeline_mark(tm, what)
    T.ok(marks_of(scr, f, added) == none,
         "%s: A taken off: against the one before again, no mark" % what,
         marks_of(scr, f, added))
    tm.kill()
    T.kill(p)


def run(tmp):
    one(200, 60)
    one(80, 24)
    marked(80, 24)
    marked(200, 60, "Size")


def main():
    D.run_in_tmp("changes in the main view in tmux", run)


main()
