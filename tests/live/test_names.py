#!/usr/bin/env python3
"""A process's name, command line and executable as the process has them:
their bytes, escaped only where printed (tests/targets/renamed.c names
itself with prctl; its arguments hold UTF-8, controls and a byte that is
not UTF-8).

  - -n NAME matches /proc/PID/comm byte for byte: a name of UTF-8
    ("héllo wö"), one with a tab, one with ESC, one with a byte that is
    not UTF-8; with -s (exit 0, that process) and with --all -e
    openmetrics (exactly that pid). libproc2's name, which vmscope
    matched before, has every such byte a '?';
  - -n NAME matches the base name of argv[0] whole, spaces and UTF-8 in
    it (not its first word, nor libproc2's '?'s);
  - --list shows the name and the command line escaped as the summary
    does (not libproc2's "h??llo w??", a newline as a space);
  - the command line (NUL-separated arguments joined by a space) in -s
    and -e text escaped as the name is (a\\nb\\x1b[31mc\\\\d\\xff), in
    -e json per RFC 8259, a byte that is not UTF-8 as its Latin-1
    reading (docs/json.md "Escaping"), and kept byte for byte through a
    snapshot file (-w, then -l);
  - the viewer's title line shows it escaped (tmux);
  - the executable's path, UTF-8 in it, in -e json as it is;
  - a command line of 300 KiB is read to a bound (128 KiB), its start
    shown.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tui", "lib"))
import vmstest as T  # noqa: E402

# this run's own names (comm holds 15 bytes): other runs' are not matched
SUF = b"%02d" % (os.getpid() % 100)
UTF8 = b"h\xc3\xa9llo w\xc3\xb6" + SUF
NAMES = [UTF8, b"tab\there" + SUF, b"esc\x1b[1m" + SUF, b"bad\xffname" + SUF]
ARG = b"a\nb\x1b[31mc\\d\xff"
ARG_SHOWN = "a\\nb\\x1b[31mc\\\\d\\xff"
ARGV0 = b"/nowhere/arg zero \xc3\xa9" + SUF


def vms(*args):
    """vmscope with args as they are (T.run_vmscope makes each a str:
    bytes would read b'...')."""
    return subprocess.run([T.VMSCOPE] + [a if isinstance(a, bytes) else
                                         str(a) for a in args],
                          capture_output=True, timeout=120)


def json_reading(raw):
    """What JSON's escaping (docs/json.md) decodes back to for raw bytes:
    UTF-8 as its characters, a byte that is not UTF-8 as its Latin-1
    reading."""
    s = raw.decode("utf-8", errors="surrogateescape")
    return "".join(chr(ord(c) - 0xdc00) if 0xdc80 <= ord(c) <= 0xdcff
                   else c for c in s)


def start(name, *args, argv0=None):
    argv = [argv0 or T.target("renamed").encode(), name, b""] + list(args)
    p, _ = T.start(argv, executable=T.target("renamed"))
    return p


def command_line(out):
    lines = [l for l in out.decode().splitlines()
             if l.startswith("Command:")]
    return lines[0][len("Command:"):].strip() if lines else None


def test_find(procs):
    for name, p in zip(NAMES, procs):
        what = repr(name)[2:-1]
        r = vms("-s", "-n", name)
        T.ok(r.returncode == 0 and
             r.stdout.startswith(b"Process:     %d " % p.pid),
             "-s -n %s: exit 0, its process" % what,
             "exit %d: %r" % (r.returncode, (r.stdout + r.stderr)[:200]))
        r = vms("--all", "-e", "openmetrics", "-n", name)
        got = {l.split(b'pid="')[1].split(b'"')[0] for l in
               r.stdout.splitlines()
               if l.startswith(b"vmscope_largest_free_bytes{")}
        T.ok(r.returncode == 0 and got == {b"%d" % p.pid},
             "--all -e openmetrics -n %s: exactly its process" % what,
             "exit %d, pids %s: %r" % (r.returncode, got, r.stderr[:200]))


def test_argv0():
    p = start(b"other" + SUF, argv0=ARGV0)
    base = ARGV0.rsplit(b"/", 1)[1]
    r = vms("-s", "-n", base)
    T.ok(r.returncode == 0 and
         r.stdout.startswith(b"Process:     %d " % p.pid),
         "-n: argv[0]'s base name whole, a space and UTF-8 in it",
         "exit %d: %r" % (r.returncode, (r.stdout + r.stderr)[:200]))
    r = vms("-s", "-n", b"arg")
    T.ok(r.returncode == 2, "-n: not argv[0]'s first word", r.stderr)
    T.kill(p)


def test_list(p):
    r = T.run_vmscope("--list", "--sort=pid")
    line = [l for l in r.stdout.decode().splitlines()
            if l.split()[:1] == [str(p.pid)]]
    want_name = UTF8.decode()
    T.ok(line and line[0].split()[2:4] == want_name.split() and
         line[0].endswith(" %s %s" % (want_name, ARG_SHOWN)),
         "--list: the name and the command line escaped as -s shows them",
         line)
    # the name's column 16 characters wide, whatever its bytes: RSS ends
    # under its heading
    end = r.stdout.decode().splitlines()[0].index("RSS K") + len("RSS K")
    T.ok(line and re.match(r" +\d+ ", line[0][end - 13:end + 1]),
         "--list: the name padded to its column by characters", line)


def test_command(p, tmp):
    cl = b" ".join([T.target("renamed").encode(), UTF8, b"", UTF8, ARG])
    shown = "%s %s  %s %s" % (T.target("renamed"), UTF8.decode(),
                              UTF8.decode(), ARG_SHOWN)
    for args in (("-s",), ("-e", "text")):
        r = T.run_vmscope(*args, p.pid)
        T.eq(command_line(r.stdout), shown,
             "%s: the command line escaped as the name is" % " ".join(args))
    j = T.vmscope_json(p.pid)
    T.eq(j["process"]["cmdline"], json_reading(cl),
         "-e json: the command line decodes back to its bytes")
    snap = os.path.join(tmp, "names.vms")
    r = T.run_vmscope("-w", snap, p.pid)
    T.ok(r.returncode == 0, "-w: saved", r.stderr)
    r = T.run_vmscope("-l", snap, "-e", "json")
    T.ok(r.returncode == 0 and
         json.loads(r.stdout)["process"]["cmdline"] == json_reading(cl) and
         json.loads(r.stdout)["process"]["name"] == json_reading(UTF8),
         "-w then -l: the command line and name kept byte for byte",
         r.stdout[:300] + r.stderr)
    r = T.run_vmscope("-l", snap, "-s")
    T.eq(command_line(r.stdout), shown, "-l FILE -s: the command line "
         "escaped as the live one")


def test_viewer(p):
    import tmuxdrive as D
    if not D.have_tmux():
        T.skip("the viewer's title line", "tmux is not installed")
        return
    tm = D.Tmux([T.VMSCOPE, str(p.pid)], width=200,
                env={"LANG": "C.UTF-8"})
    try:
        want = "%s %s" % (UTF8.decode(), ARG_SHOWN)
        scr = tm.wait_for(lambda s: "Sampler" in s and want in s)
        T.ok(want in scr, "viewer: the command line escaped in its "
             "title", scr)
    finally:
        tm.kill()


def test_exe(tmp):
    d = os.path.join(tmp.encode(), b"dir \xc3\xa9")
    os.mkdir(d)
    exe = os.path.join(d, b"ren\xc3\xa9med")
    shutil.copy(T.target("renamed").encode(), exe)
    p, _ = T.start([exe, b"exe" + SUF, b""])
    j = T.vmscope_json(p.pid)
    T.eq(j["process"]["exe"], exe.decode(), "-e json: the executable's "
         "path as it is (UTF-8 in it)")
    T.kill(p)


def test_long():
    # (an argument holds 128 KiB at most: MAX_ARG_STRLEN)
    p = start(b"long" + SUF, *[b"x" * (100 * 1024)] * 3)
    r = T.run_vmscope("-e", "json", p.pid)
    cl = json.loads(r.stdout)["process"]["cmdline"] if r.returncode == 0 \
        else ""
    T.ok(r.returncode == 0 and 64 * 1024 < len(cl) <= 128 * 1024 and
         cl.startswith(T.target("renamed") + " long"),
         "a command line of 300 KiB: its start, read to 128 KiB",
         "exit %d, %d characters" % (r.returncode, len(cl)))
    T.kill(p)


def main():
    tmp = tempfile.mkdtemp(prefix="vmscope-names-")
    os.chmod(tmp, 0o755)
    try:
        procs = [start(NAMES[0], UTF8, ARG)] + [start(n) for n in NAMES[1:]]
        test_find(procs)
        test_argv0()
        test_list(procs[0])
        test_command(procs[0], tmp)
        test_viewer(procs[0])
        test_exe(tmp)
        test_long()
        for p in procs:
            T.kill(p)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
