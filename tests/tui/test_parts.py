#!/usr/bin/env python3
"""Typed parts in the viewer (issue 28 item 2): a python whose obmalloc
arenas share their regions with other memory (tests/targets/pyarenas.py),
saved with -F -w and opened with -l at 200x50. The viewer's Managed Heap
row is the JSON export's of the same file (its regions and parts); a
region split into parts reads "holds cpython obmalloc arenas" and Right
opens it into its part, whose row says Managed Heap with its own Size,
Committed, WS and Private WS, as the export's child has them; Enter on
the Managed Heap summary row lists the regions of that type and those
holding parts of it."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

PY = os.path.join(T.ROOT, "tests", "targets", "pyarenas.py")


def run(tmp):
    path = os.path.join(tmp, "py.vms")
    with open(os.devnull, "w") as null:
        p, _ = T.start([sys.executable, PY], stderr=null)
    try:
        r = T.run_vmscope("-F", "-w", path, "-s", p.pid)
    finally:
        T.kill(p)
    if not T.ok(r.returncode == 0, "the python saved", r.stderr.decode()):
        return
    snap = json.loads(T.run_vmscope("-l", path, "-e", "json").stdout)
    split = [r for r in snap["regions"]
             if any("type" in c for c in r["children"])]
    if not T.ok(split, "the saved python has a region split into parts"):
        return
    reg = split[0]
    part = [c for c in reg["children"] if "type" in c][0]
    mh = [t for t in snap["types"] if t["type"] == "managed_heap"][0]
    tm = D.Tmux([T.VMSCOPE, "-l", path], width=200, height=50)
    scr = tm.wait_for("Managed Heap")
    row = D.row_of(scr, " Managed Heap ")
    T.ok(row and row.split()[2:4] == D.size_text(mh["size"]).split(),
         "the summary's Managed Heap row is the export's (%s)"
         % D.size_text(mh["size"]), row)
    start = "%016x" % int(reg["start"], 16)
    tm.keys("/")
    tm.text(start)
    tm.keys("Enter", "Escape", "Right")
    scr = tm.wait_for(lambda s: re.search(r"^- %s " % start, s, re.M))
    lines = scr.splitlines()
    at = [i for i, ln in enumerate(lines) if re.match(r"^- %s " % start, ln)]
    T.ok(at and "holds cpython obmalloc arenas" in lines[at[0]],
         "the split region is open, its detail says what it holds", scr)
    kid = lines[at[0] + 1] if at and at[0] + 1 < len(lines) else ""
    want = [D.size_text(part[k]) for k in ("size", "committed", "rss",
                                           "private_ws")]
    got = re.findall(r"\d+(?:\.\d)? [KMGT]|\d+ B",
                     kid.split("Managed Heap", 1)[-1])
    T.ok("%016x" % int(part["start"], 16) in kid and
         "Managed Heap" in kid and got[:4] == want,
         "its part's row: Managed Heap, Size, Committed, WS and Private WS "
         "as the export's child (%s)" % ", ".join(want), kid)
    tm.kill()

    # the Managed Heap row as a filter: its regions and those holding
    # Managed Heap parts
    tm = D.Tmux([T.VMSCOPE, "-l", path], width=200, height=60)
    tm.wait_for("Managed Heap")
    tm.keys("Up", "Up", "Up", "Up", "Enter")
    scr = tm.wait_for(lambda s: "holds cpython" in s)
    rows = [ln for ln in scr.splitlines()
            if re.match(r"^[+\- ] [0-9a-f]{16} ", ln)]
    want = set("%016x" % int(r["start"], 16) for r in snap["regions"]
               if r["type"] == "managed_heap" or any(
                   c.get("type") == "managed_heap" for c in r["children"]))
    got = set(ln.split()[1] if ln[0] in "+-" else ln.split()[0]
              for ln in rows)
    T.ok(rows and got <= want and start in got,
         "Enter on the Managed Heap row lists its regions and those with "
         "Managed Heap parts (%d rows of %d)" % (len(got), len(want)), scr)
    tm.kill()


if __name__ == "__main__":
    D.run_in_tmp("typed parts in the viewer", run)
