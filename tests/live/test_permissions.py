"""Who may look at what: vmscope run as an unprivileged user against its
own process, another user's, root's and a setuid program it started, with
each sampler (pss, pss -F, fork); and, as root, a target in its own PID and
mount namespaces whose library exists only in its mount namespace.

The users are two uids with no passwd entry (64001, 64002), switched to
with setpriv: nothing is added to the machine. vmscope and the targets are
copied to a directory every user can reach."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import vmstest as T  # noqa: E402

ME, OTHER = 64002, 64001
SAMPLERS = (("pss", []), ("pss -F", ["-F"]), ("fork", ["-b", "fork"]))


def as_uid(uid, argv, **kw):
    return ["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid,
            "--clear-groups"] + argv


def matrix(tmp):
    vms = os.path.join(tmp, "vmscope")
    ek = os.path.join(tmp, "everykind")
    suid = os.path.join(tmp, "everykind-setuid")
    shutil.copy(T.VMSCOPE, vms)
    shutil.copy(T.target("everykind"), ek)
    shutil.copy(T.target("everykind"), suid)
    os.chmod(suid, 0o4755)  # owned by root: setuid root
    # A setuid bit is ignored on a nosuid mount: the case is then skipped.
    nosuid = "nosuid" in subprocess.run(
        ["findmnt", "-no", "OPTIONS", "-T", tmp], capture_output=True,
        text=True).stdout

    mine, _ = T.start(as_uid(ME, [ek]), cwd=tmp)
    others, _ = T.start(as_uid(OTHER, [ek]), cwd=tmp)
    roots, _ = T.start([ek], cwd=tmp)
    # Its own process that made itself not dumpable (as ssh-agent does):
    # /proc/PID then belongs to root, but the message must not say so.
    py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") \
        else sys.executable  # a python under /root is not theirs to run
    closed, _ = T.start(as_uid(ME, [py, "-c",
                                    "import ctypes, sys, time\n"
                                    "ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)\n"
                                    "print('ready', flush=True)\n"
                                    "time.sleep(600)"]), cwd=tmp)
    setuid = None
    if not nosuid:
        setuid, _ = T.start(as_uid(ME, [suid]), cwd=tmp)
    try:
        for name, flags in SAMPLERS:
            r = subprocess.run(as_uid(ME, [vms, "-e", "json"] + flags +
                                      [str(mine.pid)]),
                               capture_output=True, cwd=tmp, timeout=120)
            if T.eq(r.returncode, 0, "own process, %s: captured" % name):
                snap = json.loads(r.stdout)
                T.eq([T.hexint(x["start"]) for x in snap["regions"]],
                     [m["start"] for m in T.maps(mine.pid)],
                     "own process, %s: the regions are the lines of maps"
                     % name)
                T.eq([m for m in snap["capture"].get("missing", [])
                      if m["step"] == "observer"], [],
                     "own process, %s: vmscope ran from its private "
                     "copies as an unprivileged user" % name)
            cases = [("another user's process", others, "belongs to uid %d "
                      "and you are uid %d" % (OTHER, ME)),
                     ("root's process", roots, "belongs to uid 0 and you "
                      "are uid %d" % ME),
                     ("its own process, not dumpable", closed,
                      "is yours (uid %d) but has made itself not dumpable"
                      % ME)]
            if setuid:
                cases.append(("a setuid program it started", setuid,
                              "runs a setuid or setgid program"))
            for what, p, says in cases:
                r = subprocess.run(as_uid(ME, [vms, "-s"] + flags +
                                          [str(p.pid)]),
                                   capture_output=True, cwd=tmp,
                                   timeout=120)
                err = r.stderr.decode()
                T.ok(r.returncode == 2 and says in err and
                     "CAP_SYS_PTRACE" in err,
                     "%s, %s: exit 2, and the message says why and what "
                     "to do" % (what, name), (r.returncode, err))
                T.ok(T.proc_state(p.pid) in "SR" and
                     T.tracer_pid(p.pid) == 0,
                     "%s, %s: left running and untraced" % (what, name))
        if not setuid:
            T.skip("a setuid program it started", "%s is mounted nosuid"
                   % tmp)
    finally:
        for p in (mine, others, roots, closed, setuid):
            if p:
                T.kill(p)


def namespaces(tmp):
    """A target in its own PID and mount namespaces maps a library from a
    tmpfs mounted only there: as root, vmscope still opens it (through
    /proc/PID/map_files or /proc/PID/root) and shows its sections."""
    if not shutil.which("unshare"):
        return T.skip("namespaces", "no unshare")
    lib = next((x for x in ("/lib/x86_64-linux-gnu/libz.so.1",
                            "/lib/aarch64-linux-gnu/libz.so.1",
                            "/usr/lib/x86_64-linux-gnu/libz.so.1")
                if os.path.exists(x)), None)
    if not lib:
        return T.skip("namespaces", "no libz to load")
    obs = os.path.join(tmp, "observer")
    shutil.copy(T.target("observer"), obs)
    # made on the host's file system (the mount namespace is private,
    # not the directory): in the test's own directory, gone with it
    inner = os.path.join(tmp, "ns-only")
    script = ("mkdir -p %s && mount -t tmpfs none %s && cp %s %s/libns.so "
              "&& exec %s %s/libns.so" % (inner, inner, lib, inner, obs,
                                          inner))
    probe = subprocess.run(["unshare", "-m", "-p", "-f",
                            "--propagation", "private", "true"],
                           capture_output=True)
    if probe.returncode != 0:
        return T.skip("namespaces", "unshare -m -p not permitted here")
    seen = T.foreign_ns_path()
    if seen:
        return T.skip("namespaces", "the kernel names another mount "
                      "namespace's files from its root (%s): a chroot?"
                      % seen)
    p, _ = T.start(["unshare", "-m", "-p", "-f", "--propagation", "private",
                    "sh", "-c", script])
    pid = 0
    try:
        # The target is unshare's child (pid 1 inside): find it by its exe.
        kids = subprocess.run(["pgrep", "-P", str(p.pid)],
                              capture_output=True, text=True).stdout.split()
        pid = int(kids[0]) if kids else 0
        if not T.ok(pid > 0, "namespaces: the target is unshare's child",
                    kids):
            return
        T.sigstop(pid)
        T.ok(not os.path.exists(inner + "/libns.so"),
             "namespaces: the library exists only in the target's mount "
             "namespace")
        snap = T.vmscope_json(pid)
        regs = [r for r in snap["regions"] if r["path"] == inner +
                "/libns.so"]
        T.ok(regs and all(r["type"] == "image" for r in regs),
             "namespaces: its mappings are typed image",
             [(r["path"], r["type"]) for r in regs])
        names = {c["name"] for r in regs for c in r.get("children", [])}
        T.ok(".text" in names,
             "namespaces: its sections were read from the file in the "
             "target's namespace", sorted(names)[:10])
    finally:
        # the target first, by its pid: once unshare is gone it is no
        # longer unshare's child to find (and it may be stopped)
        if pid:
            for sig in (signal.SIGKILL, signal.SIGCONT):
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
        T.kill(p)


def main():
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        T.skip("permissions matrix", "needs root and setpriv")
        return T.done()
    tmp = tempfile.mkdtemp(prefix="vmscope-perm-")
    os.chmod(tmp, 0o755)
    try:
        matrix(tmp)
        namespaces(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == "__main__":
    main()
