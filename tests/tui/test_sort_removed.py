#!/usr/bin/env python3
"""The Details sort with the changes shown, in the region list (a) at
200x60, against the JSON export: a removed region's text is not among
the regions' (the snapshot compared with had it), and the viewer places
it among their ranks by a binary search over their distinct texts
(pane_details_sort.c: removed_text_key). The changer target maps a
page of a file whose name sorts after "" and before the libraries
("/tmp/.../mmm-removed" beside "/usr/lib/..."), then unmaps it with its
other changes; sorted by the Details before r, then after r both ways
(S), the rows' texts (the JSON's for the regions, the file's path for
the removed row) run in strcmp's order and the removed row is among them
(the rows a sort starts from, kept in address order, are made again once
the removed rows are known: pane_details.c, details_tops_stale).
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

ROW = re.compile(r"^([+\- ]) ([0-9a-f]{16}) ")
status = D.status


sort_to = D.sort_to


def text(r):
    return (r.get("detail") or r.get("path") or "").encode()


def check(tm, now, before, named, down, what):
    """The rows on screen: each one's text (a removed row's from the
    snapshot before) in strcmp's order, down or up; named's among them."""
    # the mark in the Details heading (the status line's says the sort
    # only until the next key)
    heading = "Details " + ("v" if down else "^")
    scr = tm.wait_for(lambda s: heading in s and re.search(r"\| 1/\d+",
                                                           status(s)))
    rows = [(int(m.group(2), 16), "[removed]" in ln) for ln, m in
            ((ln, ROW.match(ln)) for ln in scr.splitlines()) if m]
    seq = [(a, (before if gone else now).get(a)) for a, gone in rows]
    T.ok((named, True) in rows,
         "%s: the removed file's row is on screen" % what, scr)
    unknown = [hex(a) for a, t in seq if t is None]
    ts = [t for _, t in seq if t is not None]
    T.ok(not unknown and len(ts) >= 10 and
         ts == sorted(ts, reverse=down),
         "%s: the %d rows' texts (the removed one's its path) run in "
         "strcmp's order" % (what, len(ts)),
         "unknown rows %s\n%s\n%s" % (unknown, "\n".join(
             "%x %s" % (a, t) for a, t in seq), scr))


def run(tmp):
    path = os.path.join(tmp, "mmm-removed")
    with open(path, "wb") as f:
        f.write(b"x" * 4096)
    p, line = T.start([T.target("changer"), path])
    named = T.ready_fields(line)["named"]
    before = {int(r["start"], 16): text(r)
              for r in T.vmscope_json(p.pid)["regions"]}
    T.ok(before.get(named) == path.encode(),
         "the file's page is a region, its path its text",
         before.get(named))
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=200, height=60, colours=256,
                term="tmux-256color")
    tm.wait_for(lambda s: "pss, not frozen" in s and
                re.search(r"\d+/\d+\s*$", status(s)))
    tm.keys("a", "Tab")
    tm.wait_for(lambda s: "regions: all" in status(s))
    # sorted before r: the new snapshot's rows are sorted as they are
    # made, and made again once its removed rows are known (the top rows
    # kept in address order for sorts let go then too)
    sort_to(tm, "Details")
    p.stdin.write(b"\n")
    p.stdin.flush()
    done = T._line_by(p, time.time() + 60)
    T.ok(done and done.startswith("changed"), "the target changed", done)
    tm.keys("r")
    tm.wait_for(lambda s: "new snapshot:" in status(s) and
                "removed" in status(s), timeout=60)
    now = {int(r["start"], 16): text(r)
           for r in T.vmscope_json(p.pid)["regions"]}
    T.ok(named not in now, "the file's page is gone from the JSON")
    # each sort keeps the cursor's row: Home for the list's top, the
    # status line's "1/" once it is there
    sort_to(tm, "Details")
    tm.keys("Home")
    check(tm, now, before, named, False, "Details ascending")
    tm.keys("S")
    tm.wait_for(lambda s: "Details v" in s)
    tm.keys("Home")
    check(tm, now, before, named, True, "Details descending (S)")
    tm.kill()
    T.kill(p)


def main():
    D.run_in_tmp("the Details sort with removed rows in tmux", run)


main()
