#!/usr/bin/env python3
"""Every note on screen (issue 31 item 1): node under -b fork, whose V8
pages the fork clone lacks (node maps them MADV_DONTFORK), at 200x60 and
80x24. The note the v8 step makes (as the JSON export's capture.missing
has it) is seen from the main screen: the header's marked line (its
count, and the note itself where it fits), a ! beside the Managed Heap
row it touches (kept on a short terminal, though that row is 0 K); !
opens every note in full, wrapped, the v8 one word for word; a click on
the ! beside the row, or ! with the cursor on it, opens the notes on
that note (marked "<"). Esc goes back to the viewer. A target with no
note (the JSON's capture has none) shows no notes line, and ! says so.
A snapshot file whose smaps_rollup says 8 K more Rss than its regions
(everykind saved frozen, its rollup then changed: tests/fixtures/
mksnap.py) has the kernel's note counted in the header and shown by !
as the export's rollup_check says it, at 80x24 and 200x60.
Skips without node (scripts/deps.sh installs it).
"""
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

sys.path.insert(0, os.path.join(T.ROOT, "tests", "fixtures"))
import mksnap as M  # noqa: E402

JS = os.path.join(T.ROOT, "tests", "targets", "v8heap.js")
NOTE = re.compile(r"! (\d+) notes?(?: \(!|  )")


def words(s):
    return " ".join(s.split())


def notes_text(scr):
    """The notes screen's text, its lines joined (the wrap undone)."""
    return words(" ".join(scr.splitlines()[1:-1]))


def lines_with(scr, label):
    return [ln for ln in scr.splitlines() if ln[1:1 + len(label)] == label]


def node_case(tmp, w, h):
    node = shutil.which("node") or shutil.which("nodejs")
    p, _ = T.start([node, JS])
    snap = T.vmscope_json(p.pid, "-b", "fork")
    v8 = [n["why"] for n in snap["capture"].get("missing", [])
          if n["step"] == "v8"]
    T.ok(v8 and "MADV_DONTFORK" in v8[0],
         "%dx%d: the JSON export says the v8 step's note" % (w, h),
         snap["capture"].get("missing"))
    why = v8[0] if v8 else "V8 heap pages not found"
    tm = D.Tmux([T.VMSCOPE, "-b", "fork", str(p.pid)], width=w, height=h)
    scr = tm.wait_for(lambda s: "fork, frozen" in s and
                      re.search(r"\d+/\d+\s*$", s.rstrip().splitlines()[-1]),
                      timeout=120)
    head = "\n".join(scr.splitlines()[:7 if h >= 30 else 1])
    m = NOTE.search(head)
    T.ok(m and int(m.group(1)) >= 1,
         "%dx%d: the header has a marked line with the notes' count"
         % (w, h), scr)
    count = int(m.group(1)) if m else 0
    first = re.search(r"\(! shows [^)]*\): (.*)$", head, re.M)
    mh = lines_with(scr, "Managed Heap")
    T.ok(mh and mh[0][13] == "!",
         "%dx%d: a ! beside the Managed Heap row (%s)" % (w, h,
                                                        mh[0][:20] if mh
                                                        else "not shown"),
         scr)

    tm.keys("!")
    scr = tm.wait_for("vmscope notes:")
    heads = re.findall(r"^ ! \d+\. (\S+) \(touches ([^)]*)\)", scr, re.M)
    T.ok(len(heads) == count,
         "%dx%d: ! lists as many notes as the header counts (%d, %d)"
         % (w, h, len(heads), count), scr)
    T.ok(("v8", "Managed Heap") in heads and words(why) in notes_text(scr),
         "%dx%d: the v8 note in full, touching Managed Heap" % (w, h), scr)
    if h >= 30:
        # the header's line says the first note, as much as fits
        lines = scr.splitlines()
        one = next((i for i, ln in enumerate(lines)
                    if re.match(r"^ ! 1\. ", ln)), None)
        body = []
        for ln in lines[one + 1 if one is not None else 1:]:
            if not ln.strip() or re.match(r"^ ! \d+\. ", ln):
                break
            body.append(ln)
        want = words("%s: %s" % (heads[0][0] if heads else "?",
                                 " ".join(body)))
        got = words(first.group(1)) if first else ""
        T.ok(got and want.startswith(got) and len(got) > 20,
             "%dx%d: the header's line says the first note" % (w, h),
             "header: %s\nnote:   %s" % (got, want))
    T.ok(all(len(ln) <= w for ln in scr.splitlines()),
         "%dx%d: the notes fit the width (wrapped, not cut)" % (w, h))
    tm.keys("Escape")
    scr = tm.wait_for(lambda s: "Address" in s and "vmscope notes" not in s)
    T.ok("Address" in scr, "%dx%d: Esc goes back to the viewer" % (w, h),
         scr)

    # the ! beside the row leads to its note: a click on it
    y = [i for i, ln in enumerate(scr.splitlines())
         if ln[1:13] == "Managed Heap"]
    if y:
        tm.click(13, y[0])
        scr = tm.wait_for("vmscope notes:")
        T.ok(re.search(r"^ ! \d+\. v8 \(touches Managed Heap\)  <", scr,
                       re.M),
             "%dx%d: a click on the row's ! opens its note" % (w, h), scr)
        tm.keys("Escape")
        tm.wait_for(lambda s: "vmscope notes" not in s)
        # a click on the label selects the row (and filters to it); !
        # then opens its note too
        tm.click(3, y[0])
        tm.wait_for(lambda s: "Managed Heap" in s.splitlines()[-1])
        tm.keys("!")
        scr = tm.wait_for("vmscope notes:")
        T.ok(re.search(r"^ ! \d+\. v8 \(touches Managed Heap\)  <", scr,
                       re.M),
             "%dx%d: ! on the Managed Heap row opens its note" % (w, h), scr)
    else:
        T.ok(False, "%dx%d: the Managed Heap row is shown" % (w, h), scr)
    tm.kill()
    T.kill(p)


