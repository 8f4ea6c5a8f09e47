#!/usr/bin/env python3
"""Text typed at the viewer's prompts in UTF-8 is kept and found, under
C.UTF-8. The prompts took printable ASCII only (the bytes of "漢字" were
dropped, so "漢字x" read "x"), and find compared each byte past 0x7f as a
negative char with tolower's positive int, so nothing that is not ASCII
was ever found.

A target (Python, its arguments holding "xPID-ключ-漢字", this test's pid
first, so that another run of it beside finds its own alone) maps files,
"café.dat" and "漢字.dat":

  - / then "漢字x": the prompt shows "漢字x"; Backspace deletes the x, a
    second one the whole of 字 (three bytes), not a byte of it; "字" and
    Enter: "match 1 of 1", the cursor row the file's;
  - / "CAFé" Enter: found (ASCII letters of any case, the rest as typed);
  - / "\\u200b" and / "l\\x01": "zw<U+200B>sp.dat" and "ctl<0x01>x.dat",
    shown "zw\\u200bsp.dat" and "ctl\\x01x.dat", found as shown (find
    matched the raw bytes alone before);
  - the picker: typing "ключ-漢字" filters to the target's row alone (its
    command line), Backspace deletes 字 whole.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

TARGET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                      "targets", "mapnames.py")
ENV = {"LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
# the target's command line: this run's alone
WORD = "x%d-ключ-漢字" % os.getpid()


def prompt(scr):
    m = re.search(r"Find: (.*?)_ ", D.status(scr))
    return m.group(1) if m else None


def finds(pid):
    tm = D.Tmux([T.VMSCOPE, str(pid)], env=ENV)
    tm.wait_for(D.ready)
    tm.keys("Tab", "/")
    tm.text("漢字x")
    scr = tm.wait_for(lambda s: prompt(s) == "漢字x")
    T.eq(prompt(scr), "漢字x", "find: the prompt keeps what was typed")
    tm.keys("BSpace")
    scr = tm.wait_for(lambda s: prompt(s) == "漢字")
    T.eq(prompt(scr), "漢字", "find: Backspace deletes the x")
    tm.keys("BSpace")
    scr = tm.wait_for(lambda s: prompt(s) == "漢")
    T.eq(prompt(scr), "漢", "find: Backspace deletes 字 whole")
    tm.text("字")
    tm.wait_for(lambda s: prompt(s) == "漢字")
    tm.keys("Enter")
    scr = tm.wait_for(lambda s: "match" in D.status(s) or
                      "not found" in D.status(s))
    T.ok('match 1 of 1 for "漢字"' in D.status(scr) and
         any("漢字.dat" in ln for ln in scr.splitlines()),
         "find 漢字: its file's row", D.status(scr))
    tm.keys("/")
    tm.text("CAFé")
    tm.wait_for(lambda s: prompt(s) == "CAFé")
    tm.keys("Enter")
    scr = tm.wait_for(lambda s: "match" in D.status(s) or
                      "not found" in D.status(s))
    T.ok('match 1 of 1 for "CAFé"' in D.status(scr),
         "find CAFé: café.dat, ASCII letters of any case", D.status(scr))
    # names with escapes, found as the screen shows them
    for typed, shown in (("\\u200b", "zw\\u200bsp.dat"),
                         ("l\\x01", "ctl\\x01x.dat")):
        tm.keys("/")
        tm.text(typed)
        # the prompt shows the backslash as every name's is shown: \\
        tm.wait_for(lambda s: prompt(s) == typed.replace("\\", "\\\\"))
        tm.keys("Enter")
        scr = tm.wait_for(lambda s: "match" in D.status(s) or
                          "not found" in D.status(s))
        T.ok("match 1 of 1" in D.status(scr) and
             any(shown in ln for ln in scr.splitlines()),
             "find %s: the file shown %s, found as shown" % (typed, shown),
             (D.status(scr), [ln for ln in scr.splitlines()
                              if ".dat" in ln]))
    tm.kill()


def picker(pid):
    tm = D.Tmux([T.VMSCOPE], env=ENV)
    tm.wait_for(lambda s: "pick a process" in s)
    tm.text(WORD)
    scr = tm.wait_for(lambda s: "Filter: %s_" % WORD in s and
                      re.search(r" 1 of \d+ shown", s))
    rows = [ln for ln in scr.splitlines() if re.match(r"^\s+\d+ ", ln)]
    T.ok(re.search(r" 1 of \d+ shown", scr) and len(rows) == 1 and
         rows[0].split()[0] == str(pid),
         "picker: ключ-漢字 filters to the target alone", scr)
    tm.keys("BSpace")
    scr = tm.wait_for(lambda s: "Filter: %s_" % WORD[:-1] in s)
    T.ok("Filter: %s_" % WORD[:-1] in scr,
         "picker: Backspace deletes 字 whole",
         scr.splitlines()[:2])
    tm.kill()


def run(tmp):
    p = subprocess.Popen([sys.executable, TARGET, tmp] +
                         [n.encode().hex() for n in
                          ("café.dat", "漢字.dat", "zw\u200bsp.dat",
                           "ctl\x01x.dat")] +
                         ["--", WORD],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    T._procs.append(p)
    T.ok(p.stdout.readline().startswith(b"ready"), "the target mapped them")
    finds(p.pid)
    picker(p.pid)
    T.kill(p)


def main():
    D.run_in_tmp("UTF-8 typed at the viewer's prompts", run)


main()
