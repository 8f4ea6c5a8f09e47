#!/usr/bin/env python3
"""The viewer's finish (issue 12, item 5), at 80x24 with NO_COLOR and at
200x60 with a theme, on the everykind target, in the region list (a): free gaps only when asked
for (never in the all view's Size sort), the sort column marked in the
heading, sizes under 1 K in bytes, r keeping the expanded rows, cursor,
filter and sort, the header keeping the time beside a warning, a key
after an error acted on, -t winning over NO_COLOR, and TERM=dumb refused
with one line and exit status 1.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

TAIL = 'echo "EXIT=$rc"'
ESC = re.compile(r"\x1b\[[0-9;]*m")
ROW = re.compile(r"^([+\- ]) ([0-9a-f]{16}) (.{12})")


status = D.status


def counts(scr):
    """(cursor row, rows) from the status line's 'N/M'."""
    m = re.search(r"(\d+)/(\d+)\s*$", status(scr))
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def heading(scr):
    return next((l for l in scr.splitlines() if "Address" in l and
                 "Details" in l), "")


def det_rows(scr):
    """The details rows as (mark, address, type text, whole line)."""
    out = []
    for l in scr.splitlines():
        m = ROW.match(l)
        if m:
            out.append((m.group(1), m.group(2), m.group(3).strip(), l))
    return out


def ready(scr):
    return "pss, not frozen" in scr and counts(scr)[1] and "Address" in scr


def main():
    D.run_in_tmp("the viewer's finish in tmux", run)


def expand_libc(tm):
    """Finds libc and expands its first region into its sections."""
    tm.keys("Tab", "/").text("libc.so").keys("Enter")
    tm.wait_for(lambda s: "Find:" not in s)
    tm.keys("Right")
    return tm.wait_for(lambda s: any(r[0] == "-" and "libc" in r[3]
                                     for r in det_rows(s)))