def quiet_case(tmp, w, h):
    """No note: no line, and ! says there is none, whole at 80x24 (the
    title and the sentence wrapped, not cut)."""
    what = "%dx%d" % (w, h)
    p, _ = T.start([T.target("everykind"), os.path.join(tmp, "d")])
    snap = T.vmscope_json(p.pid, "-F")
    cap = snap["capture"]
    if cap.get("missing") or cap.get("partial") or \
            not str(cap.get("rollup_check")).startswith("agrees"):
        T.skip("a capture with no note", "this one has some: %s" % cap)
        T.kill(p)
        return
    tm = D.Tmux([T.VMSCOPE, "-F", str(p.pid)], width=w, height=h)
    scr = tm.wait_for(lambda s: "pss, frozen" in s and
                      re.search(r"\d+/\d+\s*$", s.rstrip().splitlines()[-1]),
                      timeout=120)
    T.ok(not NOTE.search(scr),
         "%s: a capture without notes: no notes line in the header" % what,
         scr)
    scr = tm.expect("%s: ! on it: the notes screen says there is none"
                    % what, "No notes", "!")
    text = words(" ".join(scr.splitlines()[:-1]))
    title = ("vmscope notes: 0 of pid %d everykind: what the capture "
             "could not do or found odd" % p.pid)
    said = ("No notes: the capture did all it does, and the regions add "
            "up to the kernel's totals.")
    T.ok(text.startswith(title) and said in text,
         "%s: the title and the sentence whole (wrapped, not cut)" % what,
         scr)
    tm.kill()
    T.kill(p)


