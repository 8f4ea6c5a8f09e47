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
  - the viewer's row of the 1 MiB map hold_map() made says
    "[mmap by hold_map]" (its commit stack);
  - f, on the viewer's row of the 1 MiB map hold_map() made (found by
    its address, which the program writes to a file): only that map's
    commit stack, hold_map, 1 map of 1024 K; f again: every site; f on
    the main arena's row: hold_leak's and grow_leak's blocks alone;
  - B on that row lists its 30 blocks (3000 bytes from hold_leak, 5000
    from grow_leak) with the stack of the one under the cursor; s sorts
    them by size;
  - the tracer's rings (its memfd, mapped in the program) are one region
    whose details say they are the tracer's;
  - v: the call tree callers first (main opens into hold_leak's 10 and
    grow_leak's 20), then callees first (the two at the roots);
  - L opens the trace view; o and z keep allocations of 1 K and more;
    c on hold_leak's first keeps its 10, on the newest grow_leak's 20;
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
import shutil
import signal
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402


def row(scr, fn):
    return next((l for l in scr.splitlines()
                 if re.match(r"^ [+-] heap ", l) and fn in l), None)


def narrowed(tm, where, what):
    """f on the viewer's row of hold_map's map: its commit stack alone."""
    with open(where) as f:
        addr = f.read().strip()
    tm.keys("Escape")
    tm.wait_for(lambda s: "Address" in s and "call sites" not in s)
    tm.keys("/")
    tm.keys(*list(addr), "Enter")
    scr = tm.wait_for(lambda s: "match 1 of" in s)
    if "120x40" in what:  # the Details column is wide enough
        maprow = next((l for l in scr.splitlines()
                       if re.match(r"^. ?%016x " % int(addr, 16), l)), "")
        T.ok("[mmap by hold_map]" in maprow,
             "%s: the map's row in the viewer names its commit stack"
             % what, scr)
    tm.keys("C")
    tm.wait_for(lambda s: "call sites" in s)
    scr = tm.expect("%s: f narrows to the viewer's row" % what,
                    lambda s: "Only what is alive in" in s, "f")
    for _ in range(3):  # the window back to the whole trace
        if "the whole trace" in scr:
            break
        tm.keys("w")
        scr = tm.wait_for(lambda s: "Window: " in s and s != scr)
    # since the snapshot shown, as a tree (v): the window's line whole
    # (wrapped at 80 columns, not cut)
    tm.expect("%s: w: since the snapshot shown" % what,
              "Window: since the snapshot shown", "w")
    since = tm.expect("%s: v: the call tree" % what,
                      "call tree, callers first  Window", "v")
    T.ok(re.search(r"call tree, callers first Window: since the snapshot "
                   r"shown \(\d+\.\d s to \d+\.\d s\) (exact|sampled), "
                   r"\d+ calls(, some not recorded)? Only what",
                   " ".join(since.split())),
         "%s: ... its line whole: the view, the window, the calls in it"
         % what, "\n".join(since.splitlines()[:4]))
    tm.keys("v", "v")
    tm.wait_for("call sites  Window")
    # between A and B, none marked: why there is no report, whole
    tm.keys("w")
    ab = tm.wait_for("Window: between the timeline's marks A and B:")
    T.ok("mark two snapshots taken while tracing in the timeline (T, then "
         "a and b)" in " ".join(ab.split()),
         "%s: the window between the marks, none set: why, whole "
         "(wrapped, not cut)" % what, ab)
    tm.keys("w")
    scr = tm.wait_for(lambda s: "Window: the whole trace" in s or
                      "Window: " in s and "between" not in s)
    sites = [l for l in scr.splitlines() if re.match(r"^ [+-] \w+ ", l)]
    T.ok(len(sites) == 1 and re.match(
        r"^ [+-] mmap\s+1024 K\s+1024 K\s+1\s.*hold_map", sites[0]),
         "%s: ... the map's commit stack alone: hold_map, 1 map of 1024 K"
         % what, scr)
    scr = tm.expect("%s: f again: every site" % what,
                    lambda s: "Only what" not in s and row(s, "hold_leak"),
                    "f")
    # the main arena's heap: its blocks by call site, and no map
    tm.keys("Escape")
    tm.wait_for(lambda s: "Address" in s and "call sites" not in s)
    tm.keys("/")
    tm.keys(*list("main arena"), "Enter")
    tm.wait_for(lambda s: "match 1 of" in s)
    tm.keys("C")
    tm.wait_for(lambda s: "call sites" in s)
    scr = tm.expect("%s: f on the main arena's heap" % what,
                    lambda s: "Only what is alive in" in s, "f")
    sites = [l for l in scr.splitlines() if re.match(r"^ [+-] \w+ ", l)]
    T.ok(len(sites) == 2 and all(" heap " in l for l in sites) and
         re.search(r"\b29(\.\d)? K\s+10\s", row(scr, "hold_leak") or "")
         and re.search(r"\b97(\.\d)? K\s+20\s",
                       row(scr, "grow_leak") or ""),
         "%s: ... the heap's blocks by call site: hold_leak's 10, "
         "grow_leak's 20, no map" % what, scr)
    tm.keys("f")
    # B on the same row: its blocks one by one, with their stacks
    tm.keys("Escape")
    tm.wait_for(lambda s: "Address" in s and "call sites" not in s)
    # the whole screen drawn: the list and the stack of its first row
    # (tmux may show the title before the rest of the redraw)
    scr = tm.expect("%s: B lists the allocations of the viewer's row" % what,
                    lambda s: "allocations" in s and "Alive in" in s and
                    "Stack of the allocation" in s and
                    re.search(r"^ [0-9a-f]{16} +\d+ ", s, re.M), "B")
    blocks = re.findall(r"^ [0-9a-f]{16} +(\d+) +[0-9.]+ s  (\w+)", scr,
                        re.M)
    head = re.search(r"Alive in [0-9a-f]+-[0-9a-f]+: .*  (\d+), ", scr)
    T.ok(head and head.group(1) == "30" and blocks and
         all(n in ("3000", "5000") and fn in ("hold_leak", "grow_leak") and
             (n == "3000") == (fn == "hold_leak") for n, fn in blocks),
         "%s: ... 30 blocks: 3000 bytes from hold_leak, 5000 from "
         "grow_leak" % what, scr)
    T.ok(re.search(r"Stack of the allocation\s*\n.*(hold|grow)_leak.*\n"
                   r".*< main ", scr),
         "%s: ... the stack of the one under the cursor, down to main"
         % what, scr)
    scr = tm.expect("%s: s sorts by size" % what,
                    lambda s: re.search(r"^ [0-9a-f]{16} +5000 ", s, re.M)
                    and " 3000 " in s and
                    s.index(" 5000 ") < s.index(" 3000 "), "s")
    tm.keys("Escape")
    tm.wait_for(lambda s: "Address" in s and "allocations" not in s)
    # L: the trace view, filtered to allocations of 1 K and more
    tm.expect("%s: L opens the trace view" % what,
              lambda s: "trace view" in s and "events (the newest" in s, "L")
    tm.keys("o")
    tm.wait_for(lambda s: "operation alloc" in s)
    tm.keys("z")
    scr = tm.wait_for(lambda s: "size >= 1 K" in s or "size >= 1.0 K" in s)
    ev = re.findall(r"^ +[0-9.]+ +\d+ (\w+) +[0-9a-f]{16} +(\d+)  (\w+)",
                    scr, re.M)
    T.ok(ev and all(op == "alloc" and int(n) >= 1024 for op, n, _ in ev),
         "%s: ... o and z: allocations of 1 K and more only" % what, scr)
    tm.keys("Home")
    tm.wait_for(lambda s: re.search(r"^ +[0-9.]+ +\d+ alloc .*hold_leak", s,
                                    re.M))
    scr = tm.expect("%s: c on hold_leak's first block" % what,
                    lambda s: "one call site" in s, "c")
    T.ok(re.search(r"^ 10 events ", scr, re.M) and
         len(re.findall(r" 3000  hold_leak", scr)) == 10,
         "%s: ... its call site alone: hold_leak's 10 blocks of 3000 bytes"
         % what, scr)
    tm.keys("c")
    tm.wait_for(lambda s: "one call site" not in s)
    tm.keys("End")
    scr = tm.expect("%s: c on the newest, grow_leak's" % what,
                    lambda s: "one call site" in s, "c")
    T.ok(re.search(r"^ 20 events ", scr, re.M),
         "%s: ... grow_leak's 20 allocations" % what, scr)
    # T too: both filters said, whole (wrapped where the line is short)
    scr = tm.expect("%s: T: one thread too" % what,
                    lambda s: "one thread" in s, "T")
    T.ok(re.search(r"\d+ events \(the newest \d+ kept\) operation alloc "
                   r"size >= 1(\.0)? K one thread one call site Time \(s\)",
                   " ".join(scr.split())),
         "%s: ... the filters' line whole, both of them" % what,
         "\n".join(scr.splitlines()[:4]))
    tm.keys("Escape")
    tm.wait_for(lambda s: "Address" in s and "trace view" not in s)


def node(scr, fn):
    """A row of the call tree naming fn: (indent, count outstanding)."""
    for l in scr.splitlines():
        # the figures (Released and Lasting left out below 100 columns),
        # then the function indented by its depth
        m = re.match(r"^ [ +-] {6}\s*\S+ K?\s+\S+ K?\s+(\d+)\s+\S+ K?"
                     r"\s+\d+(?:\s+\d+\s+\d+)?  ( *)(\w+)", l)
        if m and m.group(3) == fn:
            return len(m.group(2)), int(m.group(1))
    return None


def rings(tm, what):
    """The tracer's shared rings, mapped in the program, are said to be
    the tracer's."""
    tm.keys("/")
    tm.keys(*list("allocation trace rings"), "Enter")
    scr = tm.wait_for(lambda s: "match 1 of 1" in s or "not found" in s)
    T.ok("match 1 of 1" in scr,
         "%s: the tracer's rings are one region, said to be the tracer's"
         % what, scr)
    tm.keys("Escape")


def tree(tm, what):
    """v: the call tree, callers first then callees first."""
    tm.keys("C")
    tm.wait_for(lambda s: "call sites" in s and row(s, "hold_leak"))
    scr = tm.expect("%s: v shows the call tree, callers first" % what,
                    lambda s: "call tree, callers first" in s, "v")
    # open the single path down to main, then main
    for _ in range(8):
        if node(scr, "main") and node(scr, "hold_leak"):
            break
        tm.keys("End", "Enter")
        scr = tm.wait_for(lambda s: True, timeout=0.2)
        scr = tm.screen()
    m, hl, gl = node(scr, "main"), node(scr, "hold_leak"), \
        node(scr, "grow_leak")
    T.ok(m and hl and gl and hl[0] > m[0] and gl[0] > m[0] and
         hl[1] == 10 and gl[1] == 20 and m[1] >= 31,
         "%s: ... main opens into hold_leak (10) and grow_leak (20), "
         "indented under it" % what, scr)
    scr = tm.expect("%s: v again: callees first" % what,
                    lambda s: "call tree, callees first" in s, "v")
    hl, gl = node(scr, "hold_leak"), node(scr, "grow_leak")
    T.ok(hl and gl and hl == (0, 10) and gl == (0, 20),
         "%s: ... hold_leak and grow_leak at the roots, 10 and 20 blocks"
         % what, scr)
    tm.keys("v")
    tm.wait_for(lambda s: "call sites" in s and "call tree" not in s)
    tm.keys("Escape")
    tm.wait_for(lambda s: "Address" in s and "call sites" not in s)


def one_size(w, h, env, what):
    lib = os.path.join(T.BUILD, "libvmstrace.so")
    tmp = tempfile.mkdtemp(prefix="vmscope-calls-")
    where = os.path.join(tmp, "map")
    tm = D.Tmux([T.VMSCOPE, "--trace", "--", T.target("traced_calls"),
                 "hold", "0", where], width=w, height=h,
                env=dict(env, VMSCOPE_TRACELIB=lib))
    pid = None
    try:
        tm.wait_for(lambda s: "pss, not frozen" in s, timeout=30)
        pid = tm.launched_pid()
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
        narrowed(tm, where, what)
        rings(tm, what)
        tree(tm, what)
        v = tm.child_pid()
        tm.keys("q")
        T.ok(v and T.wait_gone(v, 10), "%s: q ends vmscope" % what)
        st = T.proc_state(pid)
        T.ok(st in "SR" and T.tracer_pid(pid) == 0,
             "%s: q: the traced program runs on, untraced" % what, st)
    finally:
        tm.kill()
        shutil.rmtree(tmp, ignore_errors=True)
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
