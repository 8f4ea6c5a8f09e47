#!/usr/bin/env python3
"""The details' sort orders, row by row against the JSON export, in the
region list (a) of the everykind target at 200x60: Details by its text
(strcmp's order, the region's detail or else its path), both ways (S);
Prot by its letters; Type in display order; Size largest first; the
address downwards (S). Every order breaks ties by address, ascending,
whichever way it runs. The viewer sorts a column by a number, the
Details by each distinct text's rank and the address by each start's
rank (pane_details_sort.c): this checks those numbers give the order a
comparison of the texts and figures themselves gives. Then again with
VMSCOPE_SORT_PAIRS=1: every sort by (key, row) pairs, the path of keys
too wide to pack with their rows (some 41 bits at a million rows), which
a list this size reaches no other way. Then with VMSCOPE_SORT_RECORDS=1:
every key read from the regions' records, none from the keys kept small
while nobody types (pane_details_keys.c; a sort before the first idle
moment reads the records); the other runs first wait for the viewer's
idle work (VMSCOPE_TIMING's "idle"), so that they sort from those keys.

Last, PSS from a snapshot file (its figures fixed, so the JSON of the same
file is exact) with the PSS column shown: one page of the target's data
file mapped by this test too, so that the file's PSS is not whole pages (a key the sort then reads from that region's record among
the others kept small); largest first and S, row by row. And the
allocation list of that file (an image, a stack with its guard, an arena
each one row: its figures the sums of its regions', its Prot every
permission of them) sorted by each column both ways gives the same rows
from the keys kept small as from the records (VMSCOPE_SORT_RECORDS=1).
"""
import json
import mmap
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

ROW = re.compile(r"^([+\- ]) ([0-9a-f]{16}) ")
# display order of the types (snapshot.h), as the JSON names them
TYPES = ["image", "mapped_file", "shareable", "heap", "managed_heap",
         "stack", "private_data", "page_table", "free"]


status = D.status


def addrs(scr):
    return [int(m.group(2), 16) for m in
            (ROW.match(l) for l in scr.splitlines()) if m]


def text(r):
    return (r.get("detail") or r.get("path") or "").encode()


sort_to = D.sort_to


def check(tm, snap, name, key, down, what):
    what = tm.label + what
    want_mark = "v" if down else "^"
    said = r"sort %s %s" % (re.escape(name), re.escape(want_mark))
    scr = tm.wait_for(lambda s: re.search(said, status(s)))
    T.ok(re.search(said, status(scr)),
         "%s: the status line says the sort" % what, status(scr))
    shown = addrs(scr)
    regs = snap["regions"]
    # ties by address ascending, whichever way the column runs
    order = sorted(regs, key=lambda r: int(r["start"], 16))
    order = sorted(order, key=key, reverse=down)
    want = [int(r["start"], 16) for r in order][:len(shown)]
    T.ok(len(shown) >= 10 and shown == want,
         "%s: the first %d rows are the JSON's regions in that order"
         % (what, len(shown)),
         "shown: %s\nwant:  %s\n%s" % ([hex(a) for a in shown],
                                       [hex(a) for a in want], scr))


def run(tmp):
    p, _ = T.start([T.target("everykind"), os.path.join(tmp, "d")])
    snap = T.vmscope_json(p.pid)
    for env, label in (({}, ""), ({"VMSCOPE_SORT_PAIRS": "1"}, "pairs: "),
                       ({"VMSCOPE_SORT_RECORDS": "1"}, "records: ")):
        sorts(p, snap, dict(env, VMSCOPE_TIMING=os.path.join(
            tmp, "timing-" + label.rstrip(": "))), label)
    pss_from_file(tmp, p)
    T.kill(p)


def pss_from_file(tmp, p):
    data = os.path.join(tmp, "d")
    with open(data, "rb") as f:
        # one page: the kernel maps no neighbours of it (fault-around
        # stops at the mapping's end)
        m = mmap.mmap(f.fileno(), mmap.PAGESIZE, prot=mmap.PROT_READ)
    try:
        m[0]  # one page of the target's data file mapped twice
        path = os.path.join(tmp, "pss.vms")
        r = T.run_vmscope("-w", path, "-s", str(p.pid))
    finally:
        m.close()
    T.ok(r.returncode == 0, "PSS: the snapshot is saved", r.stderr)
    r = T.run_vmscope("-l", path, "-e", "json")
    snap = json.loads(r.stdout)
    regs = snap["regions"]
    odd = [x for x in regs if x["pss"] % 4096]
    T.ok(0 < len(odd) < len(regs) // 2 and
         any(x["path"] == os.path.realpath(data) for x in odd),
         "PSS: %d of the file's %d regions have a PSS that is not whole "
         "pages (the data file's among them)" % (len(odd), len(regs)),
         [(x["path"], x["pss"]) for x in odd])
    xdg = os.path.join(tmp, "xdg")
    os.makedirs(os.path.join(xdg, "vmscope"))
    with open(os.path.join(xdg, "vmscope", "config"), "w") as f:
        f.write("column pss on\n")
    timing = os.path.join(tmp, "timing-file")
    tm = D.Tmux([T.VMSCOPE, "-t", "dark", "-l", path], width=200,
                height=60, colours=256, term="tmux-256color",
                env={"XDG_CONFIG_HOME": xdg, "VMSCOPE_TIMING": timing})
    tm.label = "file: "
    tm.wait_for(lambda s: re.search(r"\d+/\d+\s*$", status(s)))
    tm.keys("a", "Tab")
    tm.wait_for(lambda s: "regions: all" in status(s))
    T.ok(D.idled(timing), "file: the viewer's idle work ran before the sorts")
    sort_to(tm, "PSS")
    check(tm, snap, "PSS", lambda r: r["pss"], True, "PSS largest first")
    tm.keys("S")
    check(tm, snap, "PSS", lambda r: r["pss"], False,
          "PSS smallest first (S)")
    tm.kill()
    allocs_same(path, xdg, len(regs))


