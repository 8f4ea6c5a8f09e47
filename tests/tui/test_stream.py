#!/usr/bin/env python3
"""The counters arrive as they are read (issue 12, item 6), on manyregions
(20,000 regions, every fourth page resident): the first frame is the
layout from /proc/PID/maps; the regions' figures fill in as smaps is read,
the summary growing; the final frame's Total row is the JSON export's
totals. VMSCOPE_FILL_PAUSE=N holds the frame once N regions are filled
until a key, so a partial frame is seen without any timing: in it the
layout is whole (Size and Blocks final) while PSS is part of the final
one, and so is the working set, unless the kernel gave every region's Rss
from the page tables (PAGEMAP_SCAN, Linux 6.7) before smaps was read (the
viewer logs an "rss" frame, VMSCOPE_TIMING): then it is the final one
already; at 200x60 with -t light and at 80x24 with NO_COLOR. The final
frame's PSS, Private, Shareable and Shared WS may differ by 2% from the
exports' (Pss divides libc's pages among every process that maps them,
and whether a page is private or shared depends on whether another maps
it: the test's own and other tests' come and go between the captures);
every other column is exact.
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T, size_text  # noqa: E402

NREG = 20000
PAUSE = NREG // 2
KEYS = {"Size": "size", "Committed": "committed", "Private": "private",
        "Total WS": "ws", "Private WS": "private_ws",
        "Shareable WS": "shareable_ws", "Shared WS": "shared_ws",
        "Locked WS": "locked_ws", "PSS": "pss", "Swap": "swap"}
# the figures that move with what other processes map (the rest exact)
SHARED_BY_OTHERS = ("PSS", "Private WS", "Shareable WS", "Shared WS")
UNITS = {"B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def to_bytes(t):
    m = re.match(r"^([\d.]+) ([BKMGT])$", t or "")
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


status = D.status


def total_row(scr):
    """{column name: text} of the summary's Total row, the names read
    from its two-line heading (right-aligned, as the figures)."""
    lines = scr.splitlines()
    i = next((k for k, l in enumerate(lines) if l.startswith(" Type ")),
             None)
    tot = next((l for l in lines if re.match(r"^[> ]Total ", l)), None)
    if i is None or tot is None or i == 0:
        return {}
    top, head = lines[i - 1], lines[i]
    out = {}
    for m in re.finditer(r"\S+", head[14:]):
        end = 14 + m.end()
        word = m.group(0)
        above = re.search(r"(\S+)$", top[:end]) if len(top) >= end else None
        if above and above.end() == end and word == "WS":
            word = above.group(1) + " WS"
        cell = re.search(r"(\S+(?: [BKMGTPE])?)$", tot[:end])
        out[word] = cell.group(1) if cell else None
    return out


def expected(snap):
    t = snap["totals"]
    out = {name: size_text(t[key]) for name, key in KEYS.items()}
    out["Blocks"] = str(len(snap["regions"]))
    out["Largest"] = size_text(max(int(r["end"], 16) - int(r["start"], 16)
                                   for r in snap["regions"]))
    return out


def one(p, before, what, argv, env, **kw):
    fd, timing = tempfile.mkstemp(prefix="vmstiming-")
    os.close(fd)
    tm = D.Tmux(argv + [str(p.pid)], env=dict(env, VMSCOPE_TIMING=timing),
                **kw)
    scr = tm.wait_for(lambda s: "paused" in status(s), timeout=60)
    m = re.search(r"Reading the counters of pid %d: (\d+) of ~(\d+) regions"
                  % p.pid, status(scr))
    T.ok(m and PAUSE <= int(m.group(1)) < int(m.group(2)),
         "%s: a frame with the counters of %s of %s regions" %
         (what, m and m.group(1), m and m.group(2)), status(scr))
    part, want = total_row(scr), expected(before)
    T.ok("maps, not frozen" in scr and
         part.get("Size") == want["Size"] and
         part.get("Blocks") == want["Blocks"],
         "%s: it is the layout from maps, whole (Size %s, %s blocks)"
         % (what, part.get("Size"), part.get("Blocks")), scr)
    pss, final_pss = to_bytes(part.get("PSS")), before["totals"]["pss"]
    T.ok(pss and 0 < pss < final_pss * 0.9,
         "%s: its PSS is part of the final one (%s of %s)"
         % (what, part.get("PSS"), want["PSS"]), scr)
    ws, final_ws = to_bytes(part.get("Total WS")), before["totals"]["ws"]
    with open(timing) as f:
        rss_frame = any(line.startswith("rss ") for line in f)
    os.unlink(timing)
    if rss_frame:
        # Rss of the regions not read yet came from the page tables
        T.ok(ws and abs(ws - final_ws) <= final_ws * 0.05,
             "%s: its Total WS is the final one already, the rest from "
             "the page tables (%s of %s)"
             % (what, part.get("Total WS"), want["Total WS"]), scr)
    else:
        T.ok(ws and 0 < ws < final_ws * 0.9,
             "%s: its Total WS is part of the final one (no PAGEMAP_SCAN: "
             "%s of %s)" % (what, part.get("Total WS"), want["Total WS"]),
             scr)
    tm.keys("x")  # goes on (x is no key of the viewer)
    scr = tm.wait_for(lambda s: "pss, not frozen" in s and
                      re.search(r"\d+/\d+\s*$", status(s)), timeout=60)
    after = T.vmscope_json(p.pid)
    got, want2 = total_row(scr), expected(after)
    bad = []
    for name, text in got.items():
        if name == "Type":
            continue
        ok = text in (want.get(name), want2.get(name))
        if not ok and name in SHARED_BY_OTHERS and to_bytes(text):
            # Pss shares libc's pages among all that map them, and a
            # page is private or shared by whether another maps it: a
            # process starting or ending between the captures (another
            # test's) moves them
            ok = any(abs(to_bytes(text) - to_bytes(w.get(name))) <=
                     to_bytes(w.get(name)) * 0.02
                     for w in (want, want2) if to_bytes(w.get(name)))
        if name not in want:
            ok = False
        if not ok:
            bad.append("%s: %r, JSON %r" % (name, text, want.get(name)))
    T.ok(len(got) >= 6 and not bad,
         "%s: the final frame's Total equals -e json's totals (%s)"
         % (what, ", ".join("%s %s" % (k, v) for k, v in got.items()
                            if k != "Type")),
         "\n".join(bad) + "\n" + scr)
    tm.kill()


def main():
    D.require_tmux("the counters filling in, in tmux")
    p, _ = T.start([T.target("manyregions"), str(NREG)])
    before = T.vmscope_json(p.pid)
    # no settings file: the default columns
    env = {"VMSCOPE_FILL_PAUSE": str(PAUSE),
           "XDG_CONFIG_HOME": "/nonexistent/vmscope-test"}
    one(p, before, "200x60 -t light", [T.VMSCOPE, "-t", "light"],
        env, width=200, height=60, colours=256, term="tmux-256color")
    one(p, before, "80x24 NO_COLOR", [T.VMSCOPE], dict(env, NO_COLOR="1"),
        width=80, height=24)
    T.kill(p)
    T.done()


main()
