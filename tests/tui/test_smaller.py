#!/usr/bin/env python3
"""The smaller things of issue 31 (item 8), at 80x24 and 200x60, on the
everykind target:

  - a memfd's row says it is deleted once: the kernel's path already ends
    with " (deleted)" (/proc/PID/maps), so no "[deleted]" after it (in the
    region list, a, found with /);
  - under --watch the status line keeps the key hints: a tick (the
    header's time moves) says nothing there, where each used to put its
    "new snapshot" message over them until a key.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

TAKEN = re.compile(r"\d\d:\d\d:\d\d")


status = D.status


ready = D.ready


row_at = D.row_at


def memfd(w, h, p, f):
    what = "%dx%d" % (w, h)
    path = next((m["path"] for m in T.maps(p.pid)
                 if m["start"] == f["memfd"]), "")
    T.ok(path.startswith("/memfd:") and path.endswith(" (deleted)"),
         "%s: the kernel names the memfd %s" % (what, path))
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=w, height=h,
                env={"NO_COLOR": "1"})
    tm.wait_for(ready, timeout=120)
    tm.keys("a", "/")
    tm.text("memfd:")
    tm.keys("Enter")
    scr = tm.wait_for(lambda s: row_at(s, f["memfd"]))
    r = row_at(scr, f["memfd"]) or ""
    T.ok(r and "memfd:" in r and "[deleted" not in r and
         r.count("deleted") == (1 if w >= 120 else r.count("deleted")) and
         r.count("dele") <= 1,
         "%s: the memfd's row says deleted once (at 80 columns its end "
         "may be cut)" % what, r)
    tm.kill()


def watch(w, h, p):
    what = "%dx%d --watch 0.3" % (w, h)
    tm = D.Tmux([T.VMSCOPE, "--watch", "0.3", str(p.pid)], width=w,
                height=h, env={"NO_COLOR": "1"})
    scr = tm.wait_for(ready, timeout=120)
    first = TAKEN.findall(scr.splitlines()[0] + scr.splitlines()[1])
    # a tick took a new snapshot: the header's time moved
    scr = tm.wait_for(lambda s: ready(s) and TAKEN.findall(
        s.splitlines()[0] + s.splitlines()[1]) != first, timeout=60)
    T.ok(TAKEN.findall(scr.splitlines()[0] + scr.splitlines()[1]) != first,
         "%s: a tick took a new snapshot (the header's time moved)" % what)
    T.ok("F1 help" in status(scr) and "new snapshot" not in status(scr),
         "%s: after the tick the status line has the key hints" % what,
         status(scr))
    tm.kill()


def run(tmp):
    p, line = T.start([T.target("everykind")])
    f = T.ready_fields(line)
    for w, h in ((80, 24), (200, 60)):
        memfd(w, h, p, f)
        watch(w, h, p)
    T.kill(p)


def main():
    D.run_in_tmp("the smaller things of issue 31 in tmux", run)


main()
