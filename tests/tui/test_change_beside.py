#!/usr/bin/env python3
"""Each figure's change beside it (issue 31 item 3: "can show the change
beside each figure"), at 200x60 and 80x24, on the changer target (see
test_changes.py: between two snapshots it grows one region 8 to 16 MiB,
unmaps another, maps a new one).

The setup's Change (F2, its last row, Space) is written to the settings
file ("column change on") and read at the next start. Before a second
snapshot there is nothing to compare with: no change column. After r, the
details' heading has "+/-" after Size (and at 200 columns after each
figure shown); the grown region's row has its size, then its growth by
the kernel's maps (before and after); the removed region its size then
all of it gone; one with half its pages dropped its Size and Committed
with nothing beside them (the same), and at 200 columns its WS then the
kernel's Rss's drop; the thread's arena (its heap grown in place)
nothing beside Size, its growth beside Committed; a click on a "+/-"
heading sorts nothing; the summary's Total row its Size, then how much the
kernel's maps grew in all. D shows the changes in place of the figures:
no column beside them then; D again, beside again. At 80x24 Size keeps
its change before Committed.
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402


def heading(scr):
    """The details' heading line."""
    return next((ln for ln in scr.splitlines()
                 if ln.startswith("  Address")), "")


def total_maps(pid):
    return sum(m["end"] - m["start"] for m in T.maps(pid))