def allocs_same(path, xdg, nregions):
    """The allocation list's orders, from the keys kept small and from
    the records: {(sort, reversed): the top rows' addresses shown}."""
    seen = []
    for k, env in enumerate(({}, {"VMSCOPE_SORT_RECORDS": "1"})):
        timing = "%s.timing%d" % (path, k)
        env = dict(env, XDG_CONFIG_HOME=xdg, VMSCOPE_TIMING=timing)
        tm = D.Tmux([T.VMSCOPE, "-t", "dark", "-l", path], width=200,
                    height=60, colours=256, term="tmux-256color", env=env)
        scr = tm.wait_for(lambda s: re.search(r"\d+/\d+\s*$", status(s)))
        if k == 0:
            T.ok(D.idled(timing), "allocations: the viewer's idle work ran "
                 "before the sorts from the keys kept small")
        tm.keys("Tab")
        scr = tm.wait_for(lambda s: re.search(r"sort \S", status(s)))
        m = re.search(r"(\d+)/(\d+)\s*$", status(scr))
        orders = {"rows": int(m.group(2)) if m else 0}
        for name in ("Size", "Committed", "Total WS", "Private WS", "PSS",
                     "Prot", "Type"):
            sort_to(tm, name)
            scr = tm.wait_for(lambda s, n=name: re.search(
                r"sort %s [v^]" % re.escape(n), status(s)))
            orders[(name, False)] = addrs(scr)
            before = status(scr)
            tm.keys("S")
            scr = tm.wait_for(lambda s, b=before: status(s) != b)
            orders[(name, True)] = addrs(scr)
        tm.kill()
        seen.append(orders)
    kept, records = seen
    T.ok(0 < kept["rows"] < nregions,
         "allocations: the list has fewer rows (%d) than the file has "
         "regions (%d)" % (kept["rows"], nregions))
    for k in sorted(x for x in kept if x != "rows"):
        T.ok(len(kept[k]) >= 10 and kept[k] == records[k],
             "allocations by %s%s: the same %d rows from the keys kept "
             "small as from the records" % (k[0], " (S)" if k[1] else "",
                                            len(kept[k])),
             "kept:    %s\nrecords: %s" % ([hex(a) for a in kept[k]],
                                           [hex(a) for a in records[k]]))


def sorts(p, snap, env, label):
    tm = D.Tmux([T.VMSCOPE, "-t", "dark", str(p.pid)], width=200,
                height=60, colours=256, term="tmux-256color", env=env)
    tm.label = label
    tm.wait_for(lambda s: "pss, not frozen" in s and
                re.search(r"\d+/\d+\s*$", status(s)))
    tm.keys("a", "Tab")
    tm.wait_for(lambda s: "regions: all" in status(s))
    if "VMSCOPE_SORT_RECORDS" not in env:
        T.ok(D.idled(env["VMSCOPE_TIMING"]),
             tm.label + "the viewer's idle work ran before the sorts (the "
             "keys kept small made)")
    T.ok(len({text(r) for r in snap["regions"]}) >= 5,
         tm.label + "the target's regions name at least 5 distinct texts")

    sort_to(tm, "Details")
    check(tm, snap, "Details", text, False, "Details ascending")
    tm.keys("S")
    check(tm, snap, "Details", text, True, "Details descending (S)")
    sort_to(tm, "Prot")
    check(tm, snap, "Prot", lambda r: r["perms"].encode(), False,
          "Prot ascending")
    sort_to(tm, "Type")
    check(tm, snap, "Type", lambda r: TYPES.index(r["type"]), False,
          "Type in display order")
    sort_to(tm, "Size")
    check(tm, snap, "Size", lambda r: r["size"], True,
          "Size largest first")
    tm.keys("S")
    check(tm, snap, "Size", lambda r: r["size"], False,
          "Size smallest first (S)")
    # by address the viewer sorts each start's rank among the rows, not
    # the start ([vsyscall]'s has the top bit set)
    sort_to(tm, "Address")
    tm.keys("S")
    tm.wait_for(lambda s: "sort Address v" in status(s))
    # the cursor's row kept: Home for the list's top (the status line
    # says where the cursor is)
    tm.keys("Home")
    tm.wait_for(lambda s: re.search(r"sort Address v \| 1/", status(s)))
    check(tm, snap, "Address", lambda r: int(r["start"], 16), True,
          "Address descending (S)")
    tm.kill()


def main():
    D.run_in_tmp("the details' sort orders in tmux", run)


main()
