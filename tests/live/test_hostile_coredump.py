#!/usr/bin/env python3
# run alone: sets the machine's core_pattern
"""A process in the middle of dumping core: vmscope gives a clear result or
a clear message, never hangs, never cuts the dump short.

The kernel pipes the core (core_pattern "|READER %P") to a reader this test
controls, which holds it back until told: the target stays in the middle of
its dump (CoreDumping: 1, blocked writing the core into the pipe) for as
long as the test needs. core_pattern is the machine's: it is saved and put
back in a finally, and a core of any other process is read to its end and
dropped at once (nothing else waits on the reader). Root only.

  - `vmscope -s PID` (the default sampler, which never stops a process)
    reads it: status 0, its summary, the dump still going on;
  - `-F -s` and `-b fork -s` refuse with status 3 and a message that says
    it is dumping core and that nothing touched it, within the bound (on
    the old code: the keeper's PTRACE_INTERRUPT woke the dumping thread,
    the core was cut short at some 60 KB of 870 MB, the process died and
    the message was "no such process");
  - `--trace --duration=0.3 -s PID` (an attach) does not inject the
    tracer (that would stop it): the report (its maps from the kernel)
    or the message says it dumps core and was not touched, the dump
    still going on;
  - let go, the reader gets the whole core: every PT_LOAD segment's bytes
    are in the file (offset + size within its length), and the target died
    of SIGSEGV with its core dumped.
Twice: `sleep`, and hostile_target "threads" (its main thread exited: the
zombie leader's own status has no CoreDumping line, a live thread's has).
The kernel starts the reader from its own root: in a chroot or container
whose files it does not see, the target dies undumped and the test says so
(a skip) at once.
"""
import os
import signal
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import vmstest as T  # noqa: E402

PATTERN = "/proc/sys/kernel/core_pattern"

# $1: the dumping process's pid (%P, as the initial PID namespace sees it).
READER = """#!/bin/sh
d=%s
touch "$d/ran.$1"
if [ -e "$d/want.$1" ]; then
    timeout 300 cat "$d/go.fifo" > /dev/null
    cat > "$d/core.$1"
    touch "$d/done.$1"
else
    cat > /dev/null
fi
"""


def core_dumping(pid):
    """CoreDumping: 1 in the status of a thread that has the address space
    (an exited main thread's own status has no such line)."""
    try:
        tasks = sorted(int(t) for t in os.listdir("/proc/%d/task" % pid))
    except (FileNotFoundError, ProcessLookupError):
        return False
    for tid in tasks:
        try:
            with open("/proc/%d/task/%d/status" % (pid, tid)) as f:
                for line in f:
                    if line.startswith("CoreDumping:"):
                        return int(line.split()[1]) == 1
        except (FileNotFoundError, ProcessLookupError):
            pass
    return False


