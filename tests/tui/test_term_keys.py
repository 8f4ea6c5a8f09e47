#!/usr/bin/env python3
"""The keys the help lists do what it says whatever TERM names, as a
terminal sends them: tmux sends Home as ESC [1~, End as ESC [4~, PgDn as
ESC [6~, F1 as ESC OP, F5 as ESC [15~, F10 as ESC [21~ (an xterm's and a
VT220's sequences), whatever TERM its panes have. With TERM=xterm-256color
(a common tmux setting) the terminfo names none of Home's and End's (its
khome is ESC OH); with vt220 they are Find and Select (kfnd, kslt); with
linux F1 is ESC [[A; with vt100 there is no PgDn, Home, End nor F5-F10.
The viewer read such a key as ESC (clear the filter, back to the picker)
and '[', '1', '~'. For each of those TERMs, on the viewer's details of a
sleep: End goes to the last row and Home to the first (N/M on the status
line), PgDn moves a page and PgUp back, F1 opens the help and End there
shows its last line, F5 takes a new snapshot, F10 quits (exit status 0).
A TERM whose terminfo is not installed is skipped.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

TERMS = ("xterm-256color", "vt220", "linux", "vt100")
HELP = re.compile(r"vmscope help: every key \(lines (\d+)-(\d+) of (\d+)\)")


def at(scr):
    """(cursor row, rows) from the status line's N/M."""
    m = re.search(r"(\d+)/(\d+)\s*$", D.status(scr))
    return (int(m.group(1)), int(m.group(2))) if m else None


def moved(tm, key, pred):
    """Sends key and waits for pred(screen); the screen then."""
    tm.keys(key)
    return tm.wait_for(pred, timeout=10)


def one_term(term, pid):
    tm = D.Tmux([T.VMSCOPE, str(pid)], width=100, height=30, term=term,
                shell_tail='echo "EXIT=$rc"')
    tm.wait_for(D.ready)
    scr = moved(tm, "Tab", lambda s: "Address" in s and at(s))
    n = at(scr)[1]
    scr = moved(tm, "End", lambda s: at(s) == (n, n))
    T.eq(at(scr), (n, n), "TERM=%s: End goes to the last row" % term)
    scr = moved(tm, "Home", lambda s: at(s) == (1, n))
    T.eq(at(scr), (1, n), "TERM=%s: Home goes to the first row" % term)
    scr = moved(tm, "NPage", lambda s: at(s) and at(s)[0] > 1)
    T.ok(at(scr) and at(scr)[0] > 1, "TERM=%s: PgDn moves a page" % term,
         D.status(scr))
    scr = moved(tm, "PPage", lambda s: at(s) == (1, n))
    T.eq(at(scr), (1, n), "TERM=%s: PgUp moves back" % term)
    scr = moved(tm, "F1", lambda s: HELP.search(s))
    m = HELP.search(scr)
    T.ok(m is not None, "TERM=%s: F1 opens the help" % term,
         scr.splitlines()[:1])
    if m:
        scr = moved(tm, "End", lambda s: HELP.search(s) and
                    HELP.search(s).group(2) == HELP.search(s).group(3))
        m = HELP.search(scr)
        T.ok(m and m.group(2) == m.group(3),
             "TERM=%s: End in the help shows its last line" % term,
             scr.splitlines()[:1])
        tm.keys("F1")
        tm.wait_for(lambda s: not HELP.search(s) and at(s), timeout=10)
    scr = moved(tm, "F5", lambda s: "new snapshot" in D.status(s))
    T.ok("new snapshot" in D.status(scr),
         "TERM=%s: F5 takes a new snapshot" % term, D.status(scr))
    scr = moved(tm, "F10", lambda s: "EXIT=" in s)
    T.ok("EXIT=0" in scr, "TERM=%s: F10 quits" % term, D.status(scr))
    tm.kill()


def run(tmp):
    s, _ = T.start_asleep(["sleep", "600"])
    for term in TERMS:
        if subprocess.run(["infocmp", term], capture_output=True,
                          check=False).returncode != 0:
            T.skip("TERM=%s" % term, "no terminfo entry for it here")
            continue
        one_term(term, s.pid)
    T.kill(s)


def main():
    D.run_in_tmp("the keys as terminals send them", run)


main()
