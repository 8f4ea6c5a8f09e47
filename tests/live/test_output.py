#!/usr/bin/env python3
"""-o writes where a shell redirection would, and destroys nothing else.

  - `-o -` writes standard output (no file named "-"); `-o /dev/stdout`
    into a pipe writes the pipe and leaves the /dev/stdout link alone;
  - a FIFO with no reader yet is waited for with a line that says so
    (-o and -w), then written whole;
  - a FIFO is written into (a reader gets the summary) and stays a FIFO; a
    terminal (a pty's slave) is written into and stays a character device;
    /dev/null stays a character device;
  - a symlink (and a chain of two, relative) stays a link and the file at
    its end gets the export; a dangling link's target is created;
  - an existing file keeps its mode (0640, 0604) and, as root, its owner
    and group (uid/gid 65534); a new file gets 0666 less the umask (027,
    077, 0);
  - a file with a second hard link is written in place: both names show the
    new export, a message says it was not atomic;
  - a file that is writable in a directory that is not (as uid 65534 when
    root, a 0555 directory otherwise) is written in place, with a message
    saying it was not atomic; a new file there is exit 4 with a message;
  - SIGKILL at 30 random moments of a large JSON export leaves no file but
    the target in the directory, and the target is each time either the old
    export or a new one, whole (valid JSON).
"""
import json
import os
import pty
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

ROOT = os.geteuid() == 0


def err_text(r):
    return r.stderr.decode(errors="replace").strip()


def summary_ok(text, pid):
    return "Total" in text and ("Process:" in text or str(pid) in text)


def only(d, names, what):
    T.eq(sorted(os.listdir(d)), sorted(names), "%s: nothing else in the "
         "directory" % what)


def test_stdout(pid, tmp):
    d = os.path.join(tmp, "stdout")
    os.mkdir(d)
    r = T.run_vmscope("-s", "-o", "-", pid, cwd=d)
    T.ok(r.returncode == 0 and summary_ok(r.stdout.decode(), pid),
         "-o -: the summary on standard output", err_text(r))
    only(d, [], "-o -")
    was_link = os.path.islink("/dev/stdout")
    target = os.readlink("/dev/stdout") if was_link else None
    r = T.run_vmscope("-s", "-o", "/dev/stdout", pid)
    T.ok(r.returncode == 0 and summary_ok(r.stdout.decode(), pid),
         "-o /dev/stdout into a pipe: the pipe gets the summary",
         err_text(r))
    if was_link:
        still = os.path.islink("/dev/stdout")
        T.ok(still and os.readlink("/dev/stdout") == target,
             "-o /dev/stdout: /dev/stdout is still the same symlink")
        if not still and ROOT:  # put back what a failure broke
            if os.path.exists("/dev/stdout"):
                os.unlink("/dev/stdout")
            os.symlink(target, "/dev/stdout")


def test_fifo(pid, tmp):
    d = os.path.join(tmp, "fifo")
    os.mkdir(d)
    f = os.path.join(d, "fifo")
    os.mkfifo(f)
    got = []

    def reader():
        with open(f, "rb") as fh:
            got.append(fh.read())
    t = threading.Thread(target=reader)
    t.start()
    r = T.run_vmscope("-s", "-o", f, pid, timeout=60)
    t.join(30)
    T.ok(r.returncode == 0 and got and summary_ok(got[0].decode(), pid),
         "-o FIFO: the reader gets the summary", err_text(r))
    T.ok(stat.S_ISFIFO(os.lstat(f).st_mode), "-o FIFO: still a FIFO")
    only(d, ["fifo"], "-o FIFO")


