#!/usr/bin/env python3
"""The process picker: `vmscope` alone lists processes (pid, user, name, RSS,
PSS); typing filters; Tab sorts; Enter opens the viewer on the chosen
process; Esc in the viewer goes back to the picker; processes that cannot be
read are dimmed with the reason (checked when there are any).
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402


def main():
    D.require_tmux("picker in tmux")
    p, _ = T.start([T.target("manyregions"), "100"])
    pid = p.pid
    tm = D.Tmux([T.VMSCOPE])
    scr = tm.wait_for(lambda s: "pick a process" in s and "sort " in s)
    T.ok("pick a process" in scr, "vmscope alone opens the picker", scr)
    head = D.row_of(scr, "COMMAND") or ""
    T.ok(all(w in head for w in ("PID", "USER", "NAME", "RSS", "PSS")),
         "columns PID USER NAME RSS PSS", head)
    T.ok("sort PSS v" in scr, "sorted by PSS, largest first", scr)

    tm.text(str(pid))
    scr = tm.wait_for(lambda s: "Filter: %d_" % pid in s)
    rows = [l for l in scr.splitlines()[3:-1] if l.strip()]
    T.ok(any(re.match(r"^\s*%d\s+\S+\s+manyregions" % pid, l) for l in rows),
         "typing the pid filters the list down to the target", scr)
    T.ok(all(str(pid) in l for l in rows), "every row shown matches", rows)

    tm.expect("Tab cycles the sort column", "sort RSS v", "Tab")
    tm.expect("Shift-Tab reverses it", "sort RSS ^", "BTab")

    tm.keys("Enter")
    # The first frame (from maps) comes before the summary's rows: wait
    # for those too.
    scr = tm.wait_for(lambda s: s.startswith(" vmscope  manyregions") and
                      "Sampler pss" in s and
                      D.row_of(s, " Private Data ") is not None)
    T.ok(("pid %d" % pid) in scr.splitlines()[0],
         "Enter opens the viewer on the process", scr)
    T.ok(D.row_of(scr, " Private Data ") is not None,
         "the viewer shows its summary", scr)

    tm.keys("Escape")
    scr = tm.wait_for("pick a process")
    T.ok("pick a process" in scr and "Filter: %d_" % pid in scr,
         "Esc goes back to the picker, filter kept", scr)

    tm.keys("BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace",
            "BSpace", "BSpace")
    scr = tm.wait_for("Filter: _")
    T.ok("Filter: _" in scr, "Backspace deletes filter characters", scr)
    if os.geteuid() != 0:
        tm.text("1")
        scr = tm.wait_for(lambda s: re.search(r"^\s+1\s", s, re.M))
        line = next((l for l in scr.splitlines()
                     if re.match(r"^\s+1\s", l)), "")
        T.ok(re.search(r"-\s+\(.+\)", line) is not None,
             "pid 1 is shown with why it cannot be read", line)
        tm.keys("Escape")
    tm.keys("Escape")
    tm.wait_for(lambda s: "pick a process" not in s)
    T.ok("pick a process" not in tm.screen(),
         "Esc with an empty filter quits")
    tm.kill()
    if os.geteuid() == 0:
        as_nobody(pid)
    T.kill(p)
    T.done()


def dimmed_at(scr, idx):
    """Whether the text at idx of a capture-pane -e screen is drawn dim
    (attribute 2, or the default theme's grey 244): tmux only writes an
    escape where the attributes change, so replay them all up to idx."""
    dim, fg = False, None
    for codes in re.findall(r"\x1b\[([0-9;]*)m", scr[:idx]):
        c = [int(x) if x else 0 for x in codes.split(";")]
        i = 0
        while i < len(c):
            if c[i] == 0:
                dim, fg = False, None
            elif c[i] == 2:
                dim = True
            elif c[i] == 22:
                dim = False
            elif c[i] == 39:
                fg = None
            elif c[i] in (38, 48) and i + 2 < len(c) and c[i + 1] == 5:
                if c[i] == 38:
                    fg = c[i + 2]
                i += 2
            i += 1
    return dim or fg == 244


def as_nobody(pid):
    """Root reads every process: the picker run as nobody shows root's
    processes dimmed, with the reason."""
    import shutil
    if not shutil.which("setpriv"):
        T.skip("unreadable processes are shown with the reason",
               "no setpriv to run as nobody")
        return
    tm = D.Tmux(["setpriv", "--reuid", "65534", "--regid", "65534",
                 "--clear-groups", T.VMSCOPE])
    scr = tm.wait_for("pick a process", timeout=10)
    if "pick a process" not in scr:
        T.skip("unreadable processes are shown with the reason",
               "vmscope cannot run as nobody here")
        tm.kill()
        return
    # the cursor is on the first row; unreadable rows (PSS 0) sort last
    scr = tm.wait_for(lambda s: "other user" in s, escapes=True)
    at = scr.find("(other user)")
    row = scr.rfind("\n", 0, at) + 1
    T.ok(at > 0 and dimmed_at(scr, at), "as nobody: unreadable rows are "
         "dimmed", repr(scr[row:at + 12]))
    tm.text(str(pid))
    scr = tm.wait_for(lambda s: re.search(r"^\s*%d\s" % pid, s, re.M))
    line = next((l for l in scr.splitlines()
                 if re.match(r"^\s*%d\s" % pid, l)), "")
    T.ok(re.search(r"\s-\s+\(other user\) ", line) is not None,
         "as nobody: root's target shows PSS '-' and '(other user)'", line)
    tm.keys("Enter")
    scr = tm.wait_for(lambda s: "pick a process" in s and
                      ("permitted" in s or "other user" in s.splitlines()[-1]
                       or "cannot" in s.splitlines()[-1]))
    T.ok("pick a process" in scr and scr.splitlines()[-1].strip() != "",
         "Enter on it stays in the picker and says why",
         scr.splitlines()[-1])
    tm.kill()


main()
