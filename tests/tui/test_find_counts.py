#!/usr/bin/env python3
"""Find's count, against the JSON export and against itself, at 160x50 on
the everykind target, for texts that hit few rows and many: a library's
name, an image's section, a thread's detail, a type's label, hex digits
of an address, a text no row has.

Find matches every region first from classes kept small (each region's
path, detail, type and whether it has children, made while nobody types:
pane_find_classes.c), or from the records (VMSCOPE_SORT_RECORDS=1, or
before the idle work); then walks the top rows in the order shown,
counting the matches of those it need not open (pane_find.c). So, sorted
by Size:

- in the region list (a), where every region is a row, the count is the
  export's: each region whose path, detail, type label or address holds
  the text, and each child whose name does; from the classes (after the
  viewer's idle work, VMSCOPE_TIMING "idle") and from the records;
- in the allocations, each text's "match K of N" and the row it lands on
  are the same from the classes as from the records;
- n from the first row visits 1, 2 ... N in turn, each a row of its own,
  and wraps to 1; N from there is N again (the last, counted, not met).
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

status = D.status
ROW = re.compile(r"^[+\- ] +[0-9a-f]{16} ")  # a details row, a child's too


def match_no(scr):
    m = re.search(r"match (\d+) of (\d+) for", status(scr))
    return (int(m.group(1)), int(m.group(2))) if m else None


def cursor_row(tm):
    """The cursor's row (drawn reversed, NO_COLOR), its text."""
    for line in tm.screen(escapes=True).splitlines():
        if re.search(r"\x1b\[[0-9;]*\b7[;m]", line):
            plain = re.sub(r"\x1b\[[0-9;]*m", "", line)
            if ROW.match(plain):
                return plain.strip()
    return ""


def find(tm, text):
    """/text Enter from the first row: (K, N) or None, and the row."""
    tm.keys("Home")
    tm.wait_for(lambda s: re.search(r"\| 1/\d+", status(s)))
    tm.keys("/").text(text).keys("Enter")
    scr = tm.wait_for(lambda s: "Find:" not in status(s) and
                      ("match " in status(s) or "not found" in status(s)))
    return match_no(scr), cursor_row(tm)


def needles(snap):
    """Texts found in few rows and in many, from the export."""
    libc = next((r["path"] for r in snap["regions"]
                 if "libc" in (r.get("path") or "")), None)
    starts = sorted({r["start"] for r in snap["regions"]})
    mid = "%016x" % int(starts[len(starts) // 2], 16)
    out = ["libc", ".text", "thread", "stack", "private", "image", "e",
           mid[4:9], mid[9:12], "zq-no-such-text"]
    T.ok(libc is not None, "the target maps libc", len(snap["regions"]))
    return out


def viewer(p, tmp, records):
    env = {"NO_COLOR": "1",
           "VMSCOPE_TIMING": os.path.join(tmp, "t-%d" % records)}
    if records:
        env["VMSCOPE_SORT_RECORDS"] = "1"
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=160, height=50, env=env,
                colours=256, term="tmux-256color")
    tm.label = "records: " if records else "classes: "
    tm.wait_for(D.ready)
    T.ok(D.idled(env["VMSCOPE_TIMING"]),
         tm.label + "the viewer's idle work ran before the finds")
    tm.keys("Tab")
    D.sort_to(tm, "Size")
    return tm


def region_list(tms, snap, texts):
    for tm in tms:
        tm.keys("a")
        tm.wait_for("regions: all")
        D.sort_to(tm, "Size")
    for text in texts:
        want = D.find_count(snap, text)
        for tm in tms:
            got, _ = find(tm, text)
            T.ok((got[1] if got else 0) == want,
                 "%sregion list by Size, /%s: %d matches, the export's"
                 % (tm.label, text, want), got)
    for tm in tms:
        tm.keys("a")
        tm.wait_for(lambda s: "regions:" not in status(s))
        D.sort_to(tm, "Size")


def allocations(tms, texts):
    seen = {}
    for text in texts:
        got = [find(tm, text) for tm in tms]
        T.ok(got[0] == got[1] and (got[0][0] or text.startswith("zq")),
             "allocations by Size, /%s: the same match and row from the "
             "classes as from the records (%s)" % (text, got[0][0]), got)
        seen[text] = got[0][0]
    return seen


def walk_all(tm, text, total):
    """n through every match of text from the first row (which may be
    one: then the first find says 2), round to where it began, then N."""
    got, row = find(tm, text)
    k0 = got[0]
    want = [(k0 - 1 + j) % total + 1 for j in range(total + 1)]
    rows, nums = {row}, [k0]
    for k in want[1:]:
        tm.keys("n")
        scr = tm.wait_for(lambda s, k=k: (match_no(s) or (0,))[0] == k)
        nums.append(match_no(scr)[0])
        rows.add(cursor_row(tm))
    T.ok(nums == want and len(rows) == total and "" not in rows,
         "%sallocations by Size, /%s: n visits all %d in turn from %d, "
         "each on a row of its own, and round" % (tm.label, text, total, k0),
         (nums, len(rows)))
    tm.keys("Home")
    tm.wait_for(lambda s: re.search(r"\| 1/\d+", status(s)))
    tm.keys("N")
    scr = tm.wait_for(lambda s: (match_no(s) or (0,))[0] == total)
    T.ok(match_no(scr) == (total, total), "%s/%s: N from the first row "
         "is the last, %d" % (tm.label, text, total), status(scr))
    tm.keys("End")
    tm.wait_for(lambda s: re.search(r"\| (\d+)/\1\b", status(s)))
    tm.keys("n")
    scr = tm.wait_for(lambda s: (match_no(s) or (0,))[0] == 1)
    T.ok(match_no(scr) == (1, total), "%s/%s: n from the last row is the "
         "first" % (tm.label, text), status(scr))


def main():
    def run(tmp):
        p, _ = T.start([T.target("everykind"), os.path.join(tmp, "d")])
        tms = []
        try:
            snap = T.vmscope_json(p.pid)
            texts = needles(snap)
            tms = [viewer(p, tmp, False), viewer(p, tmp, True)]
            region_list(tms, snap, texts)
            seen = allocations(tms, texts)
            # the text with the most matches up to 150: most tops counted
            many = max((t for t in texts if seen[t] and seen[t][1] <= 150),
                       key=lambda t: seen[t][1])
            T.ok(seen[many][1] >= 20, "a text with many matches: /%s, %d"
                 % (many, seen[many][1]))
            for tm in tms:
                walk_all(tm, many, seen[many][1])
        finally:
            for tm in tms:
                tm.kill()
            T.kill(p)
    D.run_in_tmp("find's counts in tmux", run)


main()
