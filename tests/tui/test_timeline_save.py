#!/usr/bin/env python3
"""Every snapshot of the timeline saved (issue 31 item 4), at 80x24 and
200x60, on the everykind target (it maps nothing once ready): two r's
make three snapshots; in the timeline (T) w offers a directory
(vmscope-pidPID-TIME) and, the one typed instead, saves each snapshot
there as a file of its own named as --watch -w names them
(TIME-pidPID.vms, by time); the status line says how many. Each file
opens with `vmscope -l`: the target's pid, the kernel's regions
(/proc/PID/maps); three different snapshots (their monotonic times), the
files in the order they were taken. Esc at the prompt writes nothing.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

NAME = re.compile(r"^\d{8}T\d{6}\.\d{3}Z-pid(\d+)\.vms$")


status = D.status


ready = D.ready


def loaded(path):
    r = T.run_vmscope("-l", path, "-e", "json")
    if r.returncode != 0:
        return None
    return json.loads(r.stdout)


def one(w, h, p, tmp):
    what = "%dx%d" % (w, h)
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=w, height=h,
                env={"NO_COLOR": "1"})
    tm.wait_for(ready, timeout=120)
    for n in (2, 3):
        tm.keys("r")
        tm.wait_for(lambda s, n=n: "%d in the timeline" % n in status(s),
                    timeout=120)
    scr = tm.expect("%s: T: the timeline has three snapshots" % what,
                    "3 snapshots", "T")
    scr = tm.expect("%s: w offers a directory" % what,
                    lambda s: "Save every snapshot to" in status(s), "w")
    T.ok(re.search(r"to the directory: vmscope-pid%d-\d{8}T\d{6}\.\d{3}Z_"
                   % p.pid, status(scr)),
         "%s: the directory offered names the process and the first "
         "snapshot's time" % what, status(scr))
    T.ok("Enter writes, Ctrl-U clears, Esc cancels" in D.bottom(scr, 2),
         "%s: the prompt's help whole (above it where the line is "
         "short), never cut" % what, D.bottom(scr, 2))
    tm.keys("Escape")
    tm.wait_for(lambda s: "Save every" not in status(s))
    T.ok(not [f for f in os.listdir(tmp) if f.startswith("vmscope-pid")],
         "%s: Esc at the prompt writes nothing" % what)

    d = os.path.join(tmp, "tl-%s" % what)
    tm.keys("w")
    tm.wait_for(lambda s: "Save every snapshot to" in status(s))
    tm.keys("C-u").text(d).keys("Enter")
    scr = tm.wait_for(lambda s: "saved " in s and d in s)
    T.ok(re.search(r"saved 3 snapshots \(.*\) to", scr),
         "%s: the status line says three snapshots were saved" % what,
         status(scr))
    files = sorted(os.listdir(d)) if os.path.isdir(d) else []
    T.ok(len(files) == 3 and all(NAME.match(f) and
                                 int(NAME.match(f).group(1)) == p.pid
                                 for f in files),
         "%s: a file each, named TIME-pidPID.vms" % what, files)
    kernel = [(m["start"], m["end"]) for m in T.maps(p.pid)]
    times = []
    for f in files:
        snap = loaded(os.path.join(d, f))
        regs = [(int(r["start"], 16), int(r["end"], 16))
                for r in snap["regions"]] if snap else None
        T.ok(snap and snap["process"]["pid"] == p.pid and regs == kernel,
             "%s: vmscope -l opens %s: the target's pid, the kernel's "
             "regions (%d)" % (what, f, len(kernel)))
        times.append(snap["capture"]["monotonic_ns"] if snap else None)
    T.ok(None not in times and len(set(times)) == 3 and
         times == sorted(times),
         "%s: three snapshots, three files, in the order they were taken"
         % what, times)
    tm.kill()


def run(tmp):
    p, _ = T.start([T.target("everykind"), os.path.join(tmp, "d")])
    one(80, 24, p, tmp)
    one(200, 60, p, tmp)
    T.kill(p)


def main():
    D.run_in_tmp("the timeline saved in tmux", run)


main()
