#!/usr/bin/env python3
"""Managed heaps on the heaps screen (issue 11, item 4): a JVM
(tests/targets/JvmHeap.java, java -XX:+UseG1GC -Xmx384m) viewed with -F at
200x60. H opens the heaps screen; b turns to exact bytes; the glibc heap
row closed (Left), the managed heaps follow it: the jvm heap's row shows
its committed, used and reserved bytes (Capacity, Used, Max), Right opens
it into its parts (eden, s0, s1, old, metaspace, class space) with each
one's capacity, used and max. Each figure equals the JSON export's managed
entry of the same JVM, taken with -F before and after the viewer's
capture (a try counts only when the two agree: the JVM may change its
figures between captures); the detail below names the heap's range and
where its figures came from (G1's regions for used, hsperfdata for the
parts). The same snapshot saved with -w
and opened with -l shows the same rows (the jvm step's record put back);
Enter on a part shows the heap in the viewer as one allocation (one row
"+ START Managed Heap 384 M ... Java heap (GarbageFirst)", its regions
beneath: model/alloc.c), and H there opens the heaps
screen on it. Esc goes back to the viewer. Skipped without java; the JVM
is killed by its pid. Without a JVM: tests/fixtures/snap_runtimes.vms (a
python's obmalloc arenas) shows each cpython arena as a row with its
detail and figures, as its export has them; at 80x24 the detail below
the first one's row is whole (its range and detail, where its figures
come from: wrapped, not cut).
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

SRC = os.path.join(T.ROOT, "tests", "targets", "JvmHeap.java")
NUM = r"(\d+|-)"
ROW = re.compile(r"^(\s*\S.*?)\s+%s\s+%s\s+%s\s+-\s+-\s*$" % (NUM, NUM, NUM))


def num(g):
    return None if g == "-" else int(g)


def fig(v):
    return None if v is None or v < 0 else v


def want(snap):
    """The jvm entry as the screen shows it: (heap row figures, [(part
    name, capacity, used, max)])."""
    jvm = [m for m in snap["managed"] if m["runtime"] == "jvm"]
    if len(jvm) != 1:
        return None
    m = jvm[0]
    return ((m["committed"], fig(m["used"]), m["reserved"]),
            [(p["name"] + ("" if p["in_heap"] else " (outside the heap)"),
              fig(p["capacity"]), fig(p["used"]), fig(p["max"]))
             for p in m["parts"]])


def shown(scr):
    """The jvm heap row and its part rows on screen, as want() says."""
    heap, parts, inside = None, [], False
    for line in scr.splitlines():
        m = ROW.match(line)
        if not m:
            inside = inside and not line.strip()
            continue
        name = m.group(1)
        vals = tuple(num(g) for g in m.groups()[1:])
        if re.match(r"^\s+[+\-] jvm 0x", name):
            heap, inside = vals, True
        elif inside and name.startswith("      "):
            parts.append((name.strip(),) + vals)
        else:
            inside = False
    return heap, parts


def open_jvm(tm, what):
    """H, b, the glibc rows closed, the cursor on the jvm heap, opened."""
    tm.keys("H")
    # (its title; "managed heaps:" is below 24 lines of glibc arenas)
    tm.wait_for(lambda s: s.startswith(" Heaps "))
    tm.expect("%s: b shows exact bytes" % what, "(bytes)", "b")
    tm.keys("Home", "Left")
    scr = ""
    for _ in range(10):
        scr = tm.keys("Down").wait_for("jvm managed heap", timeout=1)
        if "jvm managed heap" in scr:
            break
    # (the detail is wrapped at the screen's width)
    T.ok("jvm managed heap" in scr and
         "figures: G1 heap regions (VMStructs); parts: hsperfdata" in
         re.sub(r"\s+", " ", scr),
         "%s: the cursor on the jvm heap: its detail says its range and "
         "where its figures came from: G1's regions (used), the JVM's "
         "hsperfdata (parts)" % what, scr)
    return tm.expect("%s: Right opens it into its parts" % what,
                     lambda s: re.search(r"^\s+- jvm 0x", s, re.M) and
                     "class space" in s, "Right")


def live(pid):
    """The viewer on the JVM (-F) beside JSON exports before and after
    it, until both exports agree (3 tries). (screen, export)."""
    scr, after = "", None
    for i in range(3):
        before = want(T.vmscope_json(pid, "-F"))
        tm = D.Tmux([T.VMSCOPE, "-F", str(pid)], width=200, height=60)
        tm.wait_for(D.captured, timeout=120)
        scr = open_jvm(tm, "-F, try %d" % (i + 1))
        after = want(T.vmscope_json(pid, "-F"))
        tm.keys("Escape")
        back = tm.wait_for(lambda s: "managed heaps:" not in s)
        T.ok("Total" in back, "Esc goes back to the viewer")
        tm.kill()
        if before == after:
            return scr, after
    return scr, None


def cpython_file():
    """tests/fixtures/snap_runtimes.vms (a python's obmalloc arenas, kept
    in the file): each cpython row on screen, in order, is the export's
    entry: its detail, committed, used and reserved."""
    path = os.path.join(T.ROOT, "tests", "fixtures", "snap_runtimes.vms")
    r = T.run_vmscope("-l", path, "-e", "json")
    if not T.ok(r.returncode == 0, "snap_runtimes.vms exports", r.stderr):
        return
    want = [("cpython 0x%x  %s" % (int(m["start"], 16), m["detail"]),
             m["committed"], fig(m["used"]), m["reserved"])
            for m in T.json.loads(r.stdout)["managed"]
            if m["runtime"] == "cpython"]
    tm = D.Tmux([T.VMSCOPE, "-l", path], width=200, height=60)
    tm.wait_for("Total", timeout=60)
    tm.keys("H")
    tm.wait_for("managed heaps:")
    tm.keys("b")
    tm.wait_for("(bytes)")
    scr = tm.keys("Home", "Left").wait_for(
        lambda s: "arena 0x" not in s)
    got = []
    for line in scr.splitlines():
        m = ROW.match(line)
        if m and re.match(r"^\s+cpython 0x", m.group(1)):
            got.append((m.group(1).strip(),) +
                       tuple(num(g) for g in m.groups()[1:]))
    T.ok(len(got) >= 10 and got == want[:len(got)],
         "-l snap_runtimes.vms: the %d cpython rows shown (of %d) are the "
         "export's arenas, each with its detail, committed, used and "
         "reserved" % (len(got), len(want)), "%r\n%r" % (got, want[:3]))
    tm.kill()
    narrow(path)


def narrow(path):
    """At 80x24 the first cpython arena's detail is whole."""
    r = T.run_vmscope("-l", path, "-e", "json")
    first = next((m for m in T.json.loads(r.stdout)["managed"]
                  if m["runtime"] == "cpython"), None) \
        if r.returncode == 0 else None
    if not T.ok(first, "snap_runtimes.vms has a cpython arena"):
        return
    tm = D.Tmux([T.VMSCOPE, "-l", path], width=80, height=24)
    tm.wait_for("Total", timeout=60)
    tm.keys("H")
    tm.wait_for("managed heaps:")
    tm.keys("Home", "Left")
    tm.wait_for(lambda s: "arena 0x" not in s)
    tm.keys("Down", "Down")
    scr = tm.wait_for(lambda s: "cpython managed heap" in s)
    text = " ".join(scr.split())
    head = "cpython managed heap 0x%x-0x%x %s" % (
        int(first["start"], 16), int(first["end"], 16),
        " ".join(first["detail"].split()))
    T.ok(head in text and
         "figures: none from the runtime (the map's shape)" in text,
         "80x24: the detail of the first cpython arena, whole: %s; "
         "figures: none from the runtime (the map's shape)" % head, scr)
    tm.kill()