def rollup_off(tmp):
    """A snapshot file of everykind (frozen: its regions add up to
    smaps_rollup) whose rollup then says 8 K more Rss than its regions,
    as a capture that raced a change would; and its export's
    rollup_check. None if the file is not that."""
    p, _ = T.start([T.target("everykind"), os.path.join(tmp, "k")])
    path = os.path.join(tmp, "rollup-off.vms")
    r = T.run_vmscope("-F", "-w", os.path.join(tmp, "k.vms"), p.pid)
    T.kill(p)
    if not T.ok(r.returncode == 0, "-F -w saves everykind", r.stderr):
        return None, None

    def edit(meta):
        m = json.loads(meta)
        m["rollup"]["rss"] += 8192
        return json.dumps(m).encode()
    with open(os.path.join(tmp, "k.vms"), "rb") as f:
        secs = M.stored(M.sections(f.read()))
    with open(path, "wb") as f:
        f.write(M.build(M.with_meta(secs, edit)))
    r = T.run_vmscope("-l", path, "-e", "json")
    check = json.loads(r.stdout)["capture"].get("rollup_check", "") \
        if r.returncode == 0 else ""
    T.ok("smaps_rollup" in check and not check.startswith("agrees"),
         "the file's rollup 8 K over its regions: the export says they "
         "differ", check or r.stderr)
    return path, check


def kernel_case(path, check, w, h):
    """The regions not adding up to the kernel's smaps_rollup: the header
    counts the note, and ! shows it as the export says it."""
    what = "%dx%d" % (w, h)
    tm = D.Tmux([T.VMSCOPE, "-l", path], width=w, height=h)
    scr = tm.wait_for(lambda s: re.search(r"\d+/\d+\s*$",
                                          D.status(s.rstrip())),
                      timeout=60)
    T.ok(NOTE.search(scr), "%s: smaps_rollup against the regions: the "
         "header's notes count" % what, scr)
    scr = tm.expect("%s: ! opens the notes" % what, "vmscope notes:", "!")
    text = notes_text(scr)
    T.ok(words(check) in text,
         "%s: the notes say the regions and smaps_rollup differ, as the "
         "export: %s" % (what, check), scr)
    tm.kill()


def led_note(scr):
    """The note the notes screen was opened on (its heading marked "<"):
    (from, touches, its text with the wrap undone), or None."""
    lines = scr.splitlines()[:-1]
    at = next((i for i, ln in enumerate(lines)
               if re.match(r"^ ! \d+\. .*  <\s*$", ln)), None)
    if at is None:
        return None
    m = re.match(r"^ ! \d+\. (\S+) \(touches ([^)]*)\)", lines[at])
    body = []
    for ln in lines[at + 1:]:
        if not ln.strip() or re.match(r"^ ! \d+\. ", ln):
            break
        body.append(ln)
    return m.group(1), m.group(2), words(" ".join(body))


def marked_rows(scr):
    """{address: marked} of the details rows on screen (the ! in the
    column before the address)."""
    out = {}
    for ln in scr.splitlines():
        m = re.match(r"^(.)(.)([0-9a-f]{16}) ", ln)
        if m:
            out[int(m.group(3), 16)] = m.group(2) == "!"
    return out


