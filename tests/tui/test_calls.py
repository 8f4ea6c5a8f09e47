#!/usr/bin/env python3
"""The call sites screen of a traced command (vmscope --trace -- CMD, C in
the viewer), at 120x40 and at 80x24 with NO_COLOR, on traced_calls "hold"
(10 blocks of 3000 bytes leaked in hold_leak at its start, 20 of 5000 in
grow_leak at each SIGUSR1):

  - C lists hold_leak's site with its 10 outstanding blocks, 29.3 K;
  - r takes a snapshot (a mark); after a SIGUSR1 the screen follows the
    trace by itself: grow_leak's 20 blocks appear;
  - w: "since the snapshot shown": grow_leak's 20 are outstanding,
    hold_leak's 10 (allocated before it, alive after) lasting;
  - Enter opens a site into its stack: grow_leak, then hold's frames;
  - q ends vmscope; the traced program runs on, untraced, and is killed by
    the test by its pid.
  - A snapshot file saved with its trace (--trace -w FILE --duration 2,
    the program killed after by its pid), opened with -l: C shows the
    saved report read-only, hold_leak's 10 blocks, 29 K, as the file's
    JSON says; w says the saved trace has one window.
"""
import json
import subprocess
import tempfile
import os
import re
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402


def traced_pid(tm):
    """The traced program: vmscope's child."""
    def find():
        v = tm.child_pid()
        if not v:
            return None
        try:
            with open("/proc/%d/task/%d/children" % (v, v)) as f:
                kids = f.read().split()
        except OSError:
            return None
        return int(kids[0]) if kids else None
    pid = None
    for _ in range(2000):
        pid = find()
        if pid:
            break
        tm.wait_for(lambda s: True, timeout=0.01)
    return pid


def row(scr, fn):
    return next((l for l in scr.splitlines()
                 if re.match(r"^ [+-] heap ", l) and fn in l), None)


def one_size(w, h, env, what):
    lib = os.path.join(T.BUILD, "libvmstrace.so")
    tm = D.Tmux([T.VMSCOPE, "--trace", "--", T.target("traced_calls"),
                 "hold"], width=w, height=h,
                env=dict(env, VMSCOPE_TRACELIB=lib))
    pid = None
    try:
        tm.wait_for(lambda s: "pss, not frozen" in s, timeout=30)
        pid = traced_pid(tm)
        if not T.ok(pid is not None, "%s: the traced program runs" % what):
            return
        scr = tm.expect("%s: C opens the call sites" % what,
                        lambda s: "call sites" in s and
                        row(s, "hold_leak"), "C")
        r = row(scr, "hold_leak") or ""
        T.ok(re.search(r"\b29(\.\d)? K\s+10\s", r),
             "%s: hold_leak's 10 blocks, 29 K, outstanding" % what, r)
        tm.keys("r")
        tm.wait_for(lambda s: "new snapshot" in s)
        import time
        t0 = time.time()
        os.kill(pid, signal.SIGUSR1)
        scr = tm.wait_for(lambda s: row(s, "grow_leak"), timeout=30)
        print("# grow_leak shown %.2f s after the signal" % (time.time() - t0))
        r = row(scr, "grow_leak") or ""
        T.ok(re.search(r"\b97(\.\d)? K\s+20\s", r),
             "%s: after a SIGUSR1 the screen follows the trace: "
             "grow_leak's 20 blocks, 97 K" % what, scr)
        scr = tm.expect("%s: w: since the snapshot shown" % what,
                        lambda s: "since the snapshot shown" in s and
                        row(s, "grow_leak"), "w")
        r = row(scr, "hold_leak") or ""
        T.ok(re.search(r"\s0 K\s+0\s+0 K\s+0\s+0\s+10\s", r),
             "%s: ... hold_leak's 10 blocks, allocated before it and alive "
             "after, are lasting, none outstanding" % what, r)
        tm.keys("Home")
        k = [l for l in scr.splitlines() if re.match(r"^ [+-] ", l)]
        n = next((i for i, l in enumerate(k) if "grow_leak" in l), 0)
        tm.keys(*(["Down"] * n), "Enter")
        scr = tm.wait_for(lambda s: re.search(r"^ +< main ", s, re.M))
        T.ok(re.search(r"^ +  grow_leak", scr, re.M) and
             re.search(r"^ +< main ", scr, re.M),
             "%s: Enter opens the site into its stack" % what, scr)
        v = tm.child_pid()
        tm.keys("q")
        T.ok(v and T.wait_gone(v, 10), "%s: q ends vmscope" % what)
        st = T.proc_state(pid)
        T.ok(st in "SR" and T.tracer_pid(pid) == 0,
             "%s: q: the traced program runs on, untraced" % what, st)
    finally:
        tm.kill()
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            T.wait_gone(pid, 10)


def saved():
    lib = os.path.join(T.BUILD, "libvmstrace.so")
    with tempfile.TemporaryDirectory(prefix="vmscope-calls-") as tmp:
        path = os.path.join(tmp, "hold.vms")
        live = os.path.join(tmp, "live.json")
        # (the program runs on after the trace with vmscope's output:
        # a file, not a pipe the test would wait on)
        with open(os.path.join(tmp, "err"), "w+b") as err:
            r = subprocess.run([T.VMSCOPE, "--trace", "-w", path, "-e",
                                "json", "-o", live, "--duration", "2", "--",
                                T.target("traced_calls"), "hold"],
                               stdout=err, stderr=err, timeout=120,
                               env=dict(os.environ, VMSCOPE_TRACELIB=lib))
            err.seek(0)
            r.stderr = err.read()
        pid = None
        try:
            d = json.load(open(live)) if r.returncode == 0 else None
            pid = d and d["process"]["pid"]
        finally:
            if pid:
                os.kill(pid, signal.SIGKILL)
                T.wait_gone(pid, 10)
        if not T.ok(d and os.path.exists(path),
                    "saved: a traced snapshot file written", r.stderr):
            return
        want = [x for x in d["trace"]["sites"]
                if any(f["function"] == "hold_leak" for f in x["frames"])]
        tm = D.Tmux([T.VMSCOPE, "-l", path], width=120, height=40)
        try:
            tm.wait_for(lambda s: "hold.vms" in s or "traced_calls" in s,
                        timeout=30)
            scr = tm.expect("saved: C opens the saved call sites",
                            lambda s: "saved trace" in s and
                            row(s, "hold_leak"), "C")
            r = row(scr, "hold_leak") or ""
            T.ok(len(want) == 1 and want[0]["outstanding"]["count"] == 10 and
                 re.search(r"\b29(\.\d)? K\s+10\s", r) and
                 "saved with the snapshot" in scr,
                 "saved: hold_leak's 10 blocks, 29 K, as the file's JSON "
                 "says", (r, want))
            tm.expect("saved: w says there is one window",
                      lambda s: "one window" in s, "w")
        finally:
            tm.kill()


def main():
    D.require_tmux("the call sites screen")
    one_size(120, 40, {}, "120x40")
    one_size(80, 24, {"NO_COLOR": "1"}, "80x24 NO_COLOR")
    saved()
    T.done()


if __name__ == "__main__":
    main()
