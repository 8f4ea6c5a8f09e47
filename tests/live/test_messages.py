#!/usr/bin/env python3
"""Messages that are true.

  - a kernel thread (kthreadd) is listed by --list and the picker (in
    tmux) as "(kernel thread)", never "(exited)"; a zombie as "(zombie)";
  - -s, -b fork -s and -F -s on a kernel thread: exit 2, one line saying
    it is a kernel thread, never "exited"; on a zombie: exit 2, one line
    saying it is a zombie and naming its parent, never "exited during
    capture";
  - `-- /bin/true`: the command exited before the capture, with its exit
    status (0; 7 for `exit 7`), and a command killed by a signal says so;
  - refused by a security module: vmscope inside a Landlock domain of its
    own, as root with CAP_SYS_PTRACE, on a process outside it: exit 2, the
    message blames a security module and does not tell root to run as root
    or to get CAP_SYS_PTRACE; pid 1 likewise when this root cannot read it;
  - --list beside a process of a uid with no name (setpriv, as root):
    exit 0, the process listed with its uid for a user. The name's lookup
    goes past /etc/passwd (NSS loads a module where nsswitch.conf names
    one); in the sanitizer build LeakSanitizer took the module's TLS for
    a leak, and its early exit lost the end of the list (a zombie's line
    went with it, 1 run in 10 of make check);
  - `-o -` writes standard output (tests/live/test_output.py).
"""
import ctypes
import os
import pwd
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402


def lines(r):
    return [l for l in r.stderr.decode(errors="replace").splitlines() if l]


def one_line(r, rc, what, want, never=None):
    ls = lines(r)
    line = ls[0] if ls else ""
    T.ok(r.returncode == rc and len(ls) == 1 and not r.stdout and
         re.search(want, line, re.I) and
         not (never and re.search(never, line, re.I)),
         "%s: exit %d, one line /%s/%s" % (what, rc, want,
                                          never and ", not /%s/" % never
                                          or ""),
         "exit %d, stderr %r" % (r.returncode, ls))
    return line


def list_line(pid):
    """(pid's line of --list, ""), or (None, what --list said instead: its
    exit status and first lines of standard error) when it has none."""
    r = T.run_vmscope("--list", "--sort=pid")
    for l in r.stdout.decode(errors="replace").splitlines():
        if l.split()[:1] == [str(pid)]:
            return l, ""
    return None, "no line for %d: exit %d, %d lines, stderr %r" % (
        pid, r.returncode, r.stdout.count(b"\n"), lines(r)[:3])


def kthread_pid():
    """A kernel thread: kthreadd (pid 2) where there is one."""
    try:
        with open("/proc/2/stat") as f:
            st = f.read()
        if int(st[st.rindex(")") + 2:].split()[6]) & 0x00200000:
            return 2
    except (OSError, ValueError, IndexError):
        pass
    return None


def test_kernel_thread():
    pid = kthread_pid()
    if not pid:
        T.skip("a kernel thread", "none visible here (a PID namespace?)")
        return
    l, why = list_line(pid)
    T.ok(l and "(kernel thread)" in l and "exited" not in l,
         "--list: a kernel thread says so, not (exited)", l or why)
    for args in (("-s",), ("-b", "fork", "-s"), ("-F", "-s"),
                 ("-e", "json")):
        r = T.run_vmscope(*args, pid)
        one_line(r, 2, "%s on a kernel thread" % " ".join(args),
                 "kernel thread", "exited")


