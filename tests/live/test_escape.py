#!/usr/bin/env python3
"""Nothing hostile printed: a target whose mapped files, thread names and
command line hold escape sequences, \\r, \\b, \\t, a formula and bytes
that are not UTF-8 (tests/targets/hostile_names.c).

  - -s, -e text, -e csv and -e json print no control byte but \\n (and no
    DEL, no C1 control, nothing that is not UTF-8); --list likewise for its
    command line;
  - -e text shows the file name and the thread names escaped
    (x\\x1b]0;pwned\\a\\x1b[31mred, \\r\\b\\tthr\\x1b[2J, bad\\xff\\xfeutf8);
  - -e csv: every row has the header's number of fields, the names are
    escaped, a thread name starting with = is defused ('=...);
  - -e json: valid JSON whose path is exactly the file's name (JSON's own
    escapes decode back to it), and no raw control byte;
  - error messages: -n with a hostile name, a theme file holding escapes,
    print no control byte;
  - the viewer, read through tmux: the pane title is not "pwned", the
    pane's contents hold no control byte, the file name is shown escaped,
    and the rwxs mapping whose name holds \\r and \\b still shows rwxs (its
    name did not redraw the row).
"""
import csv
import io
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tui", "lib"))
import vmstest as T  # noqa: E402

EVIL = "x\x1b]0;pwned\x07\x1b[31mred"
EVIL_SHOWN = "x\\x1b]0;pwned\\a\\x1b[31mred"
REDRAW = "a\rr-xp [vdso]\b\b"
REDRAW_SHOWN = "a\\rr-xp [vdso]\\b\\b"
ARG = "\x1b]2;title\x07arg"
THREADS_SHOWN = ["\\r\\b\\tthr\\x1b[2J", "\\x1b]0;pwned\\a",
                 "=1+2\\x1b[31m", "bad\\xff\\xfeutf8"]

# C0 but \n, DEL, and the C1 controls as UTF-8 (c2 80..c2 9f)
RAW = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")


def clean(data, what):
    """No raw control byte and valid UTF-8."""
    bad = RAW.search(data)
    try:
        data.decode("utf-8")
        utf8 = True
    except UnicodeDecodeError as e:
        utf8 = str(e)
    T.ok(bad is None and utf8 is True, "%s: no raw control byte, valid "
         "UTF-8" % what, "found %r at %s; utf8 %s" % (
             bad and bad.group(0), bad and bad.start(), utf8))


def test_batch(pid, tmp):
    for args in (("-s",), ("-e", "text"), ("-e", "csv"), ("-e", "json"),
                 ("-s", "--bytes")):
        r = T.run_vmscope(*args, pid)
        T.eq(r.returncode, 0, "%s: exit 0" % " ".join(args))
        clean(r.stdout + r.stderr, " ".join(args))
    text = T.run_vmscope("-e", "text", pid).stdout.decode()
    T.ok(EVIL_SHOWN in text and REDRAW_SHOWN in text,
         "-e text shows both file names escaped")
    T.ok(all(n in text for n in THREADS_SHOWN),
         "-e text shows the thread names escaped",
         [n for n in THREADS_SHOWN if n not in text])
    summary = T.run_vmscope("-s", pid).stdout.decode()
    cmd = [l for l in summary.splitlines() if l.startswith("Command:")]
    T.ok(cmd and "title" in cmd[0] and "arg" in cmd[0],
         "-s shows the command line (made safe)", cmd)

    rows = list(csv.reader(io.StringIO(
        T.run_vmscope("-e", "csv", pid).stdout.decode())))
    T.ok(rows and all(len(x) == len(rows[0]) for x in rows),
         "-e csv: every row has the header's fields")
    flat = [f for x in rows for f in x]
    T.ok(EVIL_SHOWN in flat or any(EVIL_SHOWN in f for f in flat),
         "-e csv: the file name escaped")
    T.ok("'=1+2\\x1b[31m" in flat, "-e csv: a thread name starting with = "
         "is defused", [f for f in flat if "1+2" in f])

    j = json.loads(T.run_vmscope("-e", "json", pid).stdout)
    paths = {r["path"] for r in j["regions"] if r.get("path")}
    T.ok(os.path.join(tmp, EVIL) in paths and
         os.path.join(tmp, REDRAW) in paths,
         "-e json: the paths decode back to the files' own names")
    names = {t["name"] for t in j["threads"]}
    T.ok("=1+2\x1b[31m" in names, "-e json: a thread name decodes back to "
         "its bytes", names)

    r = T.run_vmscope("--list")
    clean(r.stdout, "--list (the command line holds escapes)")