def one_size(p, snap, w, h, env, args, what):
    pid = p.pid
    nreg = len(snap["regions"])
    tm = D.Tmux([T.VMSCOPE] + args + [str(pid)], width=w, height=h,
                env=env, shell_tail=TAIL, colours=256,
                term="tmux-256color")
    scr = tm.wait_for(ready)
    T.ok(ready(scr), "%s: the viewer is up" % what, scr)
    # the region list (a), where the rows are the regions
    tm.keys("a")
    scr = tm.wait_for("regions: all")
    T.ok(counts(scr)[1] == nreg,
         "%s: the all view lists the %d regions and no free gap"
         % (what, nreg), status(scr))
    T.ok(re.search(r"Address \^", heading(scr)),
         "%s: the heading marks the sort column (Address ^)" % what,
         heading(scr))
    T.ok(re.search(r"\bTaken \d{4}-\d\d-\d\dT", scr),
         "%s: the header shows the time taken" % what, scr)

    # sorted by size: still no gap (they would top it with terabytes)
    tm.keys("Tab", "s")
    scr = tm.wait_for("sort Size v")
    types = [r[2] for r in det_rows(scr)]
    T.ok(counts(scr)[1] == nreg and types and "Free" not in types,
         "%s: the Size sort of the all view has no free gap" % what,
         "\n".join(r[3] for r in det_rows(scr)))
    T.ok(re.search(r"v Size\b", heading(scr)) and
         not re.search(r"Address \^", heading(scr)),
         "%s: the heading marks Size, largest first" % what, heading(scr))
    tm.keys("S")
    scr = tm.wait_for("sort Size ^")
    T.ok(re.search(r"\^ Size\b", heading(scr)),
         "%s: S turns the mark (^ Size)" % what, heading(scr))
    tm.keys("S", "f", "Home")
    scr = tm.wait_for(lambda s: (counts(s)[1] or 0) > nreg and
                      counts(s)[0] == 1)
    rows = det_rows(scr)
    T.ok((counts(scr)[1] or 0) > nreg and rows and rows[0][2] == "Free"
         and "all+free" in status(scr),
         "%s: f adds the free gaps to the all view (the largest first)"
         % what, scr)
    tm.keys("f")
    scr = tm.wait_for(lambda s: counts(s)[1] == nreg)
    T.ok(counts(scr)[1] == nreg, "%s: f again hides them" % what,
         status(scr))
    # back to Address (by the columns on screen and Type: fewer at 80
    # columns than at 200)
    D.sort_to(tm, "Address")
    tm.wait_for("sort Address ^")
    # by address with the gaps, each where it lies; S: all downwards
    for key, mark in (("f", "^"), ("S", "v")):
        tm.keys(key)
        tm.wait_for(lambda s, m=mark: "all+free" in status(s) and
                    "sort Address %s" % m in status(s))
        tm.keys("Home")
        scr = tm.wait_for(lambda s: counts(s)[0] == 1)
        rows = det_rows(scr)
        addrs = [int(r[1], 16) for r in rows]
        T.ok(len(rows) > 5 and "Free" in [r[2] for r in rows] and
             addrs == sorted(addrs, reverse=mark == "v"),
             "%s: by address with the free gaps (%s), every row in "
             "order" % (what, mark), scr)
    tm.keys("S", "f")
    scr = tm.wait_for(lambda s: counts(s)[1] == nreg and
                      "sort Address ^" in status(s))

    # libc's first region expanded: its small sections in bytes
    scr = expand_libc(tm)
    libc = next(r for r in snap["regions"]
                if r.get("path") and "libc.so" in r["path"])
    small = [c for c in libc.get("children", [])
             if 0 < c["size"] < 1024]
    shown = [c for c in small if re.search(
        r"\b%d B\s+.*%s\b" % (c["size"], re.escape(c["name"])), scr)]
    T.ok(small and shown, "%s: sections under 1 K are in bytes (%s)"
         % (what, ", ".join("%s %d B" % (c["name"], c["size"])
                            for c in shown[:3])), scr)
    T.ok(not re.search(r"\b0 K\s+\S", "\n".join(
        r[3] for r in det_rows(scr) if r[2] == "section")),
         "%s: no section reads 0 K" % what, scr)

    # r keeps the expansion and the cursor
    tm.keys("Down", "Down")
    scr = tm.wait_for(lambda s: counts(s)[0] is not None)
    before = [r[:3] for r in det_rows(scr)]
    cur = counts(scr)
    tm.keys("r")
    scr = tm.wait_for("new snapshot")
    after = [r[:3] for r in det_rows(scr)]
    T.ok(after == before and any(r[0] == "-" for r in after),
         "%s: r keeps the expanded region and its sections on screen"
         % what, scr)
    tm.keys("j", "k")
    scr = tm.wait_for(lambda s: "new snapshot" not in s)
    T.ok(counts(scr) == cur, "%s: r keeps the cursor (%s)" % (what, cur),
         status(scr))
    # r keeps the filter and the sort
    tm.keys("Tab", "Home", "Down", "Down", "Down", "Enter", "Tab", "s")
    scr = tm.wait_for(lambda s: "Heap | sort Size v" in s)
    T.ok("regions: Heap" in status(scr),
         "%s: the region list stays with the filter" % what, status(scr))
    tm.keys("r")
    scr = tm.wait_for("new snapshot")
    tm.keys("j")
    scr = tm.wait_for(lambda s: "new snapshot" not in s)
    T.ok("regions: Heap | sort Size v" in status(scr) and
         {r[2] for r in det_rows(scr)} == {"Heap"},
         "%s: r keeps the Heap filter and the Size sort" % what, scr)
    return tm


