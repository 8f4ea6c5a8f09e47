#!/usr/bin/env python3
# run alone: sets the machine's fs.protected_* sysctls
"""-o and -w write where `> FILE` would, and nowhere it would not, as this
machine's fs.protected_symlinks, protected_regular and protected_fifos say.

For each of the three sysctls at each of its values (0, 1; 0, 1, 2), set as
root and always put back: a file planted by another user (uid 65534, the
planting done by a forked child that took its uid) in a sticky directory is
written by `vmscope -s -o FILE PID` and by `sh -c '> FILE'`, and both must
get the same answer:
  - protected_symlinks: a link to a root-owned "victim" (in a root-only
    directory, standing for /etc/victim) planted in a root-owned sticky
    world-writable directory; the same link in a sticky directory that the
    planter owns (the kernel follows it at every value); a link root
    planted itself;
  - protected_regular: a regular file of the other user in a sticky
    world-writable directory and in a sticky group-writable one (value 2
    refuses that one as well);
  - protected_fifos: the same with a FIFO (a reader holds it open, so
    neither writer waits).
Where the shell is refused vmscope exits 4 with a message naming the
sysctl, and the victim (or the planted file) is untouched: same inode,
same bytes. Where the shell writes, vmscope writes the file at the same
place (the victim, or the planted file) with its summary. -w takes the same
path (one case). Needs root (skipped otherwise).
"""
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

OTHER = 65534
SYSCTL = "/proc/sys/fs/protected_%s"
VICTIM_TEXT = b"victim: not vmscope's\n"


def get_sysctl(name):
    with open(SYSCTL % name) as f:
        return int(f.read().strip())


def set_sysctl(name, v):
    with open(SYSCTL % name, "w") as f:
        f.write("%d\n" % v)


def as_other(fn):
    """Runs fn in a forked child with uid and gid 65534."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(OTHER)
            os.setuid(OTHER)
            fn()
            os._exit(0)
        except BaseException:  # noqa: B036 (a child reports by status)
            os._exit(1)
    _, st = os.waitpid(pid, 0)
    if not (os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0):
        raise RuntimeError("the planting as uid %d failed" % OTHER)


def sticky_dir(base, name, mode, owner):
    d = os.path.join(base, name)
    os.mkdir(d)
    os.chown(d, owner, OTHER)
    os.chmod(d, mode)
    return d


def fingerprint(path):
    st = os.lstat(path)
    data = b""
    if stat.S_ISREG(st.st_mode):
        with open(path, "rb") as f:
            data = f.read()
    return (st.st_ino, st.st_mode, st.st_uid, data)


def shell_writes(path):
    r = subprocess.run(["sh", "-c", ': > "$1"', "sh", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode == 0


def vmscope_writes(pid, path, save=False):
    if save:
        r = T.run_vmscope("-w", path, pid)
    else:
        r = T.run_vmscope("-s", "-o", path, pid)
    return r


def compare(pid, what, sysctl, value, plant, written, save=False):
    """plant() makes the situation and returns (path written, path that
    must stay untouched when refused); written(path) says whether
    vmscope's output reached it."""
    path, victim = plant()
    allowed = shell_writes(path)
    path, victim = plant()  # again: the shell may have truncated it
    before = fingerprint(victim)
    r = vmscope_writes(pid, path, save)
    err = r.stderr.decode(errors="replace").strip()
    label = "%s, fs.protected_%s=%d: shell %s" % (
        what, sysctl, value, "writes" if allowed else "is refused")
    if allowed:
        T.ok(r.returncode == 0 and written(victim),
             label + ", vmscope writes the same file",
             "exit %d: %s" % (r.returncode, err))
    else:
        T.ok(r.returncode == 4 and ("protected_" + sysctl) in err,
             label + ", vmscope exits 4 naming the sysctl",
             "exit %d: %s" % (r.returncode, err))
        T.ok(fingerprint(victim) == before,
             label + ", the file it names is untouched")
    return allowed


def has_summary(path):
    try:
        with open(path, "rb") as f:
            return b"Total" in f.read()
    except OSError:
        return False


def is_snapshot(path):
    try:
        with open(path, "rb") as f:
            return f.read(17) == b"vmscope snapshot\n"
    except OSError:
        return False


