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
all of it gone; the summary's Total row its Size, then how much the
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
    tot = D.summary_row(scr, "Total")
    m = tot and re.match(r".{15} *(\S+ \S) +([+-]\S+ \S)", tot)
    T.ok(m and m.group(2) == D.delta_text(total_delta),
         "%s: the summary's Total: its Size, then how much the kernel's "
         "maps grew, %s" % (what, D.delta_text(total_delta)), tot)
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
