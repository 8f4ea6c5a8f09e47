#!/usr/bin/env python3
"""A core dump in the viewer (issue 10, item 4): what a core does not hold
(Rss, Pss, Swap, sharing, the page table) reads "-", never "0 K", in the
summary pane, the bars' figures and the details pane, while Size is
there (and Committed but of anonymous memory a core does not say is
charged: issue 28). On the recorded core of `sleep`
(tests/fixtures/sleep_small.core), at 200x50 with a theme and at 80x24
with NO_COLOR.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

CORE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                    "fixtures", "sleep_small.core")


def check(w, h, env, extra, what, bars):
    tm = D.Tmux([T.VMSCOPE] + extra + ["-l", CORE], width=w, height=h,
                env=env)
    try:
        # the whole frame: the header is drawn before the panes
        scr = tm.wait_for(lambda s: ("Sampler core" in s or "core," in s)
                          and "Address" in s and ">Total" in s)
        lines = scr.splitlines()
        T.ok("frozen 0 us" not in scr, "%s: the header does not say "
             "'frozen 0 us' (how long: a core does not say)" % what,
             lines[:2])
        total = next((l for l in lines if l.startswith(">Total")), "")
        cells = total.split()[1:]
        T.ok(cells.count("-") >= 3 and not re.search(r"\s0 K", total),
             "%s: the Total row shows '-' for what the core does not hold"
             % what, total)
        # sleep's core has anonymous memory a core does not say is
        # charged to the commit limit (MAP_NORESERVE is not in a core):
        # the total's Committed is not known either
        T.ok(re.search(r"^>Total\s+\d+(\.\d)? K\s+-", total),
             "%s: Size of Total is a figure, Committed '-'" % what, total)
        if bars:
            ws = [l for l in lines if "Working set" in l]
            T.ok(ws and re.search(r"\s-\s+Priv WS -\s*$", ws[0]),
                 "%s: the working set bar's figures are '-'" % what, ws)
            com = [l for l in lines if l.startswith(" Committed ")]
            T.ok(com and re.search(r"\s-\s*$", com[0]),
                 "%s: the Committed bar's figure is '-', as the Total "
                 "row's" % what, com)
        head = next(i for i, l in enumerate(lines) if "Address" in l)
        if " WS" not in lines[head]:
            # no WS column shown
            T.ok(not re.search(r"\bWS\b", lines[head]),
                 "%s: no WS column fits; nothing to show as '-'" % what,
                 lines[head])
            return
        rows = [l for l in lines[head + 1:]
                if re.match(r"^[ +>-] ?[0-9a-f]{16} ", l)]
        # the cell under the WS heading (right-aligned, ending where the
        # heading ends)
        e = re.search(r"(?<![A-Za-z] )\bWS\b", lines[head]).end()
        ws_cells = [l[e - 8:e].strip() == "-" for l in rows]
        T.ok(rows and all(ws_cells),
             "%s: the details rows show '-' for WS, never 0 K" % what,
             "\n".join(rows[:5]))
    finally:
        tm.kill()


FIG = r"\d+(?:\.\d)? [KMGT]"


def check_diff():
    """-d CORE PID in the viewer (a gcore of a running sleep, then the
    sleep itself): a figure the core does not know is '-' on its side and
    in the change, the live side's a figure (as -d -s prints them); none
    of it a change from 0: the Total's Committed and
    WS, and back in the viewer (Esc, Esc, D) the summary's changes, and no
    anonymous region tagged grown or shrunk (by a Committed the core does
    not know)."""
    if not shutil.which("gcore"):
        T.skip("-d CORE PID in the viewer", "no gcore (gdb) to dump a "
               "running process")
        return
    p = subprocess.Popen(["sleep", "3600"])
    tmp = tempfile.mkdtemp(prefix="vms-corediff-")
    tm = None
    try:
        core = T.gcore(p.pid, tmp)
        # (the same process: the viewer's changes are of one run)
        tm = D.Tmux([T.VMSCOPE, "-d", core, str(p.pid)], width=200,
                    height=50, env={"NO_COLOR": "1"})
        scr = tm.wait_for(lambda s: "vmscope  diff" in s and
                          re.search(r"^ Total ", s, re.M))
        total = next(l for l in scr.splitlines() if l.startswith(" Total "))
        # Committed A B change, Total WS A B change, ...
        T.ok(re.match(r"^ Total\s+-\s+%s\s+-\s+-\s+%s\s+-\s" % (FIG, FIG),
                      total),
             "-d CORE PID: the Total's Committed and Total WS: '-' for the "
             "core, a figure for the live side, '-' for the change", total)
        tm.keys("Escape")
        tm.wait_for(lambda s: "vmscope  diff" not in s)
        tm.keys("Escape")
        tm.wait_for(lambda s: ">Total" in s or " Total" in s)
        tm.keys("D")
        scr = tm.wait_for(lambda s: "changes since" in s)
        total = next((l for l in scr.splitlines()
                      if l.startswith(">Total") or l.startswith(" Total")),
                     "")
        # Size Committed ...: the size moved (or not), Committed '-'
        T.ok(re.match(r"^.Total\s+[+~-]?\s*(?:[+-]%s|)\s+-\s" % FIG, total),
             "-d CORE PID, the viewer's changes: the Total's Committed "
             "change is '-', not a change from 0", total)
        anon = [l for l in scr.splitlines()
                if re.match(r"^[ +>-] ?[0-9a-f]{16} +(Heap|Stack|Private "
                            r"Data) ", l) and re.search(r"\[(grown|shrunk)",
                                                        l)]
        T.eq(anon, [], "no anonymous region (its Committed not in the "
             "core) tagged grown or shrunk")
    finally:
        if tm:
            tm.kill()
        p.kill()
        p.wait()
        shutil.rmtree(tmp)


def main():
    D.require_tmux("a core in the viewer")
    check(200, 50, None, ["-t", "light"], "200x50 -t light", True)
    check(80, 24, {"NO_COLOR": "1"}, [], "80x24 NO_COLOR", False)
    check_diff()
    T.done()


if __name__ == "__main__":
    main()