def test_symlinks(pid, tmp):
    etc = os.path.join(tmp, "etc")
    os.mkdir(etc, 0o755)
    victim = os.path.join(etc, "victim")
    tmpdir = sticky_dir(tmp, "sticky-root", 0o1777, 0)
    owned = sticky_dir(tmp, "sticky-other", 0o1777, OTHER)
    seen = {}

    def planted(d, by_root=False):
        def plant():
            with open(victim, "wb") as f:
                f.write(VICTIM_TEXT)
            os.chmod(victim, 0o644)
            link = os.path.join(d, "out.txt")
            if os.path.lexists(link):
                os.unlink(link)
            if by_root:
                os.symlink(victim, link)
            else:
                as_other(lambda: os.symlink(victim, link))
            return link, victim
        return plant

    for v in (0, 1):
        set_sysctl("symlinks", v)
        seen[v] = compare(pid, "a link planted in root's sticky directory",
                          "symlinks", v, planted(tmpdir), has_summary)
        compare(pid, "a link planted in the planter's own sticky "
                "directory", "symlinks", v, planted(owned), has_summary)
        compare(pid, "root's own link in a sticky directory", "symlinks",
                v, planted(tmpdir, by_root=True), has_summary)
        compare(pid, "-w through a link planted in root's sticky "
                "directory", "symlinks", v, planted(tmpdir), is_snapshot,
                save=True)
    T.ok(seen[0] and not seen[1], "the kernel follows the planted link at "
         "0 and refuses it at 1 (the test tried both)", seen)


def test_regular(pid, tmp):
    world = sticky_dir(tmp, "reg-world", 0o1777, 0)
    group = sticky_dir(tmp, "reg-group", 0o1770, 0)
    seen = {}

    def planted(d):
        def plant():
            f = os.path.join(d, "out.txt")
            if os.path.lexists(f):
                os.unlink(f)

            def make():
                with open(f, "wb") as o:
                    o.write(VICTIM_TEXT)
                os.chmod(f, 0o666)
            as_other(make)
            return f, f
        return plant

    for v in (0, 1, 2):
        set_sysctl("regular", v)
        seen[(v, "w")] = compare(pid, "another user's file in a sticky "
                                 "world-writable directory", "regular", v,
                                 planted(world), has_summary)
        seen[(v, "g")] = compare(pid, "another user's file in a sticky "
                                 "group-writable directory", "regular", v,
                                 planted(group), has_summary)
    T.ok(seen[(0, "w")] and not seen[(1, "w")] and seen[(1, "g")] and
         not seen[(2, "g")], "the shell's answers differ by value (the test "
         "tried each rule)", seen)


def test_fifos(pid, tmp):
    world = sticky_dir(tmp, "fifo-world", 0o1777, 0)
    group = sticky_dir(tmp, "fifo-group", 0o1770, 0)
    seen = {}
    readers = {}

    def planted(d):
        def plant():
            f = os.path.join(d, "out.fifo")
            if f in readers:
                os.close(readers.pop(f))
            if os.path.lexists(f):
                os.unlink(f)
            as_other(lambda: os.mkfifo(f, 0o666))
            readers[f] = os.open(f, os.O_RDONLY | os.O_NONBLOCK)
            return f, f
        return plant

    def got_summary(f):
        fd = readers.get(f)
        chunks = []
        while fd is not None:
            try:
                b = os.read(fd, 65536)
            except BlockingIOError:
                break
            if not b:
                break
            chunks.append(b)
        return b"Total" in b"".join(chunks)

    try:
        for v in (0, 1, 2):
            set_sysctl("fifos", v)
            seen[(v, "w")] = compare(pid, "another user's FIFO in a sticky "
                                     "world-writable directory", "fifos", v,
                                     planted(world), got_summary)
            seen[(v, "g")] = compare(pid, "another user's FIFO in a sticky "
                                     "group-writable directory", "fifos", v,
                                     planted(group), got_summary)
    finally:
        for fd in readers.values():
            os.close(fd)
    T.ok(seen[(0, "w")] and not seen[(1, "w")] and seen[(1, "g")] and
         not seen[(2, "g")], "the shell's answers differ by value (the test "
         "tried each rule)", seen)


def main():
    if os.geteuid() != 0:
        T.skip("protected_* rules", "needs root to set the sysctls")
        T.done()
    names = ("symlinks", "regular", "fifos")
    try:
        saved = {n: get_sysctl(n) for n in names}
        for n in names:
            set_sysctl(n, saved[n])
    except OSError as e:
        T.skip("protected_* rules", "cannot set fs.protected_*: %s" % e)
        T.done()
    tmp = tempfile.mkdtemp(prefix="vmscope-protect-")
    os.chmod(tmp, 0o755)
    try:
        s, _ = T.start(["sleep", "600"], ready=False)
        deadline = time.time() + 10
        while time.time() < deadline:  # until it runs sleep, not python
            with open("/proc/%d/comm" % s.pid) as f:
                if f.read().strip() == "sleep":
                    break
        test_symlinks(s.pid, tmp)
        test_regular(s.pid, tmp)
        test_fifos(s.pid, tmp)
        T.kill(s)
    finally:
        for n in names:
            set_sysctl(n, saved[n])
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
