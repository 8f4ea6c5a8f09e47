#!/usr/bin/env python3
"""A process's name and command line as the process has them: their
bytes, escaped only where printed (tests/targets/renamed.c names itself
with prctl; its arguments hold UTF-8, controls and a byte that is not
UTF-8).

  - -n NAME matches /proc/PID/comm byte for byte: a name of UTF-8
    ("héllo wö"), one with a tab, one with ESC, one with a byte that is
    not UTF-8; with -s (exit 0, that process) and with --all -e
    openmetrics (exactly that pid). libproc2's name, which vmscope
    matched before, has every such byte a '?';
  - -n NAME matches the base name of argv[0] whole, spaces and UTF-8 in
    it (not its first word, nor libproc2's '?'s);
  - --list shows the name and the command line escaped as the summary
    does (not libproc2's "h??llo w??", a newline as a space).
"""
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


def start(name, *args, argv0=None):
    argv = [argv0 or T.target("renamed").encode(), name, b""] + list(args)
    p, _ = T.start(argv, executable=T.target("renamed"))
    return p


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






def main():
    tmp = tempfile.mkdtemp(prefix="vmscope-names-")
    os.chmod(tmp, 0o755)
    try:
        procs = [start(NAMES[0], UTF8, ARG)] + [start(n) for n in NAMES[1:]]
        test_find(procs)
        test_argv0()
        test_list(procs[0])
        for p in procs:
            T.kill(p)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
