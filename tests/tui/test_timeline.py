#!/usr/bin/env python3
"""The timeline and the diff screen (issue 10, item 3), at 80x24 with
NO_COLOR and at 200x60 with -t light, on the grower target: r twice (the
second after the grower mapped its 100 MiB), T shows three snapshots; a
and b mark the last two, Enter compares them: one change is added, at the
grower's own address, +100 M, drawn in the theme's diff.added attributes
(the unchanged rows, shown by c, are not); Right opens it into B's region,
its exact range. `vmscope -d FILE PID` opens the same screen directly, and
--watch ticks fill the timeline by themselves.
"""
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

# The attributes of diff.added, as tmux's capture-pane -e shows them:
# mono (NO_COLOR) bold+underline; light: background 157.
ADDED = {"mono": "\x1b[0;1;4m", "light": "48;5;157"}


status = D.status


ready = D.ready


def line_with(scr, text):
    return next((l for l in scr.splitlines() if text in l), None)


def grow(p):
    p.stdin.write(b"grow\n")
    p.stdin.flush()
    return T.ready_fields(p.stdout.readline().decode().replace("grown",
                                                               "ready"))


def check_diff(tm, info, theme, what):
    """The diff screen on screen: the added mapping, highlighted, opens
    into B's region."""
    at = "%016x" % info["map"]
    scr = tm.wait_for(lambda s: "vmscope  diff" in s and at in s)
    row = line_with(scr, at)
    T.ok(row is not None and re.match(r"^\+ added\s+%s Private Data" % at,
                                      row) and "+100 M" in row,
         "%s: the 100 MiB mapping is one added row, +100 M" % what, scr)
    T.ok(re.search(r"diff  \d+ changes?: 1 added", scr),
         "%s: the title counts it" % what, scr.splitlines()[0])
    esc = tm.screen(escapes=True)
    erow = line_with(esc, at) or ""
    T.ok(ADDED[theme] in erow,
         "%s: the added row is drawn in diff.added" % what, repr(erow))
    tm.keys("c")
    scr = tm.wait_for(lambda s: re.search(r"all \| \d+/\d+\s*$", status(s)))
    same = [l for l in scr.splitlines() if re.match(r"^\+ same ", l)]
    esc = tm.screen(escapes=True)
    plain = [l for l in esc.splitlines() if "same " in l and
             ADDED[theme] not in l]
    T.ok(same and plain, "%s: c shows the unchanged groups too, not "
         "highlighted" % what, scr)
    tm.keys("c")
    scr = tm.wait_for(lambda s: re.search(r"changes \| \d+/\d+\s*$",
                                          status(s)))
    rows = [l for l in scr.splitlines() if re.match(r"^[+\-] \w+ +[0-9a-f]{16}", l)]
    k = next(i for i, l in enumerate(rows) if at in l)
    tm.keys("Home", *(["Down"] * k), "Right")
    end = "%016x" % (info["map"] + info["map_size"])
    scr = tm.wait_for("B %s-%s" % (at, end))
    T.ok("B %s-%s" % (at, end) in scr and
         not re.search(r"^    A %s" % at, scr, re.M),
         "%s: Right opens it into B's region (%s-%s), none of A's"
         % (what, at, end), scr)


def one_size(w, h, env, args, theme, what, tmp):
    p, _ = T.start([T.target("grower")])
    tm = D.Tmux([T.VMSCOPE] + args + [str(p.pid)], width=w, height=h,
                env=env, colours=256, term="tmux-256color")
    tm.wait_for(ready)
    tm.keys("r")
    scr = tm.wait_for("2 in the timeline")
    T.ok("2 in the timeline" in scr, "%s: r keeps the first snapshot "
         "(2 in the timeline)" % what, status(scr))
    fa = os.path.join(tmp, "before-%d.vms" % w)
    r = T.run_vmscope("-w", fa, p.pid)
    T.ok(r.returncode == 0, "%s: saved before it grows" % what, r.stderr)
    info = grow(p)
    tm.keys("r")
    # the status names the changes now, not the timeline's count
    scr = tm.wait_for(lambda s: re.search(r"new snapshot: \d+ regions; "
                                          r".*\badded", status(s)))
    T.ok(re.search(r"new snapshot: \d+ regions; .*\badded", status(scr)),
         "%s: r after it grew: the status says what was added" % what,
         status(scr))
    tm.keys("T")
    scr = tm.wait_for("3 snapshots")
    rows = re.findall(r"^ (?:A|B|AB| )\s+(\d+)  \d\d:\d\d:\d\d\.\d{3} ",
                      scr, re.M)
    T.ok(rows == ["1", "2", "3"], "%s: T shows three snapshots, one a row"
         % what, scr)
    spark = line_with(scr, "Committed ")
    T.ok(spark and re.search("[\u2588@] ", spark),
         "%s: the sparkline ends at its top (the 100 MiB)" % what, spark)
    tm.keys("Up", "a", "Down", "b")
    scr = tm.wait_for(lambda s: re.search(r"^ B +3 ", s, re.M))
    T.ok(re.search(r"^ A +2 ", scr, re.M) and re.search(r"^ B +3 ", scr,
                                                         re.M),
         "%s: a and b mark the last two" % what, scr)
    tm.keys("Enter")
    check_diff(tm, info, theme, what)
    tm.keys("Escape")
    scr = tm.wait_for("3 snapshots")
    T.ok("3 snapshots" in scr, "%s: Esc goes back to the timeline" % what,
         scr)
    tm.keys("Escape")
    scr = tm.wait_for(ready)
    T.ok("Regions" in scr or "Size" in scr,
         "%s: and Esc again to the viewer" % what, scr)
    tm.kill()

    # -d FILE PID: straight into the diff screen
    tm = D.Tmux([T.VMSCOPE] + args + ["-d", fa, str(p.pid)], width=w,
                height=h, env=env, colours=256, term="tmux-256color")
    check_diff(tm, info, theme, what + " -d FILE PID")
    tm.kill()
    T.kill(p)


def watch(tmp):
    p, _ = T.start([T.target("grower")])
    tm = D.Tmux([T.VMSCOPE, "--watch", "0.2", "--count", "3", str(p.pid)],
                width=100, height=30, env={"NO_COLOR": "1"})
    tm.wait_for(ready)
    tm.keys("T")
    scr = tm.wait_for("3 snapshots")
    T.ok("3 snapshots" in scr, "--watch 0.2 --count 3: the ticks fill the "
         "timeline with three snapshots", scr)
    tm.kill()
    T.kill(p)


def main():
    D.require_tmux("the timeline and the diff screen in tmux")
    tmp = tempfile.mkdtemp(prefix="vmstui-")
    try:
        one_size(80, 24, {"NO_COLOR": "1"}, [], "mono", "80x24 NO_COLOR",
                 tmp)
        one_size(200, 60, {"LANG": "C.UTF-8"}, ["-t", "light"], "light",
                 "200x60 -t light", tmp)
        watch(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


main()
