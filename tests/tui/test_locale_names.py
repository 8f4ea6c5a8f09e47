#!/usr/bin/env python3
"""Mapped files whose names are not ASCII, in the viewer under the C locale
and under C.UTF-8: a target (Python) maps seven files whose names hold
Latin-1 letters, CJK (two columns each), combining accents, an emoji (past
U+FFFF), a look-alike of that emoji's escape (U+1F38 and a 9), bytes that
are not UTF-8, control characters, and characters a terminal joins with
their neighbours (an emoji family joined by U+200D, a flag of two regional
indicators, a variation selector, a skin tone, a zero-width space). On the
details of the Mapped File type (Enter on its summary row, Tab), at
200x60:

  - LC_ALL=C: every character past ASCII is shown as its escape, \\uXXXX,
    and past U+FFFF as \\UXXXXXXXX: the emoji's row reads p\\U0001f389.dat
    and the look-alike's p\\u1f389.dat, two names told apart (both read
    p\\u1f389.dat before);
  - LC_ALL=C.UTF-8: the names as they are (the CJK, the accents, the
    emoji);
  - both: bytes that are not UTF-8 and controls as escapes (\\xff,
    \\x1b[31m, \\a, \\r), never sent raw (the text of the sequence is on
    screen, which a terminal acting on it would not show); and what
    terminals join as escapes (\\u200d, \\U0001f1eb, \\ufe0f, \\U0001f3fb,
    \\u200b): their width is the terminal's to decide (tmux draws the
    family in 2 columns, curses counted 6), the characters around them
    as they are.

And at 80x24 and 100x30 under C.UTF-8 (the names cut to the width), no line
is wider than the screen counted in columns (wcwidth: a CJK character takes
two), and, the rows drawn again over others (End, Home), the screen is the
same after Ctrl-L repaints it whole: curses and the terminal agree where
each character went (the family's row left 4 columns of the row drawn
there before at its end). Skipped where C.UTF-8 is not
installed.
"""
import ctypes
import locale
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

TARGET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                      "targets", "mapnames.py")

# (the file's name, as LC_ALL=C shows it, as C.UTF-8 shows it)
NAMES = [
    ("café.dat".encode(), r"caf\u00e9.dat", "café.dat"),
    ("漢字ファイル.dat".encode(),
     r"\u6f22\u5b57\u30d5\u30a1\u30a4\u30eb.dat", "漢字ファイル.dat"),
    ("e\u0301\u0301x.dat".encode(), r"e\u0301\u0301x.dat",
     "e\u0301\u0301x.dat"),
    ("p\U0001f389.dat".encode(), r"p\U0001f389.dat", "p\U0001f389.dat"),
    ("p\u1f389.dat".encode(), r"p\u1f389.dat", "p\u1f389.dat"),
    (b"bad\xff\xfe.dat", r"bad\xff\xfe.dat", r"bad\xff\xfe.dat"),
    (b"c\x1b[31mr\x07\r.dat", r"c\x1b[31mr\a\r.dat", r"c\x1b[31mr\a\r.dat"),
    # what terminals join with their neighbours (a width curses cannot
    # know): shown escaped in every locale
    ("f\U0001f468\u200d\U0001f469\u200d\U0001f467.dat".encode(),
     r"f\U0001f468\u200d\U0001f469\u200d\U0001f467.dat",
     "f\U0001f468\\u200d\U0001f469\\u200d\U0001f467.dat"),
    ("g\U0001f1eb\U0001f1f7\u263a\ufe0f\U0001f44d\U0001f3fbx\u200by.dat"
     .encode(),
     r"g\U0001f1eb\U0001f1f7\u263a\ufe0f\U0001f44d\U0001f3fbx\u200by.dat",
     "g\\U0001f1eb\\U0001f1f7\u263a\\ufe0f\U0001f44d\\U0001f3fbx\\u200by"
     ".dat"),
]


def have_c_utf8():
    try:
        locale.setlocale(locale.LC_CTYPE, "C.UTF-8")
        return True
    except locale.Error:
        return False


_libc = ctypes.CDLL(None)


def columns(line):
    """The columns line takes (wcwidth of each character, in C.UTF-8)."""
    n = 0
    for ch in line:
        w = _libc.wcwidth(ctypes.c_wchar(ch))
        n += w if w >= 0 else 1
    return n


def mapped_files(pid, loc, w, h):
    """The viewer under LC_ALL=loc at w x h, on the details of the Mapped
    File type: the tmux session, at its screen."""
    tm = D.Tmux([T.VMSCOPE, str(pid)], width=w, height=h,
                env={"LC_ALL": loc, "LANG": loc}, term="tmux-256color")
    tm.wait_for(D.ready)
    tm.keys("Home", "Down", "Enter")
    tm.wait_for(lambda s: "Mapped File |" in D.status(s))
    tm.keys("Tab")
    return tm


def shown(pid, loc, col):
    tm = mapped_files(pid, loc, 200, 60)
    scr = tm.wait_for(lambda s: all(n[col] in s for n in NAMES))
    for name, c, u in NAMES:
        want = (c, u)[col - 1]
        T.ok(want in scr, "LC_ALL=%s: %r shown as %s" % (loc, name, want),
             "\n".join(ln for ln in scr.splitlines() if ".dat" in ln))
    rows = [ln for ln in scr.splitlines() if "p\\U0001f389" in ln or
            "p\\u1f389" in ln or "p\U0001f389" in ln or "p\u1f389" in ln]
    T.ok(len(rows) == 2 and rows[0][60:] != rows[1][60:],
         "LC_ALL=%s: the emoji's name and its look-alike's differ" % loc,
         rows)
    tm.kill()


def fits(pid, w, h):
    tm = mapped_files(pid, "C.UTF-8", w, h)
    first = tm.wait_for(lambda s: ".dat" in s)
    # the rows drawn again where others were (what a terminal left of
    # those at the end of a line it drew shorter than curses counted
    # stays on screen until a repaint)
    tm.keys("End")
    tm.wait_for(lambda s: s != first)
    tm.keys("Home")
    before = tm.wait_for(lambda s: ".dat" in s and D.status(s) ==
                         D.status(first))
    wide = [ln for ln in before.splitlines() if columns(ln) > w]
    T.ok(not wide, "C.UTF-8 at %dx%d: no line wider than the screen" %
         (w, h), wide)
    tm.keys("C-l")
    after = tm.wait_for(lambda s: ".dat" in s)
    T.ok(after == before, "C.UTF-8 at %dx%d: the same screen after Ctrl-L "
         "repaints it" % (w, h), "before:\n%s\nafter:\n%s" % (before, after))
    tm.kill()


def run(tmp):
    if not have_c_utf8():
        T.skip("non-ASCII names in the viewer", "C.UTF-8 is not installed")
        return
    d = os.path.join(tmp, "files")
    os.mkdir(d)
    p = subprocess.Popen([sys.executable, TARGET, d] +
                         [n[0].hex() for n in NAMES],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    T._procs.append(p)
    T.ok(p.stdout.readline().startswith(b"ready"), "the target mapped them")
    shown(p.pid, "C", 1)
    shown(p.pid, "C.UTF-8", 2)
    for w, h in ((80, 24), (100, 30)):
        fits(p.pid, w, h)
    T.kill(p)


def main():
    D.run_in_tmp("non-ASCII names in the viewer", run)


main()
