#!/usr/bin/env python3
"""The other allocator on the heaps screen (issue 11, items 2 and 4):
tests/targets/allocs.c with mimalloc preloaded, viewed with -F at 120x40.
H opens the heaps screen; b turns to exact bytes. glibc's malloc, never
used, says so; below it a heading row names mimalloc and its library, and
the row of its heap (Right opens it into its address ranges) shows the
bytes in use, free and the blocks in use that the JSON export's "mimalloc"
heap entry has (captured with -F before; the target is idle in pause()),
the detail names the library, that it provides malloc, and where the
figures came from. With tcmalloc preloaded, at 80x24 with NO_COLOR: the
brk heap is a "tcmalloc heap" row under tcmalloc's heading, and the
detail gives its own count of bytes taken from the system, as the export
has it. Skipped where the library is not installed (scripts/deps.sh);
targets are killed by their pid."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

LIBDIR = "/usr/lib/x86_64-linux-gnu"
# Up, not Home: the cursor to the first row whatever the terminal's keys
FIRST = ["Up"] * 5


def start(lib):
    env = dict(os.environ, LD_PRELOAD=os.path.join(LIBDIR, lib))
    p, line = T.start([T.target("allocs")], env=env)
    return p


def figures(scr, needle):
    """The numbers on the row holding needle (exact bytes), '-' as None."""
    line = D.row_of(scr, needle) or ""
    return [None if g == "-" else int(g)
            for g in re.findall(r"(?<=\s)(\d+|-)(?=\s|$)",
                                line.split(needle, 1)[-1])]


def mimalloc():
    p = start("libmimalloc.so.2")
    try:
        snap = T.vmscope_json(p.pid, "-F")
        h = [h for h in snap["heaps"] if h["kind"] == "mimalloc"][0]
        tm = D.Tmux([T.VMSCOPE, "-F", str(p.pid)], width=120, height=40)
        tm.wait_for(D.captured, timeout=120)
        tm.keys("H")
        tm.wait_for("Heap / arena")
        scr = tm.expect("mimalloc: b shows exact bytes", "(bytes)", "b")
        T.ok("glibc malloc" in scr and "(never used)" in scr,
             "mimalloc: glibc's malloc says it was never used",
             D.row_of(scr, "glibc malloc"))
        T.ok("- mimalloc (libmimalloc.so.2" in scr,
             "mimalloc: a heading row names it and its library",
             D.row_of(scr, "mimalloc ("))
        row = "mimalloc heap 0x%x" % int(h["id"], 16)
        got = figures(scr, row + ", 1 range")
        size = sum(int(g["end"], 16) - int(g["start"], 16)
                   for g in h["segments"])
        T.ok(got == [size, h["in_use"], h["free"], None, h["chunks"]],
             "mimalloc: its heap row shows the export's size, in use, "
             "free and blocks", (got, size, h))
        scr = tm.keys(*(FIRST + ["Down"] * 2)).wait_for("provides malloc")
        T.ok("found by mi_malloc" in scr and
             "figures from their pages' entries" in scr,
             "mimalloc: the detail says what it is and where its figures "
             "come from")
        seg = h["segments"][0]
        tm.expect("mimalloc: Right opens the heap into its ranges",
                  "%s-%s" % (seg["start"], seg["end"]), "Right")
        tm.kill()
    finally:
        T.kill(p)


def tcmalloc():
    p = start("libtcmalloc_minimal.so.4")
    try:
        snap = T.vmscope_json(p.pid, "-F")
        a = snap["allocator"]
        env = dict(os.environ, NO_COLOR="1")
        tm = D.Tmux([T.VMSCOPE, "-F", str(p.pid)], width=80, height=24,
                    env=env)
        tm.wait_for(D.captured, timeout=120)
        tm.keys("H")
        tm.wait_for("Heap / arena")
        tm.expect("tcmalloc: b shows exact bytes", "(bytes)", "b")
        scr = tm.keys(*(FIRST + ["Down"])).wait_for("provides malloc")
        T.ok(re.search(r"\+ tcmalloc heap 0x[0-9a-f]+", scr) and
             "Taken from the system (its count) %d" % a["system"] in
             scr.replace("\n", " "),
             "tcmalloc at 80x24: the brk heap is its heap row, the detail "
             "its own count of bytes taken (%d)" % a["system"], scr)
        tm.kill()
    finally:
        T.kill(p)


def main():
    D.require_tmux("the other allocator in tmux")
    for lib, fn in (("libmimalloc.so.2", mimalloc),
                    ("libtcmalloc_minimal.so.4", tcmalloc)):
        if not os.path.exists(os.path.join(LIBDIR, lib)):
            T.skip(fn.__name__, "%s is not installed" % lib)
            continue
        fn()
    T.done()


main()