def heap_case(tmp, w, h):
    """The marks beside a heap and a region: heap_arenas "corrupt" (its
    main heap's chunk headers and a thread arena's bin overwritten), under
    -b fork: the two heaps the walk left partial (the JSON export's
    heaps[].partial) are marked in the details, by allocation and by
    region, exactly the rows that meet their segments; a click on a
    heap's ! and ! on a region's row open the notes on that heap's note,
    its text the heap's partial word for word."""
    what = "%dx%d" % (w, h)
    p, _ = T.start([T.target("heap_arenas"), "corrupt", "4"])
    snap = T.vmscope_json(p.pid, "-b", "fork")
    bad = [hp for hp in snap["heaps"] if hp.get("partial")]
    good = [hp for hp in snap["heaps"] if not hp.get("partial")]
    segs = [(int(s["start"], 16), int(s["end"], 16))
            for hp in bad for s in hp["segments"]]
    T.ok(len(bad) == 2 and good,
         "%s: the walk left two heaps partial (the main one, an arena)"
         % what, [(hp["kind"], hp.get("partial")) for hp in snap["heaps"]])
    tm = D.Tmux([T.VMSCOPE, "-b", "fork", str(p.pid)], width=w, height=h,
                env={"NO_COLOR": "1"})
    scr = tm.wait_for(lambda s: "fork, frozen" in s and
                      re.search(r"\d+/\d+\s*$", s.rstrip().splitlines()[-1]),
                      timeout=120)
    y = [i for i, ln in enumerate(scr.splitlines()) if ln[1:5] == "Heap"]
    tm.click(3, y[0] if y else 0)
    scr = tm.wait_for(lambda s: " Heap | sort" in s.splitlines()[-1])
    rows = marked_rows(scr)
    starts = {s for s, _ in segs}
    others = {int(s["start"], 16) for hp in good for s in hp["segments"]}
    T.ok(rows and {a for a, m in rows.items() if m} == starts and
         others <= {a for a, m in rows.items() if not m},
         "%s: a ! beside the two partial heaps' rows, none beside the "
         "others (%s)" % (what, ", ".join("0x%x" % a for a in
                                          sorted(starts))), scr)
    arena = next((hp for hp in bad if hp["kind"] == "glibc-arena"), None)
    at = int(arena["segments"][0]["start"], 16) if arena else 0
    want = "%s at 0x%x: %s" % (arena["kind"], int(arena["id"], 16),
                               arena["partial"]) if arena else "?"
    yy = [i for i, ln in enumerate(scr.splitlines())
          if ln[2:18] == "%016x" % at]
    tm.click(1, yy[0] if yy else 0)
    scr = tm.wait_for("vmscope notes:")
    T.ok(led_note(scr) == ("heap", "Heap", words(want)),
         "%s: a click on the arena's ! opens its note: %s" % (what, want),
         scr)
    tm.keys("Escape")
    tm.wait_for(lambda s: "vmscope notes" not in s)

    # by region: each region meeting a partial heap's segments is marked
    tm.keys("Tab", "a")
    scr = tm.wait_for(lambda s: "regions: Heap" in s.splitlines()[-1])
    ends = {m["start"]: m["end"] for m in T.maps(p.pid)}
    rows = marked_rows(scr)
    meets = {a: any(a < e and s < ends.get(a, a) for s, e in segs)
             for a in rows}
    T.ok(rows and all(a in ends for a in rows) and rows == meets and
         sum(rows.values()) >= 3,
         "%s: by region, a ! beside each region that meets a partial "
         "heap (%d of %d)" % (what, sum(rows.values()), len(rows)), scr)
    resv = [a for a in sorted(rows) if rows[a] and a > at and
            a < int(arena["segments"][0]["end"], 16)] if arena else []
    # a click on its address puts the cursor on it (the status line's
    # n/N says which row, in address order); the row looked for on the
    # screen as it is
    cur = "%d/%d" % (sorted(rows).index(resv[0]) + 1 if resv else 0,
                     len(rows))
    yy = [i for i, ln in enumerate(tm.screen().splitlines())
          if resv and ln[2:18] == "%016x" % resv[0]]
    tm.click(3, yy[0] if yy else 0)
    scr = tm.wait_for(lambda s: s.splitlines()[-1].rstrip().endswith(cur))
    print("# the status line after the click: %r (want %s; rows %s; "
          "clicked y %s: %r)" % (scr.splitlines()[-1].rstrip()[-60:], cur,
                                 ["%x" % a for a in sorted(rows)],
                                 yy, scr.splitlines()[yy[0]][:40]
                                 if yy else None))
    tm.keys("!")
    scr = tm.wait_for("vmscope notes:")
    T.ok(resv and led_note(scr) == ("heap", "Heap", words(want)),
         "%s: ! on the arena's reserved region opens its note" % what, scr)
    tm.kill()
    T.kill(p)


def run(tmp):
    path, check = rollup_off(tmp)
    if path:
        kernel_case(path, check, 80, 24)
        kernel_case(path, check, 200, 60)
    quiet_case(tmp, 120, 40)
    quiet_case(tmp, 80, 24)
    heap_case(tmp, 80, 24)
    heap_case(tmp, 200, 60)
    if not (shutil.which("node") or shutil.which("nodejs")):
        T.skip("node's V8 note on screen", "node is not installed")
        return
    node_case(tmp, 200, 60)
    node_case(tmp, 80, 24)


def main():
    D.run_in_tmp("the capture's notes on screen", run)


main()
