#!/usr/bin/env python3
"""Every column (issue 12, item 2), on the everykind target, with
XDG_CONFIG_HOME (and HOME) in a temporary directory: the column setup (F2)
shows every column of the summary plus Prot, Details and Change; shown there, each
column's figure for each region on screen equals the JSON export's for
that region (DESIGN.md's table over its counters); moved there, the order
is saved in $XDG_CONFIG_HOME/vmscope/config and survives a restart; 's'
sorts by any shown column, marked in the heading; at 80x24 (NO_COLOR) the
columns that fit are shown in that order, Details kept; at 200x60 (-t
light) all of them; a malformed settings line gives a one-line warning
naming the file and the line, escaped, and the viewer runs on.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T, size_text  # noqa: E402

NAMES = ["Size", "Committed", "Private", "Total WS", "Private WS",
         "Shareable WS", "Shared WS", "Locked WS", "PSS", "Swap", "Blocks",
         "Prot", "Details"]
# the setup's rows: the columns, and Change (each figure's change beside
# it: no column of its own; test_change_beside.py)
OFFERED = NAMES + ["Change"]
# the heading of each figure column in the details ("Total WS" is "WS")
HEAD = {n: n for n in NAMES}
HEAD["Total WS"] = "WS"
KERNEL = {"[vdso]", "[vvar]", "[vvar_vclock]", "[vsyscall]", "[uprobes]",
          "[sigpage]", "[vectors]"}
ROW = re.compile(r"^([+\- ]) ([0-9a-f]{16}) ")


def private_ws(r):
    """DESIGN.md: private anonymous Private_Clean + Private_Dirty, private
    file mappings Private_Dirty, shared mappings and the kernel's 0."""
    path = r.get("path")
    if r["perms"][3] == "s" or path in KERNEL:
        return 0
    if not path or path.startswith("["):
        return r["private_clean"] + r["private_dirty"]
    return r["private_dirty"]


def expected(r):
    """Each column's text for JSON region r."""
    pws = private_ws(r)
    fig = {"Size": r["size"], "Committed": r["committed"],
           "Private": r["private"], "Total WS": r["rss"],
           "Private WS": pws, "Shareable WS": r["rss"] - pws,
           "Shared WS": r["shared_clean"] + r["shared_dirty"],
           "Locked WS": r["locked"], "PSS": r["pss"], "Swap": r["swap"]}
    out = {k: size_text(v) for k, v in fig.items()}
    out["Blocks"] = "1"
    out["Prot"] = r["perms"]
    return out


status = D.status


def size_bytes(text):
    """The bytes a size text says (size_text's, to its precision): None
    if it is none."""
    m = re.match(r"^(\d+(?:\.\d)?) ([BKMGTPE])$", text or "")
    if not m:
        return None
    return float(m.group(1)) * 1024 ** "BKMGTPE".index(m.group(2))


def heading(scr):
    return next((l for l in scr.splitlines()
                 if re.match(r"^  Address\b", l)), "")


def columns_of(head):
    """[(name, start, end)] of the columns after Type, left to right."""
    out = []
    # a sort mark squeezed between two names ("Private WSvShareable WS")
    head = re.sub(r"(?<=\S)[v^](?=[A-Z])", " ", head)
    for n in NAMES:
        # "WS" alone, not the end of "Private WS"; "Private" not the
        # start of "Private WS"
        lb = r"(?<![A-Za-z] )" if HEAD[n] == "WS" else ""
        m = re.search(r"%s(?<![A-Za-z])%s(?![A-Za-z]| WS)"
                      % (lb, re.escape(HEAD[n])), head[30:])
        if m:
            out.append((n, 30 + m.start(), 30 + m.end()))
    return sorted(out, key=lambda c: c[1])


def cell(line, col):
    """The text of a column in a row: a figure ends where its heading
    does (right-aligned), Prot starts where its heading does."""
    name, start, end = col
    if name == "Prot":
        return line[start:start + 4]
    m = re.search(r"(\S+(?: [BKMGTPE])?)$", line[:end])
    return m.group(1) if m else None