def test_picker_kernel_thread():
    """The picker says "kernel thread" too (the same list as --list)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "tui", "lib"))
    import tmuxdrive as D
    pid = kthread_pid()
    if not pid or not D.have_tmux():
        T.skip("the picker on a kernel thread", "no kernel thread or tmux")
        return
    tm = D.Tmux([T.VMSCOPE])
    try:
        tm.wait_for(lambda s: "pick a process" in s and "sort " in s)
        tm.text("kthreadd")
        scr = tm.wait_for(lambda s: "Filter: kthreadd_" in s and
                          "kthreadd" in (D.row_of(s, " %d " % pid) or ""))
        row = D.row_of(scr, " %d " % pid) or ""
        T.ok("kernel thread" in row and "exited" not in row,
             "picker: a kernel thread says so, not (exited)", scr)
    finally:
        tm.kill()


def test_zombie():
    z = subprocess.Popen(["true"])
    try:
        deadline = time.time() + 10
        while T.proc_state(z.pid) != "Z" and time.time() < deadline:
            time.sleep(0.01)
        state = T.proc_state(z.pid)
        l, why = list_line(z.pid)
        T.ok(l and "(zombie)" in l, "--list: a zombie says so",
             "%s (state %s before, %s after)" %
             (l or why, state, T.proc_state(z.pid)))
        for args in (("-s",), ("-b", "fork", "-s"), ("-F", "-s")):
            r = T.run_vmscope(*args, z.pid)
            line = one_line(r, 2, "%s on a zombie" % " ".join(args),
                            "zombie", "during capture")
            T.ok(str(os.getpid()) in line,
                 "... and names its parent (%d)" % os.getpid(), line)
    finally:
        z.wait()


def test_launched():
    r = T.run_vmscope("-s", "--delay=0.3", "--", "/bin/true")
    one_line(r, 3, "-- /bin/true", r"/bin/true exited before the capture "
             r"\(exit status 0\)", "kernel thread|zombie|address space")
    r = T.run_vmscope("-s", "--delay=0.3", "--", "sh", "-c", "exit 7")
    one_line(r, 3, "-- sh -c 'exit 7'", r"exited before the capture "
             r"\(exit status 7\)")
    r = T.run_vmscope("-s", "--delay=0.3", "--", "sh", "-c", "kill -9 $$")
    one_line(r, 3, "-- a command killed by SIGKILL", r"killed by signal 9")


# ---- Landlock: a security module that refuses root with CAP_SYS_PTRACE ----

LANDLOCK_ACCESS_FS_MAKE_SOCK = 1 << 10


def landlock_abi():
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))


def enter_landlock():
    """preexec_fn: a Landlock domain of its own (it handles only socket
    creation, so files are as before), which keeps ptrace to processes
    inside it."""
    libc = ctypes.CDLL(None, use_errno=True)
    attr = ctypes.c_uint64(LANDLOCK_ACCESS_FS_MAKE_SOCK)
    fd = libc.syscall(444, ctypes.byref(attr), ctypes.c_size_t(8),
                      ctypes.c_uint32(0))
    if fd < 0:
        os._exit(126)
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        os._exit(126)
    if libc.syscall(446, fd, ctypes.c_uint32(0)) != 0:
        os._exit(126)
    os.close(fd)


def has_cap_sys_ptrace():
    with open("/proc/self/status") as f:
        for l in f:
            if l.startswith("CapEff:"):
                return (int(l.split()[1], 16) >> 19) & 1 == 1
    return False


NOT_ROOT_ADVICE = r"run as root|root with CAP_SYS_PTRACE|grant"


def test_security_module():
    if os.geteuid() != 0 or not has_cap_sys_ptrace():
        T.skip("a security module refuses root", "not root with "
               "CAP_SYS_PTRACE")
        return
    if landlock_abi() < 1:
        T.skip("a security module refuses root", "no Landlock here")
        return
    p, _ = T.start_asleep(["sleep", "600"])
    try:
        r = T.run_vmscope("-s", p.pid, preexec_fn=enter_landlock)
        if r.returncode == 0:
            T.skip("Landlock refuses root", "this kernel let it read")
        else:
            one_line(r, 2, "root inside a Landlock domain on a process "
                     "outside it", "security module", NOT_ROOT_ADVICE)
    finally:
        T.kill(p)
    try:
        with open("/proc/1/smaps_rollup") as f:
            f.read(1)
        T.skip("pid 1 as root", "this root can read pid 1")
    except PermissionError:
        r = T.run_vmscope("-s", 1)
        one_line(r, 2, "pid 1 as root with CAP_SYS_PTRACE", "not permitted",
                 NOT_ROOT_ADVICE)


def nameless_uid():
    """A uid from 54321 up that names no user."""
    uid = 54321
    while True:
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
        uid += 1


def test_nameless_user():
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        T.skip("--list beside a uid with no name", "needs root and setpriv")
        return
    uid = nameless_uid()
    p = subprocess.Popen(["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid,
                          "--clear-groups", "sleep", "60"])
    try:
        deadline = time.time() + 10
        while time.time() < deadline and p.poll() is None:
            with open("/proc/%d/status" % p.pid) as f:
                if "\nUid:\t%d\t" % uid in f.read():
                    break
            time.sleep(0.01)
        if not T.ok(p.poll() is None, "setpriv runs sleep as uid %d" % uid,
                    "exit %s" % p.returncode):
            return
        r = T.run_vmscope("--list", "--sort=pid")
        out = r.stdout.decode(errors="replace").splitlines()
        l = [x for x in out if x.split()[:1] == [str(p.pid)]]
        T.ok(r.returncode == 0 and l and str(uid) in l[0].split()[1:2],
             "--list beside a uid with no name: exit 0, its process listed "
             "with the uid for a user",
             "exit %d, %d lines, its line %r, stderr %r" %
             (r.returncode, len(out), l, lines(r)[:8]))
    finally:
        p.kill()
        p.wait()


def main():
    test_nameless_user()
    test_kernel_thread()
    test_picker_kernel_thread()
    test_zombie()
    test_launched()
    test_security_module()
    T.done()


if __name__ == "__main__":
    main()
