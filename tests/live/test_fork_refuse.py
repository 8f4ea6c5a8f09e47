"""-b fork refuses what it cannot do safely, says why and what to do, and
never falls back to pss by itself: a seccomp filter in the target, a target
already traced, no such process. The refused target is left untouched."""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import forktest  # noqa: E402
import vmstest  # noqa: E402
from vmstest import eq, ok  # noqa: E402

forktest.become_subreaper()

p, _ = vmstest.start([vmstest.target("fork_seccomp")])
r = vmstest.run_vmscope("-b", "fork", "-s", p.pid)
err = r.stderr.decode()
eq(r.returncode, 3, "seccomp filter: exit status 3 (capture refused)")
ok("seccomp" in err and "-b pss" in err,
   "seccomp filter: the message says why and what to do", err)
eq(r.stdout, b"", "seccomp filter: no summary printed (no silent pss)")
ok(vmstest.tracer_pid(p.pid) == 0 and vmstest.proc_state(p.pid) in "SR"
   and not forktest.children(p.pid),
   "seccomp filter: the target is left running, untraced, without a child")
vmstest.kill(p)

# Strict mode (Seccomp: 1): any call but read/write/exit/sigreturn kills.
p, _ = vmstest.start([vmstest.target("fork_seccomp"), "strict"])
r = vmstest.run_vmscope("-b", "fork", "-s", p.pid)
err = r.stderr.decode()
eq(r.returncode, 3, "strict seccomp: exit status 3 (capture refused)")
ok("strict" in err and "-b pss" in err,
   "strict seccomp: the message says why and what to do", err)
ok(p.poll() is None and vmstest.tracer_pid(p.pid) == 0
   and vmstest.proc_state(p.pid) in "SR" and not forktest.children(p.pid),
   "strict seccomp: the target is left alive, running, untraced, without "
   "a child")
vmstest.kill(p)

# A target someone else traces (strace, if installed).
strace = "/usr/bin/strace"
if os.path.exists(strace):
    p, _ = vmstest.start([vmstest.target("fork_value")])
    tr = subprocess.Popen([strace, "-q", "-o", "/dev/null", "-p",
                           str(p.pid)], stderr=subprocess.DEVNULL)
    vmstest._procs.append(tr)
    deadline = time.time() + 10
    while vmstest.tracer_pid(p.pid) != tr.pid and time.time() < deadline:
        time.sleep(0.01)
    r = vmstest.run_vmscope("-b", "fork", "-s", p.pid)
    err = r.stderr.decode()
    eq(r.returncode, 2, "already traced: exit status 2 (not permitted)")
    ok("already traced" in err, "already traced: the message says so", err)
    os.kill(tr.pid, signal.SIGINT)
    tr.wait(timeout=10)
    vmstest.kill(p)
else:
    vmstest.skip("already traced: refused", "no strace")

r = vmstest.run_vmscope("-b", "fork", "-s", "999999999")
ok(r.returncode in (1, 2), "no such process: exit status 1 or 2 (%d)"
   % r.returncode, r.stderr.decode())
vmstest.done()
