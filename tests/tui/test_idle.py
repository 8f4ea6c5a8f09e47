#!/usr/bin/env python3
"""A screen's idle work (ui_screen.idle; the viewer faults in the scratch
its sorts use while nobody types): it runs once as soon as no key waits
after a key or a new snapshot, never again until the next, and changes
nothing shown. The viewer logs each run to VMSCOPE_TIMING ("idle SOON US
CPU", SOON 1 where it ran as soon as no key waited, 0 where it ran after
getch's wait of 250 ms: the viewer's loop before this).

On the everykind target at 120x40, once the capture is on screen (the
timing file's "full"): after the last key, one idle run (polled for in the
timing file, counted after that key's line) and no other in three quiet
spells more, the screen the same before and after it; the same after each
of four more keys; the Size sort after it shows the JSON's regions in that
order. (Idle runs between keys are the viewer's right on a slow machine:
tmux sends each key on its own.)
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
QUIET = 0.25  # getch's timeout in ui/ui.c: the loop wakes that often, idle or not


def timing_lines(path):
    try:
        with open(path) as f:
            return [l.split()[0] for l in f if l.split()]
    except FileNotFoundError:
        return []


def after_last_key(path):
    """What the timing file logged after the last key: "idle" for each
    run of the screen's idle work, "full" when a capture was on screen."""
    kinds = timing_lines(path)
    last = max([i for i, k in enumerate(kinds) if k == "key"], default=-1)
    return kinds[last + 1:]


def soon_after_last_key(path):
    """The SOON field of each idle run logged after the last key ("idle
    SOON US CPU"): 1 run as soon as no key waited, 0 after a wait."""
    try:
        with open(path) as f:
            rows = [l.split() for l in f if l.split()]
    except FileNotFoundError:
        return []
    last = max([i for i, w in enumerate(rows) if w[0] == "key"],
               default=-1)
    return [w[1] for w in rows[last + 1:] if w[0] == "idle"]


def wait_idles(path, keys, timeout=20):
    """Polls the timing file until it has logged keys keys and an idle run
    after the last (or timeout), then watches it for three quiet spells
    more, no key typed: the idle runs after the last key then, each
    SOON field. The watch is no synchronisation but the window in which a
    second run would show: a slow machine can only hide one, never add
    one."""
    deadline = time.time() + timeout
    while time.time() < deadline and not (
            timing_lines(path).count("key") >= keys and
            "idle" in after_last_key(path)):
        time.sleep(0.02)
    time.sleep(3 * QUIET)
    return soon_after_last_key(path)


def addrs(scr):
    return [int(m.group(2), 16) for m in
            (ROW.match(l) for l in scr.splitlines()) if m]


status = D.status


def run(tmp):
    timing = os.path.join(tmp, "timing")
    p, _ = T.start([T.target("everykind"), os.path.join(tmp, "d")])
    snap = T.vmscope_json(p.pid)
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=120, height=40,
                env={"VMSCOPE_TIMING": timing}, colours=256,
                term="tmux-256color")
    tm.wait_for(lambda s: "pss, not frozen" in s and
                re.search(r"\d+/\d+\s*$", status(s)))
    # the capture on screen (a new snapshot has its own idle run)
    deadline = time.time() + 120
    while "full" not in timing_lines(timing) and time.time() < deadline:
        time.sleep(0.02)
    T.ok("full" in timing_lines(timing), "the capture is on screen",
         timing_lines(timing))
    keys = timing_lines(timing).count("key")
    tm.keys("a", "Tab")  # the region list, the details focused
    tm.wait_for(lambda s: "regions: all" in status(s))
    before = tm.screen()
    got = wait_idles(timing, keys + 2)
    T.ok(got == ["1"], "after the last key: one idle run, as soon as no "
         "key waited (not after a quiet spell), and no other in three "
         "quiet spells more (%s)" % got, " ".join(timing_lines(timing)))
    T.eq(tm.screen(), before, "the idle changed nothing shown")
    for n in range(3, 7):  # Tab four times: the focus back on the details
        tm.keys("Tab")
        got = wait_idles(timing, keys + n)
        T.ok(got == ["1"], "a key: one idle run after it as soon as no key "
             "waited, and no other in three quiet spells more (%s)" % got,
             " ".join(timing_lines(timing)))
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
