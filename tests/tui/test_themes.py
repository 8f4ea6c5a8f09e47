#!/usr/bin/env python3
"""Themes: every file in themes/ loads; an unknown element or a bad colour
is an error naming the file and line; -t looks in ~/.config/vmscope/themes;
256- and 8-colour terminals get the theme's colours (VMMap's purple for
images); NO_COLOR gives monochrome (no colour escapes, letters in the bars).
"""
import glob
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))
import tmuxdrive as D  # noqa: E402
from tmuxdrive import T  # noqa: E402

THEMES = os.path.join(T.ROOT, "themes")


def no_tty(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return T.run_vmscope(*args, stdin=open(os.devnull), env=e)


def main():
    for want in ("default", "dark", "light", "mono", "colorblind"):
        T.ok(os.path.isfile(os.path.join(THEMES, want)),
             "themes/%s exists" % want)
    for path in sorted(glob.glob(os.path.join(THEMES, "*"))):
        r = no_tty("-t", path, "1")
        err = r.stderr.decode()
        T.ok("needs a terminal" in err,
             "%s loads (then asks for a terminal)" % os.path.basename(path),
             err)

    tmp = tempfile.mkdtemp(prefix="vmstheme-")
    try:
        bad = os.path.join(tmp, "bad")
        with open(bad, "w") as f:
            f.write("# fine\ntype.heap = red, default, bold\n"
                    "type.hep = red, default\n")
        r = no_tty("-t", bad, "1")
        T.ok(r.returncode == 1 and ("%s:3: unknown element 'type.hep'" % bad)
             in r.stderr.decode(), "unknown element: file and line named",
             r.stderr.decode())
        with open(bad, "w") as f:
            f.write("\n\ntype.heap = 300, default\n")
        r = no_tty("-t", bad, "1")
        T.ok(r.returncode == 1 and ("%s:3:" % bad) in r.stderr.decode()
             and "bad colour '300'" in r.stderr.decode(),
             "bad colour: file and line named", r.stderr.decode())
        with open(bad, "w") as f:
            f.write("type.heap = red, default, sparkly\n")
        r = no_tty("-t", bad, "1")
        T.ok(("%s:1:" % bad) in r.stderr.decode() and "attribute" in
             r.stderr.decode(), "bad attribute: file and line named",
             r.stderr.decode())
        r = no_tty("-t", "no-such-theme", "1")
        T.ok(r.returncode == 1 and "no-such-theme" in r.stderr.decode(),
             "an unknown theme name is an error", r.stderr.decode())

        # ~/.config/vmscope/themes
        cfg = os.path.join(tmp, ".config", "vmscope", "themes")
        os.makedirs(cfg)
        with open(os.path.join(cfg, "mine"), "w") as f:
            f.write("title = red, default, bold\nbogus = red, red\n")
        r = no_tty("-t", "mine", "1", env={"HOME": tmp,
                                            "XDG_CONFIG_HOME": ""})
        T.ok(os.path.join(cfg, "mine") + ":2:" in r.stderr.decode(),
             "-t NAME is looked up in ~/.config/vmscope/themes",
             r.stderr.decode())
        if D.have_tmux():
            colours(tmp)
        else:
            T.skip("colours in tmux", "tmux is not installed")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


def image_label(scr):
    """The escape sequence just before the Image row's label."""
    for line in scr.splitlines():
        plain = re.sub(r"\x1b\[[0-9;]*m", "", line)
        if plain.startswith(" Image "):
            return line
    return ""


def colours(tmp):
    p, _ = T.start([T.target("manyregions"), "10"])
    ready = lambda s: " Image " in re.sub(r"\x1b\[[0-9;]*m", "", s)  # noqa

    tm = D.Tmux([T.VMSCOPE, str(p.pid)], colours=256, term="tmux-256color")
    scr = tm.wait_for(ready, escapes=True)
    T.ok("38;5;141" in image_label(scr), "256 colours: images in "
         "VMMap's purple (141)", repr(image_label(scr)[:80]))
    tm.kill()

    tm = D.Tmux([T.VMSCOPE, str(p.pid)], term="screen")
    scr = tm.wait_for(ready, escapes=True)
    lab = image_label(scr)
    T.ok(re.search(r"\x1b\[[0-9;]*\b35m", lab) and "38;5" not in scr,
         "8 colours (TERM=screen): images in magenta, no 256-colour codes",
         repr(lab[:80]))
    tm.kill()

    tm = D.Tmux([T.VMSCOPE, str(p.pid)], colours=256, term="tmux-256color",
                env={"NO_COLOR": "1"})
    scr = tm.wait_for(ready, escapes=True)
    T.ok(not re.search(r"\x1b\[[0-9;]*(3[0-7]|38;5;\d+|4[0-7])m", scr),
         "NO_COLOR: no colour escapes at all", repr(scr[:200]))
    bar = next((l for l in scr.splitlines()
                if re.sub(r"\x1b\[[0-9;]*m", "", l).startswith(
                    " Committed ")), "")
    T.ok("IIII" in re.sub(r"\x1b\[[0-9;]*m", "", bar),
         "NO_COLOR: the bars show types by letter", bar)
    tm.keys("t")
    scr = tm.wait_for("monochrome theme stays")
    T.ok("monochrome theme stays" in scr, "NO_COLOR: t keeps monochrome",
         scr.splitlines()[-1])
    tm.kill()

    # with no theme files at all, the compiled-in default is used
    lone = os.path.join(tmp, "lone")
    os.makedirs(lone)
    shutil.copy(T.VMSCOPE, os.path.join(lone, "vmscope"))
    tm = D.Tmux([os.path.join(lone, "vmscope"), str(p.pid)], colours=256,
                term="tmux-256color", env={"HOME": lone})
    scr = tm.wait_for(ready, escapes=True)
    T.ok("38;5;141" in image_label(scr), "no theme files: the built-in "
         "default palette", repr(image_label(scr)[:80]))
    tm.kill()
    T.kill(p)


main()
