#!/usr/bin/env python3
"""A sorted region list after r, when regions were added and none removed,
at 200x60, against the JSON export. The details keep the top rows in
address order for the next sort (pane_details.c: addr_tops); a new
snapshot on screen lets them go when the details are made again
(details_free), and nothing else does when the new snapshot has no
removed rows (test_sort_removed.py covers the rows made again once
removed rows are known). The grower target maps 100 MiB and mallocs
20,000 blocks on a line; sorted by Size before r, after r the list has
every region of the JSON (the status line's count), the new mapping
first, and the rows on screen in the JSON's sizes' order, largest first.
With the old order kept, the count is the old snapshot's and a new
region is missing.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

ROW = re.compile(r"^([+\- ]) ([0-9a-f]{16}) ")
status = D.status


ready = D.ready


def rows_of(scr):
    return [int(m.group(2), 16) for m in
            (ROW.match(ln) for ln in scr.splitlines()) if m]


def run(tmp):
    p, _ = T.start([T.target("grower")])
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=200, height=60, colours=256,
                term="tmux-256color")
    tm.wait_for(ready)
    tm.keys("a", "Tab")
    tm.wait_for(lambda s: "regions: all" in status(s))
    scr = D.sort_to(tm, "Size")
    T.ok(re.search(r"sort Size v", status(scr)),
         "sorted by Size, largest first, before r", status(scr))
    p.stdin.write(b"grow\n")
    p.stdin.flush()
    info = T.ready_fields(p.stdout.readline().decode().replace("grown",
                                                               "ready"))
    T.ok(info.get("map"), "the target mapped its 100 MiB", info)
    tm.keys("r")
    scr = tm.wait_for(lambda s: "2 in the timeline" in status(s) or
                      "new snapshot:" in status(s), timeout=60)
    T.ok("removed" not in status(scr), "r: no region removed",
         status(scr))
    regions = T.vmscope_json(p.pid)["regions"]
    size = {int(r["start"], 16): int(r["end"], 16) - int(r["start"], 16)
            for r in regions}
    T.ok(info["map"] in size,
         "the JSON has the new mapping (%d regions)" % len(size))
    tm.keys("Home")
    scr = tm.wait_for(lambda s: re.search(r"\| 1/\d+\s*$", status(s)))
    m = re.search(r"\| 1/(\d+)\s*$", status(scr))
    T.ok(m and int(m.group(1)) == len(size),
         "after r: the sorted list has every region of the JSON "
         "(%s rows, the JSON %d)" % (m.group(1) if m else "?", len(size)),
         status(scr))
    rows = rows_of(scr)
    T.ok(rows and rows[0] == info["map"],
         "after r: the new 100 MiB mapping is the first row (%s)"
         % (hex(rows[0]) if rows else "no rows"), scr)
    unknown = [hex(a) for a in rows if a not in size]
    sizes = [size[a] for a in rows if a in size]
    T.ok(not unknown and len(sizes) >= 10 and
         sizes == sorted(sizes, reverse=True),
         "after r: the %d rows on screen are the JSON's, in its sizes' "
         "order, largest first" % len(sizes),
         "unknown %s\n%s" % (unknown, scr))
    tm.kill()
    T.kill(p)


def main():
    D.run_in_tmp("a sorted region list after r with regions added", run)


main()
