#!/usr/bin/env python3
"""Issue 29's "done when", on the screen: MemoryTestApp
(tests/targets/memorytestapp.cc, the WPR exercise's program, built
without frame pointers) launched traced in the viewer (vmscope --trace --
memorytestapp wait FIFO: it waits on the FIFO until the viewer shows its
first snapshot, so it cannot end before vmscope has looked at it), run to
its end; then C, at 120x40:

  - the call sites: the 10 MB map outstanding in main (1 map), 319 blocks
    outstanding in InnerLoopOperation (12,760 bytes: 12 K), 4 maps
    transient in ManipulateTemporaryBuffer (40 MB: 40.0 M);
  - v, the call tree callers first, every node opened: main holds them
    all (outstanding: its own map and what its callees hold, the 319
    blocks among them; 4 transient);
    ManipulateTemporaryBuffer under Operation1 with its 4 transient maps,
    40.0 M, nothing outstanding; InnerLoopOperation under Operation2
    with its 319 blocks, 12 K;
  - v again, callees first: main at the roots with what it called mmap
    for itself alone, 10.0 M in 1 map; InnerLoopOperation, 319 blocks,
    12 K; ManipulateTemporaryBuffer, 4 maps transient, 40.0 M, opening
    into Operation1 under it.

And with a tracer library the loader does not preload (a file that is no
library): C says the tracer library never started in the program, not an
empty exact trace.

The figures are each one's own: a count on screen is exact, a size is as
the screen writes bytes (K below 10 M, M with one decimal above).
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

MB10 = 10 << 20
LEAK = 319 * 40


def kib(n):
    """n bytes as the screen writes a size under 10 M: whole K."""
    return "%d K" % round(n / 1024)


def mib(n):
    return "%.1f M" % (n / (1 << 20))


# A row of the call sites or of the tree: its open mark, the figures
# (Release and Lasting shown from 100 columns), then the stack or the
# function indented by its depth.
ROW = re.compile(r"^ ([ +-]) (?:(mmap|heap|brk)\s+|\s+)(-?\S+ [KMGT])\s+"
                 r"(\S+ [KMGT])\s+(\d+)\s+(\S+ [KMGT])\s+(\d+)\s+(\d+)\s+"
                 r"(\d+)  ( *)(\S+)")


def rows(scr):
    out = []
    for ln in scr.splitlines():
        m = ROW.match(ln)
        if m:
            out.append({"mark": m.group(1), "kind": m.group(2),
                        "impacting": m.group(3), "out": m.group(4),
                        "out_n": int(m.group(5)), "tr": m.group(6),
                        "tr_n": int(m.group(7)), "depth": len(m.group(10)),
                        "fn": m.group(11).split("(")[0], "line": ln})
    return out


def position(scr):
    """The list's cursor and length, as the status line says (k/n)."""
    lines = scr.rstrip("\n").splitlines()
    m = re.search(r"(\d+)/(\d+)\s*$", lines[-1]) if lines else None
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def open_all(tm, what):
    """Every node of the tree opened, top to bottom: + on a closed one
    (its children come below it), Down to the next; each key waited for
    by what it changes on screen. Returns the screen, or None."""
    tm.keys("Home")
    scr = tm.wait_for(lambda s: position(s)[0] == 1)
    for _ in range(200):
        cur, n = position(scr)
        rs = rows(scr)
        if len(rs) != n or not 1 <= cur <= n:
            T.ok(False, "%s: the tree fits the screen, the cursor on it"
                 % what, scr)
            return None
        if rs[cur - 1]["mark"] == "+":
            tm.keys("+")
            scr = tm.wait_for(lambda s: position(s)[1] > n)
        elif cur == n:
            return scr
        else:
            tm.keys("Down")
            scr = tm.wait_for(lambda s: position(s)[0] == cur + 1)
    T.ok(False, "%s: the tree opened in 200 keys" % what, scr)
    return None


def under(rs, child, parent):
    """The row of child whose parent (the nearest row above it indented
    less) is parent's."""
    for i, r in enumerate(rs):
        if r["fn"] != child:
            continue
        up = next((p for p in reversed(rs[:i])
                   if p["depth"] < r["depth"]), None)
        if up and up["fn"] == parent:
            return r
    return None


def sites(tm):
    scr = tm.expect("C opens the call sites of the ended program, the "
                    "trace exact",
                    lambda s: "call sites" in s and "exact, " in s and
                    len(rows(s)) >= 3, "C")
    T.ok(re.search(r" pid \d+  ended$", scr.splitlines()[0]),
         "... the program ended by itself (not killed)", scr)
    rs = {r["fn"]: r for r in rows(scr)}
    m, il, mt = (rs.get(f, {}) for f in ("main", "InnerLoopOperation",
                                         "ManipulateTemporaryBuffer"))
    T.ok(m.get("kind") == "mmap" and m["out"] == mib(MB10) and
         m["out_n"] == 1 and m["impacting"] == mib(MB10) and
         m["tr_n"] == 0,
         "sites: the 10 MB map outstanding in main, 1", m.get("line", scr))
    T.ok(il.get("kind") == "heap" and il["out"] == kib(LEAK) and
         il["out_n"] == 319 and il["tr_n"] == 0,
         "sites: 319 blocks, 12,760 bytes, outstanding in "
         "InnerLoopOperation", il.get("line", scr))
    T.ok(mt.get("kind") == "mmap" and mt["tr"] == mib(4 * MB10) and
         mt["tr_n"] == 4 and mt["out_n"] == 0 and mt["impacting"] == "0 K",
         "sites: 4 maps, 40 MB, transient in ManipulateTemporaryBuffer",
         mt.get("line", scr))


