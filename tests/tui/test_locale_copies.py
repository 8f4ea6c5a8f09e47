#!/usr/bin/env python3
"""The viewer in a UTF-8 locale maps the locale's data (setlocale: LC_CTYPE,
and glibc's gconv-modules.cache, shared), which a target in the same
locale maps too: vmscope copies those pages in place as it copies its
libraries' (selfcopy_setlocale, src/linux/selfcopy.h). A CPython target
(which calls setlocale itself) under LANG=C.UTF-8, the viewer on it under
the same locale; once the viewer has drawn, its own smaps: it maps the
locale's LC_CTYPE, and no range of a file (but its executable) holds a
page of that file (Rss all Anonymous, Anonymous and Swap the full Size),
none is a shared mapping of a file; and its notes (!) say nothing of
sharing a file with the target. The control, VMSCOPE_SHARED_LIBS=1:
LC_CTYPE holds pages of its file, and a note says vmscope maps files the
target maps. Skipped where C.UTF-8 is not installed. (A locale archive,
/usr/lib/locale/locale-archive, is copied up to 8 MiB; no test makes one:
it is the system's.)"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

TARGET = ("import locale, time\n"
          "locale.setlocale(locale.LC_ALL, '')\n"
          "print('ready', flush=True)\n"
          "time.sleep(3600)\n")


def viewer_pid(tm, target):
    """The vmscope process the tmux session runs (a child of its shell)."""
    for _ in range(500):
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    argv = f.read().split(b"\0")
                exe = os.readlink("/proc/%s/exe" % d)
            except OSError:
                continue
            if argv[-2:-1] == [str(target).encode()] and \
                    os.path.samefile(exe, T.VMSCOPE):
                return int(d)
        time.sleep(0.02)
    return None


def run(tmp):
    if not os.path.isdir("/usr/lib/locale/C.utf8"):
        T.skip("the viewer's locale copied", "C.UTF-8 is not installed")
        return
    env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8")
    p, _ = T.start([sys.executable, "-c", TARGET], env=env)
    try:
        for name, extra, copied in (
                ("control (VMSCOPE_SHARED_LIBS=1)",
                 {"VMSCOPE_SHARED_LIBS": "1"}, False),
                ("as built", {}, True)):
            tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=120, height=40,
                        env=dict(extra, LANG="C.UTF-8", LC_ALL="C.UTF-8"))
            try:
                tm.wait_for(lambda s: "pss, not frozen" in s, timeout=60)
                v = viewer_pid(tm, p.pid)
                if not T.ok(v, "%s: the viewer runs" % name):
                    continue
                ranges = [r for r in T.smaps_file_ranges(v)
                          if os.path.exists(r[2]) and
                          not os.path.samefile(r[2], T.VMSCOPE)]
                ctype = [r for r in ranges if r[2].endswith("/LC_CTYPE")]
                T.ok(ctype, "%s: the viewer maps the locale's LC_CTYPE"
                     % name, [r[0] for r in ranges])
                held = [(r[0], r[3].get("Size"), r[3].get("Rss"),
                         r[3].get("Anonymous")) for r in ranges
                        if r[1] != "---p" and
                        (r[3].get("Rss") != r[3].get("Anonymous") or
                         r[3].get("Anonymous", 0) + r[3].get("Swap", 0) !=
                         r[3].get("Size"))]
                if copied:
                    T.ok(not held, "%s: no range of a file holds a page of "
                         "it (Rss all Anonymous, to the full size)" % name,
                         held)
                    T.ok(not [r for r in ranges if r[1][3] == "s"],
                         "%s: no shared mapping of a file (gconv's cache "
                         "replaced by a copy)" % name,
                         [r[0] for r in ranges if r[1][3] == "s"])
                else:
                    T.ok([h for h in held if h[0].endswith("/LC_CTYPE")],
                         "%s: LC_CTYPE holds pages of its file: the check "
                         "can fail" % name, held)
                tm.keys("!")
                scr = tm.wait_for(lambda s: "otes" in s, timeout=30)
                said = "vmscope itself maps" in (scr or "")
                T.ok(said != copied, "%s: the notes %s" % (
                    name, "say nothing of sharing a file with it" if copied
                    else "say vmscope maps files it maps"), scr)
            finally:
                tm.kill()
    finally:
        T.kill(p)


if __name__ == "__main__":
    D.run_in_tmp("the viewer's locale copied", run)
