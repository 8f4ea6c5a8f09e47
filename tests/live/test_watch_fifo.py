#!/usr/bin/env python3
"""--watch N -o FIFO: one stream to the FIFO's reader, and a message, not a
silent block or a SIGPIPE death, when the reader goes away.

`vmscope --watch 0.1 -s -o FIFO PID` with no reader yet says it waits for
one; a reader then gets one summary a tick on the one open (3 read without
reopening); when the reader closes, vmscope exits by itself (within 60 s)
with status 4 and a message naming the FIFO and how many snapshots were
read. Not a signal, not a block (on the old code: a block in open() at the
next tick, or SIGPIPE). The same when the reader leaves in the middle of a
snapshot (a JSON export blocked in write() on a one-page pipe).
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
        T.kill(s)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    T.done()


if __name__ == "__main__":
    main()