def one(tmp, w, h, via_setup):
    what = "%dx%d" % (w, h)
    xdg = os.path.join(tmp, "xdg-%d" % w)
    conf = os.path.join(xdg, "vmscope", "config")
    if not via_setup:
        os.makedirs(os.path.dirname(conf))
        with open(conf, "w") as f:
            f.write("column change on\n")
    p, line = T.start([T.target("changer")])
    f = T.ready_fields(line)
    before = {k: D.maps_size(p.pid, f[k]) for k in ("grow", "gone")}
    ws_before = D.smaps_rss(p.pid, f["keep"])
    total_before = total_maps(p.pid)
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=w, height=h,
                env={"XDG_CONFIG_HOME": xdg})
    scr = tm.wait_for(D.ready, timeout=120)
    if via_setup:
        tm.keys("F2")
        tm.wait_for(lambda s: "Change" in s and "Meaning" in s)
        tm.keys("End")
        tm.wait_for(lambda s: re.search(r"^> \[ \] +Change ", s, re.M))
        tm.keys("Space")
        scr = tm.wait_for(lambda s: re.search(r"^> \[x\] +Change ", s,
                                              re.M))
        with open(conf) as fh:
            text = fh.read()
        T.ok("column change on\n" in text,
             "%s: the setup's Change shown, written to the settings file"
             % what, text)
        tm.keys("Escape")
        scr = tm.wait_for(D.ready)
    T.ok("+/-" not in scr,
         "%s: Change on, but nothing to compare with yet: no change "
         "column" % what, heading(scr))
    y = next(i for i, ln in enumerate(scr.splitlines())
             if ln.startswith(" Private Data "))
    tm.click(3, y)
    scr = tm.wait_for(lambda s: "Private Data |" in D.status(s))

    p.stdin.write(b"\n")
    p.stdin.flush()
    done = T._line_by(p, time.time() + 60)
    T.ok(done and done.startswith("changed"), "%s: the target changed"
         % what, done)
    grow = D.maps_size(p.pid, f["grow"])
    keep_size = D.maps_size(p.pid, f["keep"])
    ws_after = D.smaps_rss(p.pid, f["keep"])
    total_delta = total_maps(p.pid) - total_before
    tm.keys("r")
    scr = tm.wait_for(lambda s: "new snapshot: " in D.status(s),
                      timeout=120)
    head = heading(scr)
    T.ok(re.search(r" Size +\+/- +Committed ", head) and
         (w < 120 or re.search(r" WS +\+/- ", head)),
         "%s: after r, the heading has +/- after Size%s" %
         (what, "" if w < 120 else " and after WS"), head)
    row = D.row_at(scr, f["grow"])
    want = r"Private Data +%s +%s " % (
        re.escape(D.size_text(grow)),
        re.escape(D.delta_text(grow - before["grow"])))
    T.ok(row and re.search(want, row),
         "%s: the grown region: its size %s, then beside it %s (maps: "
         "%d -> %d)" % (what, D.size_text(grow),
                        D.delta_text(grow - before["grow"]), before["grow"],
                        grow), row)
    row = D.row_at(scr, f["gone"])
    want = r"Private Data +%s +%s " % (
        re.escape(D.size_text(before["gone"])),
        re.escape(D.delta_text(-before["gone"])))
    T.ok(row and "[removed]" in row and re.search(want, row),
         "%s: the removed region: the size it had, then all of it gone"
         % what, row)
    # half the pages of this one dropped: its Size and Committed the
    # same (nothing beside them: the next figure follows at once), its
    # WS down by the kernel's Rss
    row = D.row_at(scr, f["keep"])
    size = re.escape(D.size_text(keep_size))
    want = r"Private Data +%s +%s(\s|$)" % (size, size)
    if w >= 120:
        want += r" *%s +%s " % (re.escape(D.size_text(ws_after)),
                              re.escape(D.delta_text(ws_after - ws_before)))
    T.ok(ws_after < ws_before and row and re.search(want, row),
         "%s: a region with pages dropped: Size and Committed%s, nothing "
         "beside them%s" % (what, " " + D.size_text(keep_size),
                            "" if w < 120 else ", WS %s then %s" % (
                                D.size_text(ws_after),
                                D.delta_text(ws_after - ws_before))), row)
    tot = D.summary_row(scr, "Total")
    m = tot and re.match(r".{15} *(\S+ \S) +([+-]\S+ \S)", tot)
    T.ok(m and m.group(2) == D.delta_text(total_delta),
         "%s: the summary's Total: its Size, then how much the kernel's "
         "maps grew, %s" % (what, D.delta_text(total_delta)), tot)
    # a click on a +/- heading sorts nothing (no list is sorted by it)
    tm.keys("Down", "Up")  # the status line's sort again, not r's message
    scr = tm.wait_for(lambda s: "sort " in D.status(s))
    lines = scr.splitlines()
    y = next(i for i, ln in enumerate(lines) if ln.startswith("  Address"))
    x = lines[y].index("+/-")
    st = D.status(scr)
    tm.click(x + 1, y)
    tm.keys("Down", "Up")
    scr = tm.screen()
    T.ok(re.search(r"sort \S+", st) and
         re.search(r"sort \S+", D.status(scr)).group(0) ==
         re.search(r"sort \S+", st).group(0),
         "%s: a click on +/- changes no sort" % what,
         "%s\n%s" % (st, D.status(scr)))
    # the thread's arena (its heap grown in place: the same size, more
    # committed): nothing beside Size, Committed's growth beside it
    arena = next((m for m in T.maps(p.pid)
                  if m["start"] <= f["tarena"] < m["end"]), None)
    y = next(i for i, ln in enumerate(scr.splitlines())
             if ln.startswith(" Heap "))
    tm.click(3, y)
    scr = tm.wait_for(lambda s: "Heap |" in D.status(s))
    row = arena and D.row_at(scr, arena["start"])
    # (at 80 columns Committed's change gives way to Details)
    want = r" Heap +\S+ \S +\S+ \S +" + (r"\+\S+ \S " if w >= 120
                                          else r"\[grown ")
    T.ok(row and re.search(want, row),
         "%s: the thread's arena: nothing beside its Size (the same)%s"
         % (what, ", its Committed's growth beside Committed" if w >= 120
            else ""), row)
    scr = tm.expect("%s: D: the figures are the changes, none beside them"
                    % what, lambda s: "changes since" in s and
                    "+/-" not in heading(s), "D")
    scr = tm.expect("%s: D again: the figures, their changes beside"
                    % what, lambda s: "changes since" not in s and
                    "+/-" in heading(s), "D")
    tm.kill()
    T.kill(p)


def run(tmp):
    one(tmp, 200, 60, True)
    one(tmp, 80, 24, False)


D.run_in_tmp("each figure's change beside it, in tmux", run)
