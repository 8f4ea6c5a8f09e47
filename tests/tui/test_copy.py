#!/usr/bin/env python3
"""Copy to the terminal's clipboard (issue 31 item 4), at 80x24 and
200x60, on the everykind target, in a tmux that takes OSC 52 into its
paste buffer (set-clipboard on): the cursor put on the memfd's row (the
region list, a, and find, /), y opens a menu of what to copy; a copies
the row's address (0x..., the kernel's start of the region), p its path
(the kernel's, /proc/PID/maps), r the row as it is on screen; the status
line says what was copied; Esc closes the menu, copying nothing.

A path longer than 1,024 bytes (the target's data file deep in
directories, an "é" across its 1,024th byte) is copied whole, never cut
inside a character.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402


status = D.status


ready = D.ready


row_at = D.row_at


def buffer(tm):
    r = subprocess.run(tm.base + ["show-buffer"], capture_output=True,
                       timeout=30)
    return r.stdout.decode(errors="replace") if r.returncode == 0 else None


def one(w, h, p, f):
    what = "%dx%d" % (w, h)
    m = next((m for m in T.maps(p.pid) if m["start"] == f["memfd"]), None)
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=w, height=h,
                env={"NO_COLOR": "1"})
    tm._run("set-option", "-g", "set-clipboard", "on")
    tm.wait_for(ready, timeout=120)
    tm.keys("Tab", "a", "/")
    tm.text("memfd:")
    tm.keys("Enter")
    scr = tm.wait_for(lambda s: row_at(s, f["memfd"]) and
                      "Find:" not in status(s))
    shown = (row_at(scr, f["memfd"]) or "").rstrip()
    scr = tm.expect("%s: y opens the copy menu" % what,
                    "Copy to the clipboard", "y")
    tm.keys("Escape")
    scr = tm.wait_for(lambda s: "Copy to the clipboard" not in s)
    T.ok(buffer(tm) is None,
         "%s: Esc closes the menu, nothing copied" % what, buffer(tm))

    tm.keys("y", "a")
    scr = tm.wait_for(lambda s: "copied the address" in s)
    T.ok(buffer(tm) == "0x%x" % m["start"],
         "%s: a: the clipboard has the memfd's address, 0x%x"
         % (what, m["start"]), buffer(tm))
    T.ok("OSC 52" in scr and "copied the address" in scr,
         "%s: the status line says what was copied" % what, status(scr))
    tm.keys("y", "p")
    tm.wait_for(lambda s: "copied the path" in s)
    T.ok(buffer(tm) == m["path"],
         "%s: p: the clipboard has the kernel's path, %s"
         % (what, m["path"]), buffer(tm))
    tm.keys("y", "r")
    tm.wait_for(lambda s: "copied the row" in s)
    T.ok(shown and buffer(tm) == shown,
         "%s: r: the clipboard has the row as it is on screen" % what,
         "%r\n%r" % (buffer(tm), shown))
    tm.kill()


def long_path(tmp):
    """A data file whose path is over 1,024 bytes, an "é" (two bytes)
    starting at its byte 1,023: p copies it whole."""
    d = os.path.join(tmp, "deep")
    while 1023 - len(os.fsencode(d)) > 200:
        d = os.path.join(d, "a" * 150)
    # d/bbb.../long-é: two slashes before "long-"
    pad = 1023 - len(os.fsencode(d)) - 2 - len("long-")
    d = os.path.join(d, "b" * pad)
    os.makedirs(d)
    path = os.path.join(d, "long-\u00e9-copied-whole.dat")
    raw = os.fsencode(path)
    T.ok(len(raw) > 1024 and raw[1023:1025] == "\u00e9".encode(),
         "a path of %d bytes, an e-acute at byte 1023" % len(raw))
    p, line = T.start([T.target("everykind"), path])
    f = T.ready_fields(line)
    m = next((m for m in T.maps(p.pid) if m["start"] == f["datafile"]),
             None)
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=80, height=24,
                env={"NO_COLOR": "1"})
    tm._run("set-option", "-g", "set-clipboard", "on")
    tm.wait_for(ready, timeout=120)
    tm.keys("Tab", "a", "/")
    tm.text("copied-whole")
    tm.keys("Enter")
    tm.wait_for(lambda s: row_at(s, f["datafile"]) and
                "Find:" not in status(s))
    tm.keys("y", "p")
    scr = tm.wait_for(lambda s: "copied the path" in s)
    T.ok(m and m["path"] == path and buffer(tm) == path,
         "a path of %d bytes: p copies it whole (%d bytes in the "
         "clipboard)" % (len(raw), len((buffer(tm) or "").encode())),
         D.bottom(scr))
    tm.kill()
    T.kill(p)


def run(tmp):
    p, line = T.start([T.target("everykind"), os.path.join(tmp, "d")])
    f = T.ready_fields(line)
    one(80, 24, p, f)
    one(200, 60, p, f)
    T.kill(p)
    long_path(tmp)


def main():
    D.run_in_tmp("copy to the clipboard in tmux", run)


main()
