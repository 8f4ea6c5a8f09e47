#!/usr/bin/env python3
"""A TERM the viewer cannot use is refused with one line that says what to
do, and exit status 1, in a terminal (tmux):

  - TERM not set, and set empty: "TERM is not set" (it said "cannot use
    the terminal (TERM=unset)", as if TERM were the word unset);
  - TERM naming no terminfo entry: "no terminfo entry for TERM=NAME" and
    what to set instead (it said only "cannot use the terminal").
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

TAIL = 'echo "EXIT=$rc"'
CASES = (
    ("TERM not set", ["env", "-u", "TERM"],
     "vmscope: TERM is not set: set it to the terminal's type "
     "(xterm-256color, say), or use -s or -e for text output"),
    ("TERM empty", ["env", "TERM="],
     "vmscope: TERM is not set: set it to the terminal's type "
     "(xterm-256color, say), or use -s or -e for text output"),
    ("TERM unknown", ["env", "TERM=vmscope-no-such-term"],
     "vmscope: no terminfo entry for TERM=vmscope-no-such-term: set TERM "
     "to a terminal type this system knows (xterm-256color, say), or use "
     "-s or -e for text output"),
)


def run(tmp):
    s, _ = T.start_asleep(["sleep", "600"])
    for what, env, want in CASES:
        tm = D.Tmux(env + [T.VMSCOPE, str(s.pid)], width=200, height=10,
                    shell_tail=TAIL)
        scr = tm.wait_for("EXIT=")
        lines = [ln.rstrip() for ln in scr.splitlines() if ln.strip()]
        T.ok(lines == [want, "EXIT=1"],
             "%s: one line that says what to do, exit status 1" % what,
             scr)
        tm.kill()
    T.kill(s)


def main():
    D.run_in_tmp("a TERM the viewer cannot use", run)


main()