def poll(cond, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(0.01)
    return cond()


def core_complete(path):
    """(complete, why): every PT_LOAD's bytes lie inside the file."""
    with open(path, "rb") as f:
        data = f.read(64)
        if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2:
            return False, "not an ELF64 file (%d bytes)" % len(data)
        phoff, = struct.unpack_from("<Q", data, 32)
        phentsize, phnum = struct.unpack_from("<HH", data, 54)
        f.seek(phoff)
        ph = f.read(phentsize * phnum)
    size = os.path.getsize(path)
    end, loads = 0, 0
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", ph, i * phentsize)
        if p_type == 1:
            loads += 1
            end = max(end, p_offset + p_filesz)
    return (loads > 0 and end <= size,
            "%d PT_LOAD, they end at %d, the file has %d bytes" %
            (loads, end, size))


def open_fifo(fifo):
    """Whether the fifo could be opened for writing now (its reader
    waits on it): opened and closed, the reader's go."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        return True
    except OSError:
        return False


def leader_exited(p):
    """hostile_target threads: the main thread exits right after ready."""
    return lambda: T.proc_state(p.pid) == "Z" and len(T.tids(p.pid)) > 80


def one(label, tmp, fifo, start):
    p, ready = start()
    try:
        if ready and not T.ok(poll(ready, 60), "%s: ready" % label):
            return
        open(os.path.join(tmp, "want.%d" % p.pid), "w").close()
        os.kill(p.pid, signal.SIGSEGV)
        poll(lambda: core_dumping(p.pid) or p.poll() is not None, 60)
        if (not core_dumping(p.pid) and p.poll() is not None and
                not os.path.exists(os.path.join(tmp, "ran.%d" % p.pid))):
            # It died and the kernel never started the reader: the kernel
            # runs it from its own root, which does not see this one's
            # files (a chroot, a container).
            T.skip("%s: in the middle of its dump" % label,
                   "the kernel did not start the core_pattern reader %s "
                   "(its root is not this test's: a chroot or container?)"
                   % os.path.join(tmp, "reader.sh"))
            return
        if not T.ok(core_dumping(p.pid),
                    "%s: in the middle of its dump (CoreDumping: 1)"
                    % label):
            return
        r = T.run_vmscope("-s", p.pid, timeout=120)
        T.ok(r.returncode == 0 and b"Process:" in r.stdout,
             "%s: -s (never stops it): status 0 and its summary" % label,
             "status %d: %s" % (r.returncode, r.stderr.decode()))
        T.ok(core_dumping(p.pid), "%s: after -s the dump goes on" % label)
        for args, what in ((["-F"], "-F"), (["-b", "fork"], "-b fork")):
            r = T.run_vmscope(*args, "-s", p.pid, timeout=120)
            err = r.stderr.decode(errors="replace")
            T.ok(r.returncode == 3 and "dumping core" in err and
                 "not touched" in err and str(p.pid) in err,
                 "%s, %s: status 3 and a message saying it dumps core "
                 "and was not touched" % (label, what),
                 "status %d: %s" % (r.returncode, err))
            T.ok(core_dumping(p.pid), "%s: after %s the dump goes on"
                 % (label, what))
        # An attach: the tracer is not injected (that stops it), the
        # reason said; its maps from the kernel, which stops nothing.
        r = T.run_vmscope("--trace", "--duration=0.3", "-s", p.pid,
                          timeout=120)
        out = r.stdout.decode(errors="replace")
        err = r.stderr.decode(errors="replace")
        inj = [ln for ln in out.splitlines() if ln.startswith("Injected:")]
        T.ok((r.returncode == 0 and inj and "dumping core" in inj[0] and
              "not touched" in inj[0]) or
             (r.returncode != 0 and "dumping core" in err),
             "%s, --trace PID: not injected, saying it dumps core and was "
             "not touched" % label, "status %d: %s%s"
             % (r.returncode, out[-300:], err[-300:]))
        T.ok(core_dumping(p.pid), "%s: after --trace PID the dump goes on"
             % label)
        # Let the reader take the core: the fifo opened without blocking
        # once the reader waits on it (a kernel that could not start it,
        # from another root, left this test waiting for ever: freshcheck)
        if not poll(lambda: open_fifo(fifo), 60):
            ran = os.path.exists(os.path.join(tmp, "ran.%d" % p.pid))
            if not ran:
                T.skip("%s: the reader got the core" % label,
                       "the kernel did not start the core_pattern reader "
                       "(its root is not this test's: a chroot or "
                       "container?)")
            else:
                T.ok(False, "%s: the reader waits for the go" % label)
            return
        try:
            p.wait(timeout=300)
        except subprocess.TimeoutExpired:
            pass
        T.ok(p.returncode == -signal.SIGSEGV,
             "%s: died of its SIGSEGV" % label, p.returncode)
        done = os.path.join(tmp, "done.%d" % p.pid)
        if T.ok(poll(lambda: os.path.exists(done), 120),
                "%s: the reader got the core to its end" % label):
            good, why = core_complete(os.path.join(tmp, "core.%d" % p.pid))
            T.ok(good, "%s: the core is whole: every segment's bytes are "
                 "in it" % label, why)
    finally:
        T.kill(p)


def chrooted():
    """Whether this test runs chrooted: the kernel starts the core_pattern
    reader from its own root, where this test's reader is not."""
    # the root of a filesystem mounted at "/" (mountinfo's 4th field is
    # the directory of its filesystem that the mount shows): a chroot
    # into a directory, or into one bound on itself (make freshcheck),
    # has none
    try:
        with open("/proc/self/mountinfo") as f:
            return not any(ln.split()[3:5] == ["/", "/"] for ln in f)
    except (OSError, IndexError):
        return False


def main():
    if os.geteuid() == 0 and chrooted():
        T.skip("a process dumping core", "this test runs in a chroot: the "
               "kernel would start the core_pattern reader from pid 1's "
               "root, which does not have it")
        return T.done()
    if os.geteuid() != 0 or not os.access(PATTERN, os.W_OK):
        T.skip("a process dumping core", "needs root to set core_pattern")
        return T.done()
    tmp = tempfile.mkdtemp(prefix="vmscope-dumping-")
    os.chmod(tmp, 0o755)
    reader = os.path.join(tmp, "reader.sh")
    with open(reader, "w") as f:
        f.write(READER % tmp)
    os.chmod(reader, 0o755)
    fifo = os.path.join(tmp, "go.fifo")
    os.mkfifo(fifo)
    with open(PATTERN) as f:
        saved = f.read().rstrip("\n")
    try:
        with open(PATTERN, "w") as f:
            f.write("|%s %%P" % reader)
        one("sleep", tmp, fifo,
            lambda: (T.start_asleep(["sleep", "600"])[0], None))

        def threads():
            p, _ = T.start([T.target("hostile_target"), "threads"])
            return p, leader_exited(p)
        one("main thread exited, 80 threads", tmp, fifo, threads)
    finally:
        with open(PATTERN, "w") as f:
            f.write(saved)
        # A reader still waiting is let go (no writer: nothing waits).
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


main()
