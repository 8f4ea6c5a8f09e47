#!/usr/bin/env python3
"""Which columns the details show at each width from 60 to 80 (the man
page: the figures come before Prot, which gives way first; at 80 columns
Size, Committed, WS and Details; at 60 Details narrows to keep Size and
WS), one session resized a column at a time, on the everykind target:
with the default columns, Size and WS from 60 to 70 (Details narrowed),
Size and Committed from 71 to 79 (WS, wider than what is left, in the
setup's order after Committed), Size, Committed and WS at 80; never Prot,
never fewer columns at a wider terminal. Then with every column of the
setup shown (a settings file naming them all) from 60 to 200: never
fewer columns at a wider terminal, and Prot only beside every figure.
It used to show only Size from 61 to 65 (fewer than at 60) and Prot in
WS's place at 66-69 and 76-79.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

status = D.status
NAMES = ["Size", "Committed", "Private", "WS", "Private WS",
         "Shareable WS", "Shared WS", "Locked WS", "PSS", "Swap", "Blocks",
         "Prot", "Details"]
KEYS = ["size", "committed", "private", "ws", "private_ws", "shareable_ws",
        "shared_ws", "locked_ws", "pss", "swap", "blocks", "prot",
        "details"]


def columns(scr):
    """The details' heading after Address and Type, as column names."""
    for ln in scr.splitlines():
        m = re.match(r"^\s+Address\s*[v^]?\s+Type\s*(.*)$", ln)
        if m:
            out, rest = [], m.group(1)
            # longest names first: "Private WS" before "Private", "WS"
            names = sorted(NAMES, key=len, reverse=True)
            while rest.strip():
                rest = rest.lstrip()
                n = next((n for n in names if rest.startswith(n)), None)
                if n is None:
                    out.append(rest.split()[0])
                    rest = rest[len(rest.split()[0]):]
                else:
                    out.append(n)
                    rest = rest[len(n):]
            return out
    return None


def at(tm, w):
    tm.resize(w, 30)
    # drawn for w: the status line's count ends a column before its end
    return tm.wait_for(lambda s: columns(s) is not None and
                       re.search(r"\d+/\d+$", status(s)) and
                       len(status(s)) == w - 1)


def defaults(p):
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=80, height=30,
                env={"NO_COLOR": "1"})
    tm.wait_for(D.ready, timeout=120)
    last = 0
    for w in range(60, 81):
        got = columns(at(tm, w))
        if w <= 70:
            want = ["Size", "WS", "Details"]
        elif w < 80:
            want = ["Size", "Committed", "Details"]
        else:
            want = ["Size", "Committed", "WS", "Details"]
        T.eq(got, want, "%d columns: %s" % (w, " ".join(want)))
        T.ok(got and len(got) >= last,
             "%d columns: no fewer columns than at %d" % (w, w - 1), got)
        last = len(got or [])
    tm.kill()


def every(p, tmp):
    xdg = os.path.join(tmp, "xdg")
    os.makedirs(os.path.join(xdg, "vmscope"))
    with open(os.path.join(xdg, "vmscope", "config"), "w") as f:
        f.write("".join("column %s on\n" % k for k in KEYS))
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=80, height=30,
                env={"NO_COLOR": "1", "XDG_CONFIG_HOME": xdg})
    tm.wait_for(D.ready, timeout=120)
    last, bad = [], []
    for w in list(range(60, 100)) + list(range(100, 201, 5)):
        got = columns(at(tm, w)) or []
        figs = [c for c in got if c not in ("Prot", "Details")]
        if len(got) < len(last):
            bad.append("%d: %s after %s" % (w, got, last))
        if "Prot" in got and len(figs) < 11:
            bad.append("%d: Prot beside %d figures of 11" % (w, len(figs)))
        if got[-1:] != ["Details"]:
            bad.append("%d: no Details: %s" % (w, got))
        last = got
    T.ok(not bad, "every column chosen, 60 to 200 columns: never fewer "
         "columns at a wider terminal, Prot only beside every figure",
         "\n".join(bad))
    T.ok("Prot" in last, "at 200 columns every column, Prot too", last)
    tm.kill()


def run(tmp):
    p, _ = T.start([T.target("everykind"), os.path.join(tmp, "d")])
    defaults(p)
    every(p, tmp)
    T.kill(p)


def main():
    D.run_in_tmp("the details' columns at each width", run)


main()
