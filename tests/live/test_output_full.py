#!/usr/bin/env python3
"""What vmscope prints that cannot be written is an error, never a silent
success: exit status 4 and a message naming where it could not write.

  - standard output on /dev/full (every write fails with ENOSPC) and closed
    (`>&-`: EBADF): -s, -e json, -e csv, -e openmetrics, -w FILE -s (the
    snapshot saved, the printout not), --list, --help and --version each
    exit 4 saying "cannot write standard output" and why (--list, --help
    and --version printed with stdio and exited 0, whatever became of
    their text);
  - -o /dev/full and -w /dev/full: exit 4 naming /dev/full;
  - -o and -w into a directory that does not exist: exit 4 naming the file;
  - the same commands with standard output on /dev/null exit 0 (the
    control: nothing else made them fail).
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402


def run(args, stdout):
    """vmscope args with its standard output on the file stdout, or closed
    (stdout None); returns (exit status, standard error)."""
    argv = [T.VMSCOPE] + [str(a) for a in args]
    if stdout is None:
        argv = ["sh", "-c", 'exec "$@" >&-', "sh"] + argv
        r = subprocess.run(argv, stderr=subprocess.PIPE, timeout=120)
    else:
        with open(stdout, "wb") as f:
            r = subprocess.run(argv, stdout=f, stderr=subprocess.PIPE,
                               timeout=120)
    return r.returncode, r.stderr.decode(errors="replace").strip()


def printed(pid, tmp):
    saved = os.path.join(tmp, "saved.vms")
    return [("-s", ["-s", pid]), ("-e json", ["-e", "json", pid]),
            ("-e csv", ["-e", "csv", pid]),
            ("-e openmetrics", ["-e", "openmetrics", pid]),
            ("-w FILE -s", ["-w", saved, "-s", pid]),
            ("--list", ["--list"]), ("--help", ["--help"]),
            ("--version", ["--version"])]


def main():
    if not os.path.exists("/dev/full"):
        T.skip("writes to /dev/full", "this system has no /dev/full")
        T.done()
    tmp = tempfile.mkdtemp(prefix="vmscope-full-")
    try:
        s, _ = T.start_asleep(["sleep", "600"])
        for what, args in printed(s.pid, tmp):
            rc, err = run(args, "/dev/null")
            T.ok(rc == 0, "%s > /dev/null: exit 0" % what, err)
            rc, err = run(args, "/dev/full")
            T.ok(rc == 4 and err == "vmscope: cannot write standard "
                 "output: %s" % os.strerror(28),
                 "%s > /dev/full: exit 4, the message says why" % what,
                 "exit %d: %s" % (rc, err))
            rc, err = run(args, None)
            T.ok(rc == 4 and err == "vmscope: cannot write standard "
                 "output: %s" % os.strerror(9),
                 "%s >&-: exit 4, the message says why" % what,
                 "exit %d: %s" % (rc, err))
        for opt in ("-o", "-w"):
            rc, err = run([opt, "/dev/full", "-s", s.pid] if opt == "-o"
                          else [opt, "/dev/full", s.pid], "/dev/null")
            T.ok(rc == 4 and err == "vmscope: cannot write /dev/full: %s"
                 % os.strerror(28),
                 "%s /dev/full: exit 4, naming the file" % opt,
                 "exit %d: %s" % (rc, err))
            path = os.path.join(tmp, "missing", "out")
            rc, err = run([opt, path, "-s", s.pid] if opt == "-o"
                          else [opt, path, s.pid], "/dev/null")
            T.ok(rc == 4 and err == "vmscope: cannot write %s: %s"
                 % (path, os.strerror(2)),
                 "%s into a missing directory: exit 4, naming the file"
                 % opt, "exit %d: %s" % (rc, err))
        T.kill(s)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
