"""-b fork on a thread inside an rseq critical section: the kernel clears
the thread's rseq_cs when the thread returns to user mode at the borrowed
system-call instruction (outside the section); restoring the saved ip inside
the section would leave it unprotected for good. vmscope must restore it to
the section's abort ip instead, so that aborts keep being counted. Both the
fork and the reap of the clone are injected: with one thread only, both go
into the spinning thread."""
import os
import struct
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import forktest  # noqa: E402
import vmstest  # noqa: E402
from vmstest import eq, ok  # noqa: E402

forktest.become_subreaper()
tmp = tempfile.mkdtemp(prefix="vms-rseq-")


def aborts(path):
    with open(path, "rb") as f:
        return struct.unpack("<Q", f.read(8))[0]


def grows(path, timeout=10):
    """Whether the abort count rises within timeout (polled: no threshold
    on how fast, only that it moves at all)."""
    first = aborts(path)
    deadline = time.time() + timeout
    while time.time() < deadline:
        if aborts(path) > first:
            return True
        time.sleep(0.01)
    return False


for threads in ("1", "2"):
    what = "rseq, %s thread%s" % (threads, "s" if threads == "2" else "")
    path = os.path.join(tmp, "count" + threads)
    p, _ = vmstest.start([vmstest.target("fork_rseq"), path, threads],
                         ready=False)
    line = p.stdout.readline().decode().strip()
    if not line.startswith("ready"):
        vmstest.skip(what, "no rseq here (%r)" % line)
        vmstest.kill(p)
        break
    ok(grows(path), "%s: aborts counted before the capture" % what)
    fails = []
    for i in range(3):
        # (tried again, as the message says, where every thread's stop
        # was the delivery of a signal: the target's 20 ms timer's,
        # which under load comes before the freeze's interrupt)
        for _ in range(5):
            r = vmstest.run_vmscope("-b", "fork", "-s", p.pid)
            if b"stopped receiving a signal" not in r.stderr:
                break
        if r.returncode != 0:
            fails.append(r.stderr.decode())
    eq(fails, [], "%s: three fork captures succeed" % what)
    eq(forktest.settled(p.pid), [], "%s: target untraced, running, no "
       "clone or zombie" % what)
    ok(grows(path), "%s: aborts still counted after the captures (the "
       "critical section is still protected)" % what)
    vmstest.kill(p)
for f in os.listdir(tmp):
    os.unlink(os.path.join(tmp, f))
os.rmdir(tmp)
vmstest.done()