def test_fifo_waits(pid, tmp):
    """-o FIFO with no reader yet (and -w FIFO): the capture is made, then
    vmscope says on standard error that it waits for a reader (it was
    silent, as if hung), and the reader that comes gets it whole."""
    import select
    d = os.path.join(tmp, "fifo-wait")
    os.mkdir(d)
    f = os.path.join(d, "fifo")
    os.mkfifo(f)
    for opt, args in (("-o", ["-s", "-o", f]), ("-w", ["-w", f])):
        p = subprocess.Popen([T.VMSCOPE] + args + [str(pid)],
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        said = b""
        deadline = time.time() + 60
        while not said.endswith(b"\n") and time.time() < deadline:
            if select.select([p.stderr], [], [], 1)[0]:
                b = os.read(p.stderr.fileno(), 1)
                if not b:
                    break
                said += b
        T.eq(said.decode(errors="replace"),
             "vmscope: waiting for a reader of %s\n" % f,
             "%s FIFO without a reader: a line says it waits" % opt)
        with open(f, "rb") as fh:
            got = fh.read()
        rc = p.wait(timeout=60)
        p.stderr.close()
        T.ok(rc == 0 and (summary_ok(got.decode(errors="replace"), pid)
                          if opt == "-o" else got[:4] != b""),
             "%s FIFO: the reader that comes gets it, exit 0" % opt,
             "exit %d, %d bytes" % (rc, len(got)))
    only(d, ["fifo"], "FIFO waited for")


def test_devices(pid):
    master, slave = pty.openpty()
    name = os.ttyname(slave)
    try:
        r = T.run_vmscope("-s", "-o", name, pid)
        os.set_blocking(master, False)
        buf = b""
        deadline = time.time() + 10
        while time.time() < deadline and b"Total" not in buf:
            try:
                buf += os.read(master, 65536)
            except BlockingIOError:
                time.sleep(0.01)
            except OSError:
                break
        T.ok(r.returncode == 0 and b"Total" in buf,
             "-o a terminal (%s): the terminal gets the summary" % name,
             err_text(r))
        T.ok(stat.S_ISCHR(os.stat(name).st_mode),
             "-o a terminal: still a character device")
    finally:
        os.close(master)
        os.close(slave)
    r = T.run_vmscope("-s", "-o", "/dev/null", pid)
    T.ok(r.returncode == 0 and stat.S_ISCHR(os.stat("/dev/null").st_mode),
         "-o /dev/null: exit 0, still a character device", err_text(r))


def test_symlinks(pid, tmp):
    d = os.path.join(tmp, "links")
    os.makedirs(os.path.join(d, "sub"))
    real = os.path.join(d, "sub", "real.txt")
    with open(real, "w") as f:
        f.write("old\n")
    os.symlink("sub/real.txt", os.path.join(d, "link1"))
    os.symlink("link1", os.path.join(d, "link2"))
    r = T.run_vmscope("-s", "-o", os.path.join(d, "link2"), pid)
    with open(real) as f:
        text = f.read()
    T.ok(r.returncode == 0 and summary_ok(text, pid),
         "-o through two relative symlinks: the file at the end gets it",
         err_text(r))
    T.ok(os.path.islink(os.path.join(d, "link1")) and
         os.path.islink(os.path.join(d, "link2")) and
         os.readlink(os.path.join(d, "link2")) == "link1",
         "-o through symlinks: both links are still links")
    only(d, ["sub", "link1", "link2"], "-o through symlinks")
    only(os.path.join(d, "sub"), ["real.txt"], "-o through symlinks (sub)")
    os.symlink("sub/new.txt", os.path.join(d, "dangling"))
    r = T.run_vmscope("-s", "-o", os.path.join(d, "dangling"), pid)
    new = os.path.join(d, "sub", "new.txt")
    T.ok(r.returncode == 0 and os.path.isfile(new) and
         os.path.islink(os.path.join(d, "dangling")),
         "-o a dangling symlink: its target is created, the link kept",
         err_text(r))


def test_modes(pid, tmp):
    d = os.path.join(tmp, "modes")
    os.mkdir(d)
    for mode in (0o640, 0o604):
        p = os.path.join(d, "m%o" % mode)
        with open(p, "w") as f:
            f.write("old\n")
        os.chmod(p, mode)
        if ROOT:
            os.chown(p, 65534, 65534)
        r = T.run_vmscope("-s", "-o", p, pid)
        st = os.stat(p)
        with open(p) as f:
            text = f.read()
        T.ok(r.returncode == 0 and summary_ok(text, pid) and
             stat.S_IMODE(st.st_mode) == mode,
             "-o an existing %o file: replaced, mode kept" % mode,
             "exit %d, mode %o, %s" % (r.returncode, stat.S_IMODE(st.st_mode),
                                       err_text(r)))
        if ROOT:
            T.eq((st.st_uid, st.st_gid), (65534, 65534),
                 "-o an existing %o file as root: owner and group kept" % mode)
        else:
            T.skip("-o as root keeps owner and group", "not root")
    for um in (0o027, 0o077, 0):
        p = os.path.join(d, "new%03o" % um)
        r = T.run_vmscope("-s", "-o", p, pid,
                          preexec_fn=lambda um=um: os.umask(um))
        mode = stat.S_IMODE(os.stat(p).st_mode) if os.path.exists(p) else None
        T.ok(r.returncode == 0 and mode == 0o666 & ~um,
             "-o a new file with umask %03o: mode %03o" % (um, 0o666 & ~um),
             "exit %d, mode %r, %s" % (r.returncode, mode, err_text(r)))
    only(d, ["m640", "m604", "new027", "new077", "new000"], "-o modes")


def test_hard_link(pid, tmp):
    d = os.path.join(tmp, "hard")
    os.mkdir(d)
    a, b = os.path.join(d, "a"), os.path.join(d, "b")
    with open(a, "w") as f:
        f.write("old\n")
    os.link(a, b)
    r = T.run_vmscope("-s", "-o", a, pid)
    with open(b) as f:
        text = f.read()
    T.ok(r.returncode == 0 and os.stat(a).st_ino == os.stat(b).st_ino and
         summary_ok(text, pid),
         "-o a file with two hard links: still one file, both names see it",
         err_text(r))
    T.ok("not atomically" in err_text(r) and "hard link" in err_text(r),
         "-o a hard-linked file: the message says it was written in place",
         err_text(r))
    only(d, ["a", "b"], "-o a hard-linked file")


def test_in_place(tmp):
    """A file writable in a directory that is not."""
    d = os.path.join(tmp, "ro")
    os.mkdir(d)
    f = os.path.join(d, "out.txt")
    with open(f, "w") as fh:
        fh.write("old " * 10000)  # longer than a summary: truncated at end
    if ROOT:
        os.chmod(tmp, 0o755)
        os.chmod(d, 0o755)
        os.chown(f, 65534, 65534)
        pre = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    else:
        os.chmod(d, 0o555)
        pre = []
    try:
        cmd = pre + [T.VMSCOPE, "-s", "-o", f, "--delay=0.2", "--", "sleep",
                     "30"]
        r = subprocess.run(cmd, capture_output=True, timeout=60)
        with open(f) as fh:
            text = fh.read()
        T.ok(r.returncode == 0 and "Total" in text and "old old" not in text,
             "-o a writable file in a directory that is not: written in "
             "place, whole", "exit %d, %s" % (r.returncode, err_text(r)))
        T.ok("not atomically" in err_text(r) and "directory" in err_text(r),
             "-o in place: the message says it was not atomic and why",
             err_text(r))
        only(d, ["out.txt"], "-o in place")
        cmd = pre + [T.VMSCOPE, "-s", "-o", os.path.join(d, "new.txt"),
                     "--delay=0.2", "--", "sleep", "30"]
        r = subprocess.run(cmd, capture_output=True, timeout=60)
        lines = err_text(r).splitlines()
        T.ok(r.returncode == 4 and len(lines) == 1 and
             "new.txt" in lines[0] and not r.stdout,
             "-o a new file in a directory that is not writable: exit 4, one "
             "line naming it", "exit %d, %s" % (r.returncode, lines))
        only(d, ["out.txt"], "-o a new file in a read-only directory")
    finally:
        os.chmod(d, 0o755)


def complete(path, pid):
    """Whether the file at path is a whole export of process pid."""
    try:
        with open(path) as f:
            return json.load(f)["process"]["pid"] == pid
    except (OSError, ValueError, KeyError):
        return False


def test_sigkill(tmp):
    """SIGKILL at random moments of a large export."""
    d = os.path.join(tmp, "kill")
    os.mkdir(d)
    out = os.path.join(d, "big.json")
    p, _ = T.start([T.target("manyregions"), "20000"])
    try:
        t0 = time.time()
        r = T.run_vmscope("-e", "json", "-o", out, p.pid)
        took = time.time() - t0
        T.ok(r.returncode == 0, "a large export to kill: exit 0", err_text(r))
        rng = T.rng()
        bad, between = [], []
        for i in range(30):
            v = subprocess.Popen([T.VMSCOPE, "-e", "json", "-o", out,
                                  str(p.pid)], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0, took * 1.1))
            try:
                os.kill(v.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            v.wait()
            names = os.listdir(d)
            whole = False
            try:
                with open(out) as f:
                    whole = json.load(f)["process"]["pid"] == p.pid
            except (OSError, ValueError, KeyError):
                pass
            # the one instant outfile.h names: killed between naming the
            # finished file and renaming it over the target, the complete
            # new export is left under its hidden name (nothing partial)
            left = [n for n in names if n != "big.json"]
            if len(left) == 1 and left[0].startswith(".big.json.tmp") and \
                    whole and complete(os.path.join(d, left[0]), p.pid):
                between.append(i)
                os.unlink(os.path.join(d, left[0]))
                names = os.listdir(d)
            if names != ["big.json"] or not whole:
                bad.append((i, names, whole))
        if between:
            print("# killed between the link and the rename in trial(s) %r"
                  % between)
        T.ok(not bad, "SIGKILL x30 during -o: no temporary file (but a "
             "complete one where the kill fell between its link and its "
             "rename), the target always whole", bad)
    finally:
        T.kill(p)


def main():
    tmp = tempfile.mkdtemp(prefix="vmscope-out-")
    os.chmod(tmp, 0o755)
    try:
        s, _ = T.start_asleep(["sleep", "600"])
        test_stdout(s.pid, tmp)
        test_fifo(s.pid, tmp)
        test_fifo_waits(s.pid, tmp)
        test_devices(s.pid)
        test_symlinks(s.pid, tmp)
        test_modes(s.pid, tmp)
        test_hard_link(s.pid, tmp)
        test_in_place(tmp)
        test_sigkill(tmp)
        T.kill(s)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
