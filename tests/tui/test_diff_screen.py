#!/usr/bin/env python3
"""The diff screen as the viewer lists memory (issue 31 item 3), at
200x60 and 80x24, on the changer target (between two snapshots it grows
one region in place, shrinks one, unmaps one, makes one read-only and
maps a new one; a thread's arena grows its heap in place): r, then T
and Enter compare the two.

Its rows are allocations, as the viewer's: with every row shown (c) the
target's own image is one row, however many mappings the kernel has for
it; a (regions) lists one row per group of regions the diff matched, so
the image has a row per mapping; the thread's stack with its guard is
one row (the same), its arena with what it keeps reserved one row
(grown). The columns are labelled: each figure's
name (Committed; at 200 columns Total WS, Private and Size too) over its
three columns, A, B and change, and Details last. The grown region's row
says grown and its Committed change is the kernel's (/proc/PID/maps,
before and after; every page is written). Right opens the image's row
into its regions of A and B, one per mapping of the kernel's, each with
the kernel's protection under Details (never a size there). Enter on a
type lists its rows alone, the status line naming it.
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

ROW = re.compile(r"^([+\-]) (\w+) +([0-9a-f]{16}) ")
REG = re.compile(r"^    ([AB]) ([0-9a-f]{16})-([0-9a-f]{16}) ")


status = D.status


ready = D.ready


delta_text = D.delta_text


def rows(scr):
    return [ln for ln in scr.splitlines() if ROW.match(ln)]


def all_rows(tm):
    """Every row of the list, paged through from the first (PgDn until
    the screen stays), in order."""
    tm.keys("Home")
    scr = tm.wait_for(lambda s: rows(s))
    got = rows(scr)
    for _ in range(200):
        tm.keys("NPage")
        scr2 = tm.wait_for(lambda s, b=scr: s != b, timeout=2)
        if scr2 == scr:
            break
        scr = scr2
        got += [ln for ln in rows(scr) if ln not in got]
    return got


def two_region(p, f):
    """The thread's stack (its guard below it) and its arena (the heap
    and what it keeps reserved above it), from the kernel's maps: the
    first region's start and the second's, each."""
    maps = T.maps(p.pid)
    out = {}
    for key, lower in (("tstack", True), ("tarena", False)):
        i = next((k for k, m in enumerate(maps)
                  if m["start"] <= f[key] < m["end"]), None)
        if i is None:
            continue
        j = i - 1 if lower else i + 1
        if 0 <= j < len(maps) and maps[j]["perms"].startswith("---") and \
                (maps[j]["end"] == maps[i]["start"] if lower else
                 maps[i]["end"] == maps[j]["start"]):
            pair = (maps[j], maps[i]) if lower else (maps[i], maps[j])
            out[key] = ["%016x" % m["start"] for m in pair]
    return out


def one(w, h):
    what = "%dx%d" % (w, h)
    p, line = T.start([T.target("changer")])
    f = T.ready_fields(line)
    exe = os.path.realpath(T.target("changer"))
    image = [m for m in T.maps(p.pid) if m["path"] == exe]
    grow0 = next(m["end"] - m["start"] for m in T.maps(p.pid)
                 if m["start"] == f["grow"])
    pairs = two_region(p, f)
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=w, height=h,
                env={"NO_COLOR": "1"})
    tm.wait_for(ready, timeout=120)
    p.stdin.write(b"\n")
    p.stdin.flush()
    done = T._line_by(p, time.time() + 60)
    T.ok(done and done.startswith("changed"), "%s: the target changed"
         % what, done)
    grow1 = next(m["end"] - m["start"] for m in T.maps(p.pid)
                 if m["start"] == f["grow"])
    tm.keys("r")
    tm.wait_for(lambda s: "new snapshot" in status(s), timeout=120)
    tm.keys("T")
    tm.wait_for("2 snapshots")
    tm.keys("Enter")
    scr = tm.wait_for(lambda s: "vmscope  diff" in s and rows(s))
    lines = scr.splitlines()
    k = next((i for i, ln in enumerate(lines)
              if re.match(r"^  Change +Address +Type ", ln)), None)
    head1, head2 = (lines[k - 1], lines[k]) if k else ("", "")
    names = ["Committed"] + (["Total WS", "Private", "Size"]
                             if w >= 160 else [])
    T.ok(k and all(n in head1 for n in names) and
         len(re.findall(r"\bA +B +change\b", head2)) == len(names) and
         head2.rstrip().endswith("Details"),
         "%s: the columns are labelled: %s, each over A, B and change; "
         "Details last" % (what, ", ".join(names)), "%s\n%s"
         % (head1, head2))
    grow = next((ln for ln in rows(scr)
                 if ROW.match(ln).group(3) == "%016x" % f["grow"]), "")
    want = delta_text(grow1 - grow0)
    T.ok(ROW.match(grow or "x x 0000000000000000 ") and
         ROW.match(grow).group(2) == "grown" and
         re.search(r"Private Data +\S+ \S +\S+ \S +%s\b" % re.escape(want),
                   grow),
         "%s: the grown region's row: grown, Committed %s (maps: %d -> %d)"
         % (what, want, grow0, grow1), grow)

    # every row (c): the image is one row
    tm.keys("c")
    scr = tm.wait_for(lambda s: re.search(r"all \| \d+/\d+\s*$",
                                          status(s)))
    mine = [ln for ln in rows(scr) if ln.rstrip().endswith(exe) or
            (w < 120 and " Image " in ln and
             ROW.match(ln).group(3) == "%016x" % image[0]["start"])]
    T.ok(len(image) >= 2 and len(mine) == 1 and " same " in mine[0],
         "%s: the target's image (%d mappings) is one row, the same" %
         (what, len(image)), "\n".join(mine))
    # the thread's stack with its guard (the same), and its arena with
    # what it keeps reserved (its heap grown in place): one row each too
    every = all_rows(tm)
    for key, kind, how in (("tstack", "Stack", "same"),
                           ("tarena", "Heap", "grown")):
        pair = pairs.get(key)
        at = [ln for ln in every if pair and ROW.match(ln).group(3) in pair]
        T.ok(pair and len(at) == 1 and ROW.match(at[0]).group(3) == pair[0]
             and ROW.match(at[0]).group(2) == how and
             " %s " % kind in at[0],
             "%s: the thread's %s and the region beside it (maps: %s) are "
             "one row, %s" % (what, kind.lower(), pair, how),
             "\n".join(at))
    scr = tm.keys("Home").wait_for(lambda s: rows(s))
    # its regions, A's and B's, one per mapping, the protection under
    # Details
    at = rows(scr).index(mine[0]) if mine else 0
    tm.keys("Home", *(["Down"] * at), "Right")
    # (at 80x24 the list shows 7 rows: A's regions and the first of B's)
    scr = tm.wait_for(lambda s: len([ln for ln in s.splitlines()
                                     if REG.match(ln)]) > len(image))
    regs = [ln for ln in scr.splitlines() if REG.match(ln)]
    want_a = [("A", "%016x" % m["start"], "%016x" % m["end"]) for m in image]
    want_b = [("B",) + r[1:] for r in want_a]
    got = [REG.match(ln).groups() for ln in regs]
    T.ok(len(got) > len(image) and got == (want_a + want_b)[:len(got)],
         "%s: Right opens it into its %d regions of A, then of B, the "
         "kernel's (%d shown)" % (what, len(image), len(got)),
         "\n".join(regs))
    if w >= 120:
        perms = [re.search(r" ([r-][w-][x-][ps]) ", ln[X_DETAILS(w):])
                 for ln in regs]
        T.ok(len(perms) == 2 * len(image) and
             all(pm and pm.group(1) == m["perms"]
                 for pm, m in zip(perms, image + image)),
             "%s: each region's protection, the kernel's, under Details"
             % what, "\n".join(regs))
    tm.keys("Left", "a")
    scr = tm.wait_for(lambda s: "regions: all" in status(s))
    starts = set("%016x" % m["start"] for m in image)
    mine = [ln for ln in rows(scr) if ROW.match(ln).group(3) in starts]
    T.ok(len(mine) == len(image),
         "%s: a: a row per group of regions: the image's %d mappings"
         % (what, len(image)), "\n".join(mine))
    # Enter on a type (Tab to the types, up from Total past Page Table
    # and Private Data): its rows alone, the status naming the type
    tm.keys("Tab", "Up", "Up", "Up", "Enter")
    scr = tm.wait_for(lambda s: " of type " in status(s))
    T.ok(re.search(r"regions: all of type Stack \| \d+/\d+\s*$",
                   status(scr)) and rows(scr) and
         all(" Stack " in ln for ln in rows(scr)),
         "%s: Enter on the Stack type: its rows alone, the status says "
         "'of type Stack'" % what, status(scr) + "\n" +
         "\n".join(rows(scr)[:4]))
    tm.kill()
    T.kill(p)


def X_DETAILS(w):
    """Where Details begins: after the type and the figures' groups."""
    n = 1
    while n < 4 and 41 + (n + 1) * 25 + 14 <= w:
        n += 1
    return 41 + n * 25


