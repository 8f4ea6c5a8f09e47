#!/usr/bin/env python3
"""--watch N -o FIFO: one stream to the FIFO's reader, and a message, not a
silent block or a SIGPIPE death, when the reader goes away.

`vmscope --watch 0.1 -s -o FIFO PID` with no reader yet says it waits for
one; a reader then gets one summary a tick on the one open (3 read without
reopening); when the reader closes, vmscope exits by itself (within 60 s)
with status 4 and a message naming the FIFO and how many snapshots were
read. Not a signal, not a block (on the old code: a block in open() at the
next tick, or SIGPIPE). The same when the reader leaves in the middle of a
snapshot (a JSON export blocked in write() on a one-page pipe). And a
reader already waiting in open() when vmscope starts gets the stream, not
an end of file at once.
"""
import fcntl
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402


def read_line(f, timeout):
    deadline = time.time() + timeout
    buf = b""
    while not buf.endswith(b"\n") and time.time() < deadline:
        r, _, _ = select.select([f], [], [], deadline - time.time())
        if not r:
            break
        b = os.read(f.fileno(), 1)
        if not b:
            break
        buf += b
    return buf.decode(errors="replace")


def mid_write(fifo, pid):
    """The reader leaves in the middle of a snapshot: its pipe made one
    page (F_SETPIPE_SZ), a JSON export (tens of KB) blocks vmscope in
    write(); 1000 bytes read, then closed: EPIPE there, not SIGPIPE."""
    v = subprocess.Popen([T.VMSCOPE, "--watch", "0.1", "-e", "json", "-o",
                          fifo, str(pid)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    T._procs.append(v)
    fd = os.open(fifo, os.O_RDONLY)
    try:
        fcntl.fcntl(fd, 1031, 4096)  # F_SETPIPE_SZ
    except OSError:
        pass
    got = b""
    deadline = time.time() + 60
    while len(got) < 1000 and time.time() < deadline:
        r, _, _ = select.select([fd], [], [], deadline - time.time())
        if not r:
            break
        b = os.read(fd, 1000 - len(got))
        if not b:
            break
        got += b
    os.close(fd)
    try:
        v.wait(timeout=60)
    except subprocess.TimeoutExpired:
        pass
    err = v.stderr.read().decode(errors="replace") if v.poll() is not \
        None else "(still running: blocked)"
    T.ok(len(got) == 1000 and v.returncode == 4 and "went away after" in err
         and fifo in err, "-e json, the reader gone in the middle of a "
         "snapshot: exit 4 with the message, not SIGPIPE",
         "read %d bytes; status %r: %s" % (len(got), v.returncode, err))
    T.kill(v)


def waiting_in_open(pid):
    try:
        with open("/proc/%d/wchan" % pid) as f:
            if f.read().strip() == "wait_for_partner":
                return True
        with open("/proc/%d/stack" % pid) as f:
            return "fifo_open" in f.read()
    except OSError:
        return False


def reader_first(fifo, pid):
    """A reader already waiting in open() when vmscope starts (cat FIFO,
    seen in the kernel's wait_for_partner): it gets the summaries, not an
    end of file at once (on the old code vmscope's probe, opened and
    closed, was the only writer the reader met: cat read 0 bytes and
    left, and vmscope blocked in its own open)."""
    cat = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE)
    T._procs.append(cat)
    deadline = time.time() + 30
    while not waiting_in_open(cat.pid) and time.time() < deadline:
        time.sleep(0.01)
    if not waiting_in_open(cat.pid):
        T.skip("a reader waiting first", "cannot see cat wait in open()")
        T.kill(cat)
        return
    # Under gdb (when there is one), vmscope is held at its real open of
    # the FIFO, after its probe, until cat has either read an end of file
    # and left or blocked in read(): the old code's window, made certain.
    gdb = shutil.which("gdb")
    wait_cat = ("i=0; while [ -e /proc/%d ] && ! grep -q '^State:.Z' "
                "/proc/%d/status && ! grep -q pipe_read /proc/%d/wchan && "
                "[ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done"
                % (cat.pid, cat.pid, cat.pid))
    argv = [T.VMSCOPE, "--watch", "0.1", "-s", "-o", fifo, str(pid)]
    if gdb:
        argv = [gdb, "-q", "-batch", "-nx", "-ex", "break outbuf_open_file",
                "-ex", "run", "-ex", "shell " + wait_cat, "-ex",
                "continue", "--args"] + argv
    v = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         env=dict(os.environ, VMSCOPE_SHARED_LIBS="1"))
    T._procs.append(v)
    got = b""
    deadline = time.time() + 60
    while got.count(b"Process:") < 3 and time.time() < deadline:
        r, _, _ = select.select([cat.stdout], [], [], deadline - time.time())
        if not r:
            break
        b = os.read(cat.stdout.fileno(), 65536)
        if not b:
            break
        got += b
    T.ok(got.count(b"Process:") >= 3, "a reader waiting before vmscope "
         "starts gets a summary a tick (3 read), not an end of file",
         "read %d bytes" % len(got))
    T.kill(cat)
    try:
        v.wait(timeout=60)
    except subprocess.TimeoutExpired:
        pass
    err = v.stderr.read().decode(errors="replace") if v.poll() is not \
        None else "(still running: blocked)"
    if gdb:  # gdb's own status: vmscope's is in its words
        T.ok("exited with code 04" in err or "went away after" in err,
             "and when it leaves, exit 4 with the message (under gdb)",
             "status %r: %s" % (v.returncode, err[-600:]))
        T.kill(v)
        return
    T.ok(v.returncode == 4 and "went away after" in err,
         "and when it leaves, exit 4 with the message",
         "status %r: %s" % (v.returncode, err))
    T.kill(v)


def main():
    tmp = tempfile.mkdtemp(prefix="vmscope-wfifo-")
    try:
        fifo = os.path.join(tmp, "out.fifo")
        os.mkfifo(fifo)
        s, _ = T.start(["sleep", "600"], ready=False)
        v = subprocess.Popen([T.VMSCOPE, "--watch", "0.1", "-s", "-o", fifo,
                              str(s.pid)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        T._procs.append(v)
        line = read_line(v.stderr, 30)
        T.ok("waiting for a reader of" in line and fifo in line,
             "no reader yet: vmscope says it waits for one", line)
        fd = os.open(fifo, os.O_RDONLY)
        got = b""
        deadline = time.time() + 60
        while got.count(b"Process:") < 3 and time.time() < deadline:
            r, _, _ = select.select([fd], [], [], deadline - time.time())
            if not r:
                break
            b = os.read(fd, 65536)
            if not b:
                break
            got += b
        T.ok(got.count(b"Process:") >= 3, "the reader gets a summary a tick "
             "on one open (3 read)", got[-300:])
        os.close(fd)
        try:
            v.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pass
        err = v.stderr.read().decode(errors="replace") if v.poll() is not \
            None else "(still running: blocked)"
        T.ok(v.returncode is not None and v.returncode >= 0,
             "the reader gone: vmscope exits by itself, not by a signal",
             "status %r: %s" % (v.returncode, err))
        T.ok(v.returncode == 4 and "went away after" in err and fifo in err,
             "exit 4 with a message naming the FIFO",
             "status %r: %s" % (v.returncode, err))
        T.kill(v)
        mid_write(fifo, s.pid)
        reader_first(fifo, s.pid)
        T.kill(s)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