def check_rows(scr, snap, what):
    """Every region row on screen: each figure column equals the JSON's.
    Returns how many rows were compared."""
    byaddr = {int(r["start"], 16): r for r in snap["regions"]}
    cols = [c for c in columns_of(heading(scr)) if c[0] != "Details"]
    bad, n = [], 0
    for l in scr.splitlines():
        m = ROW.match(l)
        if not m or int(m.group(2), 16) not in byaddr:
            continue
        r = byaddr[int(m.group(2), 16)]
        want = expected(r)
        n += 1
        for c in cols:
            # a file's PSS and Shared WS move with every other process
            # that maps it (this one's tmux, vmscope, other tests): only
            # this process's own memory is the same from one read to
            # the next
            if c[0] in ("PSS", "Shared WS") and \
                    (r.get("path") or "").startswith("/"):
                continue
            if cell(l, c) != want[c[0]]:
                bad.append("%s: %s shows %r, JSON %r" %
                           (m.group(2), c[0], cell(l, c), want[c[0]]))
    T.ok(n >= 5 and not bad and cols,
         "%s: each column's figure for %d regions equals the JSON's "
         "(%s)" % (what, n, ", ".join(c[0] for c in cols)),
         "\n".join(bad[:10]) + "\n" + scr)
    return n


ready = D.ready


def setup_rows(scr):
    """[(shown, name)] of the setup screen, in order."""
    out = []
    for l in scr.splitlines():
        m = re.match(r"^[> ] \[(x| )\]\s+(\S+(?: \S+)?)\s{2,}", l)
        if m:
            out.append((m.group(1) == "x", m.group(2)))
    return out


def main():
    D.run_in_tmp("the column setup in tmux", run)