def two_runs(tmp):
    """-d on two runs of one program at 80x24: the title says so, whole
    (wrapped onto a second line, not cut), its counts the JSON diff's."""
    q1, _ = T.start([T.target("grower")])
    q2, _ = T.start([T.target("grower")])
    f1, f2 = os.path.join(tmp, "q1.vms"), os.path.join(tmp, "q2.vms")
    for q, f in ((q1, f1), (q2, f2)):
        r = T.run_vmscope("-F", "-w", f, q.pid)
        T.ok(r.returncode == 0, "saved run %d" % q.pid, r.stderr)
    r = T.run_vmscope("-d", f1, f2, "-e", "json")
    regs = T.json.loads(r.stdout)["changes"]["regions"] \
        if r.returncode == 0 else []
    n = {k: sum(1 for c in regs if c["change"] == k)
         for k in ("added", "removed", "grown", "shrunk", "changed")}
    want = ("vmscope diff %d change%s: %d added, %d removed, %d grown, %d "
            "shrunk, %d changed (two runs: matched for ASLR)"
            % (len(regs), "" if len(regs) == 1 else "s", n["added"],
               n["removed"], n["grown"], n["shrunk"], n["changed"]))
    tm = D.Tmux([T.VMSCOPE, "-d", f1, f2], width=80, height=24,
                env={"NO_COLOR": "1"})
    scr = tm.wait_for("vmscope  diff", timeout=60)
    lines = scr.splitlines()
    top = " ".join(" ".join(lines[:2]).split())
    T.ok(top.startswith(want) and all(len(ln) <= 80 for ln in lines[:2]),
         "80x24, two runs: the title whole: %s" % want, "\n".join(lines[:3]))
    T.ok(re.match(r"^ A %s pid %d .* B %s pid %d " % (
        re.escape(os.path.basename(f1)), q1.pid,
        re.escape(os.path.basename(f2)), q2.pid),
        lines[2] if len(lines) > 2 else ""),
        "80x24, two runs: the A and B line under it, each naming its file",
        "\n".join(lines[:3]))
    tm.kill()
    # taller: a line a side; a file's says so, a live capture's does not
    tm = D.Tmux([T.VMSCOPE, "-d", f1, str(q2.pid)], width=120, height=40,
                env={"NO_COLOR": "1"})
    scr = tm.wait_for("vmscope  diff", timeout=60)
    side = {ln[:3]: ln for ln in scr.splitlines()
            if ln.startswith((" A ", " B "))}
    T.ok(side.get(" A ", "").startswith(" A file %s  " %
                                        os.path.basename(f1)) and
         " pid %d " % q1.pid in side.get(" A ", "") and
         re.match(r"^ B \S+  pid %d  " % q2.pid, side.get(" B ", "")) and
         "file" not in side.get(" B ", "").split(" pid ")[0],
         "120x40, a file against a live PID: A names its file, B none",
         scr)
    tm.keys("Escape")
    scr = tm.wait_for("timeline")
    tm.keys("Escape")
    scr = tm.wait_for(lambda s: "timeline" not in s.splitlines()[0])
    T.ok(not scr.splitlines()[0].startswith(" vmscope  file "),
         "back in the viewer, B (live) is no file", scr.splitlines()[0])
    tm.kill()
    T.kill(q1)
    T.kill(q2)


def run(tmp):
    one(200, 60)
    one(80, 24)
    two_runs(tmp)


def main():
    D.run_in_tmp("the diff screen in tmux", run)


main()
