#!/usr/bin/env python3
"""Save and export from the screen (issue 31 item 4), on the everykind
target at 200x60 and 80x24: w offers a name (--watch -w's,
TIME-pidPID.vms) and saves the snapshot on screen to the file typed (a
small process's snapshots keep the kernel's text a file holds); under
-b fork, whose captures do not keep it, the snapshot is taken again
keeping it, and the prompt says so; `vmscope -l FILE` opens the
file, its regions the kernel's (/proc/PID/maps: everykind maps nothing
after it is ready) and its pid the target's. w on that snapshot saves it
at once; Esc at the prompt writes nothing. e opens a menu of the export
formats; json writes the JSON export of the snapshot on screen, its
regions the kernel's too. A snapshot opened with -l saves again to a
file that loads the same.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402


status = D.status


ready = D.ready


def regions(snap):
    return [(int(r["start"], 16), int(r["end"], 16)) for r in
            snap["regions"]]


def kernel(pid):
    return [(m["start"], m["end"]) for m in T.maps(pid)]


def loaded(path):
    r = T.run_vmscope("-l", path, "-e", "json")
    if r.returncode != 0:
        return None, r.stderr.decode(errors="replace")
    return json.loads(r.stdout), ""


def one(p, tmp, w, h):
    what = "%dx%d" % (w, h)
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=w, height=h)
    tm.wait_for(ready, timeout=120)
    tm.keys("w")
    scr = tm.wait_for(lambda s: "Save to: " in status(s), timeout=120)
    m = re.search(r" to: (\d{8}T\d{6}Z-pid(\d+)\.vms)_", status(scr))
    T.ok(m and int(m.group(2)) == p.pid and
         "(the snapshot just taken" not in D.bottom(scr),
         "%s: w on a live snapshot of a small process: it kept what a "
         "file holds, a name offered at once (TIME-pidPID.vms)" % what,
         status(scr))
    T.ok("Enter writes, Ctrl-U clears, Esc cancels" in D.bottom(scr, 2),
         "%s: the prompt's help whole (wrapped above it where the line "
         "is short), never cut" % what, D.bottom(scr, 2))
    default = m.group(1) if m else "none"
    tm.keys("Escape")
    tm.wait_for(lambda s: " to: " not in status(s))
    T.ok(not os.path.exists(default),
         "%s: Esc at the prompt writes nothing" % what)

    path = os.path.join(tmp, "%s.vms" % what)
    tm.keys("w")
    scr = tm.wait_for(lambda s: "Save to: " in status(s))
    T.ok("Save to: " in status(scr) and "just taken" not in status(scr),
         "%s: w again: the snapshot on screen keeps it, saved as it is"
         % what, status(scr))
    tm.keys("C-u").text(path).keys("Enter")
    scr = tm.wait_for(lambda s: "saved " in status(s))
    T.ok(("to %s" % path) in status(scr) and os.path.exists(path),
         "%s: the status line says where it was saved" % what, status(scr))
    snap, why = loaded(path)
    T.ok(snap and snap["process"]["pid"] == p.pid and
         regions(snap) == kernel(p.pid),
         "%s: vmscope -l opens the file: the target's pid, the kernel's "
         "regions (%d)" % (what, len(snap["regions"]) if snap else 0),
         why)

    jpath = os.path.join(tmp, "%s.json" % what)
    tm.keys("e")
    scr = tm.wait_for("Export the snapshot as")
    lines = scr.splitlines()
    top = next(i for i, ln in enumerate(lines)
               if "Export the snapshot as" in ln)
    names = []
    for ln in lines[top + 1:]:
        mm = re.match(r"^ (\w+) ", ln[2:])
        if not mm or "Enter chooses" in ln:
            break
        names.append(mm.group(1))
    T.ok("json" in names and "csv" in names and "text" in names,
         "%s: e: a menu of the export formats (%s)" % (what,
                                                      ", ".join(names)),
         "\n".join(lines[top:top + 8]))
    tm.keys(*(["Down"] * names.index("json") if "json" in names else []))
    tm.keys("Enter")
    scr = tm.wait_for(lambda s: "Export to: " in status(s))
    T.ok(re.search(r"Export to: \d{8}T\d{6}Z-pid%d-json\.json_" % p.pid,
                   status(scr)),
         "%s: a name offered for the export" % what, status(scr))
    tm.keys("C-u").text(jpath).keys("Enter")
    scr = tm.wait_for(lambda s: "exported" in status(s))
    try:
        with open(jpath) as f:
            ex = json.load(f)
    except (OSError, ValueError) as e:
        ex = None
        print("# %s" % e)
    T.ok(ex and ex["process"]["pid"] == p.pid and
         regions(ex) == kernel(p.pid),
         "%s: the JSON export written: the kernel's regions" % what,
         status(scr))
    tm.kill()
    return path


def fork(p, tmp):
    """Under -b fork a capture keeps no kernel's text (its fast freeze
    does without it): w takes the snapshot again keeping it, and says
    so; that one saved opens with -l."""
    tm = D.Tmux([T.VMSCOPE, "-b", "fork", str(p.pid)], width=120,
                height=40)
    tm.wait_for(lambda s: "fork, frozen" in s and
                re.search(r"\d+/\d+\s*$", status(s)), timeout=120)
    tm.keys("w")
    scr = tm.wait_for(lambda s: "Save to: " in status(s), timeout=120)
    T.ok("(the snapshot just taken: it keeps what a file holds)  Enter "
         "writes, Ctrl-U clears, Esc cancels" in D.bottom(scr, 2),
         "-b fork: w takes the snapshot again to keep what a file holds, "
         "and says so", status(scr))
    path = os.path.join(tmp, "fork.vms")
    tm.keys("C-u").text(path).keys("Enter")
    scr = tm.wait_for(lambda s: "saved " in status(s))
    snap, why = loaded(path)
    T.ok(snap and snap["process"]["pid"] == p.pid and
         regions(snap) == kernel(p.pid),
         "-b fork: the file saved opens with -l: the kernel's regions", why)
    tm.kill()


def from_file(tmp, path, w, h):
    """A snapshot opened with -l says so in the header, with the time it
    was taken (at 80x24 on the one line of the short header, where the
    file's name gives way to it), saves again, and loads the same."""
    what = "%dx%d" % (w, h)
    again = os.path.join(tmp, "again-%s.vms" % what)
    tm = D.Tmux([T.VMSCOPE, "-l", path], width=w, height=h)
    scr = tm.wait_for(lambda s: re.search(r"\d+/\d+\s*$", status(s)))
    lines = scr.splitlines()
    taken = re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", lines[0])
    if h < 40:  # the short header: "NAME: comm  pid N ... TIME"
        head = lines[0][1:lines[0].index(":")] if ":" in lines[0] else ""
        named = head and os.path.basename(path).startswith(head) and \
            taken and taken.start() > lines[0].index(":")
    else:
        named = lines[0].startswith(
            " vmscope  file %s  " % os.path.basename(path)) and \
            "Taken 20" in lines[1]
    T.ok(named, "%s: a snapshot opened with -l: the header names its "
         "file, the time it was taken beside" % what, lines[:2])
    tm.keys("w")
    tm.wait_for(lambda s: "Save to: " in status(s))
    tm.keys("C-u").text(again).keys("Enter")
    # (wrapped over the lines above the status line at 80 columns)
    scr = tm.wait_for(lambda s: "saved " in D.bottom(s))
    a, _ = loaded(path)
    b, why = loaded(again)
    T.ok(a and b and a["regions"] == b["regions"] and
         a["totals"] == b["totals"],
         "%s: a snapshot opened with -l saves to a file that loads the "
         "same" % what, "%s %s" % (D.bottom(scr), why))
    tm.kill()


def run(tmp):
    p, _ = T.start([T.target("everykind"), os.path.join(tmp, "d")])
    path = one(p, tmp, 200, 60)
    one(p, tmp, 80, 24)
    fork(p, tmp)
    for w, h in ((80, 24), (120, 40), (200, 60)):
        from_file(tmp, path, w, h)
    T.kill(p)


def main():
    D.run_in_tmp("save and export from the screen in tmux", run)


main()