def callers(tm):
    tm.expect("v: the call tree, callers first",
              lambda s: "call tree, callers first" in s and rows(s), "v")
    scr = open_all(tm, "callers first")
    if not scr:
        return
    rs = rows(scr)
    i = next((i for i, r in enumerate(rs) if r["fn"] == "main"), None)
    m = rs[i] if i is not None else {}
    kids = []
    for r in rs[i + 1:] if m else []:
        if r["depth"] <= m["depth"]:
            break
        if not kids or r["depth"] <= kids[0]["depth"]:
            kids.append(r)
    T.ok(m and m["out_n"] == 1 + sum(k["out_n"] for k in kids) and
         m["out_n"] >= 320 and m["tr_n"] == 4 and
         m["tr"] == mib(4 * MB10),
         "callers first: main holds them all: its own map and what it "
         "called (the 319 blocks among them) outstanding, 4 transient, "
         "40.0 M", scr)
    mt = under(rs, "ManipulateTemporaryBuffer", "Operation1")
    T.ok(mt and mt["tr_n"] == 4 and mt["tr"] == mib(4 * MB10) and
         mt["out_n"] == 0 and mt["impacting"] == "0 K",
         "callers first: 4 transient maps, 40.0 M, in "
         "ManipulateTemporaryBuffer under Operation1", scr)
    il = under(rs, "InnerLoopOperation", "Operation2")
    T.ok(il and il["out_n"] == 319 and il["out"] == kib(LEAK) and
         il["tr_n"] == 0,
         "callers first: 319 outstanding blocks, 12 K, in "
         "InnerLoopOperation under Operation2", scr)


def callees(tm):
    tm.expect("v again: the call tree, callees first",
              lambda s: "call tree, callees first" in s and rows(s), "v")
    scr = open_all(tm, "callees first")
    if not scr:
        return
    rs = rows(scr)
    roots = {r["fn"]: r for r in rs if r["depth"] == 0}
    m, il, mt = (roots.get(f, {}) for f in ("main", "InnerLoopOperation",
                                            "ManipulateTemporaryBuffer"))
    T.ok(m.get("out_n") == 1 and m["out"] == mib(MB10) and
         m["impacting"] == mib(MB10) and m["tr_n"] == 0,
         "callees first: main's own call, the 10 MB map, outstanding, 1",
         scr)
    T.ok(il.get("out_n") == 319 and il["out"] == kib(LEAK) and
         il["tr_n"] == 0,
         "callees first: InnerLoopOperation's 319 blocks, 12 K, "
         "outstanding", scr)
    T.ok(mt.get("tr_n") == 4 and mt["tr"] == mib(4 * MB10) and
         mt["out_n"] == 0 and
         under(rs, "Operation1", "ManipulateTemporaryBuffer"),
         "callees first: ManipulateTemporaryBuffer's 4 maps, 40.0 M, "
         "transient, called from Operation1", scr)


def traced(lib, check, what):
    """MemoryTestApp launched in the viewer with lib as the tracer, let go
    once the viewer shows it, run to its end; then check(tm)."""
    env = {"VMSCOPE_TRACELIB": lib}
    tmp = tempfile.mkdtemp(prefix="vmscope-mta-")
    fifo = os.path.join(tmp, "go")
    os.mkfifo(fifo)
    tm = D.Tmux([T.VMSCOPE, "--trace", "--", T.target("memorytestapp"),
                 "wait", fifo], width=120, height=40, env=env)
    pid = None
    try:
        tm.wait_for(lambda s: "pss, not frozen" in s, timeout=30)
        pid = tm.launched_pid()
        if not T.ok(pid is not None, "%s: the program runs" % what):
            return
        try:  # it waits in open(): a writer lets it go on
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            os.write(fd, b"x")
            os.close(fd)
        except OSError as e:
            T.ok(False, "%s: the program waits on its FIFO" % what, e)
            return
        tm.wait_for(lambda s: "traced program ended" in s, timeout=60)
        T.ok(T.wait_gone(pid, 30), "%s: the program ran to its end" % what)
        check(tm)
    finally:
        tm.kill()
        if pid:
            T.wait_gone(pid, 10)
        shutil.rmtree(tmp, ignore_errors=True)


def findings(tm):
    sites(tm)
    callers(tm)
    callees(tm)


def never_started(tm):
    tm.expect("a library that never started in it: C says nothing was "
              "traced, not an empty exact trace",
              lambda s: "call sites" in s and
              "the tracer library never started" in s and
              "exact, " not in s, "C")


def main():
    D.require_tmux("MemoryTestApp in the call tree")
    traced(os.path.join(T.BUILD, "libvmstrace.so"), findings, "traced")
    # the loader did not preload the tracer (here: no library at all)
    with tempfile.TemporaryDirectory(prefix="vmscope-mta-") as d:
        junk = os.path.join(d, "junk.so")
        open(junk, "w").write("not a library\n")
        traced(junk, never_started, "not traced")
    T.done()


if __name__ == "__main__":
    main()