def test_messages(tmp):
    r = T.run_vmscope("-s", "-n", EVIL)
    T.ok(r.returncode == 2 and b"pwned" in r.stderr,
         "-n with a hostile name: exit 2, the name shown", r.stderr)
    clean(r.stderr, "-n with a hostile name: the message")
    theme = os.path.join(tmp, "evil.theme")
    with open(theme, "wb") as f:
        f.write(b"bac\x1b]0;pwned\x07kground = red,\x1b[31mblue\n")
    r = T.run_vmscope("-t", theme, "1")
    T.ok(r.returncode != 0 and b"pwned" in r.stderr,
         "a theme file with escapes: refused, the key shown", r.stderr)
    clean(r.stderr, "a theme file with escapes: the message")


def test_viewer(pid):
    import tmuxdrive as D
    if not D.have_tmux():
        T.skip("the viewer on hostile names", "tmux is not installed")
        return
    tm = D.Tmux([T.VMSCOPE, str(pid)], env={"LANG": "C.UTF-8"})
    try:
        scr = tm.wait_for(lambda s: "Sampler pss" in s and " Address" in s
                          and "Free" in s)
        # the first match is the thread named with an OSC sequence (shown
        # escaped too); n moves on to the file
        tm.keys("Tab", "/").text("pwned").keys("Enter")
        scr = tm.wait_for(lambda s: "Find:" not in s)
        T.ok("(\\x1b]0;pwned\\a)" in scr, "viewer: a thread name is "
             "shown escaped", scr)
        for _ in range(6):
            scr = tm.wait_for(EVIL_SHOWN[:15], timeout=2)
            if EVIL_SHOWN[:15] in scr:
                break
            tm.keys("n")
        T.ok(EVIL_SHOWN[:15] in scr, "viewer: the file name is shown "
             "escaped", scr)
        tm.keys("Escape", "/").text("vdso]").keys("Enter")
        scr = tm.wait_for(REDRAW_SHOWN)
        row = D.row_of(scr, REDRAW_SHOWN) or ""
        T.ok("rwxs" in row, "viewer: the rwxs mapping named with \\r and "
             "\\b still reads rwxs", row)
        raw = tm.screen(escapes=True)
        T.ok("pwned" not in tm._run("display-message", "-p",
                                    "#{pane_title}"),
             "viewer: the pane title was not set by the target")
        bad = RAW.search(tm.screen().encode())
        T.ok(bad is None, "viewer: the pane holds no control character",
             bad and bad.group(0))
        T.ok("\x1b]" not in raw, "viewer: no OSC sequence reached the pane")
    finally:
        tm.kill()


def test_diff_screen(pid, tmp):
    """The diff screen (-d FILE PID): the file's name, in an unchanged
    group once c shows them all, is drawn escaped, and nothing the target
    named reaches the pane."""
    import tmuxdrive as D
    if not D.have_tmux():
        T.skip("the diff screen on hostile names", "tmux is not installed")
        return
    fa = os.path.join(tmp, "a.vms")
    r = T.run_vmscope("-w", fa, pid)
    T.ok(r.returncode == 0, "saved the hostile target", r.stderr)
    tm = D.Tmux([T.VMSCOPE, "-d", fa, str(pid)], width=200, height=50,
                env={"LANG": "C.UTF-8"})
    try:
        tm.wait_for("vmscope  diff")
        tm.keys("c")
        scr = tm.wait_for(lambda s: re.search(r"all \| \d+/\d+\s*$", s))
        for _ in range(8):
            if EVIL_SHOWN[:15] in scr:
                break
            tm.keys("NPage")
            scr = tm.wait_for(EVIL_SHOWN[:15], timeout=2)
        T.ok(EVIL_SHOWN[:15] in scr, "diff screen: the file name is shown "
             "escaped", scr)
        bad = RAW.search(tm.screen().encode())
        T.ok(bad is None, "diff screen: the pane holds no control "
             "character", bad and bad.group(0))
        T.ok("\x1b]" not in tm.screen(escapes=True) and "pwned" not in
             tm._run("display-message", "-p", "#{pane_title}"),
             "diff screen: no OSC sequence reached the pane or its title")
    finally:
        tm.kill()


def main():
    tmp = tempfile.mkdtemp(prefix="vmscope-esc-")
    os.chmod(tmp, 0o755)
    try:
        f1, f2 = os.path.join(tmp, EVIL), os.path.join(tmp, REDRAW)
        for f in (f1, f2):
            with open(f, "wb") as fh:
                fh.write(b"\0" * 4096)
        p, _ = T.start([T.target("hostile_names"), f1, f2, ARG])
        test_batch(p.pid, tmp)
        test_messages(tmp)
        test_viewer(p.pid)
        test_diff_screen(p.pid, tmp)
        T.kill(p)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
