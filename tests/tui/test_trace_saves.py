#!/usr/bin/env python3
"""Snapshots saved from the viewer while it traces keep the trace up to
each (issue 29 item 6), at 80x24, on traced_calls "hold 0" (10 blocks of
3000 bytes leaked in hold_leak at its start, 1 MiB mapped, then 20
blocks of 5000 in grow_leak at each SIGUSR1) under `vmscope --trace --`:

  - the first snapshot, then C (hold_leak's site shown: its leak is
    read), r (a second snapshot, a mark), SIGUSR1 (grow_leak's site
    shown: its leak is read), r (a third);
  - in the viewer, w saves the snapshot on screen: `-l FILE -e json` has
    the trace up to it, grow_leak's 20 blocks outstanding;
  - in the timeline, w saves all three, each with the trace up to it;
  - `-d` of the second and third files reports the window between them:
    grow_leak's 20 blocks (100,000 bytes) outstanding, hold_leak's 10
    lasting, nothing transient or released; `-d` of the first and the
    third: every site's window is the third's figures less the first's.
"""
import json
import os
import re
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

status = D.status


def site_row(scr, fn):
    return next((ln for ln in scr.splitlines()
                 if re.match(r"^ [+-] heap ", ln) and fn in ln), None)


def trace_of(path):
    r = T.run_vmscope("-l", path, "-e", "json")
    return json.loads(r.stdout).get("trace") if r.returncode == 0 else None


def window(a, b):
    r = T.run_vmscope("-d", a, b, "-e", "json")
    return json.loads(r.stdout).get("trace_window") \
        if r.returncode == 0 else None


def fig(tr, fn, what):
    s = [x for x in (tr or {}).get("sites", [])
         if any(f["function"] == fn for f in x["frames"])]
    return s[0][what] if len(s) == 1 else {"count": 0, "bytes": 0}


def run(tmp):
    lib = os.path.join(T.BUILD, "libvmstrace.so")
    tm = D.Tmux([T.VMSCOPE, "--trace", "--", T.target("traced_calls"),
                 "hold", "0"], width=80, height=24,
                env={"NO_COLOR": "1", "VMSCOPE_TRACELIB": lib})
    pid = None
    try:
        tm.wait_for(lambda s: "pss, not frozen" in s, timeout=60)
        pid = tm.launched_pid()
        if not T.ok(pid is not None, "the traced program runs"):
            return
        tm.expect("C shows hold_leak's site", lambda s:
                  site_row(s, "hold_leak"), "C")
        tm.keys("r")
        tm.wait_for(lambda s: "new snapshot" in s, timeout=60)
        os.kill(pid, signal.SIGUSR1)
        tm.wait_for(lambda s: site_row(s, "grow_leak"), timeout=60)
        tm.keys("Escape")
        tm.wait_for(lambda s: "Address" in s and "call sites" not in s)
        tm.keys("r")
        tm.wait_for(lambda s: "3 in the timeline" in status(s), timeout=60)

        one = os.path.join(tmp, "one.vms")
        tm.keys("w")
        tm.wait_for(lambda s: "Save" in status(s))
        tm.keys("C-u").text(one).keys("Enter")
        tm.wait_for(lambda s: "saved " in s and "one.vms" in s)
        tr = trace_of(one)
        T.ok(tr is not None and fig(tr, "grow_leak", "outstanding") ==
             {"count": 20, "bytes": 100000},
             "w in the viewer: the file has the trace up to the snapshot, "
             "grow_leak's 20 blocks outstanding", tr and tr.get("sites"))

        d = os.path.join(tmp, "all")
        tm.keys("T")
        tm.wait_for(lambda s: "3 snapshots" in s)
        tm.keys("w")
        tm.wait_for(lambda s: "Save every snapshot to" in status(s))
        tm.keys("C-u").text(d).keys("Enter")
        tm.wait_for(lambda s: "saved " in s and "all" in s)
        files = sorted(os.path.join(d, f) for f in os.listdir(d)) \
            if os.path.isdir(d) else []
        trs = [trace_of(f) for f in files]
        if not T.ok(len(files) == 3 and all(trs),
                    "T, w: three files, each with its trace", files):
            return
        w = window(files[1], files[2])
        T.ok(w is not None and
             fig(w, "grow_leak", "outstanding") ==
             {"count": 20, "bytes": 100000} and
             fig(w, "hold_leak", "lasting") ==
             {"count": 10, "bytes": 30000} and
             all(fig(w, fn, k) == {"count": 0, "bytes": 0}
                 for fn in ("grow_leak", "hold_leak")
                 for k in ("transient", "released")),
             "-d second third: grow_leak's 20 blocks outstanding, "
             "hold_leak's 10 lasting, nothing transient or released",
             w and w.get("sites"))
        w = window(files[0], files[2])
        bad = [fn for fn in ("grow_leak", "hold_leak")
               if w is None or
               fig(w, fn, "outstanding")["bytes"] +
               fig(w, fn, "lasting")["bytes"] !=
               fig(trs[2], fn, "outstanding")["bytes"] or
               fig(w, fn, "released")["bytes"] +
               fig(w, fn, "lasting")["bytes"] !=
               fig(trs[0], fn, "outstanding")["bytes"]]
        T.ok(not bad, "-d first third: each site's window is the third's "
             "figures less the first's", bad)
    finally:
        tm.kill()
        T.kill_gone(pid)


def main():
    D.run_in_tmp("snapshots saved while tracing, in tmux", run)


main()
