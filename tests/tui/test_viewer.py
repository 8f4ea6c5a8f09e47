#!/usr/bin/env python3
"""The viewer driven in tmux on the everykind target: every type and every
column of the summary; find libc, expand it, .text appears, collapse; filter
by type with Enter; sort; the map; help lists every key; theme switch;
resize down to 25x6 and back; q quits and the terminal is restored; SIGTERM
restores it too.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

TYPES = ["Image", "Mapped File", "Shareable", "Heap", "Managed Heap",
         "Stack", "Private Data", "Page Table", "Total", "Free"]
# the summary's two-line headings: (upper, lower)
COLUMNS = [("", "Size"), ("", "Committed"), ("", "Private"),
           ("Total", "WS"), ("Private", "WS"), ("Shareable", "WS"),
           ("Shared", "WS"), ("Locked", "WS"), ("", "PSS"), ("", "Swap"),
           ("", "Blocks"), ("", "Largest")]
TAIL = ('echo "EXIT=$rc"; stty -a | tr " ;" "\\n\\n" | '
        'grep -x -e icanon -e -icanon -e echo -e -echo | tr "\\n" " "; '
        'echo "STTY-END"; tput rmcup >/dev/null 2>&1')


def details(scr):
    """The details' rows: the lines between their heading and the status
    line (the header is four lines, five with the capture's notes)."""
    lines = scr.splitlines()
    for y, ln in enumerate(lines):
        if ln.lstrip().startswith("Address"):
            return lines[y + 1:-1]
    return []


def summary_ok(scr):
    """The full capture is on screen (not only the layout preview)."""
    if "Sampler pss" not in scr:
        return False
    lines = scr.splitlines()
    # the status line is drawn last: the frame is complete
    if not lines or not lines[-1].strip():
        return False
    head = [l for l in lines if l.startswith(" Type")]
    return bool(head) and all(D.row_of(scr, " " + t + " ") for t in TYPES)


def main():
    D.run_in_tmp("viewer in tmux", run)


def run(tmp):
    p, ready = T.start([T.target("everykind"), os.path.join(tmp, "data")])
    pid = p.pid
    # HOME without themes of its own: t cycles the five of themes/
    tm = D.Tmux([T.VMSCOPE, str(pid)], shell_tail=TAIL,
                env={"HOME": tmp, "XDG_CONFIG_HOME": ""})
    scr = tm.wait_for(summary_ok)
    T.ok(summary_ok(scr), "summary shows every type, Total and Free", scr)
    heads = [l for l in scr.splitlines()
             if l.startswith(" Type") or "Shareable" in l]
    both = "\n".join(heads)
    T.ok(all(a in both and b in both for a, b in COLUMNS),
         "summary shows all twelve columns", both)
    T.ok(("pid %d" % pid) in scr.splitlines()[0], "header names the pid",
         scr.splitlines()[0])
    T.ok("Committed" in scr and "Working set" in scr and "Sampler" in scr
         and "Taken" in scr, "header: sampler, time, committed and "
         "working-set bars", scr)
    for word in ("Address", "Type", "Size", "Committed", "WS", "Private WS",
                 "Prot", "Details"):
        T.ok(re.search(r"\b%s\b" % re.escape(word),
                       D.row_of(scr, "Address") or ""),
             "details column %s" % word)
    free_row = D.row_of(scr, " Free ")
    T.ok(free_row and re.search(r"\d+(\.\d)? [KMGTPE]\s*$", free_row),
         "Free row shows the largest free block", free_row)

    # find libc, expand it, .text appears, collapse again. The first
    # match is libc's first (r--p) region; n moves on to the next ones
    # until the one holding .text (r-xp) is expanded.
    tm.keys("Tab", "/").text("libc.so").keys("Enter")
    scr = tm.wait_for(lambda s: "Find:" not in s)
    T.ok("not found" not in scr, "find libc.so finds it", scr)
    found = False
    for _ in range(12):
        tm.keys("Right")
        scr = tm.wait_for(".text", timeout=2)
        if ".text" in scr:
            found = True
            break
        tm.keys("Left", "n")
    T.ok(found, "Right expands a libc region into sections; .text appears",
         scr)
    T.ok(re.search(r"^- .*libc", scr, re.M) is not None,
         "the expanded region is marked '-'", scr)
    tm.expect("Left collapses it again", lambda s: ".text" not in s,
              "Left")
    tm.expect("+ expands too", ".text", "+")
    tm.keys("-")
    tm.wait_for(lambda s: ".text" not in s)

    # filter by type: Heap
    tm.keys("Tab", "Home")
    for _ in range(3):
        tm.keys("Down")
    tm.keys("Enter")
    scr = tm.wait_for(lambda s: "| 1/" in s or (" Heap |" in s))
    det = details(scr)
    types = set()
    for l in det:
        m = re.match(r"^[+\- ] [0-9a-f]{16} (\S+(?: \S+)?)", l)
        if m:
            types.add(m.group(1).strip())
    T.ok(types == {"Heap"}, "Enter on Heap shows heap regions only",
         "\n".join(det))
    T.ok(re.search(r"^>\S*\s*Heap", scr, re.M) or ">Heap" in scr.replace(
        " ", ""), "the filtered type is marked", scr)
    tm.keys("End", "Enter")  # End is Free
    scr = tm.wait_for(lambda s: "Free |" in s)
    det = [l for l in details(scr) if l.strip()]
    T.ok(det and all(" Free " in l for l in det),
         "Enter on Free lists the free gaps", "\n".join(det))
    tm.expect("Enter on Total shows everything again", "all |", "Up",
              "Enter")

    # sort
    def column(scr, group):
        """The rows' addresses (group 1) or sizes in bytes (2)."""
        out = []
        for l in details(scr):
            m = re.match(r"^[+\- ] ([0-9a-f]{16}) .{12} +([\d.]+) "
                         r"([KMGTPE])", l)
            if m and group == 1:
                out.append(int(m.group(1), 16))
            elif m:
                mult = 1024 ** "KMGTPE".index(m.group(3))
                out.append(float(m.group(2)) * mult)
        return out

    tm.keys("Tab", "s")
    scr = tm.wait_for("sort Size v")
    T.ok("sort Size v" in scr, "s sorts by size, largest first", scr)
    sizes = column(scr, 2)
    T.ok(len(sizes) > 5 and sizes == sorted(sizes, reverse=True),
         "rows are in descending size", sizes)
    scr = tm.expect("S reverses the sort", "sort Size ^", "S")
    sizes = column(scr, 2)
    T.ok(len(sizes) > 5 and sizes == sorted(sizes),
         "... rows in ascending size", sizes)
    scr = tm.expect("s cycles back to address order", "sort Address ^",
                    *["s"] * 7)
    addrs = column(scr, 1)
    T.ok(len(addrs) > 5 and addrs == sorted(addrs),
         "... rows in ascending address", addrs)
    scr = tm.expect("S on Address: the highest address first",
                    "sort Address v", "S")
    addrs = column(scr, 1)
    T.ok(len(addrs) > 5 and addrs == sorted(addrs, reverse=True),
         "... rows in descending address", addrs)
    tm.expect("S again: address order", "sort Address ^", "S")

    # the map
    scr = tm.expect("m opens the map", lambda s: "Address space of" in s
                    and "zoom" in s.splitlines()[-1], "m")
    T.ok("I Image" in scr and ". Free" in scr, "the map has a legend", scr)
    cells = [l for l in scr.splitlines() if re.match(r"^[0-9a-f]{16} ", l)]
    T.ok(any("I" in l[17:] for l in cells) and
         any("." in l[17:] for l in cells) and
         any("~ " in l for l in cells), "the map shows image cells and "
         "free cells and folded free gaps", scr)
    info = scr.splitlines()[-2]
    T.ok(re.match(r"^ [0-9a-f]{16}  ", info) is not None,
         "the map names what is under the cursor", info)
    m = re.search(r"cell (\S+ \S)", scr)
    tm.keys("-")
    scr2 = tm.wait_for(lambda s: re.search(r"cell (\S+ \S)", s) and
                       re.search(r"cell (\S+ \S)", s).group(1) !=
                       (m.group(1) if m else ""))
    m2 = re.search(r"cell (\S+ \S)", scr2)
    T.ok(m and m2 and m.group(1) != m2.group(1), "- zooms out (bigger "
         "cells)", "%s -> %s" % (m and m.group(1), m2 and m2.group(1)))
    tm.keys("Right", "Right", "Enter")
    scr = tm.wait_for(lambda s: " Type" in s and "Address space" not in s)
    T.ok(summary_ok(scr), "Enter in the map goes back to the viewer", scr)

    # help lists every key
    tm.keys("?")
    scr = tm.wait_for(lambda s: "every key" in s and "Esc back" in s)
    keys_seen = scr
    tm.keys("PgDn")
    keys_seen += tm.wait_for(lambda s: s != scr, timeout=3)
    tm.keys("End")
    keys_seen += tm.screen()
    for k in ("Up Down j k", "PgUp PgDn", "Home End", "Tab", "Enter",
              "Right +", "Left -", "/", "n N", "s", "S", "m", "F5 r", "t",
              "? F1", "Esc", "q F10", "+ -", "Shift-Tab"):
        T.ok(re.search(r"^  %s\s" % re.escape(k), keys_seen, re.M)
             is not None, "help lists %s" % k)
    tm.expect("Esc closes the help", summary_ok, "Escape")

    # theme switch
    tm.keys("t")
    scr = tm.wait_for("theme: ")
    T.ok("theme: dark" in scr, "t switches to the next theme (dark)",
         scr.splitlines()[-1])
    seen = ["dark"]
    for _ in range(4):
        tm.keys("t")
        scr = tm.wait_for(lambda s: re.search(r"theme: (\S+)", s) and
                          re.search(r"theme: (\S+)", s).group(1) != seen[-1])
        m = re.search(r"theme: (\S+)", scr)
        seen.append(m.group(1) if m else "?")
    T.ok(seen == ["dark", "light", "mono", "colorblind", "default"],
         "t cycles dark, light, mono, colorblind and back to default", seen)
    tm.keys("j")

    # resize down to 25x6 and back up
    tm.resize(25, 6)
    scr = tm.wait_for("too small")
    T.ok("too small" in scr, "25x6: a 'terminal too small' message", scr)
    tm.resize(120, 40)
    scr = tm.wait_for(summary_ok)
    T.ok(summary_ok(scr), "back at 120x40 the viewer is redrawn", scr)
    tm.resize(80, 24)
    scr = tm.wait_for(lambda s: " Image " in s and "Address" in s and
                      "Largest" in s and "Details" in s)
    T.ok(" Image " in scr and "Address" in scr, "80x24 shows summary and "
         "details", scr)
    lines = scr.splitlines()
    at = next(i for i, l in enumerate(lines) if l.startswith(" Type"))
    heads = "\n".join(lines[at - 1:at + 1])
    T.ok(all(w in heads for w in ("Size", "Committed", "Total", "Largest",
                                  "Blocks")) and "Locked" not in heads,
         "80x24: the summary keeps its main columns, Locked WS gives way",
         heads)
    det = D.row_of(scr, "Address") or ""
    T.ok("Details" in det and "Private WS" not in det,
         "80x24: Details keeps room, Private WS gives way", det)

    # a new snapshot
    tm.expect("r takes a new snapshot",
              lambda s: re.search(r"new snapshot: \d+ regions", s), "r")
    tm.expect("F5 too, and the viewer is redrawn",
              lambda s: "new snapshot:" in s and " Image " in s and
              "Details" in s, "F5")

    # q quits, terminal restored
    tm.keys("q")
    scr = tm.wait_for("STTY-END")
    T.ok("EXIT=0" in scr, "q quits with status 0", scr)
    T.ok(re.search(r"\bicanon echo\b", scr) is not None,
         "the terminal is restored (icanon echo)", scr)
    tm.kill()

    # SIGTERM restores the terminal too
    tm = D.Tmux([T.VMSCOPE, str(pid)], shell_tail=TAIL)
    tm.wait_for(summary_ok)
    vp = tm.child_pid()
    if vp:
        os.kill(vp, 15)
    scr = tm.wait_for("STTY-END")
    T.ok("EXIT=" in scr and re.search(r"\bicanon echo\b", scr),
         "SIGTERM: vmscope exits and the terminal is restored", scr)
    tm.kill()
    T.kill(p)

    # vmscope -- CMD ARGS launches CMD and views it
    data = os.path.join(tmp, "launched")
    tm = D.Tmux([T.VMSCOPE, "--", T.target("everykind"), data],
                shell_tail=TAIL)
    scr = tm.wait_for(lambda s: summary_ok(s) and "everykind" in s)
    first = scr.splitlines()[0] if scr else ""
    T.ok("everykind" in first and data in first,
         "-- CMD ARGS: the header names the launched command", first)
    m = re.search(r"pid (\d+)", first)
    lpid = int(m.group(1)) if m else 0
    tm.keys("q")
    scr = tm.wait_for("STTY-END")
    T.ok("EXIT=0" in scr, "-- CMD: q quits", scr)
    T.ok(lpid and not os.path.exists("/proc/%d" % lpid),
         "-- CMD: the launched command is stopped and reaped on exit")
    if lpid and os.path.exists("/proc/%d" % lpid):
        os.kill(lpid, 9)
    tm.kill()


main()