def capacities_in_k(tm, w, what):
    """b (the heaps screen in bytes, open on the jvm heap) back to K:
    each part's capacity as jstat shows it (G1's empty survivor space:
    capacity 8 bytes, shown 0 K, not 8 B). The screen then."""
    tm.keys("b")
    scr = tm.wait_for(lambda s: "(bytes)" not in s)
    for name, cap, _, _ in (w[1] if w else []):
        ln = next((l for l in scr.splitlines()
                   if re.match(r"^\s+%s\s{2,}" % re.escape(name), l)), "")
        text = "0 K" if cap is not None and cap < 1024 else \
            D.size_text(cap) if cap is not None else "-"
        T.ok(re.match(r"^\s+%s\s+%s\s" % (re.escape(name),
                                          re.escape(text)), ln),
             "%s: in K, part %s's capacity as jstat shows it, %s (%s "
             "bytes)" % (what, name, text, cap), ln)
    return scr


def narrow_jvm(path, w):
    """At 80x24, the parts' capacities in K as at 200x60."""
    tm = D.Tmux([T.VMSCOPE, "-l", path], width=80, height=24)
    tm.wait_for("Total", timeout=60)
    open_jvm(tm, "80x24 -l")
    capacities_in_k(tm, w, "80x24 -l")
    tm.kill()


