#!/usr/bin/env python3
"""Targets in a root of their own: a chroot, and another PID and mount
namespace (unshare --pid --fork --mount-proc). The sections of their images
must come from their files, never from the host's file at the same path,
and from the root they had when they were captured.

Set-up (tests/targets/roots.c maps a library by the path it sees): a host
directory H holds v.so, a copy of libz; the root C made here holds, at
C/H/v.so, a copy of libm: the same path names two different files, one
for the target and one for the host. vmscope runs as root, and again with
CAP_SYS_ADMIN and CAP_CHECKPOINT_RESTORE out of its bounding set, so that
/proc/PID/map_files is closed and the file must be found by its path.

  - chroot: the kernel writes a chrooted target's path in maps from the
    reader's root (C/H/v.so); the image has libm's build id and sections,
    never libz's. Before (without map_files): looked up under the target's
    root only (C/C/H/v.so), image_unopened, no sections;
  - PID and mount namespace, H/v.so bind-mounted over with C/H/v.so in
    there only: maps says H/v.so (the namespace's view), which on the host
    is libz; the image is libm's, with and without map_files;
  - the same target changes root (chroot) between the capture and the
    images step (vmscope stopped there by gdb at vms_snapshot_finish, the
    target moved by SIGUSR1 and polled until its root is the new one):
    the files are found in the root it had when captured. Before: looked
    up again by pid in its new root, image_unopened;
  - the chrooted target killed there (a zombie: no map_files, no root by
    its pid), as root: the files are still found (its /proc directory and
    root held from the capture, its path as vmscope sees it). Before:
    image_unopened.
  - an attach (vmscope --trace --duration=0.3 -s PID) to the chrooted
    target and to the one in the namespaces: neither sees the tracer
    library (or the trace's shared file) at the path vmscope gives it, so
    the injection is refused before anything is done to it, the reason
    said (a root of its own), and the maps are traced from the kernel;
    the target is left as it was: asleep, untraced, no library of the
    tracer mapped. Before: the chrooted one's dlopen failed in it ("its
    own loader refused it"), and the one in the namespaces loaded the
    library, which then could not open the shared file and stayed
    loaded.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402


def find_lib(name):
    for d in ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
              "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64"):
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    return None


def build_id(path):
    r = subprocess.run(["readelf", "-n", path], capture_output=True,
                       text=True)
    m = re.search(r"Build ID: ([0-9a-f]+)", r.stdout)
    return m.group(1) if m else None


NO_MAP_FILES = ["setpriv", "--bounding-set=-sys_admin,-checkpoint_restore"]


def capture(pid, drop):
    r = subprocess.run((NO_MAP_FILES if drop else []) +
                       [T.VMSCOPE, "-e", "json", str(pid)],
                       capture_output=True, timeout=120)
    if r.returncode != 0:
        return None, r.stderr.decode(errors="replace")
    return json.loads(r.stdout), ""


def check(label, snap, path, want_id, host_id):
    regs = [r for r in snap["regions"] if r["path"] == path]
    if not T.ok(regs, "%s: the library's regions are there (%s)"
                % (label, path),
                sorted({r["path"] for r in snap["regions"]
                        if r["path"]})[:20]):
        return
    T.ok(all(r["type"] == "image" for r in regs),
         "%s: typed image" % label, [(r["type"], r["state"]) for r in regs])
    T.ok(all("image_unopened" not in r["state"] for r in regs),
         "%s: its file was opened" % label, [r["state"] for r in regs])
    names = {c["name"] for r in regs for c in r.get("children", [])}
    T.ok(".text" in names, "%s: its sections were read" % label,
         sorted(names)[:10])
    ids = {r.get("build_id") for r in regs} - {None}
    T.ok(ids == {want_id} and want_id != host_id,
         "%s: the build id is its file's (libm), not the host's at the "
         "same path (libz)" % label,
         "got %r, want %r, the host's %r" % (ids, want_id, host_id))


def child_of(ppid, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        out = subprocess.run(["pgrep", "-P", str(ppid)], capture_output=True,
                             text=True).stdout.split()
        if out:
            return int(out[0])
        time.sleep(0.01)
    return 0


def kill_pid(pid):
    if pid:
        for sig in (signal.SIGCONT, signal.SIGKILL):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass


def held_between(gdb, pid, action, h, drop):
    """vmscope -e json PID under gdb, stopped at vms_snapshot_finish (the
    capture done, its steps not begun) while the shell command action
    runs. (snapshot, "") or (None, why)."""
    out = os.path.join(h, "held.json")
    if os.path.exists(out):
        os.unlink(out)
    env = dict(os.environ, VMSCOPE_SHARED_LIBS="1")
    g = subprocess.run((NO_MAP_FILES if drop else []) + [
        gdb, "-q", "-batch", "-nx", "-ex", "set breakpoint pending on",
        "-ex", "break vms_snapshot_finish", "-ex", "run",
        "-ex", "shell " + action, "-ex", "continue", "--args",
        T.VMSCOPE, "-e", "json", "-o", out, str(pid)],
        capture_output=True, text=True, timeout=300, env=env,
        stdin=subprocess.DEVNULL)
    log = "gdb: " + g.stdout[-800:] + g.stderr[-400:]
    if "Breakpoint 1, vms_snapshot_finish" not in g.stdout:
        return None, log
    try:
        with open(out) as f:
            return json.load(f), ""
    except (OSError, ValueError) as e:
        return None, "%s; %s" % (e, log)


def attach(label, pid):
    """An attach to pid, refused before anything is done to it: the
    reason said, pid as it was."""
    r = subprocess.run([T.VMSCOPE, "--trace", "--duration=0.3", "-s",
                        str(pid)], capture_output=True, timeout=180)
    out = r.stdout.decode(errors="replace")
    err = r.stderr.decode(errors="replace")
    inj = [ln for ln in out.splitlines() if ln.startswith("Injected:")]
    print("# %s, --trace PID: exit %d; %s" % (label, r.returncode,
                                             inj or err[-300:]))
    T.ok((r.returncode == 0 and inj and "a root of its own" in inj[0]) or
         (r.returncode != 0 and "a root of its own" in err),
         "%s: an attach is refused, the reason said (a root of its own)"
         % label, out[-400:] + err[-400:])
    with open("/proc/%d/maps" % pid) as f:
        maps = f.read()
    T.ok(T.tracer_pid(pid) == 0 and T.proc_state(pid) == "S" and
         "libvmstrace" not in maps and "vmscope-trace" not in maps,
         "%s: left as it was: asleep, untraced, nothing of the tracer "
         "mapped" % label)


def in_chroot(h, c, want_id, host_id, gdb):
    p, line = T.start([T.target("roots"), "-r", c, h + "/v.so"])
    path = c + h + "/v.so"
    attach("chroot", p.pid)
    for drop in (False, True):
        label = "chroot%s" % (", no map_files" if drop else "")
        snap, err = capture(p.pid, drop)
        if T.ok(snap is not None, "%s: captured" % label, err):
            check(label, snap, path, want_id, host_id)
    if not gdb:
        T.skip("a chrooted target that exits after the capture", "no gdb")
        T.kill(p)
        return
    # Killed (a zombie: no map_files, no root by its pid any more) while
    # vmscope is stopped between the capture and its steps; as root.
    die = ("kill -KILL %d; i=0; while ! grep -q '^State:.Z' "
           "/proc/%d/status 2>/dev/null && [ -e /proc/%d ] && "
           "[ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done"
           % (p.pid, p.pid, p.pid))
    snap, log = held_between(gdb, p.pid, die, h, False)
    if T.ok(snap is not None and p.poll() is not None,
            "chroot: the target died while vmscope was stopped between "
            "capture and steps", log):
        check("chroot, exited after the capture", snap, path, want_id,
              host_id)
    T.kill(p)


def in_namespace(h, c, want_id, host_id, gdb):
    later = h + "/later"
    script = ("mount --bind %s/v.so %s/v.so && exec %s %s/v.so %s"
              % (c + h, h, T.target("roots"), h, later))
    p, line = T.start(["unshare", "--pid", "--fork", "--mount-proc",
                       "--propagation", "private", "sh", "-c", script])
    pid = child_of(p.pid)
    try:
        if not T.ok(pid > 0, "namespace: the target is unshare's child"):
            return
        with open(h + "/v.so", "rb") as f:
            host = f.read(64)
        T.ok(build_id(h + "/v.so") == host_id and host,
             "namespace: on the host the path is still libz")
        for drop in (False, True):
            label = "PID+mount namespace%s" % (", no map_files" if drop
                                               else "")
            snap, err = capture(pid, drop)
            if T.ok(snap is not None, "%s: captured" % label, err):
                check(label, snap, h + "/v.so", want_id, host_id)
        attach("PID+mount namespace", pid)
        if not gdb:
            T.skip("a root changed after the capture", "no gdb")
            return
        # vmscope stopped between the capture and its steps; the target
        # moves into `later` (where there is no v.so) meanwhile.
        ino = os.stat(later).st_ino
        move = ("kill -USR1 %d; i=0; while [ \"$(stat -L -c %%i "
                "/proc/%d/root)\" != %d ] && [ $i -lt 3000 ]; do "
                "sleep 0.01; i=$((i+1)); done" % (pid, pid, ino))
        snap, log = held_between(gdb, pid, move, h, True)
        moved = T._line_by(p, time.time() + 30) or ""
        if not T.ok(snap is not None and moved.startswith("moved"),
                    "moved: the target changed root while vmscope was "
                    "stopped between capture and steps",
                    "target said %r; %s" % (moved, log)):
            return
        check("moved, no map_files", snap, h + "/v.so", want_id, host_id)
    finally:
        kill_pid(pid)
        T.kill(p)


def main():
    libm, libz = find_lib("libm.so.6"), find_lib("libz.so.1")
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        T.skip("targets in a root of their own", "needs root and setpriv")
        return T.done()
    if not libm or not libz:
        T.skip("targets in a root of their own", "no libm or libz")
        return T.done()
    want_id, host_id = build_id(libm), build_id(libz)
    h = tempfile.mkdtemp(prefix="vmscope-roots-")
    os.chmod(h, 0o755)
    try:
        c = os.path.join(h, "croot")
        os.makedirs(c + h)
        os.makedirs(h + "/later")
        shutil.copy(libz, h + "/v.so")
        shutil.copy(libm, c + h + "/v.so")
        in_chroot(h, c, want_id, host_id, shutil.which("gdb"))
        probe = subprocess.run(["unshare", "--pid", "--fork",
                                "--mount-proc", "--propagation", "private",
                                "true"], capture_output=True)
        seen = probe.returncode == 0 and T.foreign_ns_path()
        if probe.returncode != 0:
            T.skip("PID and mount namespace", "unshare not permitted here")
        elif seen:
            T.skip("PID and mount namespace", "the kernel names another "
                   "mount namespace's files from its root (%s): a chroot?"
                   % seen)
        else:
            in_namespace(h, c, want_id, host_id, shutil.which("gdb"))
    finally:
        shutil.rmtree(h, ignore_errors=True)
    return T.done()


main()
