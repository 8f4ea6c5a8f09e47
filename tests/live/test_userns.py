#!/usr/bin/env python3
"""vmscope as root of a user namespace (unshare -U -r: root there, no one
outside it), on a process outside it and on one inside.

  - outside (a sleep of the caller's, started before the namespace): with
    each sampler (pss, pss -F, fork) exit 2, and the message says vmscope
    runs in a user namespace whose root is not root outside it and what
    to do; -F said "refused though vmscope runs as root with
    CAP_SYS_PTRACE (a security module?)": the capabilities it has are
    its namespace's;
  - inside (a sleep started in the namespace): each sampler reads it
    (exit 0), the control.

Skipped where unshare cannot make a user namespace.
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

SAMPLERS = (("pss", []), ("pss -F", ["-F"]), ("fork", ["-b", "fork"]))
WHY = ("runs in a user namespace whose root is not root outside it, and "
       "process %d is outside it; run vmscope in the namespace of the "
       "target or above it")


def in_userns(script, *args):
    return subprocess.run(["unshare", "-U", "-r", "sh", "-c", script,
                           "sh"] + [str(a) for a in args],
                          capture_output=True, timeout=120)


def main():
    if not shutil.which("unshare") or \
            in_userns("true").returncode != 0:
        T.skip("user namespace", "unshare -U -r does not work here")
        return T.done()
    out, _ = T.start_asleep(["sleep", "600"])
    for name, flags in SAMPLERS:
        r = in_userns('exec "$@"', T.VMSCOPE, *(flags + ["-s", out.pid]))
        err = r.stderr.decode(errors="replace").strip()
        T.ok(r.returncode == 2 and WHY % out.pid in err,
             "user namespace, %s: a process outside it is refused with "
             "the namespace named" % name, "exit %d: %s" %
             (r.returncode, err))
        # inside: a sleep of the namespace's own, read, then killed
        r = in_userns('sleep 600 & p=$!; "$@" $p >/dev/null; rc=$?; '
                      'kill $p; exit $rc', T.VMSCOPE, *(flags + ["-s"]))
        T.ok(r.returncode == 0, "user namespace, %s: a process inside it "
             "is read" % name, r.stderr.decode(errors="replace"))
    T.kill(out)
    return T.done()


if __name__ == "__main__":
    main()
