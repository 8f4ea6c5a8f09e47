#!/usr/bin/env python3
"""A screen's idle work (ui_screen.idle; the viewer faults in the scratch
its sorts use while nobody types): it runs once for each quiet spell of
250 ms, never again until a key or a new snapshot, and changes nothing
shown. The viewer logs each run to VMSCOPE_TIMING ("idle 0 US CPU").

On the everykind target at 120x40: once the snapshot is on screen, one
idle (polled for in the timing file) and no other in three quiet spells
more without keys, the screen the same before and after it; then each
key followed by quiet adds exactly one; the Size sort after it shows the
JSON's regions in that order.
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
QUIET = 0.25  # the viewer's quiet spell: getch's timeout in ui/ui.c


def lines_of(path, kind):
    try:
        with open(path) as f:
            return [l for l in f if l.split()[:1] == [kind]]
    except FileNotFoundError:
        return []


def wait_idles(path, n, timeout=20):
    """Polls the timing file until it has n idle lines (or timeout), then
    watches it for three quiet spells more, no key typed: how many it has
    then. The watch is no synchronisation but the window in which a second
    run would show: a slow machine can only hide one, never add one."""
    deadline = time.time() + timeout
    while len(lines_of(path, "idle")) < n and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(3 * QUIET)
    return lines_of(path, "idle")


def addrs(scr):
    return [int(m.group(2), 16) for m in
            (ROW.match(l) for l in scr.splitlines()) if m]


def status(scr):
    lines = scr.splitlines()
    return lines[-1] if lines else ""


def run(tmp):
    timing = os.path.join(tmp, "timing")
    p, _ = T.start([T.target("everykind"), os.path.join(tmp, "d")])
    snap = T.vmscope_json(p.pid)
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=120, height=40,
                env={"VMSCOPE_TIMING": timing}, colours=256,
                term="tmux-256color")
    tm.wait_for(lambda s: "pss, not frozen" in s and
                re.search(r"\d+/\d+\s*$", status(s)))
    tm.keys("a", "Tab")  # the region list, the details focused
    tm.wait_for(lambda s: "regions: all" in status(s))
    before = tm.screen()
    idles = wait_idles(timing, 1)
    T.ok(len(idles) == 1, "a quiet spell after the last key: one idle run, "
         "and no other in three more (%d)" % len(idles), "".join(idles))
    T.eq(tm.screen(), before, "the idle changed nothing shown")
    for n in range(2, 6):  # Tab four times: the focus back on the details
        tm.keys("Tab")
        got = len(wait_idles(timing, n))
        T.ok(got == n, "a key, then a quiet spell: one more idle run, and "
             "no other in three more (%d, want %d)" % (got, n))
    for _ in range(20):  # to the Size sort
        if re.search(r"sort Size v", status(tm.screen())):
            break
        old = status(tm.screen())
        tm.keys("s")
        tm.wait_for(lambda s, b=old: status(s) != b, timeout=10)
    order = sorted(snap["regions"], key=lambda r: int(r["start"], 16))
    order = sorted(order, key=lambda r: r["size"], reverse=True)
    tm.keys("g")  # the first row: the cursor stayed on its region
    scr = tm.wait_for(lambda s: addrs(s)[:1] ==
                      [int(order[0]["start"], 16)], timeout=10)
    shown = addrs(scr)
    want = [int(r["start"], 16) for r in order][:len(shown)]
    T.ok(len(shown) >= 10 and shown == want,
         "after the idle, Size sorts as the JSON's regions say (%d rows)"
         % len(shown), "shown %s\nwant  %s\n%s" % (shown, want, scr))
    tm.kill()
    T.kill(p)


def main():
    D.run_in_tmp("a screen's idle work in tmux", run)


main()
