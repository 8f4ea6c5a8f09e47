#!/usr/bin/env python3
"""The help screen fits the terminal and scrolls (issue 31 item 6), at
80x24 and 200x60, opened with ? from the viewer on the everykind target:
paged with PgDn from its first line to its last (the title says which
lines are shown, "lines A-B of N"), every key of every key table under
ui/ (the tables the help is made from, `struct key_action NAME[]`) is
there with its whole text: a text wider than the screen is wrapped onto
lines of its own under the key, never cut (a word wider than a line
aside: none is). The picker's key line says how to get help, and F1 there
opens it (? types into its filter).
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TITLE = re.compile(r"vmscope help: every key \(lines (\d+)-(\d+) of (\d+)\)")
# { KEY, "name", "help" "more help", fn }: a listed entry (a NULL name is
# an alias, not listed)
ENTRY = re.compile(r'\{\s*[^{},]+,\s*"((?:[^"\\]|\\.)+)",\s*'
                   r'((?:"(?:[^"\\]|\\.)*"\s*)+),', re.S)


def c_text(lits):
    return "".join(bytes(m, "utf-8").decode("unicode_escape")
                   for m in re.findall(r'"((?:[^"\\]|\\.)*)"', lits))


def key_entries():
    """[(key name, help text)] of every key table under ui/."""
    out = []
    for path in glob.glob(os.path.join(TOP, "ui", "**", "*.c"),
                          recursive=True):
        src = open(path).read()
        for t in re.finditer(r"struct key_action \w+\[\] = \{(.*?)\n\};",
                             src, re.S):
            for m in ENTRY.finditer(t.group(1)):
                out.append((c_text('"%s"' % m.group(1)),
                            c_text(m.group(2))))
    return out


def norm(s):
    return " ".join(s.split())


def pages(tm, w, h):
    """Every line of the help, paged through with PgDn: (lines, total)."""
    lines = {}
    scr = tm.wait_for(lambda s: TITLE.search(s))
    m = TITLE.search(scr)
    total = int(m.group(3)) if m else 0
    for _ in range(200):
        m = TITLE.search(scr)
        if not m:
            break
        a, b = int(m.group(1)), int(m.group(2))
        body = scr.splitlines()[1:1 + (b - a + 1)]
        for k, ln in enumerate(body):
            lines[a + k] = ln
        if b >= total:
            break
        tm.keys("NPage")
        scr = tm.wait_for(lambda s, b=b: TITLE.search(s) and
                          int(TITLE.search(s).group(2)) > b)
    return [lines.get(i, None) for i in range(1, total + 1)], total


def entries_of(lines):
    """The help's entries: (key, text) with the wrapped lines joined."""
    out = []
    for ln in lines:
        if ln is None:
            continue
        key, text = ln[2:17].strip(), ln[18:].rstrip()
        if key:
            out.append([key, text.strip()])
        elif ln.startswith(" " * 18) and text.strip() and out:
            out[-1][1] += " " + text.strip()
    return [(k, norm(t)) for k, t in out]


def one(w, h, p):
    what = "%dx%d" % (w, h)
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=w, height=h,
                env={"NO_COLOR": "1"})
    tm.wait_for(lambda s: "pss, not frozen" in s, timeout=120)
    tm.keys("?")
    lines, total = pages(tm, w, h)
    T.ok(total > h and all(ln is not None for ln in lines),
         "%s: the help pages from its first line to its last (%d lines)"
         % (what, total), [i for i, ln in enumerate(lines) if ln is None])
    T.ok(all(len(ln.rstrip()) <= w for ln in lines if ln),
         "%s: no line wider than the screen" % what)
    got = entries_of(lines)
    want = key_entries()
    missing = [(k, t) for k, t in want if (k, norm(t)) not in got]
    T.ok(len(want) > 50 and not missing,
         "%s: each of the %d keys of ui/'s key tables with its whole text"
         % (what, len(want)), missing[:5])
    if w < 120:
        long_ = [(k, t) for k, t in want if len(t) > w - 19]
        T.ok(long_, "%s: %d of those texts are wider than the screen: "
             "wrapped" % (what, len(long_)))
    tm.keys("Escape")
    tm.wait_for(lambda s: not TITLE.search(s))
    tm.kill()
    # the picker: its key line says how to get help, F1 opens it
    tm = D.Tmux([T.VMSCOPE], width=w, height=h, env={"NO_COLOR": "1"})
    scr = tm.wait_for(lambda s: "PID" in s and "COMMAND" in s)
    T.ok("F1 help" in scr.splitlines()[-1],
         "%s: the picker's key line says F1 help" % what,
         scr.splitlines()[-1])
    tm.expect("%s: F1 in the picker opens the help" % what,
              lambda s: TITLE.search(s), "F1")
    tm.kill()


def run(tmp):
    p, _ = T.start([T.target("everykind")])
    one(80, 24, p)
    one(200, 60, p)
    T.kill(p)


def main():
    D.run_in_tmp("the help screen in tmux", run)


main()