def main():
    D.require_tmux("managed heaps in tmux")
    cpython_file()
    if not shutil.which("java"):
        T.skip("managed heaps", "java is not installed "
               "(openjdk-17-jre-headless)")
        T.done()
    p, line = T.start(["java", "-XX:+UseG1GC", "-Xmx384m", SRC],
                      timeout=90)
    try:
        pid = p.pid
        T.ok(line == "ready %d" % pid, "JVM %d ready" % pid)
        scr, w = live(pid)
        if w is None:
            T.skip("-F: the screen equals the JSON export",
                   "the JVM changed its figures around every capture")
        else:
            heap, parts = shown(scr)
            T.ok(heap == w[0] and heap[2] == 384 << 20,
                 "-F: the jvm heap row is the export's committed %d, used "
                 "%s, reserved %d (384 MiB)" % w[0], "%r\n%s" % (heap, scr))
            T.ok(parts == w[1] and len(parts) == 6,
                 "-F: its %d parts are the export's, each capacity, used "
                 "and max" % len(w[1]), "%r\n%r" % (parts, w[1]))
        with tempfile.TemporaryDirectory(prefix="vms-hm-") as tmp:
            path = os.path.join(tmp, "jvm.vms")
            r = T.run_vmscope("-F", "-w", path, pid)
            T.ok(r.returncode == 0, "-w saves the JVM", r.stderr)
            r = T.run_vmscope("-l", path, "-e", "json")
            w = want(T.json.loads(r.stdout)) if r.returncode == 0 else None
            tm = D.Tmux([T.VMSCOPE, "-l", path], width=200, height=60)
            tm.wait_for("Total", timeout=60)
            scr = open_jvm(tm, "-l")
            heap, parts = shown(scr)
            # b again: in K, hsperfdata's figures as jstat shows them (G1's
            # empty survivor space: capacity 8 bytes, shown 0 K)
            scr = capacities_in_k(tm, w, "-l")
            tm.keys("b")
            tm.wait_for("(bytes)")
            start = re.search(r"^\s+- jvm 0x([0-9a-f]+)", scr, re.M)
            # a part: Enter shows its heap in the viewer; H there opens on
            # it again
            tm.keys("Down", "Enter")
            at = "%016x" % int(start.group(1), 16) if start else "?"
            scr = tm.wait_for(lambda s: "managed heaps:" not in s)
            T.ok(re.search(r"^. %s +Managed Heap" % at, scr, re.M),
                 "-l: Enter on a part shows its heap in the viewer", scr)
            rows = [ln for ln in scr.splitlines() if "Java heap (" in ln]
            T.ok(len(rows) == 1 and re.match(
                r"^\+ %s +Managed Heap +384 M " % at, rows[0]),
                 "-l: the Java heap is one allocation (its regions "
                 "beneath), 384 M", "\n".join(rows) or scr)
            tm.keys("H")
            scr = tm.wait_for("jvm managed heap")
            T.ok("jvm managed heap" in scr and
                 re.search(r"^\s+- jvm 0x", scr, re.M),
                 "-l: H on the heap's region opens the heaps screen on it, "
                 "open", scr)
            tm.kill()
            narrow_jvm(path, w)
            T.ok(w is not None and (heap, parts) == w and len(parts) == 6,
                 "-l: the saved file shows the same heap and parts as its "
                 "own export (the jvm step's record put back)",
                 "%r\n%r" % ((heap, parts), w))
    finally:
        T.kill(p)
    T.done()


if __name__ == "__main__":
    main()