def run(tmp):
    xdg = os.path.join(tmp, "xdg")
    conf = os.path.join(xdg, "vmscope", "config")
    env = {"XDG_CONFIG_HOME": xdg, "HOME": tmp}
    p, _ = T.start([T.target("everykind"), os.path.join(tmp, "d")])
    snap = T.vmscope_json(p.pid)

    # 200x60, a theme: the setup offers every column; show them all
    tm = D.Tmux([T.VMSCOPE, "-t", "light", str(p.pid)], width=200,
                height=60, env=env, colours=256, term="tmux-256color")
    tm.wait_for(ready)
    tm.keys("F2")
    scr = tm.wait_for(lambda s: "the columns of the details" in s)
    rows = setup_rows(scr)
    T.eq([n for _, n in rows], OFFERED,
         "200x60: F2 offers every column of the summary, Prot, Details "
         "and Change")
    T.ok(not os.path.exists(conf), "nothing saved before a change", conf)
    for shown, _ in rows:
        tm.keys(*(["Down"] if shown else ["Space", "Down"]))
    # PSS (9th) to the top: eight moves up
    tm.keys("Home", *["Down"] * 8, *["["] * 8)
    scr = tm.wait_for(lambda s: setup_rows(s) and
                      setup_rows(s)[0][1] == "PSS")
    T.ok(all(s for s, _ in setup_rows(scr)),
         "200x60: Space shows every column; [ moves PSS first",
         scr)
    tm.keys("Escape")
    tm.keys("a")  # the region list: a row a region, as in the JSON
    scr = tm.wait_for(lambda s: "regions: all" in status(s))
    names = [c[0] for c in columns_of(heading(scr))]
    T.eq(names, ["PSS"] + [n for n in NAMES if n != "PSS"],
         "200x60: the heading has every column, PSS first")
    check_rows(scr, snap, "200x60 -t light")
    tm.keys("q")
    tm.kill()
    with open(conf) as f:
        text = f.read()
    T.ok(re.search(r"^column pss on\ncolumn size on\n", text, re.M) and
         text.count("\ncolumn ") == 14 and " off\n" not in text,
         "the settings file lists every column, PSS first, all on", text)

    # a restart, 80x24 NO_COLOR: the order survives; what fits is shown
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=80, height=24,
                env=dict(env, NO_COLOR="1"))
    tm.wait_for(ready)
    tm.keys("a")
    scr = tm.wait_for(lambda s: "regions: all" in status(s))
    head = heading(scr)
    names = [c[0] for c in columns_of(head)]
    order = ["PSS"] + [n for n in NAMES if n != "PSS"]
    T.ok(names[:1] == ["PSS"] and names[-1:] == ["Details"] and
         names == [n for n in order if n in names] and len(head) <= 80,
         "80x24: after a restart PSS comes first, Details kept (%s)"
         % ", ".join(names), head)
    T.ok(len(names) < len(NAMES),
         "80x24: only the columns that fit (%d of %d)"
         % (len(names), len(NAMES)), head)
    check_rows(scr, snap, "80x24 NO_COLOR")
    # sort by a column that is not one of the old five
    tm.keys("Tab", "s")
    scr = tm.wait_for(lambda s: "sort PSS v" in status(s))
    T.ok(re.search(r"v PSS\b", heading(scr)),
         "80x24: s sorts by PSS first, the heading marks it",
         heading(scr))
    # by the figures shown (a file's PSS moves with every other process
    # that maps it, so the JSON's, read before, may order them otherwise;
    # the shown figures are the JSON's where they cannot move: above)
    col = [c for c in columns_of(heading(scr)) if c[0] == "PSS"]
    pss = [size_bytes(cell(l, col[0])) for l in scr.splitlines()
           if col and ROW.match(l)]
    T.ok(len(pss) >= 5 and None not in pss and
         pss == sorted(pss, reverse=True),
         "80x24: the rows are in descending PSS (the figures shown)",
         (pss, scr))
    tm.kill()

    # the same at 200x60 with the theme: every column still there
    tm = D.Tmux([T.VMSCOPE, "-t", "light", str(p.pid)], width=200,
                height=60, env=env, colours=256, term="tmux-256color")
    tm.wait_for(ready)
    tm.keys("a", "Tab", *["s"] * 7)
    scr = tm.wait_for(lambda s: "sort Shareable WS v" in status(s))
    # a field its name fills: the name shortened, the mark inside it,
    # never in the blank between two fields (issue 31 item 5)
    T.ok(re.search(r"  v Shr WS\b", heading(scr)) and
         not re.search(r"[A-Za-z][v^][A-Z]", heading(scr)),
         "200x60: s reaches Shareable WS; the heading marks it",
         heading(scr))
    byaddr = {int(r["start"], 16): r for r in snap["regions"]}
    vals = [byaddr[int(m.group(2), 16)] for m in
            (ROW.match(l) for l in scr.splitlines()) if m]
    sh = [r["rss"] - private_ws(r) for r in vals]
    T.ok(len(sh) > 5 and sh == sorted(sh, reverse=True) and sh[0] > 0,
         "200x60: the rows are in descending Shareable WS", sh)
    check_rows(scr, snap, "200x60 sorted by Shareable WS")
    tm.kill()

    # a malformed line: a warning naming the file and the line, escaped
    with open(conf, "w") as f:
        f.write("column pss on\ncolumn \x1b[31mred on\ncolumn size on\n")
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=200, height=60,
                env=dict(env, NO_COLOR="1"))
    scr = tm.wait_for(lambda s: "line 2" in status(s) and
                      "pss, not frozen" in s)
    st = status(scr)
    T.ok(conf in st and "line 2" in st and "no such column" in st and
         "\\x1b[31mred" in st and "\x1b" not in st,
         "a malformed line: a one-line warning naming the file and line, "
         "escaped", st)
    T.ok(columns_of(heading(scr))[0][0] == "PSS",
         "the good lines are still read (PSS first)", heading(scr))
    tm.keys("Tab")
    scr = tm.wait_for(lambda s: "line 2" not in status(s))
    T.ok(re.search(r"\d+/\d+\s*$", status(scr)),
         "the viewer runs on after the warning", status(scr))
    tm.kill()
    T.kill(p)


main()
