#!/usr/bin/env python3
"""-t NAME of no theme names the directories really searched, in a
terminal (tmux): with XDG_CONFIG_HOME set, $XDG_CONFIG_HOME/vmscope/themes
(not ~/.config/vmscope/themes, which is not searched then), themes/ beside
the binary and the data directory; exit status 1. A path that is no file
is named as a file, with no directories. It used to name
~/.config/vmscope/themes whatever XDG_CONFIG_HOME said.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402


def run(tmp):
    xdg = os.path.join(tmp, "cfg")
    os.makedirs(os.path.join(xdg, "vmscope", "themes"))
    beside = os.path.join(os.path.dirname(os.path.abspath(T.VMSCOPE)),
                          "themes")
    for args, want, not_want in (
            (["-t", "nosuch"],
             ["theme 'nosuch' not found (looked in %s/vmscope/themes, %s "
              "and " % (xdg, beside)], ["~/.config"]),
            (["-t", os.path.join(tmp, "no", "such")],
             ["theme file '%s' not found" % os.path.join(tmp, "no", "such")],
             ["looked in"])):
        tm = D.Tmux([T.VMSCOPE] + args + [str(os.getpid())], width=200,
                    height=20, env={"XDG_CONFIG_HOME": xdg},
                    shell_tail="echo exit=$rc")
        scr = tm.wait_for("exit=")
        text = " ".join(scr.split())
        T.ok("exit=1" in text, "%s: exit status 1" % args[1], text)
        for w in want:
            T.ok(w in text, "%s: the message names what was searched"
                 % args[1], text)
        for w in not_want:
            T.ok(w not in text, "%s: and nothing else (%s)" % (args[1], w),
                 text)
        tm.kill()


def main():
    D.run_in_tmp("-t NAME not found names the directories searched", run)


main()
