#!/usr/bin/env python3
"""/proc mounted hidepid=invisible (hidepid=2), which hides other users'
processes: vmscope says so, instead of "no such process".

As root, in a mount namespace of its own (unshare -m), /proc mounted anew
with hidepid=invisible (and once with gid=64003 too); vmscope run there as
uid 64002 (setpriv: no passwd entry, nothing added to the machine), on a
sleep of root's, which /proc hides from that user:

  - -s, -F -s, -b fork -s and --trace PID -s: exit 2, the message says
    the process is there but /proc hides it, the mount's hidepid, and what
    to do (run as its user or as root; with gid=, or in that group); -b
    fork said "exited during capture" and the others "no such process";
  - --all -e openmetrics PID: counted unread for permission (as a process
    /proc shows and refuses is), exit 0 (it said "no process matches the
    PID" and exit 2);
  - the controls: a pid that is no process still says "no such process";
    the user's own process is read (exit 0).

Needs root, unshare and setpriv (skipped otherwise).
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

ME = 64002


def hidden_run(vms, opts, args):
    """vmscope args as uid ME, /proc mounted with opts in a mount namespace
    of its own; (exit status, stdout, stderr)."""
    script = ('mount -t proc -o "$1" proc /proc && shift && '
              'exec setpriv --reuid=%d --regid=%d --clear-groups "$@"'
              % (ME, ME))
    r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh",
                        "-c", script, "sh", opts, vms] + [str(a) for a in
                                                          args],
                       capture_output=True, timeout=120)
    return (r.returncode, r.stdout.decode(errors="replace"),
            r.stderr.decode(errors="replace").strip())


def free_pid():
    """A pid no process has now (above the ones in use)."""
    pid = int(open("/proc/sys/kernel/pid_max").read()) - 1
    while os.path.exists("/proc/%d" % pid):
        pid -= 1
    return pid


def main():
    if os.geteuid() != 0 or not shutil.which("setpriv") or \
            not shutil.which("unshare"):
        T.skip("hidepid", "needs root, unshare and setpriv")
        return T.done()
    tmp = tempfile.mkdtemp(prefix="vmscope-hidepid-")
    os.chmod(tmp, 0o755)
    try:
        vms = os.path.join(tmp, "vmscope")
        shutil.copy(T.VMSCOPE, vms)
        root, _ = T.start_asleep(["sleep", "600"])
        mine, _ = T.start_asleep(["setpriv", "--reuid=%d" % ME,
                                  "--regid=%d" % ME, "--clear-groups",
                                  "sleep", "600"])
        rc, _, err = hidden_run(vms, "hidepid=invisible", ["-s", mine.pid])
        if rc != 0 and "mount" in err:
            T.skip("hidepid", "cannot mount /proc here: %s" % err)
            return
        T.ok(rc == 0, "hidepid: the user's own process is read", err)
        for name, flags in (("pss", []), ("pss -F", ["-F"]),
                            ("fork", ["-b", "fork"])):
            rc, _, err = hidden_run(vms, "hidepid=invisible",
                                    flags + ["-s", root.pid])
            T.ok(rc == 2 and "process %d is there, but /proc hides it from "
                 "you (mounted hidepid=invisible" % root.pid in err and
                 "run as its user, or as root" in err,
                 "hidepid, %s: root's process is said hidden, not gone"
                 % name, "exit %d: %s" % (rc, err))
        rc, _, err = hidden_run(vms, "hidepid=invisible",
                                ["--trace", "--duration=0.1", "-s",
                                 root.pid])
        T.ok(rc == 2 and "process %d is there, but /proc hides it from "
             "you" % root.pid in err,
             "hidepid, --trace PID: root's process is said hidden",
             "exit %d: %s" % (rc, err))
        rc, _, err = hidden_run(vms, "hidepid=invisible,gid=64003",
                                ["-s", root.pid])
        T.ok(rc == 2 and "or as root, or in group 64003" in err,
             "hidepid with gid=: the message names the group",
             "exit %d: %s" % (rc, err))
        rc, out, err = hidden_run(vms, "hidepid=invisible",
                                  ["--all", "-e", "openmetrics", root.pid])
        T.ok(rc == 0 and 'vmscope_unread_processes{reason="permission"} 1'
             in out and 'vmscope_unread_processes{reason="exited"} 0' in out,
             "hidepid, --all PID: counted unread for permission",
             "exit %d: %s\n%s" % (rc, err, out[-400:]))
        gone = free_pid()
        rc, _, err = hidden_run(vms, "hidepid=invisible", ["-s", gone])
        T.ok(rc == 2 and err == "vmscope: no such process: %d" % gone,
             "hidepid: a pid that is no process is no such process",
             "exit %d: %s" % (rc, err))
        T.kill(mine)
        T.kill(root)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == "__main__":
    main()