def partial_in_header(pid, w, h):
    """A busy target's stack pointer is unknown without a freeze, which
    the header says beside the time: whole, or cut where it says where
    the rest is (! shows it whole), or where there is no room for a cut
    worth reading, only that it is partial and where to look; the
    notes' count is on screen in every case."""
    what = "%dx%d" % (w, h)
    tm = D.Tmux([T.VMSCOPE, str(pid)], width=w, height=h)
    scr = tm.wait_for(lambda s: "pss, not frozen" in s and
                      re.search(r"\d+/\d+\s*$", status(s)))
    line = next((ln for ln in scr.splitlines()
                 if "pss, not frozen" in ln), "")
    T.ok(re.search(r"Taken \d{4}-", line) and
         re.search(r"! \d+ notes?", scr),
         "%s: the time in the header, and the notes' count" % what, scr)
    more = "... (! shows it)"
    shown = line[line.index("partial: ") + 9:].rstrip() \
        if "partial: " in line else ""
    cut = shown.endswith(more)
    prefix = " ".join((shown[:-len(more)] if cut else shown).split())
    scr = tm.expect("the notes open (!)", "vmscope notes:", "!")
    whole = " ".join(" ".join(scr.splitlines()).split())
    if shown:
        T.ok(prefix and prefix in whole and
             (cut or len(line.rstrip()) < w),
             "%s: a warning too long for the header ends '%s'; the notes "
             "have it whole (cut: %s)" % (what, more, cut),
             "%s\n%s" % (line, whole))
    else:
        T.ok(re.search(r"partial \(!( shows it)?\)\s*$", line) or
             len(line.rstrip()) > w - 11,
             "%s: no room for a cut worth reading: 'partial (! shows "
             "it)' or 'partial (!)', or nothing where that does not fit"
             % what, line)
    T.ok("partial" in whole.lower() or "stack" in whole.lower(),
         "%s: the notes say what is partial" % what, whole[:300])
    tm.kill()


def run(tmp):
    p, _ = T.start([T.target("everykind"), os.path.join(tmp, "data")])
    snap = T.vmscope_json(p.pid)

    tm = one_size(p, snap, 80, 24, {"NO_COLOR": "1"}, [],
                  "80x24 NO_COLOR")
    tm.kill()
    tm = one_size(p, snap, 200, 60, {}, ["-t", "dark"], "200x60 -t dark")

    # a key after an error is acted on
    T.kill(p)
    tm.keys("r")
    scr = tm.wait_for(lambda s: "new snapshot" not in status(s) and
                      re.search(r"no such process|exited|zombie",
                                status(s)))
    T.ok(re.search(r"no such process|exited|zombie", status(scr)),
         "r on a process that exited: an error in the status line",
         status(scr))
    tm.keys("s")
    scr = tm.wait_for("sort Committed v")
    T.ok("sort Committed v" in status(scr),
         "the first key after the error is acted on (s sorts)",
         status(scr))
    tm.kill()

    # -t wins over NO_COLOR; NO_COLOR alone is monochrome
    p, _ = T.start([T.target("everykind"), os.path.join(tmp, "data2")])
    colour = re.compile(r"\x1b\[[0-9;]*(3[0-7]|38;5;\d+|4[0-7])m")
    for args, want, what in ((["-t", "dark"], True, "NO_COLOR -t dark: "
                              "the theme's colours"),
                             ([], False, "NO_COLOR alone: monochrome")):
        tm = D.Tmux([T.VMSCOPE] + args + [str(p.pid)], colours=256,
                    term="tmux-256color", env={"NO_COLOR": "1"})
        scr = tm.wait_for(lambda s: ready(ESC.sub("", s)), escapes=True)
        T.ok(bool(colour.search(scr)) == want, what, repr(scr[:300]))
        tm.kill()

    # the time stays beside a warning: a busy target's stack pointer is
    # unknown without a freeze, which the header says
    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        for w, h in ((80, 24), (80, 40), (120, 40), (200, 60)):
            partial_in_header(spin.pid, w, h)
    finally:
        spin.kill()
        spin.wait()

    # TERM=dumb: one line and exit status 1
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], term="dumb", shell_tail=TAIL)
    scr = tm.wait_for("EXIT=")
    lines = [l for l in scr.splitlines() if l.strip()]
    T.ok("EXIT=1" in scr and len(lines) == 2 and
         "cannot move the cursor" in lines[0],
         "TERM=dumb: one line that says why, exit status 1", scr)
    tm.kill()
    T.kill(p)


main()
