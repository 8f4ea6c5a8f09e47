#!/usr/bin/env python3
"""A process name of escape sequences in the picker, its name and command
line shown escaped as the viewer shows them
("\\x1b[2Jvms\\x1b]0;X\\a\\n\\xff", never libproc2's "?[2Jvms?]0;X? ?"),
and the picker's filter matches that text: a sleep run through a symbolic
link so named (the kernel names a process after the file it ran; its
command line is the link's path). The picker used to show the command
line with a ? for each control character and invalid byte, which the
filter could not match, nor the name as shown.
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

NAME = b"\x1b[2Jvms\x1b]0;X\a\n\xff"  # 15 bytes: the kernel keeps them all
SHOWN = r"\x1b[2Jvms\x1b]0;X\a\n\xff"


def run(tmp):
    link = os.path.join(tmp.encode(), NAME)
    os.symlink(b"/bin/sleep", link)
    p = subprocess.Popen([link, b"600"])
    try:
        # until the child has run its exec (python's, until then):
        # polled, bounded by the deadline (200 tight reads were not
        # enough once, in a loaded make check)
        deadline = time.time() + 30
        while True:
            with open("/proc/%d/comm" % p.pid, "rb") as f:
                comm = f.read()
            if comm.rstrip(b"\n") == NAME or time.time() > deadline:
                break
            time.sleep(0.005)
        T.eq(comm[:-1], NAME, "the kernel names the process after the link")
        tm = D.Tmux([T.VMSCOPE], width=160, height=30)
        tm.wait_for(lambda s: "pick a process" in s and "sort " in s)
        tm.text(str(p.pid))
        scr = tm.wait_for(lambda s: SHOWN[:15] in s and "600" in s)
        row = D.row_of(scr, " %d " % p.pid) or ""
        name = row[20:35]
        T.ok(name == SHOWN[:15],
             "the picker's NAME: as much of the name escaped as the "
             "viewer shows it as fits (%s)" % name, row)
        T.ok(row.rstrip().endswith("/" + SHOWN + " 600"),
             "its COMMAND: the command line escaped the same way, not "
             "libproc2's ?s", row)
        for typed in (r"\x1b]0;x\a", r"\xff 600"):
            tm.keys(*["BSpace"] * 20)
            tm.wait_for("Filter: _")
            tm.text(typed)
            scr = tm.wait_for(lambda s: " %d " % p.pid in s, timeout=10)
            T.ok(D.row_of(scr, " %d " % p.pid),
                 "the filter %s matches the name or command as shown"
                 % typed, scr)
        tm.kill()
    finally:
        p.kill()
        p.wait()


def main():
    D.run_in_tmp("a hostile process name in the picker", run)


main()
