#!/usr/bin/env python3
"""Small terminals (issue 12, item 3), on the everykind target: at 80x24
(NO_COLOR) the details get at least half the lines (the summary folds to
its rows that are not zero, the header to one line that keeps the time),
a library reads by its file name first, the key line drops whole entries,
the map takes the full width and its legend wraps whole; at 200x60 (a
theme) nothing folds and paths are whole.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

HINTS = ["F1 help", "Tab pane", "Enter filter/open", "/ find", "s sort",
         "m map", "r refresh", "q quit"]
LABELS = {"image": "Image", "mapped_file": "Mapped File",
          "shareable": "Shareable", "heap": "Heap",
          "managed_heap": "Managed Heap", "stack": "Stack",
          "private_data": "Private Data", "page_table": "Page Table"}
LEGEND = ["I Image", "F Mapped File", "S Shareable", "H Heap",
          "M Managed Heap", "K Stack", "D Private Data", ". Free",
          "lower case: reserved"]


def ready(scr):
    return "pss, not frozen" in scr and re.search(r"\d+/\d+\s*$", scr)


def whole_hints(line):
    """The hints on the left of the status line are whole entries, in
    order, from the first."""
    left = re.split(r"\s{3,}(?=\S+ \| sort)", line.strip())[0]
    got = [h for h in re.split(r"\s{2,}", left.strip()) if h]
    return got == HINTS[:len(got)] and len(got) > 0, got


def map_checks(tm, w, what):
    tm.keys("m")
    scr = tm.wait_for(lambda s: "Address space of" in s)
    lines = scr.splitlines()
    cells = [l[17:] for l in lines if re.match(r"^[0-9a-f]{16} [^~]", l)]
    T.ok(cells and max(len(c) for c in cells) == w - 18,
         "%s: the map's lines use the full width (%d cells)"
         % (what, w - 18), max((len(c) for c in cells), default=0))
    legend = []
    for l in lines[1:]:
        if re.match(r"^[0-9a-f]{16} ", l):
            break
        legend.append(l)
    text = "\n".join(legend)
    T.ok(all(e in text for e in LEGEND) and
         all(len(l) <= w for l in legend),
         "%s: the legend is whole, on %d line(s)" % (what, len(legend)),
         text)
    tm.keys("Escape")
    tm.wait_for(lambda s: "Address space of" not in s)
    return len(legend)


def main():
    D.run_in_tmp("small terminals in tmux", run)


def long_message(tm):
    """A message longer than 80 columns (C without a trace) wraps over the
    lines above the status line: its last words are on screen."""
    tm.keys("Escape")
    tm.wait_for(lambda s: "Address" in s)
    tm.keys("C")
    scr = tm.wait_for(lambda s: "its snapshot)" in s, timeout=5)
    lines = scr.splitlines()
    T.ok(lines and "its snapshot)" in lines[-1] and
         "no trace:" in lines[-2] and all(len(l) <= 80 for l in lines[-2:]),
         "80x24: a message longer than the screen wraps over two lines, "
         "whole", lines[-3:])


def smallest(p):
    """At 60x19, the smallest size the viewer takes, the details keep
    figures (Size, and WS beside it) before Prot and a wide Details: each
    row has its size under the heading."""
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=60, height=19,
                env={"NO_COLOR": "1"})
    scr = tm.wait_for(ready)
    lines = scr.splitlines()
    at = next((i for i, l in enumerate(lines) if "Address" in l and
               "Details" in l), None)
    head = lines[at] if at is not None else ""
    T.ok(re.search(r"\bSize\s+WS\s+Details", head) and "Prot" not in head,
         "60x19: the details show Size and WS before Details; Prot gives "
         "way", head)
    m = re.search(r"\bSize\b", head)
    rows = [l for l in lines[at + 1:-1] if re.match(r"^..[0-9a-f]{16} ", l)] \
        if at is not None else []
    end = m.end() if m else 0
    T.ok(rows and all(re.search(r"\d+(?:\.\d)? [BKMGTPE]$",
                                l[:end].rstrip()) for l in rows),
         "60x19: each row has its size under Size (%d rows)" % len(rows),
         "\n".join([head] + rows))
    tm.kill()


def run(tmp):
    p, _ = T.start([T.target("everykind"), os.path.join(tmp, "d")])
    snap = T.vmscope_json(p.pid)
    zero = [LABELS[t["type"]] for t in snap["types"]
            if t["type"] in LABELS and t["size"] == 0 and t["blocks"] == 0]
    libc = next(r["path"] for r in snap["regions"]
                if r.get("path") and "/libc.so" in r["path"])

    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=80, height=24,
                env={"NO_COLOR": "1"})
    scr = tm.wait_for(ready)
    lines = scr.splitlines()
    head = next(i for i, l in enumerate(lines) if "Address" in l and
                "Details" in l)
    T.ok(len(lines) - 1 - head >= 12,
         "80x24: the details get at least half the lines (%d)"
         % (len(lines) - 1 - head), scr)
    T.ok(zero and not any(l.startswith(" " + z) for z in zero
                          for l in lines),
         "80x24: the summary folds its rows that are zero (%s)"
         % ", ".join(zero), scr)
    T.ok(any(l.startswith(" Image ") for l in lines) and
         any(l.startswith(">Total") for l in lines),
         "80x24: Image and Total stay", scr)
    T.ok(re.search(r"Taken \d{4}-", lines[0]),
         "80x24: the header is one line that keeps the time", lines[0])
    good, got = whole_hints(lines[-1])
    T.ok(good and len(got) < len(HINTS),
         "80x24: the key line shows whole entries only (%s)"
         % ", ".join(got), lines[-1])
    T.ok(re.search(r"\d+/\d+\s*$", lines[-1]),
         "80x24: the state on the right stays", lines[-1])
    # the details keep Size, Committed, WS and Details; Prot gives way
    head = next((l for l in lines if "Address" in l and "Details" in l), "")
    T.ok(re.search(r"\bSize\s+Committed\s+WS\s+Details", head) and
         "Prot" not in head,
         "80x24: the details show Size, Committed, WS and Details; Prot "
         "gives way first", head)
    tm.keys("Tab", "/").text("libc.so").keys("Enter")
    scr = tm.wait_for(lambda s: "match " in s)
    base, d = os.path.basename(libc), os.path.dirname(libc)
    row = next((l for l in scr.splitlines()
                if re.search(r"\s%s\s+/" % re.escape(base), l)), "")
    T.ok(row and re.search(r"\s%s\s+/\S*\.\.\.\S*" % re.escape(base),
                           row) and len(row) <= 80,
         "80x24: a library reads by its file name, then its directory "
         "shortened", row)
    map_checks(tm, 80, "80x24")
    long_message(tm)
    tm.kill()
    smallest(p)

    tm = D.Tmux([T.VMSCOPE, "-t", "light", str(p.pid)], width=200,
                height=60, colours=256, term="tmux-256color")
    scr = tm.wait_for(ready)
    lines = scr.splitlines()
    T.ok(all(any(l.startswith(" " + t + " ") or l.startswith(">" + t)
                 for l in lines) for t in list(LABELS.values()) +
             ["Total", "Free"]),
         "200x60: the summary has all ten rows", scr)
    T.ok(lines[1].startswith(" Sampler"), "200x60: the header has its "
         "capture line and bars", "\n".join(lines[:4]))
    good, got = whole_hints(lines[-1])
    T.ok(good and got == HINTS, "200x60: every key hint", lines[-1])
    tm.keys("Tab", "/").text("libc.so").keys("Enter")
    scr = tm.wait_for(lambda s: "match " in s)
    T.ok(libc in scr, "200x60: paths are whole (%s)" % libc, scr)
    n = map_checks(tm, 200, "200x60")
    T.ok(n == 1, "200x60: the legend fits one line", n)
    tm.kill()
    T.kill(p)


main()
